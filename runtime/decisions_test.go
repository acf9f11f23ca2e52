package runtime

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/eventlog"
	"parley/runtime/gate"
)

var envQuestion = protocol.DecisionRequest{
	Kind:    protocol.KindAsk,
	Message: "Which environment?",
	Schema:  &protocol.Schema{Type: "string", Enum: []string{"staging", "prod"}, AllowOther: new(false)},
}

func TestDecisionOutcomes(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()

	t.Run("accept", func(t *testing.T) {
		s := newSession(t, rt)
		a := askAsync(t, ctx, rt, s, envQuestion)
		assert.Equal(t, "test:1", a.decision.Run)
		assert.Equal(t, envQuestion.Message, a.decision.Request.Message)
		_, err := rt.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw("prod")})
		require.NoError(t, err)
		a.wait(t)
		require.NoError(t, a.err)
		assert.Equal(t, protocol.ActionAccept, a.answer.Action)
		assert.JSONEq(t, `"prod"`, string(a.answer.Content))
		waitPending(t, rt, s, 0)
		replied, err := lastOfType(t, rt, s, protocol.EventQuestionReplied).DecodeQuestionReplied()
		require.NoError(t, err)
		assert.Equal(t, a.decision.ID, replied.ID)
	})

	t.Run("decline with a reason", func(t *testing.T) {
		s := newSession(t, rt)
		a := askAsync(t, ctx, rt, s, envQuestion)
		_, err := rt.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "not now"})
		require.NoError(t, err)
		a.wait(t)
		require.NoError(t, a.err, "a decline is an answer, not an error")
		assert.Equal(t, decision.Answer{Action: protocol.ActionDecline, Reason: "not now"}, a.answer)
	})

	t.Run("timeout declines and says why", func(t *testing.T) {
		s := newSession(t, rt)
		req := envQuestion
		req.TimeoutMs = 200
		a := askAsync(t, ctx, rt, s, req)
		a.wait(t)
		require.NoError(t, a.err)
		assert.Equal(t, decision.Answer{Action: protocol.ActionDecline, Reason: protocol.ReasonTimeout}, a.answer)
		rej, err := lastOfType(t, rt, s, protocol.EventQuestionRejected).DecodeQuestionRejected()
		require.NoError(t, err)
		assert.Equal(t, protocol.QuestionRejected{ID: a.decision.ID, Outcome: protocol.OutcomeDeclined, Reason: protocol.ReasonTimeout}, rej)
		_, err = rt.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw("prod")})
		assert.ErrorIs(t, err, protocol.ErrAlreadyAnswered)
		assert.ErrorContains(t, err, "timed out")
	})

	t.Run("withdrawn is an abort, an error to the asker", func(t *testing.T) {
		s := newSession(t, rt)
		actx, cancel := context.WithCancel(ctx)
		a := askAsync(t, actx, rt, s, envQuestion)
		cancel()
		a.wait(t)
		require.ErrorIs(t, a.err, decision.ErrAborted)
		rej, err := lastOfType(t, rt, s, protocol.EventQuestionRejected).DecodeQuestionRejected()
		require.NoError(t, err)
		assert.Equal(t, protocol.OutcomeAborted, rej.Outcome)
		assert.Equal(t, protocol.ReasonWithdrawn, rej.Reason)
		waitPending(t, rt, s, 0)
	})

	t.Run("unknown decision and session", func(t *testing.T) {
		s := newSession(t, rt)
		_, err := rt.Reply(ctx, s, "nope", protocol.ReplyRequest{Action: protocol.ActionDecline})
		assert.ErrorIs(t, err, ErrNoDecision)
		_, err = rt.Reply(ctx, "missing", "nope", protocol.ReplyRequest{Action: protocol.ActionDecline})
		assert.ErrorIs(t, err, ErrNoSession)
		_, err = rt.Reply(ctx, s, "a.b", protocol.ReplyRequest{Action: protocol.ActionDecline})
		assert.ErrorIs(t, err, ErrNoDecision)
	})
}

