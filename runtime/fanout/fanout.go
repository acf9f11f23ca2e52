// Package fanout follows each session's events once per process and hands them to every
// subscriber in the process: a thousand sockets on one session cost the event log one
// consumer, not a thousand.
//
// A subscriber asks for the events after an offset, as it would of the log itself. What it
// missed comes first: from the feed's window of recent events when it joins just behind, or
// from a catch-up read of the log of its own when it joins further back. Then it gets the
// live events the shared feed delivers. Each subscriber has a bounded queue; one that cannot
// keep up is told (ErrSlow) and dropped, and subscribes again from the last offset it saw, so
// a slow reader never slows the feed, the other subscribers or the turns that write the log.
// See docs/runtime.md, "Fan-out".
package fanout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
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
	// Window is how many recent events a feed keeps for subscribers that join just behind
	// it, so a reconnecting socket needs no read of its own (256).
	Window int
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
	opts.Window = cmp.Or(opts.Window, 256)
	opts.Linger = cmp.Or(opts.Linger, 2*time.Second)
	return &Hub{src: src, opts: opts, feeds: map[string]*feed{}}
}

// feed is the one live follower of a session in this process.
type feed struct {
	hub     *Hub
	session string
	cancel  context.CancelFunc

	// Guarded by hub.mu: a subscriber joins, a delivery fans out and a feed ends under the
	// one lock, so none of them sees another half done.
	last   uint64           // the offset of the last event delivered, or where it began
	window []protocol.Event // the newest events delivered, oldest first, at most Window
	// from is where the window begins: it holds every event of the session after it.
	// Offsets are the stream's, shared by every session, so they have gaps within one.
	from   uint64
	subs   map[*subscriber]bool
	linger *time.Timer
	done   bool
}

// subscriber is one Follow call.
type subscriber struct {
	live chan protocol.Event // fed by the feed without blocking; full means too slow
	errc chan error          // one error ends the subscription
}

// Follow streams the session's events after an offset, like Source.Follow, from the
// session's shared feed. The event channel closes when ctx ends or the subscription fails;
// the error (ErrSlow, or the log's) comes on the error channel first.
func (h *Hub) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	f, err := h.feedFor(ctx, session)
	if err != nil {
		return nil, nil, err
	}
	sub := &subscriber{live: make(chan protocol.Event, h.opts.Queue), errc: make(chan error, 1)}

	h.mu.Lock()
	if f.done {
		h.mu.Unlock()
		return h.Follow(ctx, session, after) // it ended as we joined: a new one opens
	}
	joined := f.last
	var behind []protocol.Event // what the window holds of (after, joined]
	fromLog := after < f.from
	if !fromLog {
		for _, ev := range f.window {
			if ev.Offset > after {
				behind = append(behind, ev)
			}
		}
	}
	f.subs[sub] = true
	if f.linger != nil {
		f.linger.Stop()
		f.linger = nil
	}
	h.mu.Unlock()

	out := make(chan protocol.Event, 64)
	errc := make(chan error, 1)
	go func() {
		defer close(out)
		defer h.leave(f, sub)
		delivered := after
		emit := func(ev protocol.Event) bool {
			if ev.Offset <= delivered {
				return true
			}
			select {
			case out <- ev:
				delivered = ev.Offset
				return true
			case <-ctx.Done():
				return false
			}
		}
		fail := func(err error) { errc <- err }
		if fromLog {
			if err := h.catchUp(ctx, session, after, joined, emit); err != nil {
				if ctx.Err() == nil {
					fail(err)
				}
				return
			}
		}
		for _, ev := range behind {
			if !emit(ev) {
				return
			}
		}
		for {
			select {
			case ev := <-sub.live:
				if !emit(ev) {
					return
				}
			case err := <-sub.errc:
				// Events queued before the failure still go out, then the error.
				for {
					select {
					case ev := <-sub.live:
						if !emit(ev) {
							return
						}
						continue
					default:
					}
					break
				}
				fail(err)
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, errc, nil
}

// catchUp reads (after, through] from the log with a follower of the subscriber's own.
func (h *Hub) catchUp(ctx context.Context, session string, after, through uint64, emit func(protocol.Event) bool) error {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, errc, err := h.src.Follow(cctx, session, after)
	if err != nil {
		return err
	}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return cmp.Or(ctx.Err(), errors.New("the event log closed during a catch-up read"))
			}
			if !emit(ev) {
				return ctx.Err()
			}
			if ev.Offset >= through {
				return nil
			}
		case err := <-errc:
			return fmt.Errorf("catch up on session %s: %w", session, err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
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
	f := &feed{hub: h, session: session, cancel: cancel, last: head, from: head, subs: map[*subscriber]bool{}}

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

// run delivers the feed's events to its subscribers until the log fails or it is closed.
func (f *feed) run(events <-chan protocol.Event, errc <-chan error) {
	h := f.hub
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				f.end(errors.New("the event log stopped following this session; reconnect to catch up"))
				return
			}
			h.mu.Lock()
			if f.done {
				h.mu.Unlock()
				return
			}
			f.last = ev.Offset
			if len(f.window) == h.opts.Window {
				f.from = f.window[0].Offset
				f.window = append(f.window[:0], f.window[1:]...)
			}
			f.window = append(f.window, ev)
			for sub := range f.subs {
				select {
				case sub.live <- ev:
				default:
					delete(f.subs, sub)
					sub.errc <- ErrSlow
				}
			}
			h.mu.Unlock()
		case err := <-errc:
			f.end(fmt.Errorf("follow session %s: %w", f.session, err))
			return
		}
	}
}

// end closes the feed and fails its subscribers with err (nil: they were all gone).
func (f *feed) end(err error) {
	h := f.hub
	h.mu.Lock()
	if f.done {
		h.mu.Unlock()
		return
	}
	f.done = true
	if h.feeds[f.session] == f {
		delete(h.feeds, f.session)
	}
	for sub := range f.subs {
		delete(f.subs, sub)
		if err != nil {
			sub.errc <- err
		}
	}
	if f.linger != nil {
		f.linger.Stop()
	}
	h.mu.Unlock()
	f.cancel()
}

// leave removes a subscriber; the last one out starts the feed's linger.
func (h *Hub) leave(f *feed, sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(f.subs, sub)
	if len(f.subs) > 0 || f.done || f.linger != nil {
		return
	}
	f.linger = time.AfterFunc(h.opts.Linger, func() {
		h.mu.Lock()
		idle := len(f.subs) == 0 && !f.done
		h.mu.Unlock()
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
