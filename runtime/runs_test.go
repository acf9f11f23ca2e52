package runtime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/i18n"
	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/catalogue"
	"parley/runtime/eventlog"
	"parley/runtime/gate"
	"parley/runtime/script"
	"parley/runtime/turn"
)

func TestScriptNeedsApprovalForRunAndFiresNoAgentTurn(t *testing.T) {
	ctx := context.Background()
	rt, s, offset, d := asking(t, "/script r = run(['echo', 'hello from echo'])\nsend(r.stdout.strip())")
	assert.Equal(t, commandRunID(offset), d.Run, "the approval is attributed to the command's run")
	assert.Equal(t, "Allow running echo?", d.Request.Message)
	_, err := rt.Reply(ctx, s, d.ID, pick(0))
	require.NoError(t, err)

	evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
	rs := settled(t, evs)
	assert.Empty(t, rs.Error)
	assert.Equal(t, commandRunID(offset), rs.Run)
	assert.Equal(t, []string{"hello from echo"}, testkit.AgentTexts(t, evs), "the script's message, and no agent reply")
	var out protocol.RunOutput
	for _, ev := range evs {
		if ev.Type == protocol.EventRunOutput {
			out, _ = protocol.DecodeEventData[protocol.RunOutput](ev)
		}
	}
	assert.Equal(t, protocol.StreamStdout, out.Stream)
	assert.Equal(t, "hello from echo\n", out.Text)

	// The order a thread shows: the command, its turn, the run, the approval, its output, the end.
	var order []protocol.EventType
	for _, ev := range evs[1:] {
		if len(order) == 0 || order[len(order)-1] != ev.Type {
			order = append(order, ev.Type)
		}
	}
	assert.Equal(t, []protocol.EventType{
		protocol.EventUserMessage, protocol.EventTurnStarted, protocol.EventRunStarted,
		protocol.EventQuestionAsked, protocol.EventQuestionReplied, protocol.EventRunOutput,
		protocol.EventAgentMessage, protocol.EventRunSettled, protocol.EventTurnEnded,
	}, order)
}

func TestRejectedRunIsTheScriptsToHandle(t *testing.T) {
	ctx := context.Background()
	rt, s, _, d := asking(t, "/script r = run(['touch', 'x'])\nsend('ok=%s error=%s' % (r.ok, r.error))")
	_, err := rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "not in my repo"})
	require.NoError(t, err)
	evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
	assert.Equal(t, []string{"ok=False error=rejected by the user: not in my repo"}, testkit.AgentTexts(t, evs))
	_, statErr := os.Stat(filepath.Join(rt.Workspace(), "x"))
	assert.True(t, os.IsNotExist(statErr), "nothing ran")
}

