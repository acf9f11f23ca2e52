package runtime

import (
	"context"
	"sync"

	"parley/protocol"
	"parley/runtime/eventlog"
)

// The replay of a session to a socket that subscribes (a reload, a reconnect, a second tab)
// reads the events stored up to the head it was told, then follows the feed from there. The
// newest events of the sessions replayed lately are kept here, decoded: a reload of a
// session this process served a moment ago replays from memory, and only what was stored
// since is read from the log. Events never change once stored, so a kept event is the
// stored one on every replica, and what is kept is only ever a run of a session's events
// with nothing missing between them (what a read of the log handed over in order).

// Bounds of what is kept: the newest replayKeep events of a session, at most
// replayKeepBytes of their data, for at most replaySessions sessions (the least lately
// replayed goes first). So at most 64 MiB of events' data, and a session longer than that
// replays its older part from the log.
const (
	replayKeep      = 4096
	replayKeepBytes = 2 << 20
	replaySessions  = 32
)

// replayCache holds the kept runs, one per session.
type replayCache struct {
	mu       sync.Mutex
	sessions map[string]*replayRun
	tick     uint64 // counts lookups, to find the least recently used run
}

// replayRun is every event of one session in (from, last]: evs, in log order.
type replayRun struct {
	mu    sync.Mutex
	from  uint64
	evs   []protocol.Event // never written in place once appended: readers hold slices of it
	bytes int
	used  uint64
}

func (c *replayCache) run(session string) *replayRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions == nil {
		c.sessions = map[string]*replayRun{}
	}
	c.tick++
	x := c.sessions[session]
	if x == nil {
		if len(c.sessions) >= replaySessions {
			var oldest string
			var at uint64
			for k, r := range c.sessions {
				if oldest == "" || r.used < at {
					oldest, at = k, r.used
				}
			}
			delete(c.sessions, oldest)
		}
		x = &replayRun{}
		c.sessions[session] = x
	}
	x.used = c.tick
	return x
}

// last is the offset of the run's last event, or its from when it holds none.
func (x *replayRun) last() uint64 {
	if len(x.evs) == 0 {
		return x.from
	}
	return x.evs[len(x.evs)-1].Offset
}

// slice returns the kept events in (after, through] and the offset they reach (after when
// none): only when the run holds every event after `after`, else nothing. The events are
// the run's own: read them, never change them.
func (x *replayRun) slice(after, through uint64) ([]protocol.Event, uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.evs) == 0 || after < x.from || after >= x.last() {
		return nil, after
	}
	i := searchOffset(x.evs, after)
	j := searchOffset(x.evs, through)
	if j <= i {
		return nil, after
	}
	return x.evs[i:j:j], x.evs[j-1].Offset
}

// get returns the kept event at offset.
func (x *replayRun) get(offset uint64) (protocol.Event, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if offset <= x.from || offset > x.last() {
		return protocol.Event{}, false
	}
	i := searchOffset(x.evs, offset-1)
	if i < len(x.evs) && x.evs[i].Offset == offset {
		return x.evs[i], true
	}
	return protocol.Event{}, false
}

// searchOffset is the index of the first event past offset.
func searchOffset(evs []protocol.Event, offset uint64) int {
	lo, hi := 0, len(evs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if evs[m].Offset <= offset {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// bound forgets the oldest events past the bounds, by slicing: what a reader holds stays as
// it was.
func (x *replayRun) bound() {
	drop := 0
	for len(x.evs)-drop > replayKeep || (x.bytes > replayKeepBytes && len(x.evs)-drop > 1) {
		x.bytes -= len(x.evs[drop].Data)
		drop++
	}
	if drop > 0 {
		x.from = x.evs[drop-1].Offset
		x.evs = x.evs[drop:]
	}
}

// add appends events that carry on from the run's end.
func (x *replayRun) add(evs []protocol.Event) {
	for _, ev := range evs {
		x.bytes += len(ev.Data)
	}
	x.evs = append(x.evs, evs...)
	x.bound()
}

// merge takes what a read of the log kept (every event of the session in (o.from, o's
// last]) into the run: the part past its end when it carries on from it, the part before its
// start when it leads up to it, in its place when it holds more or newer, and nothing when
// it is older and apart. A new array whenever the run's front changes: readers hold slices.
func (x *replayRun) merge(o *replayRun) {
	if len(o.evs) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	oLast, xLast := o.last(), x.last()
	switch {
	case len(x.evs) == 0 || (o.from <= x.from && oLast >= xLast) || o.from > xLast:
		x.from, x.evs, x.bytes = o.from, o.evs, o.bytes
	case o.from >= x.from && oLast > xLast: // carries on from the run's end
		x.add(o.evs[searchOffset(o.evs, xLast):])
	case o.from < x.from && oLast >= x.from: // leads up to the run's start
		before := o.evs[:searchOffset(o.evs, x.from)]
		evs := make([]protocol.Event, 0, len(before)+len(x.evs))
		x.from, x.evs = o.from, append(append(evs, before...), x.evs...)
		for _, ev := range before {
			x.bytes += len(ev.Data)
		}
		x.bound()
	}
}

// Replay hands a session's stored events in (after, through] to visit, in log order, in
// chunks of at most eventlog.RangeChunk events, and returns once the last of them is
// visited: what this process keeps of the session from memory, the rest from the log, which
// is then kept for the next replay. through must be stored already (a head read before);
// the events after it are the feed's (Subscribe after through). visit may keep the chunks
// it is handed, never change them: kept events are shared.
func (r *Runtime) Replay(ctx context.Context, session string, after, through uint64, visit func([]protocol.Event) error) error {
	x := r.replays.run(session)
	if kept, reach := x.slice(after, through); len(kept) > 0 {
		for len(kept) > 0 {
			n := min(len(kept), eventlog.RangeChunk)
			if err := visit(kept[:n]); err != nil {
				return err
			}
			kept = kept[n:]
		}
		after = reach
	}
	if after >= through {
		return nil
	}
	read := &replayRun{from: after}
	defer x.merge(read) // what was read is a run with nothing missing, even cut short
	return r.log.ReadRange(ctx, session, after, through, func(evs []protocol.Event) error {
		read.add(evs)
		return visit(evs)
	})
}
