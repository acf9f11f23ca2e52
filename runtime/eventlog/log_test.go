package eventlog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

func openLog(t *testing.T, cfg Config) *Log {
	t.Helper()
	ns, err := server.NewServer(&server.Options{JetStream: true, StoreDir: filepath.Join(t.TempDir(), "js"), DontListen: true, NoSigs: true, NoLog: true})
	require.NoError(t, err)
	ns.Start()
	require.True(t, ns.ReadyForConnections(10*time.Second))
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close(); ns.Shutdown() })
	l, err := Open(context.Background(), nc, cfg)
	require.NoError(t, err)
	return l
}

// slowAck stores the first n writes but reports them as timed out, as a loaded server whose
// acks come back after the caller's deadline does.
func slowAck(l *Log, n int64) *atomic.Int64 {
	real := l.publishMsg
	var calls atomic.Int64
	l.publishMsg = func(ctx context.Context, msg *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		if calls.Add(1) <= n {
			if _, err := real(ctx, msg, opts...); err != nil {
				return nil, err
			}
			return nil, context.DeadlineExceeded
		}
		return real(ctx, msg, opts...)
	}
	return &calls
}

func count(t *testing.T, l *Log, session string) int {
	evs, err := l.Read(context.Background(), session, 0)
	require.NoError(t, err)
	return len(evs)
}

func TestASlowWriteIsConfirmedNotReportedAsFailed(t *testing.T) {
	ctx := context.Background()
	t.Run("append", func(t *testing.T) {
		l := openLog(t, Config{})
		calls := slowAck(l, 1)
		offset, dup, err := l.Append(ctx, "s", protocol.EventAgentMessage, protocol.Message{Text: "hi"}, "")
		require.NoError(t, err, "stored, so not a failure")
		assert.False(t, dup, "our own first write is not a duplicate")
		assert.NotZero(t, offset)
		assert.Equal(t, 1, count(t, l, "s"), "stored once")
		assert.Equal(t, int64(2), calls.Load(), "confirmed by a retry with the same id")
	})
	t.Run("a conditional write, as a turn's end", func(t *testing.T) {
		l := openLog(t, Config{})
		first, _, err := l.Publish(ctx, TurnSubject("s"), protocol.EventTurnStarted, protocol.TurnStarted{}, "")
		require.NoError(t, err)
		slowAck(l, 1)
		offset, _, err := l.PublishAfter(ctx, TurnSubject("s"), first, protocol.EventTurnEnded, protocol.TurnEnded{}, "")
		require.NoError(t, err, "the subject ends with our write: it was stored")
		last, err := l.Last(ctx, TurnSubject("s"))
		require.NoError(t, err)
		assert.Equal(t, last.Offset, offset)
		assert.Equal(t, 2, count(t, l, "s"))
	})
	t.Run("someone else wrote first", func(t *testing.T) {
		l := openLog(t, Config{})
		_, _, err := l.Publish(ctx, TurnSubject("s"), protocol.EventTurnStarted, protocol.TurnStarted{}, "")
		require.NoError(t, err)
		_, _, err = l.PublishAfter(ctx, TurnSubject("s"), 0, protocol.EventTurnStarted, protocol.TurnStarted{}, "")
		assert.ErrorIs(t, err, ErrConflict)
	})
	t.Run("a write that waits on another subject", func(t *testing.T) {
		l := openLog(t, Config{})
		turn, _, err := l.Publish(ctx, TurnSubject("s"), protocol.EventTurnEnded, protocol.TurnEnded{}, "")
		require.NoError(t, err)
		// The turn subject is where it was read: the withdrawal is stored on the events.
		w, _, err := l.PublishWhile(ctx, EventsSubject("s"), TurnSubject("s"), turn, protocol.EventPromptWithdrawn, protocol.PromptWithdrawn{Prompt: 1}, "")
		require.NoError(t, err)
		// A claim that read the session before the withdrawal is refused...
		_, _, err = l.PublishWhile(ctx, TurnSubject("s"), SessionSubjects("s"), turn, protocol.EventTurnStarted, protocol.TurnStarted{}, "")
		assert.ErrorIs(t, err, ErrConflict)
		// ...one that read it after is stored, and a withdrawal that read the turn before it
		// is refused in its turn.
		started, _, err := l.PublishWhile(ctx, TurnSubject("s"), SessionSubjects("s"), w, protocol.EventTurnStarted, protocol.TurnStarted{}, "")
		require.NoError(t, err)
		_, _, err = l.PublishWhile(ctx, EventsSubject("s"), TurnSubject("s"), turn, protocol.EventPromptWithdrawn, protocol.PromptWithdrawn{Prompt: 2}, "")
		assert.ErrorIs(t, err, ErrConflict)
		_, _, err = l.PublishWhile(ctx, EventsSubject("s"), TurnSubject("s"), started, protocol.EventPromptWithdrawn, protocol.PromptWithdrawn{Prompt: 2}, "")
		assert.NoError(t, err)
	})
	t.Run("a write that cannot be confirmed is unavailable, not lost", func(t *testing.T) {
		l := openLog(t, Config{ConfirmWithin: 300 * time.Millisecond})
		l.publishMsg = func(context.Context, *nats.Msg, ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
			return nil, context.DeadlineExceeded
		}
		_, _, err := l.Append(ctx, "s", protocol.EventAgentMessage, protocol.Message{Text: "hi"}, "id")
		assert.ErrorIs(t, err, ErrUnavailable)
		assert.Contains(t, err.Error(), "try again")
	})
	t.Run("a refused write is reported as it is, at once", func(t *testing.T) {
		l := openLog(t, Config{})
		var calls atomic.Int64
		l.publishMsg = func(context.Context, *nats.Msg, ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
			calls.Add(1)
			return nil, nats.ErrMaxPayload
		}
		_, _, err := l.Append(ctx, "s", protocol.EventAgentMessage, protocol.Message{}, "")
		assert.True(t, errors.Is(err, nats.ErrMaxPayload))
		assert.False(t, errors.Is(err, ErrUnavailable))
		assert.Equal(t, int64(1), calls.Load())
	})
}

