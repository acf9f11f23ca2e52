// Package fanout follows each session's events once per process and hands them to every
// subscriber in the process: a thousand sockets on one session cost the event log one
// consumer, not a thousand.
//
// A session's feed keeps its newest events in one ring that all its subscribers read: a
// subscriber is a place in the ring, not a queue of its own, so an event costs the feed one
// copy whatever the number of subscribers, and a subscriber costs a few words. A subscriber
// asks for the events after an offset, as it would of the log itself. What it missed comes
// first: from the ring when it joins just behind, or from a catch-up read of the log of its
// own when it joins further back. Then it takes the live events, all that wait at once. One
// that falls further behind than the ring holds is told (ErrSlow) and dropped, and subscribes
// again from the last offset it saw, so a slow reader never slows the feed, the other
// subscribers or the turns that write the log. See docs/runtime.md, "Fan-out".
package fanout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"parley/protocol"
)

// ErrSlow ends a subscription whose reader fell further behind than its queue holds.
var ErrSlow = errors.New("this connection fell behind the session's events; subscribe again from the last offset it saw to catch up")

// Source is the event log as the hub reads it.
type Source interface {
	// Head is the offset of the session's last event, 0 when it has none.
	Head(ctx context.Context, session string) (uint64, error)
	// Follow streams the session's events after an offset: stored ones, then live ones,
	// with no gap and no duplicate, until ctx ends or the log fails (sent on the error
	// channel).
	Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error)
}

// Options tune a Hub; zero values take the defaults.
type Options struct {
	// Queue is how many events a subscriber may fall behind before it is dropped (1024).
	Queue int
	// Window is how many of the newest events a subscriber may join behind and be served
	// from the feed's ring, with no read of its own (a reconnecting socket); further back, it
	// catches up from the log (Queue). The ring holds the larger of the two.
	Window int
	// Pace spaces a feed's wake-ups of its subscribers: at least Pace per subscriber apart
	// (20 µs: 20 ms for a thousand), at most MaxPace (25 ms). An event after a quiet spell
	// goes out at once, and those that follow it within the pace go together at its end.
	// Each wake-up costs every subscriber a write, so a busy session with many sockets costs
	// them a write per pace, not one per event, and the work of its wake-ups stays about
	// level as its sockets grow; a session with a few wakes them at once. Negative: none.
	Pace    time.Duration
	MaxPace time.Duration
	// Linger keeps a feed open this long after its last subscriber leaves, so a reload does
	// not reopen the log's consumer (2 s).
	Linger time.Duration
}

// Hub holds one feed per followed session.
type Hub struct {
	src  Source
	opts Options

	mu     sync.Mutex
	feeds  map[string]*feed
	closed bool
}

// New returns a hub reading src.
func New(src Source, opts Options) *Hub {
	opts.Queue = cmp.Or(opts.Queue, 1024)
	opts.Window = cmp.Or(opts.Window, opts.Queue)
	opts.Pace = cmp.Or(opts.Pace, 20*time.Microsecond)
	opts.MaxPace = cmp.Or(opts.MaxPace, 25*time.Millisecond)
	opts.Linger = cmp.Or(opts.Linger, 2*time.Second)
	return &Hub{src: src, opts: opts, feeds: map[string]*feed{}}
}

// feed is the one live follower of a session in this process.
type feed struct {
	hub     *Hub
	session string
	cancel  context.CancelFunc

	// mu guards what follows and the state of every subscriber of the feed: a subscriber
	// joins, an event is added and a feed ends under it, so none sees another half done. A
	// subscriber that keeps up takes its events without it (Subscription.takeLive): a
	// thousand sockets woken at once would queue on it, and under a busy machine a holder
	// the kernel preempts held them all up.
	mu sync.Mutex
	// ring holds the newest events: event number i of the feed (from 0) is ring[i%len]. A
	// slot is replaced, never changed, so a reader without mu reads a whole event, and
	// tells by its number whether it is the one it wanted or a newer one.
	ring []atomic.Pointer[slot]
	// n is how many events the feed has added: written under mu, after their slots, so a
	// reader that loads it finds every slot below it stored.
	n    atomic.Uint64
	last uint64 // the offset of the last event added, or where the feed began
	// from is where the ring begins: it holds every event of the session after it.
	// Offsets are the stream's, shared by every session, so they have gaps within one.
	from   uint64
	subs   map[*Subscription]struct{}
	linger *time.Timer
	done   bool
	err    error // why it ended; nil while it runs or when it closed idle
}

// slot is event number num of a feed, in its ring.
type slot struct {
	num uint64
	ev  protocol.Event
}