func TestCommandsAtTheDoor(t *testing.T) {
	rt := fresh(t)

	t.Run("unknown /words fall through to the agent", func(t *testing.T) {
		s := newSession(t, rt)
		prompt(t, rt, s, "/usr/bin/env is where env lives", protocol.ModeQueue)
		evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
		assert.Equal(t, []string{agent.OfflineReply("/usr/bin/env is where env lives")}, testkit.AgentTexts(t, evs))
		ts, err := protocol.DecodeEventData[protocol.TurnStarted](evs[2])
		require.NoError(t, err)
		assert.Equal(t, protocol.TurnAgent, ts.Kind)
		assert.Zero(t, testkit.Count(evs, protocol.EventRunStarted))
	})

	t.Run("help lists the commands, the examples and the functions", func(t *testing.T) {
		s := newSession(t, rt)
		prompt(t, rt, s, "/help", protocol.ModeQueue)
		evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
		texts := testkit.AgentTexts(t, evs)
		require.Len(t, texts, 1)
		for _, want := range []string{"/script <code>", "/example <slug> [json-vars]", "/example hello", "/example echo-burst",
			"Functions (run one with the composer's ƒ Functions button", "• greet: Greet someone"} {
			assert.Contains(t, texts[0], want)
		}
	})

	t.Run("example with variables", func(t *testing.T) {
		s := newSession(t, rt)
		prompt(t, rt, s, `/example hello {"name": "Ada"}`, protocol.ModeQueue)
		evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
		texts := testkit.AgentTexts(t, evs)
		require.NotEmpty(t, texts)
		assert.Contains(t, texts[0], "Ada")
		rs := settled(t, evs)
		assert.Empty(t, rs.Error)
	})

	t.Run("unknown example and bad variables say what to do", func(t *testing.T) {
		s := newSession(t, rt)
		prompt(t, rt, s, "/example nope", protocol.ModeQueue)
		evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
		assert.Contains(t, testkit.AgentTexts(t, evs)[0], `There is no example "nope"`)
		assert.Contains(t, testkit.AgentTexts(t, evs)[0], "Examples:\n• /example ")
		// The examples are the phrase's arguments, so a page writes their heading in its
		// locale (docs/i18n.md).
		m, err := testkit.OfType(evs, protocol.EventAgentMessage)[0].DecodeMessage()
		require.NoError(t, err)
		require.NotNil(t, m.Phrase)
		zh, ok := i18n.Chinese.Phrase(m.Phrase.Code, m.Phrase.Args)
		assert.True(t, ok && strings.Contains(zh, "示例：\n• /example ") && !strings.Contains(zh, "Examples:"), zh)
		prompt(t, rt, s, "/example hello {name}", protocol.ModeQueue)
		evs = waitFor(t, rt, s, "second turn ends", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 2 })
		assert.Contains(t, testkit.AgentTexts(t, evs)[1], "must be one JSON object")
	})

	t.Run("workspace examples", func(t *testing.T) {
		dir := filepath.Join(rt.Workspace(), catalogue.WorkspaceDir, "examples")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.star"), []byte("# Mine\nsend('from the workspace')\n"), 0o644))
		s := newSession(t, rt)
		prompt(t, rt, s, "/example mine", protocol.ModeQueue)
		evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
		assert.Equal(t, []string{"from the workspace"}, testkit.AgentTexts(t, evs))
	})

	t.Run("paths that leave the workspace are refused", func(t *testing.T) {
		s := newSession(t, rt)
		prompt(t, rt, s, "/script\nx = 1\nread('../../etc/passwd')", protocol.ModeQueue)
		evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
		rs := settled(t, evs)
		assert.Contains(t, rs.Error, "leaves the workspace")
		assert.Contains(t, rs.Error, "script:2", "the error carries the line")
	})
}

func TestScriptStepLimit(t *testing.T) {
	rt := freshWith(t, Options{Limits: script.Limits{Steps: 10_000}})
	s := newSession(t, rt)
	prompt(t, rt, s, "/script\nfor i in range(1000000):\n    pass", protocol.ModeQueue)
	evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
	rs := settled(t, evs)
	assert.Equal(t, "step limit hit: the script ran more than 10000 steps", rs.Error)
	// Parley's words, with their phrase: a page says them in its locale.
	require.NotNil(t, rs.ErrorPhrase)
	zh, _ := i18n.Chinese.Phrase(rs.ErrorPhrase.Code, rs.ErrorPhrase.Args)
	assert.Equal(t, "达到了步数上限：脚本运行了超过 10000 步", zh)
}

func TestStopAbortsTheTurnsDecisions(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s := newSession(t, rt)
	prompt(t, rt, s, "/script confirm('Deploy?')\nsend('not reached')", protocol.ModeQueue)
	waitPending(t, rt, s, 1)
	_, err := rt.StopTurn(ctx, s, protocol.StopRequest{})
	require.NoError(t, err)

	evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
	rej, err := lastOfType(t, rt, s, protocol.EventQuestionRejected).DecodeQuestionRejected()
	require.NoError(t, err)
	assert.Equal(t, protocol.OutcomeAborted, rej.Outcome)
	assert.Equal(t, protocol.ReasonStopped, rej.Reason)
	assert.Equal(t, "stopped by the user", settled(t, evs).Error)
	ended, err := protocol.DecodeEventData[protocol.TurnEnded](lastOfType(t, rt, s, protocol.EventTurnEnded))
	require.NoError(t, err)
	assert.True(t, ended.Stopped)
	assert.Empty(t, testkit.AgentTexts(t, evs))

	// The session takes prompts again.
	prompt(t, rt, s, "after the stop", protocol.ModeQueue)
	waitFor(t, rt, s, "answered", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 2 })
}

