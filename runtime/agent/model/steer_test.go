package model_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/agent/model"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// memTools are agent.Tools in memory, with steered prompts: the runner does not steer yet,
// so the hook is tested on its own.
type memTools struct {
	evs     []protocol.Event
	steered [][]string // handed out one entry per call
}

func (m *memTools) add(typ protocol.EventType, data any) {
	raw, _ := jsonRaw(data)
	m.evs = append(m.evs, protocol.Event{Offset: uint64(len(m.evs) + 1), Type: typ, Data: raw})
}

func (m *memTools) Say(_ context.Context, text string) error {
	m.add(protocol.EventAgentMessage, protocol.Message{Text: text})
	return nil
}
func (m *memTools) Ask(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
	return decision.Answer{}, decision.ErrAborted
}
func (m *memTools) Authorize(context.Context, []gate.ToolCall) (gate.Verdict, error) {
	return gate.Verdict{}, nil
}
func (m *memTools) History(context.Context) ([]protocol.Event, error) { return m.evs, nil }
func (m *memTools) Stream(context.Context) agent.MessageWriter {
	return &agent.Writer{ID: "s", Now: time.Now, Store: func(_ context.Context, typ protocol.EventType, data any, _ string) error {
		m.add(typ, data)
		return nil
	}}
}
func (m *memTools) Notice(_ context.Context, text string) error {
	m.add(protocol.EventAgentMessage, protocol.Message{Text: text, From: protocol.FromParley})
	return nil
}
func (m *memTools) Called(_ context.Context, c protocol.ToolCalled) error {
	m.add(protocol.EventToolCalled, c)
	return nil
}
func (m *memTools) Result(_ context.Context, r protocol.ToolResult) error {
	m.add(protocol.EventToolResult, r)
	return nil
}
func (m *memTools) Steered(context.Context) ([]string, error) {
	if len(m.steered) == 0 {
		return nil, nil
	}
	next := m.steered[0]
	m.steered = m.steered[1:]
	return next, nil
}

func TestSteeredPromptsReachTheModelAtItsNextStep(t *testing.T) {
	srv := newFakeServer(t, calls("index", call{"l", "list_files", `{}`}), text("Both done."))
	tools := &memTools{steered: [][]string{nil, {"also check the tests"}}}
	tools.add(protocol.EventUserMessage, protocol.Message{Text: "look around"})
	a := model.New(model.Config{URL: srv.base(), Model: "m"})
	require.NoError(t, a.Turn(context.Background(), agent.Input{Prompt: 1, Text: "look around", Workspace: t.TempDir()}, tools))

	reqs := srv.requestsSoFar()
	require.Len(t, reqs, 2)
	assert.Equal(t, "system user", roles(reqs[0]))
	assert.Equal(t, "system user assistant[list_files] tool user", roles(reqs[1]), "after the tool results, before the next call")
	assert.Equal(t, "also check the tests", reqs[1].Messages[4].Content)
}

// TestSteerThroughTheRunner: a prompt sent with steer while the model's turn runs reaches
// the model at its next step, after the tool results, and starts no turn of its own; the
// next turn's conversation has it where it was taken.
func TestSteerThroughTheRunner(t *testing.T) {
	hold := make(chan struct{})
	first := calls("index", call{"l", "list_files", `{}`})
	first.hold = hold
	srv := newFakeServer(t, first, text("Both done."), text("Fine."))
	e := newEnv(t, srv)
	start := e.send("look around")
	require.Eventually(t, func() bool { return len(srv.requestsSoFar()) == 1 }, 10*time.Second, 10*time.Millisecond)
	e.prompts++
	_, err := e.rt.SendPrompt(context.Background(), e.session, protocol.SendPromptRequest{Text: "also check the tests", AttemptID: "steer-1", Mode: protocol.ModeSteer})
	require.NoError(t, err)
	close(hold)
	evs := e.waitEnded(start)

	reqs := srv.requestsSoFar()
	require.Len(t, reqs, 2)
	assert.Equal(t, "system user assistant[list_files] tool user", roles(reqs[1]), "after the tool results, before the next call")
	assert.Equal(t, "also check the tests", reqs[1].Messages[4].Content)
	assert.Len(t, testkit.OfType(evs, protocol.EventPromptSteered), 1)
	time.Sleep(300 * time.Millisecond)
	all, err := e.rt.Log().Read(context.Background(), e.session, 0)
	require.NoError(t, err)
	assert.Len(t, testkit.OfType(all, protocol.EventTurnStarted), 1, "the steered prompt ran no turn of its own")

	e.prompt("thanks")
	reqs = srv.requestsSoFar()
	require.Len(t, reqs, 3)
	assert.Equal(t, "system user assistant[list_files] tool user assistant user", roles(reqs[2]), "rebuilt from the log, the steer where it was taken")
}
