package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/eventlog"
	"parley/runtime/gate"
)

// The helpers the runtime's tests share: a runtime on a store of its own, a session, a
// prompt, and waits on a session's log and its pending decisions.

// startWith starts a runtime with opts on the JetStream stored in dir; one given no
// workspace serves a fresh folder.
func startWith(tb testing.TB, dir string, opts Options) (*Embedded, *Runtime) {
	tb.Helper()
	if opts.Workspace == "" && len(opts.Workspaces) == 0 {
		opts.Workspace = tb.TempDir()
	}
	emb, err := StartEmbedded(dir)
	require.NoError(tb, err)
	rt, err := New(context.Background(), emb.Conn, opts)
	require.NoError(tb, err)
	return emb, rt
}

// start starts the runtime most tests want, the only one on its store, on dir's JetStream.
func start(t *testing.T, dir string) (*Embedded, *Runtime) {
	t.Helper()
	return startWith(t, dir, Options{Exclusive: true})
}

func stop(emb *Embedded, rt *Runtime) {
	rt.Close()
	emb.Close()
}

// freshWith is startWith on a store of its own, stopped when the test ends.
func freshWith(tb testing.TB, opts Options) *Runtime {
	tb.Helper()
	emb, rt := startWith(tb, tb.TempDir(), opts)
	tb.Cleanup(func() { stop(emb, rt) })
	return rt
}

// fresh is start on a store of its own, stopped when the test ends.
func fresh(t *testing.T) *Runtime {
	t.Helper()
	return freshWith(t, Options{Exclusive: true})
}

// waitEvents reads a session's log until it holds n events or the deadline passes.
func waitEvents(t *testing.T, rt *Runtime, session string, n int) []protocol.Event {
	t.Helper()
	return testkit.WaitEvents(t, rt.Log().Read, session, fmt.Sprintf("%d events", n),
		func(evs []protocol.Event) bool { return len(evs) >= n })
}