func TestPromptsWhileATurnRunsQueueOrSteer(t *testing.T) {
	ctx := context.Background()
	rt, s, _, d := asking(t, "/script confirm('Go on?')")

	second := prompt(t, rt, s, "second", protocol.ModeQueue)
	urgent := prompt(t, rt, s, "urgent", protocol.ModeSteer)
	time.Sleep(100 * time.Millisecond) // the doorbells have rung by now
	assert.Equal(t, []uint64{urgent, second}, queueOf(t, rt, s), "steer goes ahead of the queue")
	evs, err := rt.Log().Read(ctx, s, 0)
	require.NoError(t, err)
	assert.Zero(t, testkit.Count(evs, protocol.EventAgentMessage), "nothing answered while the turn runs")
	assert.Zero(t, testkit.Count(evs, protocol.EventTurnQueue), "the queue is derived from the log, not written")

	_, err = rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(true)})
	require.NoError(t, err)
	evs = waitFor(t, rt, s, "all three turns", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 3 })
	assert.Equal(t, []string{agent.OfflineReply("urgent"), agent.OfflineReply("second")}, testkit.AgentTexts(t, evs))
	assert.Empty(t, queueOf(t, rt, s))
	var startedPrompts []uint64
	for _, ts := range testkit.DataOf[protocol.TurnStarted](t, evs, protocol.EventTurnStarted) {
		startedPrompts = append(startedPrompts, ts.Prompt)
	}
	assert.Equal(t, []uint64{startedPrompts[0], urgent, second}, startedPrompts)
}

func TestFunctions(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()

	list, err := rt.ListFunctions("")
	require.NoError(t, err)
	var names []string
	for _, fn := range list.Functions {
		names = append(names, fn.Name)
		assert.Equal(t, "object", fn.Params.Type, fn.Name)
		assert.Equal(t, "builtin", fn.Source)
	}
	assert.Subset(t, names, []string{"greet", "word-count", "make-note"})

	resp, err := rt.RunFunction(ctx, "greet", protocol.RunFunctionRequest{Args: raw(map[string]any{"name": "Ada"})})
	require.NoError(t, err)
	require.True(t, protocol.ValidSessionID(resp.Session))
	assert.True(t, strings.HasPrefix(resp.Run, "function:"))
	evs := waitFor(t, rt, resp.Session, "run ends", testkit.Has(protocol.EventTurnEnded))
	rs := settled(t, evs)
	assert.Empty(t, rs.Error)
	assert.Contains(t, rs.Result, "Ada")
	assert.NotEmpty(t, testkit.AgentTexts(t, evs))

	_, err = rt.RunFunction(ctx, "greet", protocol.RunFunctionRequest{Args: raw(map[string]any{"name": 3})})
	var verr *protocol.ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Contains(t, verr.Fields, "name")
	_, err = rt.RunFunction(ctx, "greet", protocol.RunFunctionRequest{})
	require.ErrorAs(t, err, &verr)
	assert.Contains(t, verr.Fields["name"], "required")
	_, err = rt.RunFunction(ctx, "nope", protocol.RunFunctionRequest{})
	assert.ErrorIs(t, err, ErrNoFunction)

	// A workspace's own function, and a run in an existing session that asks mid-flight.
	dir := filepath.Join(rt.Workspace(), catalogue.WorkspaceDir, "functions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pick.star"), []byte(`
TITLE = "Pick"
PARAMS = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "default": 2}}}
def main(args):
    env = ask("Where to?", {"type": "string", "enum": ["staging", "prod"]})
    return "%s x%d" % (env, args["n"])
`), 0o644))
	s := newSession(t, rt)
	resp, err = rt.RunFunction(ctx, "pick", protocol.RunFunctionRequest{Session: s})
	require.NoError(t, err)
	assert.Equal(t, s, resp.Session)
	_, err = rt.RunFunction(ctx, "pick", protocol.RunFunctionRequest{Session: s})
	assert.ErrorIs(t, err, ErrBusy, "one turn at a time")
	d := waitPending(t, rt, s, 1)[0]
	assert.Equal(t, resp.Run, d.Run)
	_, err = rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw("prod")})
	require.NoError(t, err)
	evs = waitFor(t, rt, s, "run ends", testkit.Has(protocol.EventTurnEnded))
	assert.Equal(t, "prod x2", settled(t, evs).Result, "defaults seeded")
}

