package server

import "parley/protocol"

// liveSync decides which live deltas a socket sends, from what it has sent its client: the
// socket's events and deltas leave through one pump, so it knows how much of each streaming
// message the client holds, and sends only what is new. A delta from the runtime is the
// message's tail since its last stored draft (runtime/live.go); a delta frame is the part of
// that tail the client lacks.
//
// Deltas wait until the replay has caught up (a streaming message is shown after the events
// stored before it) and, for a message whose last draft has not reached the client yet,
// until it has: the client could not place text beyond a hole.
type liveSync struct {
	frames   *frameCache // decodes each event once for every socket; nil: decode here
	caughtUp bool
	head     uint64
	streams  map[string]*liveStream
}

type liveStream struct {
	// held is a lower bound of the bytes of the message the client holds, -1 when this
	// socket has seen none of it (it subscribed after the drafts it holds).
	held    int
	pending *protocol.Delta // the newest tail not sent yet
	closed  bool            // its agent.message went out: deltas are late
}

func newLiveSync(after, head uint64) *liveSync {
	return &liveSync{caughtUp: after >= head, head: head, streams: map[string]*liveStream{}}
}

func (l *liveSync) stream(id string) *liveStream {
	st := l.streams[id]
	if st == nil {
		st = &liveStream{held: -1}
		l.streams[id] = st
	}
	return st
}

// event notes an event that was sent, and returns the deltas it lets through.
func (l *liveSync) event(ev protocol.Event) []protocol.Delta {
	var out []protocol.Delta
	var mark streamMark
	if l.frames != nil {
		mark = l.frames.mark(ev)
	} else {
		mark = markOf(ev)
	}
	switch {
	case mark.stream == "":
	case mark.closes:
		st := l.stream(mark.stream)
		st.closed, st.pending = true, nil
	default: // a draft
		st := l.stream(mark.stream)
		st.held = max(st.held, mark.end)
		if l.caughtUp && st.pending != nil {
			out = l.send(st, *st.pending)
		}
	}
	if !l.caughtUp && ev.Offset >= l.head {
		l.caughtUp = true
		for _, st := range l.streams {
			if st.pending != nil {
				out = append(out, l.send(st, *st.pending)...)
			}
		}
	}
	return out
}

// delta takes a tail from the runtime and returns what to send now.
func (l *liveSync) delta(d protocol.Delta) []protocol.Delta {
	st := l.stream(d.Stream)
	if st.closed {
		return nil
	}
	if !l.caughtUp {
		st.hold(d)
		return nil
	}
	return l.send(st, d)
}

// hold keeps the tail that reaches furthest: a tail asked for on subscribe may arrive after
// a newer delta, and text only grows.
func (st *liveStream) hold(d protocol.Delta) {
	if st.pending == nil || d.Pos+len(d.Text) >= st.pending.Pos+len(st.pending.Text) {
		st.pending = &d
	}
}

func (l *liveSync) send(st *liveStream, d protocol.Delta) []protocol.Delta {
	end := d.Pos + len(d.Text)
	switch {
	case st.held < 0 && d.Pos == 0:
		st.held = end
		st.drop()
		return []protocol.Delta{d}
	case st.held < 0:
		// What the client holds is unknown: the whole tail may fit it (it does when the
		// client saw the draft before Pos), and is sent again from the next draft in case not.
		if st.pending != nil && end < st.pending.Pos+len(st.pending.Text) {
			return nil // older than one sent already
		}
		st.hold(d)
		return []protocol.Delta{d}
	case d.Pos > st.held:
		st.hold(d) // a draft still on its way fills the hole first
		return nil
	case end <= st.held:
		return nil // an older tail than one sent
	}
	from := st.held
	st.held = end
	st.drop()
	return []protocol.Delta{{Stream: d.Stream, Pos: from, Text: d.Text[from-d.Pos:]}}
}

// drop forgets the held tail once the client has all it says.
func (st *liveStream) drop() {
	if st.pending != nil && st.pending.Pos+len(st.pending.Text) <= st.held {
		st.pending = nil
	}
}
