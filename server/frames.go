package server

import (
	"bytes"
	"encoding/json"
	"sync/atomic"

	"parley/protocol"
)

// frameSlots is how many recent events the cache keeps encoded: enough for every socket of
// a busy session to find the encoding its neighbours just made.
const frameSlots = 4096

// runSlots is how many recent frames the cache keeps whole.
const runSlots = 1024

// Batches of events a socket had waiting: at most this many events, and they stop growing
// past this many bytes (one event may exceed it alone).
const (
	batchEvents = 256
	batchBytes  = 256 << 10
)

// frameCache encodes each event once for all the sockets that send it: a session followed
// by a thousand sockets costs one json.Marshal per event, not a thousand. The sockets of a
// session wake together (runtime/fanout) and most take the same events at once, so whole
// frames are kept too: such a socket writes bytes its neighbours made, allocating nothing.
// Both tables are direct-mapped (offsets are the stream's, unique across sessions), read
// without a lock, so a lookup is an index and a load, and a miss costs only the work it
// would have saved.
type frameCache struct {
	events [frameSlots]atomic.Pointer[cachedEvent]
	runs   [runSlots]atomic.Pointer[cachedRun]
}

// cachedEvent is an event's encoding, and what the live path needs of it; never changed
// once stored.
type cachedEvent struct {
	offset uint64
	data   []byte // the event's JSON
	stream streamMark
}

// streamMark is what a socket's liveSync needs of an agent.draft or a streamed
// agent.message: which stream, and (of a draft) where its text ends.
type streamMark struct {
	stream string // "" for any other event
	end    int    // a draft's Pos+len(Text)
	closes bool   // the stream's agent.message
}

// cachedRun is the frame of the events first..last (n of them), byte for byte.
type cachedRun struct {
	first, last uint64
	n           int
	frame       []byte
}

// event returns ev's cached encoding, making it once.
func (fc *frameCache) event(ev protocol.Event) (*cachedEvent, error) {
	slot := &fc.events[ev.Offset%frameSlots]
	if c := slot.Load(); c != nil && c.offset == ev.Offset {
		return c, nil
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	c := &cachedEvent{offset: ev.Offset, data: data, stream: markOf(ev)}
	slot.Store(c)
	return c, nil
}

// markOf decodes what liveSync needs of an event.
func markOf(ev protocol.Event) streamMark {
	switch ev.Type {
	case protocol.EventAgentDraft:
		if d, err := protocol.DecodeEventData[protocol.AgentDraft](ev); err == nil {
			return streamMark{stream: d.Stream, end: d.Pos + len(d.Text)}
		}
	case protocol.EventAgentMessage:
		if m, err := ev.DecodeMessage(); err == nil && m.Stream != "" {
			return streamMark{stream: m.Stream, closes: true}
		}
	}
	return streamMark{}
}

// mark is what liveSync needs of ev, decoded once for every socket.
func (fc *frameCache) mark(ev protocol.Event) streamMark {
	if ev.Type != protocol.EventAgentDraft && ev.Type != protocol.EventAgentMessage {
		return streamMark{}
	}
	if c, err := fc.event(ev); err == nil {
		return c.stream
	}
	return markOf(ev)
}

// frame is the frame carrying evs: an "event" frame for one, an "events" frame for more,
// byte for byte what encoding/json makes of the protocol.ServerFrame. The bytes may be
// shared with other sockets: never change them.
func (fc *frameCache) frame(evs []protocol.Event) ([]byte, error) {
	first, last := evs[0].Offset, evs[len(evs)-1].Offset
	slot := &fc.runs[(first*31+last)%runSlots]
	if r := slot.Load(); r != nil && r.first == first && r.last == last && r.n == len(evs) {
		return r.frame, nil
	}
	var b bytes.Buffer
	if len(evs) == 1 {
		c, err := fc.event(evs[0])
		if err != nil {
			return nil, err
		}
		b.Grow(len(c.data) + 26)
		b.WriteString(`{"type":"event","event":`)
		b.Write(c.data)
		b.WriteByte('}')
	} else {
		b.WriteString(`{"type":"events","events":[`)
		for i, ev := range evs {
			c, err := fc.event(ev)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(c.data)
		}
		b.WriteString(`]}`)
	}
	slot.Store(&cachedRun{first: first, last: last, n: len(evs), frame: b.Bytes()})
	return b.Bytes(), nil
}