// turnsAlternate checks that a session's turns never overlap: on its turn subject, every
// turn.started is followed by its turn.ended before the next starts.
func turnsAlternate(t *testing.T, evs []protocol.Event) {
	t.Helper()
	open := false
	for _, ev := range evs {
		switch ev.Type {
		case protocol.EventTurnStarted:
			require.False(t, open, "turn started at %d while another was open", ev.Offset)
			open = true
		case protocol.EventTurnEnded:
			require.True(t, open, "turn ended at %d with none open", ev.Offset)
			open = false
		}
	}
}

func TestKilledServerInterruptsItsTurnAndRunsTheQueueOnRestart(t *testing.T) {
	dir := t.TempDir()
	emb, rt := start(t, dir)
	s := newSession(t, rt)
	prompt(t, rt, s, "/script confirm('Deploy?')", protocol.ModeQueue)
	waitPending(t, rt, s, 1)
	queued := prompt(t, rt, s, "and then this", protocol.ModeQueue)
	require.Eventually(t, func() bool { return len(queueOf(t, rt, s)) == 1 }, testkit.Wait, 10*time.Millisecond)

	// kill -9: the process and its connection vanish mid-turn.
	crash(emb, rt)

	emb, rt = start(t, dir)
	defer stop(emb, rt)
	evs := waitFor(t, rt, s, "the queued prompt runs", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 2 })
	turnsAlternate(t, evs)
	rs := settled(t, evs)
	assert.Contains(t, rs.Error, "interrupted")
	rej, err := lastOfType(t, rt, s, protocol.EventQuestionRejected).DecodeQuestionRejected()
	require.NoError(t, err)
	assert.Equal(t, protocol.ReasonOrphaned, rej.Reason)
	ended := testkit.DataOf[protocol.TurnEnded](t, evs, protocol.EventTurnEnded)
	assert.True(t, ended[0].Interrupted)
	assert.Equal(t, queued, ended[1].Prompt)
	assert.Equal(t, []string{agent.OfflineReply("and then this")}, testkit.AgentTexts(t, evs))

	// The prompt's redelivered doorbell does not run it twice.
	time.Sleep(200 * time.Millisecond)
	evs, err = rt.Log().Read(context.Background(), s, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, testkit.Count(evs, protocol.EventTurnStarted))
}

