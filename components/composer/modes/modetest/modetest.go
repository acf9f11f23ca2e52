// Package modetest helps native tests of the composer's modes: a Host that records what a
// mode asks of the container, a real go-app Context, and the fixtures several modes' tests
// ask with.
package modetest

import (
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/machine/composer"
	"parley/protocol"
)

// Host implements modes.Host and records every call.
type Host struct {
	Fns      []protocol.Function // what Functions returns
	Base     string              // the client's base URL
	Answers  []Answered
	Done     []func(app.Context, error) // each Answer's callback, for the test to settle
	Problems []string
	Closes   int
	Chats    int
	Laters   int
	Runs     []string // the sessions Ran was told of
}

// Answered is one Answer call.
type Answered struct {
	ID    string
	Reply protocol.ReplyRequest
}

// Client implements modes.Host.
func (h *Host) Client() *api.Client { return &api.Client{Base: h.Base} }

// SessionID implements modes.Host.
func (h *Host) SessionID() string { return "s1" }

// Functions implements modes.Host.
func (h *Host) Functions() []protocol.Function { return h.Fns }

// Answer implements modes.Host.
func (h *Host) Answer(_ app.Context, d composer.Decision, r protocol.ReplyRequest, done func(app.Context, error)) {
	h.Answers = append(h.Answers, Answered{d.ID, r})
	h.Done = append(h.Done, done)
}

// ChatAbout implements modes.Host.
func (h *Host) ChatAbout(app.Context) { h.Chats++ }

// Close implements modes.Host.
func (h *Host) Close(app.Context) { h.Closes++ }

// Ran implements modes.Host.
func (h *Host) Ran(_ app.Context, session string) { h.Runs = append(h.Runs, session) }

// SetProblem implements modes.Host.
func (h *Host) SetProblem(text string) { h.Problems = append(h.Problems, text) }

// Later implements modes.Host: it runs f at once.
func (h *Host) Later(f func()) { h.Laters++; f() }

// LastProblem returns the last problem shown, if any.
func (h *Host) LastProblem() (string, bool) {
	if len(h.Problems) == 0 {
		return "", false
	}
	return h.Problems[len(h.Problems)-1], true
}

// grab captures a real Context: OnPreRender runs natively, OnMount does not.
type grab struct {
	app.Compo
	ctx app.Context
}

func (g *grab) OnPreRender(ctx app.Context) { g.ctx = ctx }
func (g *grab) Render() app.UI              { return app.Div() }

// Context returns a test engine and a real Context from it.
func Context(t *testing.T) (app.TestEngine, app.Context) {
	t.Helper()
	e := app.NewTestEngine()
	g := &grab{}
	require.NoError(t, e.Load(g))
	e.ConsumeAll()
	return e, g.ctx
}

// NewContext is Context for a test that does not drive the engine.
func NewContext(t *testing.T) app.Context {
	t.Helper()
	_, ctx := Context(t)
	return ctx
}

// Ask is an ask decision's request.
func Ask(message string, s *protocol.Schema) protocol.DecisionRequest {
	return protocol.DecisionRequest{Kind: protocol.KindAsk, Message: message, Schema: s}
}

// ThreeQuestions is a form asked one question at a time: a name and a colour required, and
// whether to notify, optional.
func ThreeQuestions() protocol.DecisionRequest {
	return Ask("About you", &protocol.Schema{
		Type: "object",
		Properties: protocol.Properties{
			{Key: "name", Schema: &protocol.Schema{Type: "string", Header: "Name", Title: "Your name"}},
			{Key: "color", Schema: &protocol.Schema{Type: "string", Header: "Colour", Enum: []string{"red", "green"}}},
			{Key: "notify", Schema: &protocol.Schema{Type: "boolean", Header: "Notify"}},
		},
		Required: []string{"name", "color"},
	})
}