func TestReplyInvalidForTheSchemaGetsFieldErrors(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s := newSession(t, rt)
	form := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Open a pull request?", Schema: &protocol.Schema{
		Type: "object",
		Properties: protocol.Properties{
			{Key: "title", Schema: &protocol.Schema{Type: "string", MinLength: new(3)}},
			{Key: "draft", Schema: &protocol.Schema{Type: "boolean"}},
		},
		Required: []string{"title"},
	}}
	a := askAsync(t, ctx, rt, s, form)

	_, err := rt.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(map[string]any{"title": "no", "draft": "yes"})})
	var verr *protocol.ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Contains(t, verr.Fields, "title")
	assert.Contains(t, verr.Fields, "draft")
	_, err = rt.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(map[string]any{"draft": true})})
	require.ErrorAs(t, err, &verr)
	assert.Contains(t, verr.Fields["title"], "required")

	// Nothing was stored: the decision is still open and a valid reply wins.
	waitPending(t, rt, s, 1)
	_, err = rt.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(map[string]any{"title": "Fix it"})})
	require.NoError(t, err)
	a.wait(t)
	assert.JSONEq(t, `{"title":"Fix it"}`, string(a.answer.Content))
}

func TestFirstReplyWinsAndLaterOnesAreTold(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s := newSession(t, rt)
	a := askAsync(t, ctx, rt, s, envQuestion)

	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			choice := []string{"staging", "prod"}[i%2]
			_, errs[i] = rt.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(choice)})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
			continue
		}
		assert.ErrorIs(t, err, protocol.ErrAlreadyAnswered)
		assert.ErrorContains(t, err, "already answered")
	}
	assert.Equal(t, 1, wins, "exactly one reply is stored")
	a.wait(t)
	evs, err := rt.Log().Read(ctx, s, 0)
	require.NoError(t, err)
	replies := 0
	for _, ev := range evs {
		if ev.Type == protocol.EventQuestionReplied {
			replies++
		}
	}
	assert.Equal(t, 1, replies)
}

func TestReplyOnASecondRuntimeResumesTheAsker(t *testing.T) {
	emb, first := start(t, t.TempDir())
	defer stop(emb, first)
	second, err := New(context.Background(), emb.Conn, Options{Workspace: t.TempDir()})
	require.NoError(t, err)
	defer second.Close()
	ctx := context.Background()
	s := newSession(t, first)
	a := askAsync(t, ctx, first, s, envQuestion)

	list := waitPending(t, second, s, 1)
	assert.Equal(t, a.decision.ID, list[0].ID, "every replica sees the registry")
	_, err = second.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw("staging")})
	require.NoError(t, err)
	a.wait(t)
	require.NoError(t, a.err)
	assert.JSONEq(t, `"staging"`, string(a.answer.Content))

	// A live replica's decisions are not swept by another.
	b := askAsync(t, ctx, first, s, envQuestion)
	second.sweep(ctx)
	waitPending(t, first, s, 1)
	_, err = first.Reply(ctx, s, b.decision.ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
	require.NoError(t, err)
	b.wait(t)
}

func TestRestartAbortsADecisionItsAskerCannotResume(t *testing.T) {
	dir := t.TempDir()
	emb, rt := start(t, dir)
	ctx := context.Background()
	s := newSession(t, rt)
	actx, kill := context.WithCancel(ctx)
	a := askAsync(t, actx, rt, s, envQuestion)
	// The server dies with the asker: the log keeps the question.
	crash(emb, rt)
	kill()
	a.wait(t)
	require.Error(t, a.err)

	emb, rt = start(t, dir)
	defer stop(emb, rt)
	rej, err := lastOfType(t, rt, s, protocol.EventQuestionRejected).DecodeQuestionRejected()
	require.NoError(t, err)
	assert.Equal(t, protocol.QuestionRejected{ID: a.decision.ID, Outcome: protocol.OutcomeAborted, Reason: protocol.ReasonOrphaned}, rej)
	waitPending(t, rt, s, 0)
	_, err = rt.Reply(ctx, s, a.decision.ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
	assert.ErrorIs(t, err, protocol.ErrAlreadyAnswered)

	// Cut off by the restart, it offers Request retry, as a timed-out one does.
	h, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Session: s})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.Equal(t, protocol.HistoryAborted, h.Entries[0].Outcome)
	assert.True(t, h.Entries[0].Retryable)
	resp, err := rt.RequestRetry(ctx, s, a.decision.ID)
	require.NoError(t, err)
	assert.Contains(t, resp.Text, "please make the same request again")
	assert.Contains(t, resp.Text, "cut off when Parley restarted", "it says what happened, not a timeout")
}

