package runtime

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/gate"
)

// The approvals screen's reads, on a real log: the queue across sessions with what each
// thread was doing, the long poll's wake-up, the history's outcomes, filters and pages, and
// the grants with their last use.
func TestApprovalQueueAndHistory(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()

	a := newSession(t, rt)
	logMessage(t, rt, a, protocol.EventUserMessage, protocol.Message{Text: "deploy please"})
	// The prompt gets the offline agent's reply: it is over before the thread goes on, so
	// the agent's last word before the question is the one said next.
	testkit.WaitEvents(t, rt.Log().Read, a, "the offline reply", testkit.TurnsEnded(1))
	logMessage(t, rt, a, protocol.EventAgentMessage, protocol.Message{Text: "checking first"})
	b := newSession(t, rt)

	q, err := rt.ApprovalQueue(ctx, nil, 0)
	require.NoError(t, err)
	assert.Empty(t, q.Entries)

	// The long poll answers when a decision is asked.
	woke := make(chan protocol.ApprovalQueue, 1)
	go func() {
		got, err := rt.ApprovalQueue(ctx, &q.Version, time.Minute)
		assert.NoError(t, err)
		woke <- got
	}()
	confirmA := askAsync(t, ctx, rt, a, protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Deploy?"})
	select {
	case got := <-woke:
		assert.Greater(t, got.Version, q.Version)
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll did not wake up when a decision was asked")
	}
	logMessage(t, rt, a, protocol.EventAgentMessage, protocol.Message{Text: "said after the question"})
	askB := askAsync(t, ctx, rt, b, envQuestion)

	q, err = rt.ApprovalQueue(ctx, nil, 0)
	require.NoError(t, err)
	require.Len(t, q.Entries, 2)
	assert.Equal(t, []string{a, b}, []string{q.Entries[0].Session, q.Entries[1].Session}, "oldest first, across sessions")
	assert.Equal(t, protocol.ThreadStatus{User: "deploy please", UserOffset: q.Entries[0].Status.UserOffset,
		Agent: "checking first", AgentOffset: q.Entries[0].Status.AgentOffset}, q.Entries[0].Status, "what was said before the question, not after")
	assert.Equal(t, "deploy please", q.Entries[0].SessionTitle, "the session named by its first prompt")
	assert.Equal(t, rt.Workspaces().Workspaces[0].ID, q.Entries[0].WorkspaceID)
	assert.NotZero(t, q.Entries[0].Asked)
	assert.Equal(t, protocol.ThreadStatus{}, q.Entries[1].Status)

	// A version given that is not the current one answers at once.
	stale := uint64(1)
	now, err := rt.ApprovalQueue(ctx, &stale, time.Minute)
	require.NoError(t, err)
	assert.Len(t, now.Entries, 2)

	_, err = rt.Reply(ctx, a, confirmA.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(true)})
	require.NoError(t, err)
	confirmA.wait(t)
	_, err = rt.Reply(ctx, b, askB.decision.ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "not now"})
	require.NoError(t, err)
	askB.wait(t)

	h, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 2)
	assert.Equal(t, b, h.Entries[0].Session, "newest first")
	assert.Equal(t, protocol.HistoryRejected, h.Entries[0].Outcome)
	assert.Equal(t, "not now", h.Entries[0].Reason)
	assert.Equal(t, protocol.HistoryAnswered, h.Entries[1].Outcome)
	assert.Equal(t, "Yes", h.Entries[1].Answer)
	assert.Equal(t, "deploy please", h.Entries[1].Status.User)

	only, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Session: a})
	require.NoError(t, err)
	require.Len(t, only.Entries, 1)
	assert.Equal(t, a, only.Entries[0].Session)
	rejected, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Outcome: protocol.HistoryRejected})
	require.NoError(t, err)
	require.Len(t, rejected.Entries, 1)
	assert.Equal(t, b, rejected.Entries[0].Session)

	page, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Limit: 1})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	next, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Limit: 1, Before: page.Next})
	require.NoError(t, err)
	require.Len(t, next.Entries, 1)
	assert.Equal(t, a, next.Entries[0].Session)
	assert.Zero(t, next.Next)

	_, err = rt.ApprovalHistory(ctx, protocol.HistoryFilter{Outcome: "maybe"})
	assert.ErrorIs(t, err, ErrBadFilter)
	_, err = rt.ApprovalHistory(ctx, protocol.HistoryFilter{Workspace: "nowhere"})
	assert.ErrorIs(t, err, ErrNoWorkspace)

	_, err = rt.RequestRetry(ctx, a, confirmA.decision.ID)
	assert.ErrorIs(t, err, ErrNotRetryable, "an answered request is not retried")
}

