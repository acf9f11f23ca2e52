package testkit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// EventReader reads a session's events after an offset. The runtime's log (Log.Read) and
// a test server's HTTP events endpoint both are one.
type EventReader func(ctx context.Context, session string, after uint64) ([]protocol.Event, error)

// WaitEvents reads the session's whole log until cond holds for it, and returns it. On
// timeout it logs what it read, so the failure shows what happened instead.
func WaitEvents(t testing.TB, read EventReader, session, what string, cond func([]protocol.Event) bool) []protocol.Event {
	t.Helper()
	var evs []protocol.Event
	ok := assert.Eventually(t, func() bool {
		var err error
		evs, err = read(context.Background(), session, 0)
		require.NoError(t, err)
		return cond(evs)
	}, Wait, 10*time.Millisecond, what)
	if !ok {
		for _, ev := range evs {
			t.Logf("%d %s %s", ev.Offset, ev.Type, ev.Data)
		}
		t.FailNow()
	}
	return evs
}

// Count is how many of evs are of type typ.
func Count(evs []protocol.Event, typ protocol.EventType) int {
	return len(OfType(evs, typ))
}

// OfType is the events of type typ, in order.
func OfType(evs []protocol.Event, typ protocol.EventType) []protocol.Event {
	var out []protocol.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// DataOf decodes the data of the events of type typ, in order, as T.
func DataOf[T any](t testing.TB, evs []protocol.Event, typ protocol.EventType) []T {
	t.Helper()
	var out []T
	for _, ev := range OfType(evs, typ) {
		d, err := protocol.DecodeEventData[T](ev)
		require.NoError(t, err, "decode %s at %d", ev.Type, ev.Offset)
		out = append(out, d)
	}
	return out
}

// Has is a WaitEvents condition: an event of type typ is in the log.
func Has(typ protocol.EventType) func([]protocol.Event) bool {
	return func(evs []protocol.Event) bool { return Count(evs, typ) > 0 }
}

// TurnsEnded is a WaitEvents condition: at least n turns have ended.
func TurnsEnded(n int) func([]protocol.Event) bool {
	return func(evs []protocol.Event) bool { return Count(evs, protocol.EventTurnEnded) >= n }
}

// AgentTexts is the text of every agent.message, in order.
func AgentTexts(t testing.TB, evs []protocol.Event) []string {
	t.Helper()
	var out []string
	for _, ev := range OfType(evs, protocol.EventAgentMessage) {
		m, err := ev.DecodeMessage()
		require.NoError(t, err)
		out = append(out, m.Text)
	}
	return out
}

// LastAgentText is the text of the last agent.message; there must be one.
func LastAgentText(t testing.TB, evs []protocol.Event) string {
	t.Helper()
	texts := AgentTexts(t, evs)
	require.NotEmpty(t, texts, "no agent.message")
	return texts[len(texts)-1]
}

// LastSettled is the data of the last run.settled; there must be one.
func LastSettled(t testing.TB, evs []protocol.Event) protocol.RunSettled {
	t.Helper()
	settled := DataOf[protocol.RunSettled](t, evs, protocol.EventRunSettled)
	require.NotEmpty(t, settled, "no run.settled")
	return settled[len(settled)-1]
}

// Types lists the events' types, runs of one type counted once: a shape to compare.
func Types(evs []protocol.Event) []protocol.EventType {
	var out []protocol.EventType
	for _, ev := range evs {
		if len(out) == 0 || out[len(out)-1] != ev.Type {
			out = append(out, ev.Type)
		}
	}
	return out
}

// Recv is the next value from ch; the test fails with what when none comes within Wait.
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return RecvWithin(t, ch, Wait, what)
}

// RecvWithin is Recv with its own bound, for a value that comes after slower work (a
// notifier's retries, a cluster's election).
func RecvWithin[T any](t testing.TB, ch <-chan T, within time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(within):
		t.Fatal(what)
	}
	var zero T
	return zero
}
