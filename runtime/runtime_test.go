package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/agent"
)

func TestPromptIsAnsweredByTheOfflineAgent(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()

	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	assert.Equal(t, "New session", s.Title)
	assert.Equal(t, rt.Workspace(), s.Workspace)

	resp, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "hello\nworld", AttemptID: "a1"})
	require.NoError(t, err)
	assert.False(t, resp.Duplicate)

	evs := waitEvents(t, rt, s.ID, 5)
	assert.Equal(t, []protocol.EventType{protocol.EventSessionCreated, protocol.EventUserMessage,
		protocol.EventTurnStarted, protocol.EventAgentMessage, protocol.EventTurnEnded}, types(evs))
	assert.Equal(t, resp.Offset, evs[1].Offset)
	reply, err := evs[3].DecodeMessage()
	require.NoError(t, err)
	assert.Equal(t, agent.OfflineReply("hello\nworld"), reply.Text)
	assert.Contains(t, reply.Text, "No model is configured")
	assert.Contains(t, reply.Text, "“hello”")
	for i := 1; i < len(evs); i++ {
		assert.Greater(t, evs[i].Offset, evs[i-1].Offset, "offsets grow")
		assert.Equal(t, s.ID, evs[i].Session)
	}
}

func TestRetriedSendIsStoredOnce(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "t"})
	require.NoError(t, err)

	first, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "once", AttemptID: "same"})
	require.NoError(t, err)
	again, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "once", AttemptID: "same"})
	require.NoError(t, err)
	assert.True(t, again.Duplicate)
	assert.Equal(t, first.Offset, again.Offset)

	evs := waitEvents(t, rt, s.ID, 5)
	time.Sleep(100 * time.Millisecond) // a second reply, if any, would land by now
	evs, err = rt.Log().Read(ctx, s.ID, 0)
	require.NoError(t, err)
	assert.Equal(t, []protocol.EventType{protocol.EventSessionCreated, protocol.EventUserMessage,
		protocol.EventTurnStarted, protocol.EventAgentMessage, protocol.EventTurnEnded}, types(evs))
}

func TestSendPromptRejectsBadInput(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)

	_, err = rt.SendPrompt(ctx, "nope", protocol.SendPromptRequest{Text: "x", AttemptID: "a"})
	assert.ErrorIs(t, err, ErrNoSession)
	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "  ", AttemptID: "a"})
	var verr *protocol.ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Equal(t, "the prompt is empty", verr.Fields["text"])

	evs, err := rt.Log().Read(ctx, s.ID, 0)
	require.NoError(t, err)
	assert.Len(t, evs, 1, "nothing stored for a rejected prompt")
}

func TestFollowDeliversExactlyWhatFollowsThenLive(t *testing.T) {
	rt := fresh(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	b, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	_, err = rt.SendPrompt(ctx, a.ID, protocol.SendPromptRequest{Text: "one", AttemptID: "1"})
	require.NoError(t, err)
	_, err = rt.SendPrompt(ctx, b.ID, protocol.SendPromptRequest{Text: "other", AttemptID: "1"})
	require.NoError(t, err)
	stored := waitEvents(t, rt, a.ID, 5)

	// Subscribe after the first event: the two stored ones, then a live one.
	events, _, err := rt.Follow(ctx, a.ID, stored[0].Offset)
	require.NoError(t, err)
	next := func() protocol.Event { return testkit.Recv(t, events, "no event") }
	for _, want := range stored[1:] {
		assert.Equal(t, want, next())
	}
	live, err := rt.SendPrompt(ctx, a.ID, protocol.SendPromptRequest{Text: "two", AttemptID: "2"})
	require.NoError(t, err)
	got := next()
	assert.Equal(t, live.Offset, got.Offset)
	assert.Equal(t, a.ID, got.Session, "no event of another session")
	assert.Equal(t, protocol.EventTurnStarted, next().Type)
	assert.Equal(t, protocol.EventAgentMessage, next().Type)

	_, _, err = rt.Follow(ctx, "missing", 0)
	assert.ErrorIs(t, err, ErrNoSession)
}

func TestSessionsAndEventsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	emb, rt := start(t, dir)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "kept"})
	require.NoError(t, err)
	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "remember me", AttemptID: "r"})
	require.NoError(t, err)
	before := waitEvents(t, rt, s.ID, 5)
	stop(emb, rt)

	emb, rt = start(t, dir)
	defer stop(emb, rt)
	list, err := rt.ListSessions(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "kept", list[0].Title)
	time.Sleep(100 * time.Millisecond) // the agent must not answer the old prompt again
	after, err := rt.Log().Read(ctx, s.ID, 0)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