// Subscription is one subscriber's place in its session's feed. Ready signals that events
// (or an error) wait; Take returns them (one caller at a time). Close releases it.
type Subscription struct {
	f     *feed
	ready chan struct{} // one token: something waits
	room  chan struct{} // one token: the catch-up may add more
	stop  context.CancelFunc

	// next is the number of the next event of the ring it takes: written by Take (and
	// join), read by the feed to drop a subscriber too far behind.
	next atomic.Uint64
	// live: nothing but the ring waits for it (no catch-up, no error), so Take reads the
	// ring without f.mu. Cleared under f.mu before anything else is set to wait.
	live atomic.Bool
	// delivered is the offset of the last event it took: Take's alone (and join's, before).
	delivered uint64

	// Guarded by f.mu.
	catching bool             // its catch-up read is not over
	caught   []protocol.Event // read by the catch-up, not taken yet
	err      error            // ends it: ErrSlow, the log's failure, shutdown
	closed   bool
}

// catchUpBuffer is how many events of a catch-up read wait for their subscriber to take
// them before the read waits in turn.
const catchUpBuffer = 256

// Subscribe places a subscriber in the session's feed, after an offset. It ends when ctx
// does or Close is called, and after an error Take returns.
func (h *Hub) Subscribe(ctx context.Context, session string, after uint64) (*Subscription, error) {
	for {
		f, err := h.feedFor(ctx, session)
		if err != nil {
			return nil, err
		}
		if s := f.join(ctx, after); s != nil {
			return s, nil
		}
		// It ended as we joined: a new one opens.
	}
}

// join adds a subscriber after an offset; nil if the feed has ended.
func (f *feed) join(ctx context.Context, after uint64) *Subscription {
	sctx, stop := context.WithCancel(ctx)
	s := &Subscription{f: f, ready: make(chan struct{}, 1), room: make(chan struct{}, 1), stop: stop, delivered: after}
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		stop()
		return nil
	}
	through := f.last
	n := f.n.Load()
	next := n
	size := uint64(len(f.ring))
	reach, from := min(n, size), f.from // the ring holds the events after from
	if w := uint64(f.hub.opts.Window); w < reach {
		reach, from = w, f.ring[(n-w-1)%size].Load().ev.Offset
	}
	if after < from {
		s.catching = true // (after, through] is older than the ring
	} else {
		// The ring holds (from, last]: start at the first event after `after`.
		for next > n-reach && f.ring[(next-1)%size].Load().ev.Offset > after {
			next--
		}
		if next < n {
			s.signal()
		}
		s.live.Store(true)
	}
	s.next.Store(next)
	f.subs[s] = struct{}{}
	if f.linger != nil {
		f.linger.Stop()
		f.linger = nil
	}
	f.mu.Unlock()
	if s.catching {
		go s.catchUp(sctx, after, through)
	}
	context.AfterFunc(sctx, s.Close)
	return s
}

// Ready receives a token when events or an error wait for Take. A token may find nothing
// new: take what there is and wait again.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

func (s *Subscription) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Take appends the events that wait, in log order, at most max of them (0: all), to buf. It
// returns the error that ended the subscription once the events before it are taken. One
// goroutine at a time calls it.
func (s *Subscription) Take(buf []protocol.Event, max int) ([]protocol.Event, error) {
	if s.live.Load() {
		if out, ok := s.takeLive(buf, max); ok {
			return out, nil
		}
	}
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	room := func() int {
		if max <= 0 {
			return int(^uint(0) >> 1)
		}
		return max - len(buf)
	}
	if room() <= 0 {
		return buf, nil
	}
	if len(s.caught) > 0 {
		k := min(len(s.caught), room())
		buf = append(buf, s.caught[:k]...)
		s.delivered = s.caught[k-1].Offset
		s.caught = append(s.caught[:0], s.caught[k:]...)
		if len(s.caught) == 0 && !s.catching {
			s.caught = nil // the catch-up is over: its buffer goes
		}
		select {
		case s.room <- struct{}{}:
		default:
		}
		if len(s.caught) > 0 || !s.catching {
			s.signal() // more waits
		}
		return buf, nil
	}
	if s.catching && s.err == nil {
		return buf, nil
	}
	n, next := f.n.Load(), s.next.Load()
	if s.err == nil && n-next > uint64(f.hub.opts.Queue) {
		s.drop(ErrSlow)
	}
	if errors.Is(s.err, ErrSlow) {
		return buf, s.err // what it missed is no longer in the ring
	}
	if s.err == nil && !s.catching {
		s.live.Store(true) // its catch-up is over: the ring is all that waits for it
	}
	buf = slices.Grow(buf, int(min(n-next, uint64(room())))) // one allocation at most
	for ; next < n && room() > 0; next++ {
		if ev := f.ring[next%uint64(len(f.ring))].Load().ev; ev.Offset > s.delivered {
			buf = append(buf, ev)
			s.delivered = ev.Offset
		}
	}
	s.next.Store(next)
	if next < n {
		s.signal() // more waits than max
	} else if s.err != nil {
		return buf, s.err
	}
	return buf, nil
}

