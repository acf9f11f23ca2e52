package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"parley/protocol"
)

// frameEvent is what the crowd reads of an event.
type frameEvent struct {
	Offset uint64             `json:"offset"`
	Type   protocol.EventType `json:"type"`
}

// eventsOf reads the offset and type of each event of an event or events frame onto evs.
// The bench's thousand clients share the server's two cores, and encoding/json spends
// several microseconds on each event (reflection, a validating pass, then a decoding one),
// as much as the server's whole send: so it walks the frame's JSON itself, reading those two
// fields and stepping over every other value, strings with their escapes and nested values
// whole. An error frame, or JSON it does not follow, is left to encoding/json.
// TestEventsOfReadsWhatEncodingJSONReads holds the two equal.
func eventsOf(frame []byte, evs []frameEvent) ([]frameEvent, error) {
	out, ok := scanFrame(frame, evs)
	if ok {
		return out, nil
	}
	return eventsOfJSON(frame, evs)
}

// frameMemo remembers the events of the frames read lately, so that the bench's thousand
// clients walk each frame once between them, not once each: the server writes every socket
// of a session the same bytes (server/frames.go), and a socket that reads a frame the memo
// holds, byte for byte (bytes.Equal, not only the hash), takes its events from there. Each
// socket still reads every event's offset and type, in order, from its own frame. It is a
// table of atomic pointers, as the server's cache is, so its readers share no lock.
type frameMemo struct {
	seed  maphash.Seed
	slots [memoSlots]atomic.Pointer[memoFrame]
}

const memoSlots = 4096

type memoFrame struct {
	frame []byte
	evs   []frameEvent // never changed once stored
}

func newFrameMemo() *frameMemo { return &frameMemo{seed: maphash.MakeSeed()} }

// eventsOf is eventsOf through the memo. Shared says the events are the memo's: read
// them, never change them; otherwise they were appended to evs.
func (fm *frameMemo) eventsOf(frame []byte, evs []frameEvent) (out []frameEvent, shared bool, err error) {
	slot := &fm.slots[maphash.Bytes(fm.seed, frame)%memoSlots]
	if m := slot.Load(); m != nil && bytes.Equal(m.frame, frame) {
		return m.evs, true, nil
	}
	out, err = eventsOf(frame, evs)
	if err == nil {
		slot.Store(&memoFrame{frame: bytes.Clone(frame), evs: slices.Clone(out)})
	}
	return out, false, err
}

// eventsOfJSON is eventsOf with encoding/json.
func eventsOfJSON(frame []byte, evs []frameEvent) ([]frameEvent, error) {
	var f struct {
		Type   protocol.FrameType      `json:"type"`
		Event  *frameEvent             `json:"event"`
		Events []frameEvent            `json:"events"`
		Error  *protocol.ErrorResponse `json:"error"`
	}
	f.Events = evs
	if err := json.Unmarshal(frame, &f); err != nil {
		return evs, err
	}
	if f.Error != nil {
		return evs, fmt.Errorf("error frame: %s (%s)", f.Error.Error, f.Error.Code)
	}
	if f.Event != nil {
		f.Events = append(f.Events, *f.Event)
	}
	return f.Events, nil
}

// scanFrame is eventsOf's walk; false for anything but a well-formed frame without an error.
func scanFrame(b []byte, evs []frameEvent) ([]frameEvent, bool) {
	s := scanner{b: b}
	out := evs
	event := func() bool {
		ev, ok := s.event()
		out = append(out, ev)
		return ok
	}
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "event":
			return event()
		case "events":
			if s.peek() == 'n' {
				return s.skip()
			}
			return s.array(event)
		case "error":
			if s.peek() == 'n' {
				return s.skip()
			}
			return false // encoding/json reads it out
		default:
			return s.skip()
		}
	})
	if !ok || s.ws() != len(b) {
		return evs, false
	}
	return out, true
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() int {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
	return s.i
}

func (s *scanner) peek() byte {
	if s.ws() < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// object walks {"key": value, ...}, calling value with each key when the scanner is at its
// value, which value must consume.
func (s *scanner) object(value func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.eat(':') || !value(key) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

func (s *scanner) array(elem func() bool) bool {
	if !s.eat('[') {
		return false
	}
	if s.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// str reads a string and returns its raw bytes between the quotes; one with an escape is
// returned raw, and such a key matches none that eventsOf reads (encoding/json escapes none
// of them).
func (s *scanner) str() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.i++
			return s.b[start : s.i-1], true
		case '\\':
			s.i += 2
		default:
			s.i++
		}
	}
	return nil, false
}

func (s *scanner) event() (frameEvent, bool) {
	var ev frameEvent
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "offset":
			start := s.ws()
			for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
				d := uint64(s.b[s.i] - '0')
				if ev.Offset > (math.MaxUint64-d)/10 {
					return false // past uint64: encoding/json says so
				}
				ev.Offset = ev.Offset*10 + d
				s.i++
			}
			return s.i > start
		case "type":
			t, ok := s.str()
			if ok && slices.Contains(t, '\\') {
				return false
			}
			ev.Type = protocol.EventType(t)
			return ok
		default:
			return s.skip()
		}
	})
	return ev, ok
}