func TestPromptStoredWhileNoAgentRanIsAnsweredOnStart(t *testing.T) {
	dir := t.TempDir()
	emb, err := StartEmbedded(dir)
	require.NoError(t, err)
	ctx := context.Background()
	serveOnly, err := New(ctx, emb.Conn, Options{NoAgent: true})
	require.NoError(t, err)
	s, err := serveOnly.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	_, err = serveOnly.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "while away", AttemptID: "w"})
	require.NoError(t, err)
	emb.Close()
	serveOnly.cancel(nil) // gone with its server: its heartbeat and sweeps stop

	emb, rt := start(t, dir)
	defer stop(emb, rt)
	evs := waitEvents(t, rt, s.ID, 5)
	assert.Equal(t, protocol.EventAgentMessage, evs[3].Type)
}

func TestListSessionsNewestFirst(t *testing.T) {
	emb, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	defer emb.Close()
	clock := time.UnixMilli(1000)
	ids := []string{"first", "second"}
	rt, err := New(context.Background(), emb.Conn, Options{
		Now:   func() time.Time { clock = clock.Add(time.Second); return clock },
		NewID: func() string { id := ids[0]; ids = ids[1:]; return id },
	})
	require.NoError(t, err)
	defer rt.Close()
	ctx := context.Background()
	for range 2 {
		_, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
		require.NoError(t, err)
	}
	list, err := rt.ListSessions(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "second", list[0].ID)
	assert.Equal(t, "first", list[1].ID)
}

// TestLiveWatchersOfASessionShareOneSubscription: every caller of Live on a session hears
// every delta, through one subscription to the session's subject for all of them, which goes
// with the last of them; a caller that leaves takes nothing from the others.
func TestLiveWatchersOfASessionShareOneSubscription(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	subs := rt.nc.NumSubscriptions()
	ctxA, cancelA := context.WithCancel(ctx)
	ctxB, cancelB := context.WithCancel(ctx)
	defer cancelA()
	defer cancelB()
	a, err := rt.Live(ctxA, s.ID)
	require.NoError(t, err)
	b, err := rt.Live(ctxB, s.ID)
	require.NoError(t, err)
	require.Equal(t, subs+1, rt.nc.NumSubscriptions(), "one subscription for the session's two watchers")

	// The subscription is in place once a delta published after it reaches a watcher.
	send := func(text string) protocol.Delta {
		d := protocol.Delta{Stream: "7-1", Text: text}
		rt.publishLive(s.ID, d)
		return d
	}
	want := send("hello")
	require.Equal(t, want, testkit.Recv(t, a, "a hears the delta"))
	require.Equal(t, want, testkit.Recv(t, b, "b hears the delta"))

	cancelA()
	testkit.Eventually(t, func() bool {
		rt.live.watchMu.Lock()
		defer rt.live.watchMu.Unlock()
		return len(rt.live.watch[s.ID].outs) == 1
	}, "a's channel leaves the watchers")
	want = send("hello again")
	require.Equal(t, want, testkit.Recv(t, b, "b hears the delta after a left"))
	require.Equal(t, subs+1, rt.nc.NumSubscriptions())

	cancelB()
	testkit.Eventually(t, func() bool { return rt.nc.NumSubscriptions() == subs }, "the subscription goes with the last watcher")
}
