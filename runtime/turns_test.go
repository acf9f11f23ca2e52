package runtime

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/eventlog"
)

type quietBell struct{}

func (quietBell) Ack() error                       { return nil }
func (quietBell) Nak() error                       { return nil }
func (quietBell) NakWithDelay(time.Duration) error { return nil }
func (quietBell) InProgress() error                { return nil }

// TestAFunctionClaimDoesNotHoldTheTurnTable: while a function run waits on the log (here a
// presence read that takes its whole 2 s timeout), doorbells and stops of other sessions go
// through at once.
func TestAFunctionClaimDoesNotHoldTheTurnTable(t *testing.T) {
	emb, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	defer emb.Close()
	ctx := context.Background()
	rt, err := New(ctx, emb.Conn, Options{Workspace: t.TempDir()}) // shared: presence is read
	require.NoError(t, err)
	defer rt.Close()

	busy, other := newSession(t, rt), newSession(t, rt)
	// busy's turn is held by another replica, so the claim asks whether it is alive.
	_, _, err = rt.log.PublishAfter(ctx, eventlog.TurnSubject(busy), 0, protocol.EventTurnStarted,
		protocol.TurnStarted{Kind: protocol.TurnAgent, Owner: "rt-elsewhere"}, "")
	require.NoError(t, err)
	reading, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	rt.alive = func(ctx context.Context, owner string) bool {
		if owner != "rt-elsewhere" {
			return false
		}
		once.Do(func() { close(reading) })
		select {
		case <-release:
		case <-ctx.Done():
		}
		return true
	}
	claimed := make(chan error, 1)
	go func() { claimed <- rt.startFunctionTurn(ctx, busy, "function:x", func(context.Context) {}) }()
	<-reading

	done := make(chan struct{})
	go func() {
		rt.onBell(protocol.Event{Session: other, Offset: 1, Type: protocol.EventUserMessage}, quietBell{})
		rt.onStop(other, 1)
		rt.keepBells()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(testkit.Wait): // it would wait until the release below
		t.Fatal("a doorbell waited behind a function claim's presence read")
	}
	close(release)
	assert.ErrorIs(t, <-claimed, ErrBusy, "the other replica is alive")
}

// TestConcurrentFirstPromptsKeepTheTitle: the title comes from the first prompt in log order,
// however the first prompts and reads of the session interleave.
func TestConcurrentFirstPromptsKeepTheTitle(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	for round := range 5 {
		s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
		require.NoError(t, err)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				_, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "topic " + strconv.Itoa(i), AttemptID: strconv.Itoa(i)})
				assert.NoError(t, err)
			})
			wg.Go(func() {
				_, err := rt.Session(ctx, s.ID)
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		evs, err := rt.Log().Read(ctx, s.ID, 0)
		require.NoError(t, err)
		var first string
		for _, ev := range evs {
			if ev.Type == protocol.EventUserMessage {
				m, err := ev.DecodeMessage()
				require.NoError(t, err)
				first = m.Text
				break
			}
		}
		info, err := rt.Session(ctx, s.ID)
		require.NoError(t, err)
		assert.Equal(t, protocol.TitleFrom(first), info.Title, "round %d", round)
		assert.False(t, info.Blank)
	}
}

// TestAnAttemptIsStoredOnceAfterTheDedupeWindow: the same attempt id sent again after
// JetStream forgot its message id (10 minutes in production then, 2 now; shortened here) is
// still stored once.
func TestAnAttemptIsStoredOnceAfterTheDedupeWindow(t *testing.T) {
	emb, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	defer emb.Close()
	ctx := context.Background()
	rt, err := New(ctx, emb.Conn, Options{Workspace: t.TempDir(), Exclusive: true, duplicates: 200 * time.Millisecond})
	require.NoError(t, err)
	defer rt.Close()
	s := newSession(t, rt)
	first, err := rt.SendPrompt(ctx, s, protocol.SendPromptRequest{Text: "once", AttemptID: "late"})
	require.NoError(t, err)
	time.Sleep(600 * time.Millisecond)
	again, err := rt.SendPrompt(ctx, s, protocol.SendPromptRequest{Text: "once", AttemptID: "late"})
	require.NoError(t, err)
	assert.True(t, again.Duplicate)
	assert.Equal(t, first.Offset, again.Offset)
	_, err = rt.SendPrompt(ctx, s, protocol.SendPromptRequest{Text: "other", AttemptID: "late"})
	assert.ErrorIs(t, err, ErrAttemptReused)
	evs := waitFor(t, rt, s, "answered", testkit.Has(protocol.EventTurnEnded))
	assert.Equal(t, 1, testkit.Count(evs, protocol.EventUserMessage))
}