func TestRestartOfOneReplicaLeavesTheQuestionPendingUntilItsLeaseEnds(t *testing.T) {
	emb, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	defer emb.Close()
	ctx := context.Background()
	opts := Options{Workspace: t.TempDir(), Lease: time.Second}
	asker, err := New(ctx, emb.Conn, opts)
	require.NoError(t, err)
	other, err := New(ctx, emb.Conn, opts)
	require.NoError(t, err)
	defer other.Close()
	s := newSession(t, asker)
	a := askAsync(t, ctx, asker, s, envQuestion)

	// The asker's process vanishes without a goodbye: its heartbeat stops.
	asker.tap.Stop()
	asker.cancel(decision.ErrShutdown)
	asker.wg.Wait()
	other.sweep(ctx)
	assert.Len(t, waitPendingAtLeast(t, other, s, 1), 1, "still pending while the lease runs")

	rej, err := lastOfType(t, other, s, protocol.EventQuestionRejected).DecodeQuestionRejected()
	require.NoError(t, err)
	assert.Equal(t, protocol.ReasonOrphaned, rej.Reason)
	assert.Equal(t, a.decision.ID, rej.ID)
}

func TestGateOutcomes(t *testing.T) {
	emb, rt := start(t, t.TempDir())
	defer stop(emb, rt)
	ctx := context.Background()
	testkit.Repository(t, rt.Workspace())
	call := []gate.ToolCall{{Tool: "run", Words: []string{"git", "log"}, Details: "git log"}}

	authorize := func(t *testing.T, ctx context.Context, s string, calls []gate.ToolCall) (chan struct{}, *gate.Verdict, *error, protocol.Decision) {
		done := make(chan struct{})
		var v gate.Verdict
		var err error
		go func() {
			defer close(done)
			v, err = rt.Authorize(ctx, s, "test:gate", calls)
		}()
		d := waitPending(t, rt, s, 1)[0]
		return done, &v, &err, d
	}
	wait := func(t *testing.T, done chan struct{}) { testkit.Recv(t, done, "gate not resumed") }

	cases := []struct {
		name  string
		reply *protocol.ReplyRequest
		want  gate.Verdict
	}{
		{"allow", new(pick(0)), gate.Verdict{Allowed: true}},
		{"reject option", new(pick(3)), gate.Verdict{Text: "rejected by the user"}},
		{"decline with a reason", &protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "use make clean"}, gate.Verdict{Text: "rejected by the user: use make clean"}},
		{"instruction instead", &protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(protocol.ApprovalAnswer{Instruction: "only build/tmp"})}, gate.Verdict{Text: "rejected by the user: only build/tmp"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSession(t, rt)
			done, v, err, d := authorize(t, ctx, s, call)
			assert.Equal(t, protocol.KindApproval, d.Request.Kind)
			assert.Equal(t, "git log", d.Request.Details)
			require.Len(t, d.Request.Options, 4)
			_, rerr := rt.Reply(ctx, s, d.ID, *c.reply)
			require.NoError(t, rerr)
			wait(t, done)
			require.NoError(t, *err)
			assert.Equal(t, c.want, plain(*v))
		})
	}

	t.Run("timeout is no answer in time, not a rejection", func(t *testing.T) {
		short, err := New(ctx, emb.Conn, Options{Workspace: t.TempDir(), DecisionTimeout: 150 * time.Millisecond})
		require.NoError(t, err)
		defer short.Close()
		s := newSession(t, short)
		v, err := short.Authorize(ctx, s, "test:gate", call)
		require.NoError(t, err)
		assert.Equal(t, gate.Verdict{Text: "no answer in time"}, plain(v))
	})

	t.Run("abort is an error", func(t *testing.T) {
		s := newSession(t, rt)
		actx, cancel := context.WithCancelCause(ctx)
		done, _, err, _ := authorize(t, actx, s, call)
		cancel(decision.ErrStopped)
		wait(t, done)
		assert.ErrorIs(t, *err, decision.ErrAborted)
		rej, rerr := lastOfType(t, rt, s, protocol.EventQuestionRejected).DecodeQuestionRejected()
		require.NoError(t, rerr)
		assert.Equal(t, protocol.ReasonStopped, rej.Reason)
	})

	t.Run("a batch is one decision, approved as a whole", func(t *testing.T) {
		s := newSession(t, rt)
		batch := []gate.ToolCall{
			{Tool: "run", Words: []string{"echo", "1"}, Details: "echo 1"},
			{Tool: "run", Words: []string{"echo", "2"}, Details: "echo 2"},
			{Tool: "write", Words: []string{"out/a.txt"}, Details: "write 3 bytes to out/a.txt"},
		}
		done, v, err, d := authorize(t, ctx, s, batch)
		require.Len(t, d.Request.Items, 3)
		assert.Equal(t, []string{"Approve all", "Reject all"}, []string{d.Request.Options[0].Label, d.Request.Options[1].Label})
		_, rerr := rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "too many"})
		require.NoError(t, rerr)
		wait(t, done)
		require.NoError(t, *err)
		assert.Equal(t, gate.Verdict{Text: "rejected by the user: too many"}, plain(*v))
		assert.Equal(t, []bool{false, false, false}, v.Granted)
	})

	t.Run("a batch answered request by request runs the allowed ones", func(t *testing.T) {
		s := newSession(t, rt)
		batch := []gate.ToolCall{
			{Tool: "run", Words: []string{"echo", "1"}, Details: "echo 1"},
			{Tool: "run", Words: []string{"echo", "2"}, Details: "echo 2"},
			{Tool: "run", Words: []string{"echo", "3"}, Details: "echo 3"},
		}
		done, v, err, d := authorize(t, ctx, s, batch)
		_, rerr := rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept,
			Content: raw(protocol.ApprovalAnswer{Items: []string{"allow", "deny", "allow"}})})
		require.NoError(t, rerr)
		wait(t, done)
		require.NoError(t, *err)
		assert.False(t, v.Allowed)
		assert.Equal(t, "rejected by the user", v.Text)
		assert.Equal(t, []bool{true, false, true}, v.Granted)
		assert.True(t, v.Allows(0))
		assert.False(t, v.Allows(1))
		grants, gerr := rt.ListGrants(ctx, "")
		require.NoError(t, gerr)
		assert.Empty(t, grants.Grants, "an answer per request grants nothing for later")
	})

	t.Run("the words typed with an answer per request are the rejected ones' reason", func(t *testing.T) {
		s := newSession(t, rt)
		batch := []gate.ToolCall{
			{Tool: "run", Words: []string{"echo", "a"}, Details: "echo a"},
			{Tool: "run", Words: []string{"date"}, Details: "date"},
		}
		done, v, err, d := authorize(t, ctx, s, batch)
		_, rerr := rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept,
			Content: raw(protocol.ApprovalAnswer{Items: []string{"allow", "deny"}, Instruction: "no date please"})})
		require.NoError(t, rerr)
		wait(t, done)
		require.NoError(t, *err)
		assert.Equal(t, "rejected by the user: no date please", v.Text)
		assert.Equal(t, []bool{true, false}, v.Granted)
	})
}

