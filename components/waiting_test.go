package components

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/app/store"
	"parley/components/viewtest"
)

// TestWaitsOnYou: a running call waits on the pending decision drawn after it (past its
// batch's other calls), and on nothing else.
func TestWaitsOnYou(t *testing.T) {
	call := store.Message{Role: store.RoleTool, Status: store.StatusRunning}
	pending := store.Message{Role: store.RoleDecision, Status: store.StatusPending}
	answered := store.Message{Role: store.RoleDecision, Status: store.StatusDone}
	agent := store.Message{Role: store.RoleAgent}
	wrote := call
	wrote.Output = "hello\n"
	done := call
	done.Status = store.StatusDone
	tests := []struct {
		name  string
		shown []store.Message
		want  bool
	}{
		{"its approval is pending", []store.Message{call, pending}, true},
		{"a batch's first call", []store.Message{call, call, pending}, true},
		{"its approval was answered", []store.Message{call, answered}, false},
		{"the last entry", []store.Message{call}, false},
		{"the agent spoke after it", []store.Message{call, agent, pending}, false},
		{"it has written output", []store.Message{wrote, pending}, false},
		{"it is done", []store.Message{done, pending}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, waitsOnYou(tt.shown, 0), tt.name)
	}
}

// A call waiting on its approval says the answer is below, unless the approval is set aside:
// then the composer below holds the input, and the call only waits (QA round 12 #14).
func TestAToolWaitingOnASetAsideApprovalSaysOnlyThatItWaits(t *testing.T) {
	call := store.Message{Role: store.RoleTool, Status: store.StatusRunning, Title: "write_file"}
	pending := store.Message{Role: store.RoleDecision, Status: store.StatusPending, ID: "d1"}
	html := viewtest.Render(t, &Thread{Messages: []store.Message{call, pending}})
	assert.Contains(t, html, "Waiting for your answer below")
	aside := viewtest.Render(t, &Thread{Messages: []store.Message{call, pending}, Aside: "d1"})
	assert.NotContains(t, aside, "Waiting for your answer below")
	assert.Contains(t, aside, "waiting for you")
}