func TestReplicasNeverRunOneSessionAtOnce(t *testing.T) {
	emb, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	defer emb.Close()
	ctx := context.Background()
	var rts []*Runtime
	shared := t.TempDir()
	for range 2 {
		rt, err := New(ctx, emb.Conn, Options{Workspace: shared})
		require.NoError(t, err)
		defer rt.Close()
		rts = append(rts, rt)
	}
	s := newSession(t, rts[0])
	prompt(t, rts[0], s, "/script confirm('Hold on?')", protocol.ModeQueue)
	d := waitPending(t, rts[1], s, 1)[0]
	var want []string
	for i := range 4 {
		text := "prompt " + strconv.Itoa(i)
		prompt(t, rts[i%2], s, text, protocol.ModeQueue)
		want = append(want, agent.OfflineReply(text))
	}
	time.Sleep(300 * time.Millisecond) // both replicas have seen the doorbells by now
	evs, err := rts[0].Log().Read(ctx, s, 0)
	require.NoError(t, err)
	assert.Empty(t, testkit.AgentTexts(t, evs), "nothing runs beside the open turn")

	_, err = rts[1].Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(true)})
	require.NoError(t, err)
	evs = waitFor(t, rts[0], s, "every prompt answered", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 5 })
	turnsAlternate(t, evs)
	assert.Equal(t, want, testkit.AgentTexts(t, evs), "each once, in order")
	time.Sleep(1500 * time.Millisecond) // redelivered doorbells find their prompts started
	evs, err = rts[0].Log().Read(ctx, s, 0)
	require.NoError(t, err)
	assert.Equal(t, 5, testkit.Count(evs, protocol.EventTurnStarted))
}

func TestReviewFindings(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()

	t.Run("stop with nothing running records nothing", func(t *testing.T) {
		s := newSession(t, rt)
		resp, err := rt.StopTurn(ctx, s, protocol.StopRequest{})
		require.NoError(t, err)
		assert.False(t, resp.Running)
		evs, err := rt.Log().Read(ctx, s, 0)
		require.NoError(t, err)
		assert.Zero(t, testkit.Count(evs, protocol.EventStopRequested))
	})

	t.Run("an attempt id reused for other text is refused", func(t *testing.T) {
		s := newSession(t, rt)
		_, err := rt.SendPrompt(ctx, s, protocol.SendPromptRequest{Text: "one", AttemptID: "same"})
		require.NoError(t, err)
		again, err := rt.SendPrompt(ctx, s, protocol.SendPromptRequest{Text: "one", AttemptID: "same"})
		require.NoError(t, err)
		assert.True(t, again.Duplicate, "a true retry is fine")
		_, err = rt.SendPrompt(ctx, s, protocol.SendPromptRequest{Text: "two", AttemptID: "same"})
		assert.ErrorIs(t, err, ErrAttemptReused)
	})

	t.Run("a broken workspace function is listed with its error and refused clearly", func(t *testing.T) {
		dir := filepath.Join(rt.Workspace(), catalogue.WorkspaceDir, "functions")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.star"), []byte("def main(args):\n  return (\n"), 0o644))
		var found protocol.Function
		fns, err := rt.ListFunctions("")
		require.NoError(t, err)
		for _, fn := range fns.Functions {
			if fn.Name == "broken" {
				found = fn
			}
		}
		assert.Equal(t, ".parley/functions/broken.star", found.Source)
		assert.NotEmpty(t, found.Error)
		_, err = rt.RunFunction(ctx, "broken", protocol.RunFunctionRequest{})
		assert.ErrorIs(t, err, ErrFunctionBroken)
		assert.ErrorContains(t, err, ".parley/functions/broken.star")
	})

	t.Run("a revocation is recorded where the grant was made", func(t *testing.T) {
		s := newSession(t, rt)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = rt.Authorize(ctx, s, "test:r", []gate.ToolCall{{Tool: "run", Words: []string{"ls", "-l"}}})
		}()
		d := waitPending(t, rt, s, 1)[0]
		_, err := rt.Reply(ctx, s, d.ID, pick(1))
		require.NoError(t, err)
		<-done
		grants, err := rt.ListGrants(ctx, "")
		require.NoError(t, err)
		require.NotEmpty(t, grants.Grants)
		require.NoError(t, rt.RevokeGrant(ctx, "", grants.Grants[len(grants.Grants)-1].ID))
		lastOfType(t, rt, s, protocol.EventGrantRevoked)
	})

	t.Run("help reads as sentences", func(t *testing.T) {
		cmds, err := rt.ListCommands("")
		require.NoError(t, err)
		for _, e := range cmds.Examples {
			assert.NotRegexp(t, `[a-z] [A-Z]`, e.Description[:min(len(e.Description), 40)], e.Name)
		}
	})
}