func TestApprovalGrantsShowTheirUseAndRetryGrantsNothing(t *testing.T) {
	emb, rt := start(t, t.TempDir())
	defer stop(emb, rt)
	ctx := context.Background()
	s := newSession(t, rt)
	echo := []gate.ToolCall{{Tool: "run", Words: []string{"echo", "hi"}, Details: "echo hi"}}

	d, done := authorizeAsync(t, ctx, rt, s, "test:grant", echo)
	require.NotNil(t, d.Request.Options[1].Grant)
	_, err := rt.Reply(ctx, s, d.ID, pick(1))
	require.NoError(t, err)
	require.True(t, (<-done).Allowed)

	g, err := rt.ApprovalGrants(ctx)
	require.NoError(t, err)
	require.Len(t, g.Grants, 1)
	assert.Equal(t, "echo hi", g.Grants[0].Words)
	assert.Equal(t, d.ID, g.Grants[0].Decision)
	assert.Zero(t, g.Grants[0].LastUsed, "not used yet")

	v, err := rt.Authorize(ctx, s, "test:grant", echo)
	require.NoError(t, err)
	require.True(t, v.Allowed)
	g, err = rt.ApprovalGrants(ctx)
	require.NoError(t, err)
	assert.NotZero(t, g.Grants[0].LastUsed)

	h, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.Equal(t, protocol.HistoryApproved, h.Entries[0].Outcome)
	assert.Equal(t, "always for this command", h.Entries[0].Answer, "an always says its reach, not the button's verb")
	assert.Equal(t, &protocol.GrantScope{Kind: protocol.GrantExact, Tool: "run", Words: []string{"echo", "hi"}}, h.Entries[0].Grant)
	assert.True(t, h.Entries[0].GrantLive)

	require.NoError(t, rt.RevokeGrant(ctx, "", g.Grants[0].ID))
	h, err = rt.ApprovalHistory(ctx, protocol.HistoryFilter{})
	require.NoError(t, err)
	assert.False(t, h.Entries[0].GrantLive, "the history says the grant was revoked since")

	// A request that timed out is retried with a prompt; nothing is granted.
	short, err := New(ctx, emb.Conn, Options{Workspace: rt.Workspace(), DecisionTimeout: 150 * time.Millisecond, NoAgent: true})
	require.NoError(t, err)
	defer short.Close()
	v, err = short.Authorize(ctx, s, "test:retry", echo)
	require.NoError(t, err)
	require.False(t, v.Allowed)
	timedOut, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Outcome: protocol.HistoryTimedOut})
	require.NoError(t, err)
	require.Len(t, timedOut.Entries, 1)
	assert.True(t, timedOut.Entries[0].Retryable, "a timed-out request offers Request retry")
	approved, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Outcome: protocol.HistoryApproved})
	require.NoError(t, err)
	require.NotEmpty(t, approved.Entries)
	assert.False(t, approved.Entries[0].Retryable, "an answered one does not")
	resp, err := rt.RequestRetry(ctx, s, timedOut.Entries[0].ID)
	require.NoError(t, err)
	assert.Contains(t, resp.Text, "please make the same request again")
	assert.Contains(t, resp.Text, "timed out")
	assert.Contains(t, resp.Text, "echo hi")
	again, err := rt.RequestRetry(ctx, s, timedOut.Entries[0].ID)
	require.NoError(t, err)
	assert.True(t, again.Duplicate, "a second click is stored once")
	g, err = rt.ApprovalGrants(ctx)
	require.NoError(t, err)
	assert.Empty(t, g.Grants)
}

// TestQueueStatusSaysWhoSpoke: a thread's status names the writer of its last message: a
// script's send() is the script's, not the agent's words.
func TestQueueStatusSaysWhoSpoke(t *testing.T) {
	// It writes the log itself: an agent would run the prompt as a turn, and the status is
	// then that turn's, which may begin after the script's words (CI saw it empty).
	rt := freshWith(t, Options{Exclusive: true, NoAgent: true})
	ctx := context.Background()
	a := newSession(t, rt)
	logMessage(t, rt, a, protocol.EventUserMessage, protocol.Message{Text: "/script send('done')"})
	logMessage(t, rt, a, protocol.EventAgentMessage, protocol.Message{Text: "done", From: protocol.FromScript})
	ask := askAsync(t, ctx, rt, a, protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Deploy?"})
	q, err := rt.ApprovalQueue(ctx, nil, 0)
	require.NoError(t, err)
	require.Len(t, q.Entries, 1)
	assert.Equal(t, "done", q.Entries[0].Status.Agent)
	assert.Equal(t, protocol.FromScript, q.Entries[0].Status.AgentFrom)
	_, err = rt.Reply(ctx, a, ask.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(true)})
	require.NoError(t, err)
	ask.wait(t)
}

