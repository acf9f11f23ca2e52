package fanout_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"parley/protocol"
	"parley/runtime"
	"parley/runtime/fanout"
)

// logSource reads a real event log on embedded JetStream.
type logSource struct{ rt *runtime.Runtime }

func (s logSource) Head(ctx context.Context, session string) (uint64, error) {
	return s.rt.Head(ctx, session)
}

func (s logSource) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	return s.rt.Log().Follow(ctx, session, after)
}

func openLog(t *testing.T) (*runtime.Runtime, string) {
	t.Helper()
	emb, err := runtime.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	rt, err := runtime.New(context.Background(), emb.Conn, runtime.Options{Workspace: t.TempDir(), NoAgent: true, Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	info, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return rt, info.ID
}

// appendN stores n agent messages and returns their offsets. A second session's events go
// in between, so a session's offsets have gaps as they do in production.
func appendN(t *testing.T, rt *runtime.Runtime, session string, n int) []uint64 {
	t.Helper()
	ctx := context.Background()
	var offsets []uint64
	for i := range n {
		off, _, err := rt.Log().Append(ctx, session, protocol.EventAgentMessage, protocol.Message{Text: fmt.Sprint(i)}, "")
		if err != nil {
			t.Fatal(err)
		}
		offsets = append(offsets, off)
		if _, _, err := rt.Log().Append(ctx, "other", protocol.EventAgentMessage, protocol.Message{Text: "gap"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	return offsets
}

// storedAfter reads the offsets of the session's stored events after an offset.
func storedAfter(t *testing.T, rt *runtime.Runtime, session string, after uint64) []uint64 {
	t.Helper()
	evs, err := rt.Log().Read(context.Background(), session, after)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, ev := range evs {
		out = append(out, ev.Offset)
	}
	return out
}

// newHub is a hub on rt's log, closed when the test ends.
func newHub(t *testing.T, rt *runtime.Runtime, opts fanout.Options) *fanout.Hub {
	hub := fanout.New(logSource{rt}, opts)
	t.Cleanup(hub.Close)
	return hub
}

// follow subscribes to session after an offset; the hub must take the subscription.
func follow(t *testing.T, ctx context.Context, hub *fanout.Hub, session string, after uint64) (<-chan protocol.Event, <-chan error) {
	t.Helper()
	events, errc, err := hub.Follow(ctx, session, after)
	if err != nil {
		t.Fatal(err)
	}
	return events, errc
}

// collect reads events until it has every offset in want, failing on a gap, a duplicate, an
// error or a timeout.
func collect(t *testing.T, events <-chan protocol.Event, errc <-chan error, want []uint64) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for i := 0; i < len(want); {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("closed after %d of %d events", i, len(want))
			}
			if ev.Offset != want[i] {
				t.Fatalf("event %d: offset %d, want %d", i, ev.Offset, want[i])
			}
			i++
		case err := <-errc:
			t.Fatalf("after %d of %d events: %v", i, len(want), err)
		case <-timeout:
			t.Fatalf("timed out after %d of %d events", i, len(want))
		}
	}
}

func TestManySubscribersShareOneFeed(t *testing.T) {
	rt, session := openLog(t)
	appendN(t, rt, session, 10)
	stored := storedAfter(t, rt, session, 0)
	hub := newHub(t, rt, fanout.Options{})
	ctx := t.Context()
	consumersBefore, err := rt.Log().Consumers(ctx)
	if err != nil {
		t.Fatal(err)
	}

	const subscribers = 50
	type sub struct {
		events <-chan protocol.Event
		errc   <-chan error
	}
	subs := make([]sub, subscribers)
	for i := range subs {
		events, errc := follow(t, ctx, hub, session, 0)
		subs[i] = sub{events, errc}
	}
	live := appendN(t, rt, session, 100)
	var wg sync.WaitGroup
	for _, s := range subs {
		wg.Go(func() { collect(t, s.events, s.errc, append(append([]uint64{}, stored...), live...)) })
	}
	wg.Wait()

	if n := hub.Feeds(); n != 1 {
		t.Errorf("feeds = %d, want 1", n)
	}
	consumers, err := rt.Log().Consumers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// One feed for 50 subscribers; their catch-up reads are over.
	if consumers > consumersBefore+1 {
		t.Errorf("the log has %d consumers for %d subscribers (had %d): the subscribers do not share a feed", consumers, subscribers, consumersBefore)
	}
}

func TestAJoinBehindTheWindowCatchesUpFromTheLog(t *testing.T) {
	rt, session := openLog(t)
	hub := newHub(t, rt, fanout.Options{Window: 4})
	ctx := t.Context()
	first, firstErr := follow(t, ctx, hub, session, 0)
	appendN(t, rt, session, 20)
	offsets := storedAfter(t, rt, session, 0)
	collect(t, first, firstErr, offsets)

	cases := []struct {
		name  string
		after int // index into offsets; -1: from the start
	}{
		{"from the start", -1},
		{"far behind the window", 3},
		{"just inside the window", 17},
		{"at the head", 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after := uint64(0)
			if c.after >= 0 {
				after = offsets[c.after]
			}
			events, errc := follow(t, ctx, hub, session, after)
			more := appendN(t, rt, session, 3)
			offsets = append(offsets, more...)
			collect(t, events, errc, offsets[c.after+1:])
		})
	}
	if n := hub.Feeds(); n != 1 {
		t.Errorf("feeds = %d, want 1", n)
	}
}

func TestASlowSubscriberIsDroppedWithoutSlowingTheOthers(t *testing.T) {
	rt, session := openLog(t)
	hub := newHub(t, rt, fanout.Options{Queue: 64})
	ctx := t.Context()
	fast, fastErr := follow(t, ctx, hub, session, 0)
	slow, slowErr := follow(t, ctx, hub, session, 0)
	// The fast one reads as events come; the slow one reads nothing meanwhile.
	fastSeen := make(chan uint64, 1024)
	go func() {
		for ev := range fast {
			fastSeen <- ev.Offset
		}
	}()
	// Written in bursts of 32 (half its queue) that the fast one reads before the next: a
	// loaded machine may pause its reader, never the point of the test. The slow one reads
	// none of the 400 and overflows its 64.
	var seen []uint64
	next := func() {
		t.Helper()
		select {
		case got := <-fastSeen:
			seen = append(seen, got)
		case err := <-fastErr:
			t.Fatalf("fast subscriber after %d events: %v", len(seen), err)
		case <-time.After(10 * time.Second):
			t.Fatalf("fast subscriber: timed out after %d events", len(seen))
		}
	}
	for range 400 / 32 {
		appendN(t, rt, session, 32)
		for range 32 {
			next()
		}
	}
	offsets := storedAfter(t, rt, session, 0) // the session's own first event too
	for len(seen) < len(offsets) {
		next()
	}
	if !slices.Equal(offsets, seen) {
		t.Fatalf("the fast subscriber saw %v, want every event in order: %v", seen, offsets)
	}

	// The slow one gets what its queue held, in order, then ErrSlow; it can subscribe
	// again from the last offset it saw and miss nothing.
	var last uint64
	for done := false; !done; {
		select {
		case ev, ok := <-slow:
			if !ok {
				t.Fatal("closed without an error")
			}
			if ev.Offset <= last {
				t.Fatalf("offset %d after %d", ev.Offset, last)
			}
			last = ev.Offset
		case err := <-slowErr:
			if !errors.Is(err, fanout.ErrSlow) {
				t.Fatalf("err = %v, want ErrSlow", err)
			}
			done = true
		case <-time.After(10 * time.Second):
			t.Fatal("the slow subscriber was never told")
		}
	}
	if last >= offsets[len(offsets)-1] {
		t.Fatalf("the slow subscriber got everything (%d): nothing was dropped", last)
	}
	again, againErr := follow(t, ctx, hub, session, last)
	var rest []uint64
	for _, o := range offsets {
		if o > last {
			rest = append(rest, o)
		}
	}
	collect(t, again, againErr, rest)
}

func TestAFeedClosesAfterItsLastSubscriberLingers(t *testing.T) {
	rt, session := openLog(t)
	hub := newHub(t, rt, fanout.Options{Linger: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	events, _ := follow(t, ctx, hub, session, 0)
	cancel()
	for range events {
	}
	deadline := time.Now().Add(5 * time.Second)
	for hub.Feeds() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the feed stayed open with no subscriber")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A new subscriber opens a new feed and misses nothing.
	appendN(t, rt, session, 5)
	offsets := storedAfter(t, rt, session, 0)
	events, errc := follow(t, t.Context(), hub, session, 0)
	collect(t, events, errc, offsets)
}