func TestGrantHonouredThenRevoked(t *testing.T) {
	emb, rt := start(t, t.TempDir())
	defer stop(emb, rt)
	ctx := context.Background()
	s := newSession(t, rt)
	testkit.Repository(t, rt.Workspace())
	status := []gate.ToolCall{{Tool: "run", Words: []string{"git", "status"}, Details: "git status"}}

	d, done := authorizeAsync(t, ctx, rt, s, "test:grant", status)
	require.Equal(t, "Approve, and always for git status on any files", d.Request.Options[2].Label)
	assert.Equal(t, &protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "run", Words: []string{"git", "status"}}, d.Request.Options[2].Grant)
	_, err := rt.Reply(ctx, s, d.ID, pick(2))
	require.NoError(t, err)
	assert.Equal(t, gate.Verdict{Allowed: true}, plain(<-done))

	grants, err := rt.ListGrants(ctx, "")
	require.NoError(t, err)
	require.Len(t, grants.Grants, 1)
	g := grants.Grants[0]
	assert.Equal(t, rt.Workspace(), g.Workspace)
	assert.Equal(t, d.ID, g.Decision)
	lastOfType(t, rt, s, protocol.EventGrantCreated)

	// Honoured without asking: git status on other files, but nothing else.
	v, err := rt.Authorize(ctx, s, "test:grant", []gate.ToolCall{{Tool: "run", Words: []string{"git", "status", "docs"}, Details: "git status docs"}})
	require.NoError(t, err)
	assert.True(t, v.Allowed)
	assert.Equal(t, []bool{true}, v.Granted)
	assert.Equal(t, []*protocol.GrantedCall{{Scope: g.Scope, Call: "git status docs"}}, v.By, "the grant, for a model's call's receipt")
	waitPending(t, rt, s, 0)
	out, err := protocol.DecodeEventData[protocol.RunOutput](lastOfType(t, rt, s, protocol.EventRunOutput))
	require.NoError(t, err)
	assert.Equal(t, "Allowed without asking by an earlier “always” (git status …): git status docs\n", out.Text, "visible in the run")
	assert.Equal(t, &protocol.GrantedCall{Scope: g.Scope, Call: "git status docs"}, out.Granted, "a page words it in its own language")

	// In a batch, a rejection leaves the granted call allowed.
	bd, batchDone := authorizeAsync(t, ctx, rt, s, "test:grant", []gate.ToolCall{{Tool: "run", Words: []string{"git", "status"}}, {Tool: "run", Words: []string{"git", "log"}}})
	_, err = rt.Reply(ctx, s, bd.ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
	require.NoError(t, err)
	bv := <-batchDone
	assert.False(t, bv.Allowed)
	assert.Equal(t, []bool{true, false}, bv.Granted)
	require.Len(t, bv.By, 2)
	assert.NotNil(t, bv.By[0])
	assert.Nil(t, bv.By[1], "no grant let the rejected one through")

	// Another workspace does not share it.
	other, err := New(ctx, emb.Conn, Options{Workspace: t.TempDir()})
	require.NoError(t, err)
	defer other.Close()
	otherGrants, err := other.ListGrants(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, otherGrants.Grants)

	require.NoError(t, rt.RevokeGrant(ctx, "", g.ID))
	assert.ErrorIs(t, rt.RevokeGrant(ctx, "", g.ID), ErrNoGrant)
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _, _ = rt.Authorize(actx, s, "test:grant", status) }()
	waitPending(t, rt, s, 1) // asks again at once
}

// plain is a verdict without its per-call grant flags.
func plain(v gate.Verdict) gate.Verdict { return gate.Verdict{Allowed: v.Allowed, Text: v.Text} }

// TestLastPerSubjectOverManySubjects holds the registry's pending list to the truth with
// hundreds of decisions: an ordered consumer that resets mid-scan used to deliver earlier
// messages of later subjects too, and answered questions showed as pending.
func TestLastPerSubjectOverManySubjects(t *testing.T) {
	rt := freshWith(t, Options{NoAgent: true}) // it writes the log itself
	ctx := context.Background()
	info, _ := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	for d := range 600 {
		writeDecision(t, rt, info.ID, fmt.Sprintf("d%d", d), envQuestion, true)
	}
	evs, err := rt.Log().LastPerSubject(ctx, eventlog.DecisionSubjects(""))
	require.NoError(t, err)
	n := map[protocol.EventType]int{}
	for _, e := range evs {
		n[e.Type]++
	}
	assert.Equal(t, map[protocol.EventType]int{protocol.EventQuestionReplied: 600}, n)
	pending, err := rt.PendingDecisions(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, pending.Decisions)
}