// TestQueueStatusIsOfTheAskingTurn (QA round 17): the status's assistant-side message is one
// said in the turn that asks, never an earlier turn's: a script's "True" from the run before
// stood over the next run's approval as if it were its context.
func TestQueueStatusIsOfTheAskingTurn(t *testing.T) {
	rt := freshWith(t, Options{NoAgent: true}) // it writes the turns itself
	ctx := context.Background()
	a := newSession(t, rt)
	turn := func(text string) uint64 {
		p, _, err := rt.Log().Append(ctx, a, protocol.EventUserMessage, protocol.Message{Text: text}, "")
		require.NoError(t, err)
		_, _, err = rt.Log().Append(ctx, a, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: p}, "")
		require.NoError(t, err)
		return p
	}
	first := turn("/script send(confirm('Deploy?'))")
	logMessage(t, rt, a, protocol.EventAgentMessage, protocol.Message{Text: "True", From: protocol.FromScript})
	_, _, err := rt.Log().Append(ctx, a, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: first}, "")
	require.NoError(t, err)
	second := turn(`/script run(["touch", "x"])`)
	ask := askAsync(t, ctx, rt, a, protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Allow running touch?"})
	q, err := rt.ApprovalQueue(ctx, nil, 0)
	require.NoError(t, err)
	require.Len(t, q.Entries, 1)
	assert.Equal(t, protocol.ThreadStatus{User: `/script run(["touch", "x"])`, UserOffset: second}, q.Entries[0].Status,
		"the asking turn's prompt, and no message of the turn before")
	_, err = rt.Reply(ctx, a, ask.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(true)})
	require.NoError(t, err)
	ask.wait(t)
}

