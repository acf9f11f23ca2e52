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
				// Follow sends its error before it closes the events, but a select that
				// finds both ready picks either: the error must be there by now.
				select {
				case err := <-slowErr:
					if !errors.Is(err, fanout.ErrSlow) {
						t.Fatalf("err = %v, want ErrSlow", err)
					}
					done = true
					continue
				default:
					t.Fatal("closed without an error")
				}
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

// subscribe places a subscriber in the session's feed after an offset.
func subscribe(t *testing.T, hub *fanout.Hub, session string, after uint64) *fanout.Subscription {
	t.Helper()
	s, err := hub.Subscribe(t.Context(), session, after)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// takeAll takes from s, waking on Ready, until it has n events; it returns them and how many
// takes brought events.
func takeAll(t *testing.T, s *fanout.Subscription, n, max int) (got []uint64, takes int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case <-s.Ready():
		case <-timeout:
			t.Fatalf("timed out after %d of %d events", len(got), n)
		}
		evs, err := s.Take(nil, max)
		if err != nil {
			t.Fatalf("after %d of %d events: %v", len(got), n, err)
		}
		if max > 0 && len(evs) > max {
			t.Fatalf("took %d events, at most %d asked", len(evs), max)
		}
		if len(evs) > 0 {
			takes++
		}
		for _, ev := range evs {
			got = append(got, ev.Offset)
		}
	}
	return got, takes
}

// TestATakeHasEverythingThatWaits: a subscriber that takes late gets all the events that
// came meanwhile in one take, in order, or in takes of at most what it asks.
func TestATakeHasEverythingThatWaits(t *testing.T) {
	rt, session := openLog(t)
	hub := newHub(t, rt, fanout.Options{})
	start := storedAfter(t, rt, session, 0)
	head := start[len(start)-1] // joined at the head, they all read the feed's ring
	reader := subscribe(t, hub, session, head)
	late := subscribe(t, hub, session, head)
	bounded := subscribe(t, hub, session, head)
	appendN(t, rt, session, 10)
	want := storedAfter(t, rt, session, head)
	// Once one subscriber has every event, the feed holds them all for the others.
	got, _ := takeAll(t, reader, len(want), 0)
	if !slices.Equal(got, want) {
		t.Fatalf("reader got %v, want %v", got, want)
	}
	got, takes := takeAll(t, late, len(want), 0)
	if !slices.Equal(got, want) || takes != 1 {
		t.Fatalf("late subscriber got %v in %d takes, want %v in 1", got, takes, want)
	}
	got, takes = takeAll(t, bounded, len(want), 4)
	if !slices.Equal(got, want) || takes != (len(want)+3)/4 {
		t.Fatalf("bounded subscriber got %v in %d takes, want %v in %d", got, takes, want, (len(want)+3)/4)
	}
}

// TestASubscriberThatNeverTakesIsToldItIsSlow: past its queue, Take says ErrSlow, and a new
// subscription from the last offset it took misses nothing.
func TestASubscriberThatNeverTakesIsToldItIsSlow(t *testing.T) {
	rt, session := openLog(t)
	hub := newHub(t, rt, fanout.Options{Queue: 8})
	reader := subscribe(t, hub, session, 0)
	idle := subscribe(t, hub, session, 0)
	first, _ := takeAll(t, idle, len(storedAfter(t, rt, session, 0)), 0)
	var got []uint64
	for range 4 { // in steps of half the queue, so the reader keeps up on a loaded machine
		appendN(t, rt, session, 4)
		want := storedAfter(t, rt, session, 0)
		more, _ := takeAll(t, reader, len(want)-len(got), 0)
		got = append(got, more...)
	}
	if !slices.Equal(got, storedAfter(t, rt, session, 0)) {
		t.Fatalf("the reader got %v", got)
	}
	select {
	case <-idle.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the idle subscriber was never woken")
	}
	if evs, err := idle.Take(nil, 0); !errors.Is(err, fanout.ErrSlow) || len(evs) != 0 {
		t.Fatalf("idle subscriber took %d events, err %v; want none and ErrSlow", len(evs), err)
	}
	last := first[len(first)-1]
	again := subscribe(t, hub, session, last)
	rest, _ := takeAll(t, again, len(got)-len(first), 0)
	if !slices.Equal(rest, got[len(first):]) {
		t.Fatalf("after %d the new subscription got %v, want %v", last, rest, got[len(first):])
	}
}