// TestSessionFromBeforeTurnsKeepsItsHistory: a log written before turns were recorded (a
// prompt and its reply, no turn events, the prompt acknowledged by the old agent) is not
// answered again when a new prompt arrives.
func TestSessionFromBeforeTurnsKeepsItsHistory(t *testing.T) {
	emb, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	defer emb.Close()
	ctx := context.Background()
	old, err := New(ctx, emb.Conn, Options{Workspace: t.TempDir(), NoAgent: true, Exclusive: true})
	require.NoError(t, err)
	s := newSession(t, old)
	for _, ev := range []struct {
		typ  protocol.EventType
		text string
	}{{protocol.EventUserMessage, "old prompt"}, {protocol.EventAgentMessage, "old reply"}} {
		_, _, err := old.Log().Append(ctx, s, ev.typ, protocol.Message{Text: ev.text}, "")
		require.NoError(t, err)
	}
	// The earlier version's agent read and acknowledged everything through its consumer.
	in, err := old.log.StartDoorbells(ctx, func(_ protocol.Event, bell eventlog.Bell) { _ = bell.Ack() })
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		undelivered, unacked, err := old.log.Pending(ctx)
		require.NoError(t, err)
		return undelivered == 0 && unacked == 0
	}, testkit.Wait, 10*time.Millisecond)
	in.Stop()
	old.Close()

	rt, err := New(ctx, emb.Conn, Options{Workspace: t.TempDir(), Exclusive: true})
	require.NoError(t, err)
	defer rt.Close()
	prompt(t, rt, s, "new prompt", protocol.ModeQueue)
	waitFor(t, rt, s, "answered", testkit.Has(protocol.EventTurnEnded))
	time.Sleep(200 * time.Millisecond)
	evs, err := rt.Log().Read(ctx, s, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"old reply", agent.OfflineReply("new prompt")}, testkit.AgentTexts(t, evs))
	assert.Equal(t, 1, testkit.Count(evs, protocol.EventTurnStarted))
}

func TestALateStopDoesNotStopTheNextTurn(t *testing.T) {
	ctx := context.Background()
	rt, s, _, d := asking(t, "/script confirm('first?')")
	first := lastOfType(t, rt, s, protocol.EventTurnStarted).Offset
	_, err := rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(true)})
	require.NoError(t, err)
	waitFor(t, rt, s, "first ends", testkit.Has(protocol.EventTurnEnded))

	prompt(t, rt, s, "/script confirm('second?')", protocol.ModeQueue)
	waitPending(t, rt, s, 1)
	// The stop a person aimed at the first turn arrives only now.
	_, _, err = rt.Log().Append(ctx, s, protocol.EventStopRequested, protocol.StopRequested{Turn: first}, "")
	require.NoError(t, err)
	time.Sleep(300 * time.Millisecond)
	assert.Len(t, waitPendingAtLeast(t, rt, s, 1), 1, "the second turn still runs")

	// A stop naming the turn the user saw, which has ended, stops nothing either.
	resp, err := rt.StopTurn(ctx, s, protocol.StopRequest{Turn: first})
	require.NoError(t, err)
	assert.False(t, resp.Running)
	second := lastOfType(t, rt, s, protocol.EventTurnStarted).Offset
	resp, err = rt.StopTurn(ctx, s, protocol.StopRequest{Turn: second})
	require.NoError(t, err)
	assert.True(t, resp.Running)
	waitFor(t, rt, s, "second stopped", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 2 })
}