// BenchmarkApprovalHistory reads the first page of the history (50) and the queue when the
// log holds 1,960 ended decisions and 40 pending ones across 20 sessions of 100 messages each:
// one pass over every decision event, then the page's thread statuses (cached after the first
// read, as on a server that stays up). `make bench` runs it.
func BenchmarkApprovalHistory(b *testing.B) {
	rt := freshWith(b, Options{NoAgent: true})                    // it writes the log itself
	rt.alive = func(context.Context, string) bool { return true } // the pending ones' replica lives
	ctx := context.Background()
	confirm := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Go on?"}
	for s := range 20 {
		info, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
		require.NoError(b, err)
		session := info.ID
		for m := range 100 {
			_, _, err := rt.Log().Append(ctx, session, protocol.EventAgentMessage, protocol.Message{Text: fmt.Sprintf("message %d", m)}, "")
			require.NoError(b, err)
		}
		for d := range 100 {
			writeDecision(b, rt, session, fmt.Sprintf("d%d_%d", s, d), confirm, d >= 2) // two pending per session
		}
	}
	h, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{})
	require.NoError(b, err)
	require.Len(b, h.Entries, 50)
	b.Run("history", func(b *testing.B) {
		for b.Loop() {
			if _, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("history-filtered", func(b *testing.B) {
		for b.Loop() {
			if _, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Outcome: protocol.HistoryRejected}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("queue", func(b *testing.B) {
		for b.Loop() {
			q, err := rt.ApprovalQueue(ctx, nil, 0)
			if err != nil || len(q.Entries) != 40 {
				b.Fatal(err, len(q.Entries))
			}
		}
	})
}

// The permission modes, applied by the gate on the server: what each lets through without a
// decision, and that one session's mode never reaches another's calls.
func TestGateHonoursEachPermissionMode(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()

	read := gate.ToolCall{Tool: "read", Words: []string{"notes.md"}, Details: "read_file notes.md"}
	write := gate.ToolCall{Tool: "write", Words: []string{"notes.md"}, Details: "notes.md: 3 lines"}
	run := gate.ToolCall{Tool: "run", Words: []string{"make", "test"}, Details: "make test"}

	// passes reports whether the call went through without a decision; a decision it opened
	// is declined, so the gate returns.
	passes := func(t *testing.T, s string, c gate.ToolCall) bool {
		t.Helper()
		type result struct {
			v   gate.Verdict
			err error
		}
		done := make(chan result, 1)
		go func() {
			v, err := rt.Authorize(ctx, s, "test:mode", []gate.ToolCall{c})
			done <- result{v, err}
		}()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case r := <-done:
				require.NoError(t, r.err)
				require.True(t, r.v.Allowed, "a call that passed without a decision is allowed")
				return true
			case <-time.After(20 * time.Millisecond):
				list, err := rt.PendingDecisions(ctx, s)
				require.NoError(t, err)
				if len(list.Decisions) == 0 {
					continue
				}
				_, err = rt.Reply(ctx, s, list.Decisions[0].ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "test"})
				require.NoError(t, err)
				r := <-done
				require.NoError(t, r.err)
				assert.False(t, r.v.Allowed)
				return false
			case <-deadline:
				t.Fatal("the gate neither passed the call nor asked")
			}
		}
	}

	cases := []struct {
		mode                   protocol.PermissionMode
		read, write, runPasses bool
	}{
		{"", true, false, false}, // never set: the default, allow reads
		{protocol.PermissionAsk, false, false, false},
		{protocol.PermissionReads, true, false, false},
		{protocol.PermissionEdits, true, true, false},
	}
	for _, c := range cases {
		t.Run(string(cmpMode(c.mode)), func(t *testing.T) {
			s := newSession(t, rt)
			if c.mode != "" {
				_, err := rt.SetPermissions(ctx, s, protocol.SetPermissionsRequest{Mode: c.mode})
				require.NoError(t, err)
			}
			got, err := rt.PermissionMode(ctx, s)
			require.NoError(t, err)
			assert.Equal(t, cmpMode(c.mode), got)
			assert.Equal(t, c.read, passes(t, s, read), "read")
			assert.Equal(t, c.write, passes(t, s, write), "write")
			assert.Equal(t, c.runPasses, passes(t, s, run), "a command asks in every mode")
		})
	}

	t.Run("one session's mode does not leak to another", func(t *testing.T) {
		edits, other := newSession(t, rt), newSession(t, rt)
		_, err := rt.SetPermissions(ctx, edits, protocol.SetPermissionsRequest{Mode: protocol.PermissionEdits})
		require.NoError(t, err)
		assert.True(t, passes(t, edits, write))
		assert.False(t, passes(t, other, write), "the other session still asks")
	})

	t.Run("the last mode set wins", func(t *testing.T) {
		s := newSession(t, rt)
		for _, m := range []protocol.PermissionMode{protocol.PermissionEdits, protocol.PermissionAsk} {
			_, err := rt.SetPermissions(ctx, s, protocol.SetPermissionsRequest{Mode: m})
			require.NoError(t, err)
		}
		assert.False(t, passes(t, s, read))
	})

	t.Run("a batch: the mode passes the writes, the command is asked alone", func(t *testing.T) {
		s := newSession(t, rt)
		_, err := rt.SetPermissions(ctx, s, protocol.SetPermissionsRequest{Mode: protocol.PermissionEdits})
		require.NoError(t, err)
		d, done := authorizeAsync(t, ctx, rt, s, "test:batch", []gate.ToolCall{read, write, run})
		assert.Equal(t, "Allow running make?", d.Request.Message, "one approval, for the command only")
		_, err = rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
		require.NoError(t, err)
		v := <-done
		assert.False(t, v.Allowed)
		assert.Equal(t, []bool{true, true, false}, v.Granted)
		assert.True(t, v.Allows(0) && v.Allows(1) && !v.Allows(2))
	})

	t.Run("a write that changes what runs later asks in every mode, and no grant covers it", func(t *testing.T) {
		s := newSession(t, rt)
		_, err := rt.SetPermissions(ctx, s, protocol.SetPermissionsRequest{Mode: protocol.PermissionEdits})
		require.NoError(t, err)
		ws, err := rt.workspaceOf(ctx, s)
		require.NoError(t, err)
		// An "always" for writes in .git, as the gate offered before (QA round 26).
		require.NoError(t, rt.grants.Put(ctx, protocol.Grant{ID: "g-git", Workspace: ws.Path,
			Scope: protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "write", Words: []string{".git"}}}))
		for _, path := range []string{".git/config", ".parley/mcp.json", "sub/.git/hooks/pre-commit", ".husky/pre-commit"} {
			d, done := authorizeAsync(t, ctx, rt, s, "test:protected", []gate.ToolCall{{Tool: "write", Words: []string{path}, Details: "write " + path}})
			assert.Equal(t, "Allow writing "+path+"? It changes what git or Parley runs later, so it is asked every time.", d.Request.Message)
			var values []string
			for _, o := range d.Request.Options {
				values = append(values, o.Value)
			}
			assert.Equal(t, []string{protocol.OptionAllow, protocol.OptionDeny}, values, "no always is offered")
			_, err = rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
			require.NoError(t, err)
			assert.False(t, (<-done).Allows(0))
		}
		assert.True(t, passes(t, s, gate.ToolCall{Tool: "write", Words: []string{"docs/.gitignore"}}), "a file named like it is not it")
	})

	t.Run("a bad mode is refused with the modes there are", func(t *testing.T) {
		_, err := rt.SetPermissions(ctx, newSession(t, rt), protocol.SetPermissionsRequest{Mode: "yolo"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `unknown mode "yolo"`)
	})
}

func cmpMode(m protocol.PermissionMode) protocol.PermissionMode {
	if m == "" {
		return protocol.DefaultPermissionMode
	}
	return m
}