// takeLive is Take for a subscriber that only reads the ring, without the feed's lock;
// false when the locked path must decide (it fell too far behind).
func (s *Subscription) takeLive(buf []protocol.Event, most int) ([]protocol.Event, bool) {
	f := s.f
	n, next := f.n.Load(), s.next.Load()
	if n-next > uint64(f.hub.opts.Queue) {
		return buf, false // too far behind: dropped, under the lock
	}
	k := n - next
	if most > 0 {
		k = min(k, uint64(max(0, most-len(buf))))
	}
	start, delivered := len(buf), s.delivered
	buf = slices.Grow(buf, int(k))
	size := uint64(len(f.ring))
	for i := next; i < next+k; i++ {
		sl := f.ring[i%size].Load()
		if sl.num != i {
			return buf[:start], false // replaced: it fell a ring behind
		}
		if sl.ev.Offset > delivered {
			buf = append(buf, sl.ev)
			delivered = sl.ev.Offset
		}
	}
	s.next.Store(next + k)
	s.delivered = delivered
	if next+k < n {
		s.signal() // more waits than max
	}
	return buf, true
}

// drop ends the subscription with err; f.mu is held.
func (s *Subscription) drop(err error) {
	s.live.Store(false)
	if s.err == nil {
		s.err = err
	}
	delete(s.f.subs, s)
	s.signal()
}

// Close releases the subscription; Take then returns what waits, if anything, and no more.
func (s *Subscription) Close() {
	f := s.f
	f.mu.Lock()
	if s.closed {
		f.mu.Unlock()
		return
	}
	s.closed = true
	s.live.Store(false)
	if s.err == nil {
		s.err = context.Canceled
	}
	delete(f.subs, s)
	s.signal()
	f.idleLocked()
	f.mu.Unlock()
	s.stop()
}

// catchUp reads (after, through] from the log with a follower of the subscriber's own, into
// its caught buffer, and waits for room when the subscriber has not taken enough of it.
func (s *Subscription) catchUp(ctx context.Context, after, through uint64) {
	f := s.f
	fail := func(err error) {
		f.mu.Lock()
		s.catching = false
		if s.err == nil && ctx.Err() == nil {
			s.drop(err)
		}
		f.mu.Unlock()
		s.signal()
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, errc, err := f.hub.src.Follow(cctx, f.session, after)
	if err != nil {
		fail(fmt.Errorf("catch up on session %s: %w", f.session, err))
		return
	}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				fail(cmp.Or(ctx.Err(), errors.New("the event log closed during a catch-up read")))
				return
			}
			for {
				f.mu.Lock()
				if len(s.caught) < catchUpBuffer || s.closed || s.err != nil {
					break
				}
				f.mu.Unlock()
				select {
				case <-s.room:
				case <-ctx.Done():
					fail(ctx.Err())
					return
				}
			}
			if s.closed || s.err != nil {
				f.mu.Unlock()
				return
			}
			s.caught = append(s.caught, ev)
			end := ev.Offset >= through
			if end {
				s.catching = false
			}
			f.mu.Unlock()
			s.signal()
			if end {
				return
			}
		case err := <-errc:
			fail(fmt.Errorf("catch up on session %s: %w", f.session, err))
			return
		case <-ctx.Done():
			fail(ctx.Err())
			return
		}
	}
}

// Follow streams the session's events after an offset, like Source.Follow, from the
// session's shared feed. The event channel closes when ctx ends or the subscription fails;
// the error (ErrSlow, or the log's) comes on the error channel first.
func (h *Hub) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	s, err := h.Subscribe(ctx, session, after)
	if err != nil {
		return nil, nil, err
	}
	out := make(chan protocol.Event, 64)
	errc := make(chan error, 1)
	go func() {
		defer close(out)
		defer s.Close()
		var buf []protocol.Event
		for {
			select {
			case <-s.Ready():
			case <-ctx.Done():
				return
			}
			var err error
			buf, err = s.Take(buf[:0], 64)
			for _, ev := range buf {
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if ctx.Err() == nil {
					errc <- err
				}
				return
			}
		}
	}()
	return out, errc, nil
}

