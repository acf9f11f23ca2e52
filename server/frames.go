package server

import (
	"bytes"
	"encoding/json"
	"sync"

	"parley/protocol"
)

// frameSlots is how many recent events the cache keeps encoded: enough for every socket of
// a busy session to find the encoding its neighbours just made.
const frameSlots = 4096

// Batches of events a socket had waiting: at most this many events, and they stop growing
// past this many bytes (one event may exceed it alone).
const (
	batchEvents = 256
	batchBytes  = 256 << 10
)

// frameCache encodes each event once for all the sockets that send it: a session followed
// by a thousand sockets costs one json.Marshal per event, not a thousand. It is
// direct-mapped by offset (offsets are the stream's, unique across sessions), so a lookup
// is one index and a miss costs only the encoding it would have saved.
type frameCache struct {
	mu    sync.Mutex
	slots [frameSlots]cachedEvent
}

type cachedEvent struct {
	offset uint64
	data   []byte // the event's JSON; never changed once stored
}

// encoded returns ev's JSON, encoded once.
func (fc *frameCache) encoded(ev protocol.Event) ([]byte, error) {
	slot := &fc.slots[ev.Offset%frameSlots]
	fc.mu.Lock()
	if slot.offset == ev.Offset && slot.data != nil {
		data := slot.data
		fc.mu.Unlock()
		return data, nil
	}
	fc.mu.Unlock()
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	fc.mu.Lock()
	*slot = cachedEvent{offset: ev.Offset, data: data}
	fc.mu.Unlock()
	return data, nil
}

// frame is the frame carrying evs: an "event" frame for one, an "events" frame for more,
// byte for byte what encoding/json makes of the protocol.ServerFrame.
func (fc *frameCache) frame(evs []protocol.Event) ([]byte, error) {
	var b bytes.Buffer
	if len(evs) == 1 {
		data, err := fc.encoded(evs[0])
		if err != nil {
			return nil, err
		}
		b.Grow(len(data) + 32)
		b.WriteString(`{"type":"event","event":`)
		b.Write(data)
		b.WriteByte('}')
		return b.Bytes(), nil
	}
	b.WriteString(`{"type":"events","events":[`)
	for i, ev := range evs {
		data, err := fc.encoded(ev)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(data)
	}
	b.WriteString(`]}`)
	return b.Bytes(), nil
}
