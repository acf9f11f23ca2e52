package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/decision"
)

// flowTools answer a URL consent with "open" and hand the wait for the step to the test.
type flowTools struct {
	fakeTools
	waits chan waitAsked
}

type waitAsked struct {
	req    protocol.DecisionRequest
	ctx    context.Context
	answer chan decision.Answer
}

func newFlowTools() *flowTools {
	f := &flowTools{waits: make(chan waitAsked, 4)}
	f.answer = func(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		if req.URL != "" {
			b, _ := json.Marshal(protocol.ApprovalAnswer{Option: pointer(0)})
			return decision.Answer{Action: protocol.ActionAccept, Content: b}, nil
		}
		w := waitAsked{req: req, ctx: ctx, answer: make(chan decision.Answer, 1)}
		f.waits <- w
		select {
		case a := <-w.answer:
			return a, nil
		case <-ctx.Done():
			return decision.Answer{}, fmt.Errorf("question %w: withdrawn", decision.ErrAborted)
		}
	}
	return f
}

func pickOption(i int) decision.Answer {
	b, _ := json.Marshal(protocol.ApprovalAnswer{Option: &i})
	return decision.Answer{Action: protocol.ActionAccept, Content: b}
}

// startLoginLater calls login_later in the background and returns the wait it asks once the
// user consented, and the call's outcome to come.
func startLoginLater(t *testing.T, s *Set, ft *flowTools, ctx context.Context) (waitAsked, chan protocol.ToolResult) {
	t.Helper()
	done := make(chan protocol.ToolResult, 1)
	go func() {
		_, res, err := run(t, s, &ft.fakeTools, ctx, "mcp__test__login_later", `{}`)
		assert.NoError(t, err)
		done <- res
	}()
	var w waitAsked
	select {
	case w = <-ft.waits:
	case res := <-done:
		t.Fatalf("the call ended without waiting for the step in the browser: %+v", res)
	case <-time.After(30 * time.Second):
		t.Fatal("no wait was asked after consent")
	}
	return w, done
}

// After consent through elicitation/create, the call waits for the step in the browser:
// the decision says so until the server's notifications/elicitation/complete ends it, and
// only then does the call's result come back.
func TestAConsentedURLElicitationWaitsForTheServersCompletion(t *testing.T) {
	dir := workspace(t, map[string]any{"test": self(t, "stdio")})
	s := manager(t, Options{}).Workspace(dir)
	ready(t, s)
	ft := newFlowTools()
	w, done := startLoginLater(t, s, ft, context.Background())
	assert.Equal(t, protocol.KindApproval, w.req.Kind)
	assert.Contains(t, w.req.Message, "Waiting for you to finish in the browser")
	assert.Contains(t, w.req.Message, "its call goes on after")
	require.True(t, strings.HasPrefix(w.req.Details, "https://wiki.example/login?session="), w.req.Details)
	select {
	case res := <-done:
		t.Fatalf("the result came back before the step was complete: %+v", res)
	default:
	}

	// The server says the step is complete (as its OAuth callback would).
	id := strings.TrimPrefix(w.req.Details, "https://wiki.example/login?session=")
	_, res, err := run(t, s, &fakeTools{}, context.Background(), "mcp__test__finish_login", `{"id":"`+id+`"}`)
	require.NoError(t, err)
	require.Equal(t, "completed "+id, res.Text)
	select {
	case <-w.ctx.Done():
		assert.ErrorIs(t, context.Cause(w.ctx), errCompleted, "the wait is withdrawn by the completion")
	case <-time.After(30 * time.Second):
		t.Fatal("the completion did not end the wait")
	}
	select {
	case res := <-done:
		assert.False(t, res.Error)
		assert.Equal(t, "action=accept", res.Text)
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return after the completion")
	}
}

// The user's "I am done there" ends the wait when the server sends no completion; "Give up"
// makes the call an error the model reads.
func TestAURLElicitationsWaitEndsByTheUsersWord(t *testing.T) {
	dir := workspace(t, map[string]any{"test": self(t, "stdio")})
	s := manager(t, Options{}).Workspace(dir)
	ready(t, s)

	for _, c := range []struct {
		name, label string
		option      int
		wantError   bool
		wantText    string // what the result's text holds
	}{
		{"done", "I am done there", 0, false, "action=accept"},
		{"give up", "Give up", 1, true, "the user gave up on the step in the browser at https://wiki.example/login?session="},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, done := startLoginLater(t, s, newFlowTools(), context.Background())
			assert.Equal(t, c.label, w.req.Options[c.option].Label)
			w.answer <- pickOption(c.option)
			res := <-done
			assert.Equal(t, c.wantError, res.Error)
			assert.Contains(t, res.Text, c.wantText)
		})
	}
	t.Run("stop", func(t *testing.T) {
		ft := newFlowTools()
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() {
			_, _, err := run(t, s, &ft.fakeTools, ctx, "mcp__test__login_later", `{}`)
			done <- err
		}()
		w := <-ft.waits
		cancel(decision.ErrStopped)
		<-w.ctx.Done()
		assert.ErrorIs(t, <-done, decision.ErrStopped, "a stopped turn ends the wait and the call")
	})
}