// queueOf is the session's queue as the browser derives it from the log: the prompts no
// turn.started names, in the order they will run.
func queueOf(t *testing.T, rt *Runtime, session string) []uint64 {
	t.Helper()
	ctx := context.Background()
	st, err := rt.turnState(ctx, session)
	require.NoError(t, err)
	evs, err := rt.Log().Read(ctx, session, st.Through)
	require.NoError(t, err)
	waiting, _ := turn.Waiting(st, evs)
	out := []uint64{}
	for _, p := range waiting {
		out = append(out, p.Offset)
	}
	return out
}

// A script that runs out of memory fails its run with the memory error, and the server
// takes the next one: it ran in a child that died alone.
func TestScriptOutOfMemory(t *testing.T) {
	rt := fresh(t)
	s := newSession(t, rt)
	prompt(t, rt, s, "/script\nx = 'a'\nfor i in range(40):\n    x = x + x", protocol.ModeQueue)
	evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
	rs := settled(t, evs)
	assert.Contains(t, rs.Error, "the script ran out of memory (limit 256 MiB)")
	require.NotNil(t, rs.ErrorPhrase)
	zh, _ := i18n.Chinese.Phrase(rs.ErrorPhrase.Code, rs.ErrorPhrase.Args)
	assert.Contains(t, zh, "脚本用完了内存（上限 256 MiB）")

	prompt(t, rt, s, "/script send('still here')", protocol.ModeQueue)
	evs = waitFor(t, rt, s, "the next turn ends", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 2 })
	assert.Equal(t, []string{"still here"}, testkit.AgentTexts(t, evs))
}

// A send() of 2 MiB failed with the log's "nats: maximum payload exceeded"; it is cut with a
// note, as print() is.
func TestLargeSendIsCut(t *testing.T) {
	rt := fresh(t)
	s := newSession(t, rt)
	prompt(t, rt, s, "/script send('a' * (2 << 20))", protocol.ModeQueue)
	evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
	assert.Empty(t, settled(t, evs).Error)
	texts := testkit.AgentTexts(t, evs)
	if assert.Len(t, texts, 1) {
		assert.Equal(t, strings.Repeat("a", 256<<10)+"\n[message truncated after 256 KiB]", texts[0])
	}
}

// TestRetryOfACommandsRequestRunsTheCommandAgain: a /script's question that expired is asked
// again by sending the script again, which asks from its start; the agent, which never asked
// it, is not prompted. The history calls it Run again (RetryRuns).
func TestRetryOfACommandsRequestRunsTheCommandAgain(t *testing.T) {
	ctx := context.Background()
	rt := freshWith(t, Options{Exclusive: true, DecisionTimeout: 200 * time.Millisecond})
	s := newSession(t, rt)
	const command = "/script confirm('Deploy to staging?')"
	prompt(t, rt, s, command, protocol.ModeQueue)
	evs := waitFor(t, rt, s, "the question times out", testkit.Has(protocol.EventQuestionRejected))
	asked, err := protocol.DecodeEventData[protocol.QuestionAsked](evs[slices.IndexFunc(evs, func(ev protocol.Event) bool { return ev.Type == protocol.EventQuestionAsked })])
	require.NoError(t, err)

	h, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Session: s})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.True(t, h.Entries[0].Retryable)
	assert.True(t, h.Entries[0].RetryRuns, "a command's request is asked again by running it again")

	resp, err := rt.RequestRetry(ctx, s, asked.ID)
	require.NoError(t, err)
	assert.Equal(t, command, resp.Text, "the command, as it was sent")
	evs = waitFor(t, rt, s, "the command asks again", func(evs []protocol.Event) bool {
		return testkit.Count(evs, protocol.EventQuestionAsked) == 2
	})
	var prompts []string
	for _, ev := range evs {
		if ev.Type == protocol.EventUserMessage {
			m, _ := ev.DecodeMessage()
			prompts = append(prompts, m.Text)
		}
	}
	assert.Equal(t, []string{command, command}, prompts, "no prompt to the agent")
	again, err := rt.RequestRetry(ctx, s, asked.ID)
	require.NoError(t, err)
	assert.True(t, again.Duplicate, "a second click is stored once")
}