func types(evs []protocol.Event) []protocol.EventType {
	out := make([]protocol.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// prompt sends text to a session as the browser does.
func prompt(t *testing.T, rt *Runtime, session, text string, mode protocol.PromptMode) uint64 {
	t.Helper()
	resp, err := rt.SendPrompt(context.Background(), session, protocol.SendPromptRequest{Text: text, AttemptID: NewID(), Mode: mode})
	require.NoError(t, err)
	return resp.Offset
}

// waitFor reads the session's log until cond holds for it.
func waitFor(t *testing.T, rt *Runtime, session string, what string, cond func([]protocol.Event) bool) []protocol.Event {
	t.Helper()
	return testkit.WaitEvents(t, rt.Log().Read, session, what, cond)
}

// asking starts a fresh runtime and a session, and sends a prompt (queued) whose script asks
// one decision. It returns the runtime, the session, the prompt's offset and the decision.
func asking(t *testing.T, text string) (*Runtime, string, uint64, protocol.Decision) {
	t.Helper()
	rt := fresh(t)
	s := newSession(t, rt)
	offset := prompt(t, rt, s, text, protocol.ModeQueue)
	return rt, s, offset, waitPending(t, rt, s, 1)[0]
}

func settled(t *testing.T, evs []protocol.Event) protocol.RunSettled {
	t.Helper()
	for _, ev := range evs {
		if ev.Type == protocol.EventRunSettled {
			rs, err := protocol.DecodeEventData[protocol.RunSettled](ev)
			require.NoError(t, err)
			return rs
		}
	}
	t.Fatal("no run.settled")
	return protocol.RunSettled{}
}

// asked is a decision an asker is waiting on, with the asker's result once it returns.
type asked struct {
	decision protocol.Decision
	done     chan struct{}
	answer   decision.Answer
	err      error
}

func newSession(t *testing.T, rt *Runtime) string {
	t.Helper()
	s, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	return s.ID
}

// waitPending waits until the session has n pending decisions and returns them.
func waitPending(t *testing.T, rt *Runtime, session string, n int) []protocol.Decision {
	t.Helper()
	return pendingWithin(t, rt, session, n, testkit.Wait, false)
}

// pendingWithin waits up to within until the session has n pending decisions and returns
// them. A failed read fails the test, or, with retry, counts as "not yet".
func pendingWithin(t *testing.T, rt *Runtime, session string, n int, within time.Duration, retry bool) []protocol.Decision {
	t.Helper()
	var list protocol.DecisionList
	require.Eventually(t, func() bool {
		var err error
		list, err = rt.PendingDecisions(context.Background(), session)
		if !retry {
			require.NoError(t, err)
		}
		return err == nil && len(list.Decisions) == n
	}, within, 5*time.Millisecond, "%d pending decisions", n)
	return list.Decisions
}

// askAsync asks in the background, as a script would, and returns once the question is pending.
func askAsync(t *testing.T, ctx context.Context, rt *Runtime, session string, req protocol.DecisionRequest) *asked {
	t.Helper()
	before := waitPendingAtLeast(t, rt, session, 0)
	a := &asked{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.answer, a.err = rt.Ask(ctx, session, "test:1", req)
	}()
	list := waitPending(t, rt, session, len(before)+1)
	a.decision = list[len(list)-1]
	return a
}

func waitPendingAtLeast(t *testing.T, rt *Runtime, session string, n int) []protocol.Decision {
	t.Helper()
	list, err := rt.PendingDecisions(context.Background(), session)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(list.Decisions), n)
	return list.Decisions
}

// authorizeAsync asks the gate in the background, as a tool call would, and returns, once
// it is pending, the session's one decision and the channel the call's verdict comes on.
func authorizeAsync(t *testing.T, ctx context.Context, rt *Runtime, session, by string, calls []gate.ToolCall) (protocol.Decision, <-chan gate.Verdict) {
	t.Helper()
	done := make(chan gate.Verdict, 1)
	go func() {
		v, err := rt.Authorize(ctx, session, by, calls)
		if err != nil {
			t.Errorf("authorize: %v", err)
		}
		done <- v
	}()
	return waitPending(t, rt, session, 1)[0], done
}

func (a *asked) wait(t *testing.T) {
	t.Helper()
	testkit.Recv(t, a.done, "the asker was not resumed")
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// lastOfType waits for an event of type typ in the session's log and returns the last one.
func lastOfType(t *testing.T, rt *Runtime, session string, typ protocol.EventType) protocol.Event {
	t.Helper()
	evs := testkit.OfType(waitFor(t, rt, session, string(typ), testkit.Has(typ)), typ)
	return evs[len(evs)-1]
}

// pick is the reply that picks option i of an approval.
func pick(i int) protocol.ReplyRequest {
	return protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(protocol.ApprovalAnswer{Option: &i})}
}

// logMessage appends a message of type typ to the session's log directly, as the door or a
// turn would have written it, for the tests that set up a thread's words without a model.
func logMessage(tb testing.TB, rt *Runtime, session string, typ protocol.EventType, m protocol.Message) {
	tb.Helper()
	_, _, err := rt.Log().Append(context.Background(), session, typ, m, "")
	require.NoError(tb, err)
}

// writeDecision writes decision id of session straight to the log, as a replica asking req
// would, and when replied, its answer (accepted) too.
func writeDecision(tb testing.TB, rt *Runtime, session, id string, req protocol.DecisionRequest, replied bool) {
	tb.Helper()
	ctx := context.Background()
	subject := eventlog.DecisionSubject(session, id)
	off, _, err := rt.Log().Publish(ctx, subject, protocol.EventQuestionAsked, protocol.QuestionAsked{ID: id, Request: req, Deadline: 1 << 62, Owner: "test-replica"}, "")
	require.NoError(tb, err)
	if replied {
		_, _, err = rt.Log().PublishAfter(ctx, subject, off, protocol.EventQuestionReplied, protocol.QuestionReplied{ID: id, Action: protocol.ActionAccept, Content: raw(true)}, "")
		require.NoError(tb, err)
	}
}