func TestLastAndHead(t *testing.T) {
	ctx := context.Background()
	l := openLog(t, Config{})
	_, err := l.Last(ctx, SessionSubjects("s"))
	assert.ErrorIs(t, err, ErrNotFound)
	head, err := l.Head(ctx, SessionSubjects("s"))
	require.NoError(t, err)
	assert.Zero(t, head)
	_, _, err = l.Append(ctx, "s", protocol.EventUserMessage, protocol.Message{Text: "a"}, "")
	require.NoError(t, err)
	offset, _, err := l.Publish(ctx, DecisionSubject("s", "q"), protocol.EventQuestionAsked, protocol.QuestionAsked{ID: "q"}, "")
	require.NoError(t, err)
	last, err := l.Last(ctx, SessionSubjects("s"))
	require.NoError(t, err)
	assert.Equal(t, offset, last.Offset)
	assert.Equal(t, "s", last.Session)
	assert.Equal(t, protocol.EventQuestionAsked, last.Type)
	got, err := l.Get(ctx, offset)
	require.NoError(t, err)
	assert.Equal(t, last, got)
	_, err = l.Get(ctx, offset+10)
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestPromptSubjectIsOneToken(t *testing.T) {
	for _, attempt := range []string{"a", "a.b", "*", ">", "a b"} {
		s := PromptSubject("sess", attempt)
		assert.Regexp(t, `^session\.sess\.p\.[0-9a-f]{24}$`, s, attempt)
		assert.Equal(t, "sess", SessionOf(s))
	}
	assert.NotEqual(t, PromptSubject("s", "a"), PromptSubject("s", "b"))
}

func TestFirst(t *testing.T) {
	ctx := context.Background()
	l := openLog(t, Config{})
	_, err := l.First(ctx, SessionPrompts("s"), 1)
	assert.ErrorIs(t, err, ErrNotFound)
	_, _, err = l.Append(ctx, "s", protocol.EventSessionCreated, protocol.SessionCreated{}, "")
	require.NoError(t, err)
	var offsets []uint64
	for _, a := range []string{"b", "a"} {
		o, _, err := l.PublishAfter(ctx, PromptSubject("s", a), 0, protocol.EventUserMessage, protocol.Message{Text: a}, "")
		require.NoError(t, err)
		offsets = append(offsets, o)
	}
	first, err := l.First(ctx, SessionPrompts("s"), 1)
	require.NoError(t, err)
	assert.Equal(t, offsets[0], first.Offset, "log order, not subject order")
	next, err := l.First(ctx, SessionPrompts("s"), first.Offset+1)
	require.NoError(t, err)
	assert.Equal(t, offsets[1], next.Offset)
}

func TestAsUnavailable(t *testing.T) {
	for _, err := range []error{context.DeadlineExceeded, nats.ErrTimeout, nats.ErrNoResponders, jetstream.ErrNoStreamResponse, nats.ErrConnectionClosed} {
		assert.ErrorIs(t, AsUnavailable(fmt.Errorf("read: %w", err)), ErrUnavailable, "%v", err)
	}
	for _, err := range []error{nil, context.Canceled, ErrNotFound, nats.ErrMaxPayload} {
		assert.Equal(t, err, AsUnavailable(err))
	}
}

// TestUnackedSessions: the sessions of prompts delivered and never acknowledged (a process
// that died holding their bells) are found without waiting for their ack wait.
func TestUnackedSessions(t *testing.T) {
	ctx := context.Background()
	l := openLog(t, Config{})
	got, err := l.UnackedSessions(ctx)
	require.NoError(t, err)
	assert.Empty(t, got, "no consumer yet")
	for i, s := range []string{"a", "b", "a", "c"} {
		_, _, err := l.PublishAfter(ctx, PromptSubject(s, strconv.Itoa(i)), 0, protocol.EventUserMessage, protocol.Message{Text: "x"}, "")
		require.NoError(t, err)
		_, _, err = l.Append(ctx, s, protocol.EventAgentMessage, protocol.Message{Text: "not a prompt"}, "")
		require.NoError(t, err)
	}
	rung := make(chan protocol.Event, 8)
	bells, err := l.StartDoorbells(ctx, func(ev protocol.Event, bell Bell) {
		if ev.Session == "c" {
			_ = bell.Ack() // c's prompt started
		}
		rung <- ev
	})
	require.NoError(t, err)
	for range 4 {
		<-rung
	}
	bells.Stop() // the process dies holding a's and b's bells
	got, err = l.UnackedSessions(ctx)
	require.NoError(t, err)
	// c may be listed too: it lies inside the unacknowledged window. Waking it costs a read.
	assert.Subset(t, got, []string{"a", "b"})
	assert.LessOrEqual(t, len(got), 3)
}