// feedFor returns the session's feed, opening it at the session's head.
func (h *Hub) feedFor(ctx context.Context, session string) (*feed, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errors.New("the server is shutting down")
	}
	if f := h.feeds[session]; f != nil {
		h.mu.Unlock()
		return f, nil
	}
	h.mu.Unlock()

	// Open outside the lock: a slow log must not hold up the sessions that are followed.
	head, err := h.src.Head(ctx, session)
	if err != nil {
		return nil, err
	}
	fctx, cancel := context.WithCancel(context.Background())
	events, errc, err := h.src.Follow(fctx, session, head)
	if err != nil {
		cancel()
		return nil, err
	}
	f := &feed{hub: h, session: session, cancel: cancel, last: head, from: head,
		ring: make([]atomic.Pointer[slot], max(h.opts.Queue, h.opts.Window)), subs: map[*Subscription]struct{}{}}

	h.mu.Lock()
	if other := h.feeds[session]; other != nil || h.closed {
		h.mu.Unlock()
		cancel() // another caller opened it first
		if other == nil {
			return nil, errors.New("the server is shutting down")
		}
		return other, nil
	}
	h.feeds[session] = f
	h.mu.Unlock()
	go f.run(events, errc)
	return f, nil
}

// run adds the feed's events to its ring and wakes its subscribers until the log fails or
// the feed is closed. Whatever the log has delivered already goes in at once, and the
// subscribers wake at most once per pace (Options.Pace).
func (f *feed) run(events <-chan protocol.Event, errc <-chan error) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var woke time.Time // the last wake-up
	waiting := false   // events were added since it, and the timer is set
	batch := make([]protocol.Event, 0, 64)
	for {
		select {
		case ev, ok := <-events:
			closed := !ok
			batch = batch[:0]
			if ok {
				batch = append(batch, ev)
			}
			for !closed && len(batch) < cap(batch) {
				select {
				case ev, ok := <-events:
					if !ok {
						closed = true
						continue
					}
					batch = append(batch, ev)
					continue
				default:
				}
				break
			}
			var pace time.Duration
			if len(batch) > 0 {
				var ok bool
				if pace, ok = f.add(batch); !ok {
					return
				}
			}
			if closed {
				f.end(errors.New("the event log stopped following this session; reconnect to catch up"))
				return
			}
			if waiting {
				continue // the timer wakes them
			}
			if now := time.Now(); pace <= 0 || now.Sub(woke) >= pace {
				woke = now
				f.wake()
			} else {
				waiting = true
				timer.Reset(pace - now.Sub(woke))
			}
		case <-timer.C:
			waiting = false
			woke = time.Now()
			f.wake()
		case err := <-errc:
			f.end(fmt.Errorf("follow session %s: %w", f.session, err))
			return
		}
	}
}

// add puts events in the ring, and drops the subscribers that fall too far behind. It
// returns the pace of the wake-ups for the subscribers it has, false when the feed has ended.
func (f *feed) add(evs []protocol.Event) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return 0, false
	}
	size := uint64(len(f.ring))
	n := f.n.Load()
	for _, ev := range evs {
		at := &f.ring[n%size]
		if n >= size {
			f.from = at.Load().ev.Offset
		}
		at.Store(&slot{num: n, ev: ev})
		n++
		f.last = ev.Offset
	}
	f.n.Store(n)
	queue := uint64(f.hub.opts.Queue)
	for s := range f.subs {
		if n-s.next.Load() > queue {
			s.drop(ErrSlow)
		}
	}
	return min(f.hub.opts.MaxPace, f.hub.opts.Pace*time.Duration(len(f.subs))), true
}

// wake tells every subscriber that events wait.
func (f *feed) wake() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs {
		s.signal()
	}
}

// end closes the feed and fails its subscribers with err. With a nil err it closes an idle
// feed, and only if nobody has joined since it was found idle.
func (f *feed) end(err error) {
	h := f.hub
	h.mu.Lock()
	f.mu.Lock()
	if f.done || (err == nil && len(f.subs) > 0) {
		f.mu.Unlock()
		h.mu.Unlock()
		return
	}
	f.done = true
	if h.feeds[f.session] == f {
		delete(h.feeds, f.session)
	}
	h.mu.Unlock()
	for s := range f.subs {
		delete(f.subs, s)
		s.live.Store(false)
		if s.err == nil {
			s.err = err
		}
		s.signal()
	}
	if f.linger != nil {
		f.linger.Stop()
	}
	f.mu.Unlock()
	f.cancel()
}

// idleLocked starts the feed's linger when its last subscriber has left; f.mu is held.
func (f *feed) idleLocked() {
	if len(f.subs) > 0 || f.done || f.linger != nil {
		return
	}
	f.linger = time.AfterFunc(f.hub.opts.Linger, func() {
		f.mu.Lock()
		idle := len(f.subs) == 0 && !f.done
		f.mu.Unlock()
		if idle {
			f.end(nil)
		}
	})
}

// Feeds counts the sessions followed now: one log consumer each.
func (h *Hub) Feeds() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.feeds)
}

// Close ends every feed; their subscribers see their channels close.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	feeds := make([]*feed, 0, len(h.feeds))
	for _, f := range h.feeds {
		feeds = append(feeds, f)
	}
	h.mu.Unlock()
	for _, f := range feeds {
		f.end(errors.New("the server is shutting down"))
	}
}