// skip steps over one value of any kind.
func (s *scanner) skip() bool {
	switch c := s.peek(); c {
	case '"':
		_, ok := s.str()
		return ok
	case '{':
		return s.object(func([]byte) bool { return s.skip() })
	case '[':
		return s.array(s.skip)
	case 0:
		return false
	default: // a number, true, false, null
		start := s.i
		for s.i < len(s.b) && s.b[s.i] != ',' && s.b[s.i] != '}' && s.b[s.i] != ']' && s.b[s.i] != ' ' && s.b[s.i] != '\n' {
			s.i++
		}
		return json.Valid(s.b[start:s.i])
	}
}

// TestEventsOfReadsWhatEncodingJSONReads: the bench's reader of frames reads the offsets and
// types that encoding/json does, from frames as the server writes them (text with quotes,
// escapes and braces, data with fields named like the event's), and hands what it cannot
// follow to encoding/json.
func TestEventsOfReadsWhatEncodingJSONReads(t *testing.T) {
	data := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	evs := []protocol.Event{
		{Session: "s-1", Offset: 7, Type: protocol.EventUserMessage, At: 1700000000000, Data: data(protocol.Message{Text: `a "quoted" {brace} [bracket], \ back\slash, "offset":9, é ✓ <tag>`})},
		{Session: "s-1", Offset: 18446744073709551615, Type: protocol.EventAgentMessage, Data: data(map[string]any{"offset": 3, "type": "user.message", "nested": []any{map[string]any{"offset": 4}, nil, true, 1.5e3, "x"}})},
		{Session: "s-\"1", Offset: 9, Type: protocol.EventTurnEnded},
	}
	frames := [][]byte{
		data(protocol.ServerFrame{Type: protocol.FrameEvent, Event: &evs[0]}),
		data(protocol.ServerFrame{Type: protocol.FrameEvents, Events: evs}),
		data(protocol.ServerFrame{Type: protocol.FrameSubscribed, Session: "s-1", Head: 9}),
		data(protocol.ServerFrame{Type: protocol.FrameDelta, Session: "s-1", Delta: &protocol.Delta{Stream: "9-1", Text: "}]\"{"}}),
		[]byte(" {\"type\" : \"events\" ,\n \"events\" : [ {\"offset\" : 5 , \"type\" : \"turn.ended\"} ] } "),
	}
	for i, f := range frames {
		want, err := eventsOfJSON(f, nil)
		if err != nil {
			t.Fatalf("frame %d: encoding/json: %v", i, err)
		}
		got, ok := scanFrame(f, nil)
		if !ok {
			t.Fatalf("frame %d: the scan did not follow %s", i, f)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("frame %d: scanned %v, encoding/json reads %v", i, got, want)
		}
	}
	// Through the memo, a frame read again gives the same events as the first time, and
	// one that differs by a byte its own.
	memo := newFrameMemo()
	for round := range 3 {
		for i, f := range frames {
			want, _ := eventsOfJSON(f, nil)
			got, _, err := memo.eventsOf(slices.Clone(f), nil)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("round %d, frame %d through the memo: %v, %v; encoding/json reads %v", round, i, got, err, want)
			}
		}
	}
	one := data(protocol.ServerFrame{Type: protocol.FrameEvent, Event: &protocol.Event{Session: "s-1", Offset: 41, Type: protocol.EventTurnEnded}})
	if got, _, _ := memo.eventsOf(one, nil); len(got) != 1 || got[0].Offset != 41 {
		t.Fatalf("memo: %v", got)
	}
	other := bytes.Replace(one, []byte("41"), []byte("42"), 1)
	if got, shared, _ := memo.eventsOf(other, nil); shared || len(got) != 1 || got[0].Offset != 42 {
		t.Fatalf("memo, a frame a byte apart: %v", got)
	}
	// What it cannot follow goes to encoding/json: an error frame, broken JSON.
	errFrame := data(protocol.ServerFrame{Type: protocol.FrameError, Error: &protocol.ErrorResponse{Error: "fell behind", Code: "slow"}})
	if _, err := eventsOf(errFrame, nil); err == nil || !strings.Contains(err.Error(), "fell behind (slow)") {
		t.Fatalf("error frame: %v", err)
	}
	for _, bad := range []string{`{"type":"event","event":{"offset":1`, `{"type":"event"}x`, `{"type":"events","events":[{"offset":-1}]}`, `{"event":{"offset":18446744073709551616}}`, `{"event":{"offset":1,"type":"a\"b"}}`} {
		if _, ok := scanFrame([]byte(bad), nil); ok {
			t.Fatalf("%s: scanned as well-formed", bad)
		}
	}
}
