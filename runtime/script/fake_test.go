package script

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// fakeCaps records what a script does with its capabilities and answers from the test's
// scripted replies. The real registry and gate are tested with the runtime.
type fakeCaps struct {
	mu      sync.Mutex
	sent    []string
	asked   []protocol.DecisionRequest
	batches [][]gate.ToolCall
	outputs []outputEvent

	// answer replies to Ask; nil accepts with "null".
	answer func(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error)
	// verdict replies to Authorize; nil allows.
	verdict func(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error)
	// onSend, if set, is told of each message sent: a script says where it has got to.
	onSend func(text string)
}

type outputEvent struct {
	stream string
	argv   []string
	text   string
}

func (f *fakeCaps) Send(_ context.Context, text string) error {
	f.mu.Lock()
	f.sent = append(f.sent, text)
	onSend := f.onSend
	f.mu.Unlock()
	if onSend != nil {
		onSend(text)
	}
	return nil
}

func (f *fakeCaps) Ask(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req)
	answer := f.answer
	f.mu.Unlock()
	if answer == nil {
		return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage("null")}, nil
	}
	return answer(ctx, req)
}

func (f *fakeCaps) Authorize(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
	f.mu.Lock()
	f.batches = append(f.batches, calls)
	verdict := f.verdict
	f.mu.Unlock()
	if verdict == nil {
		return gate.Verdict{Allowed: true}, nil
	}
	return verdict(ctx, calls)
}

func (f *fakeCaps) Output(stream string, argv []string, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outputs = append(f.outputs, outputEvent{stream, argv, text})
}

// streamed returns the output events of one stream.
func (f *fakeCaps) streamed(stream string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.outputs {
		if e.stream == stream {
			out = append(out, e.text)
		}
	}
	return out
}

func (f *fakeCaps) sentMessages() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...)
}

func (f *fakeCaps) authorized() [][]gate.ToolCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]gate.ToolCall(nil), f.batches...)
}

func (f *fakeCaps) questions() []protocol.DecisionRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]protocol.DecisionRequest(nil), f.asked...)
}

// reject returns a verdict function that refuses with text.
func reject(text string) func(context.Context, []gate.ToolCall) (gate.Verdict, error) {
	return func(context.Context, []gate.ToolCall) (gate.Verdict, error) { return gate.Verdict{Text: text}, nil }
}

// accept returns an answer function that accepts with content.
func accept(content string) func(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
	return func(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
		return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(content)}, nil
	}
}

// newTestHost returns a host on a fresh workspace; zero limits take the defaults.
func newTestHost(t *testing.T, limits Limits) *Host {
	t.Helper()
	h, err := NewHost(t.TempDir(), limits)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// mustExec runs src as "script" and fails the test on an error.
func mustExec(t *testing.T, h *Host, caps Caps, src string) string {
	t.Helper()
	out, err := h.Exec(context.Background(), "script", src, nil, caps)
	if err != nil {
		t.Fatalf("Exec: %v", err)
	}
	return out
}

// execErr runs src as "script" and returns its error, failing the test if there is none.
func execErr(t *testing.T, h *Host, caps Caps, src string) error {
	t.Helper()
	out, err := h.Exec(context.Background(), "script", src, nil, caps)
	if err == nil {
		t.Fatalf("Exec succeeded with %q; want an error", out)
	}
	return err
}

// wantContains fails unless s holds every one of subs.
func wantContains(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q\ndoes not contain %q", s, sub)
		}
	}
}

// wantIs fails unless err wraps target.
func wantIs(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%v does not wrap %v", err, target)
	}
}

// quick fails the test if f takes longer than d.
func quick(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if took := time.Since(start); took > d {
		t.Errorf("took %s; want under %s", took, d)
	}
}
