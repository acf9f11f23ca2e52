package components

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/protocol"
)

func keptEvent(offset uint64, size int) protocol.Event {
	data, _ := json.Marshal(protocol.Message{Text: strings.Repeat("x", size)})
	return protocol.Event{Session: "s1", Offset: offset, Type: protocol.EventUserMessage, Data: data}
}

// TestKeptThreadRecordsFromAWindow: the record starts at a window (the server's seed, or the
// socket's window frame, which starts it again), holds every event after it, and stops whole
// past its bound, so what was saved before stays a window with all that followed it.
func TestKeptThreadRecordsFromAWindow(t *testing.T) {
	seed := &protocol.Seed{Session: "s1", Window: protocol.Window{From: 5, Older: true}, Events: []protocol.Event{keptEvent(5, 10)}}
	for _, c := range []struct {
		name    string
		steps   func(k *keptThread)
		offsets []uint64
		savable bool
	}{
		{"no window, nothing recorded (?history=all)", func(k *keptThread) {
			k.begin("s1", nil)
			k.add([]protocol.Event{keptEvent(1, 10)})
		}, nil, false},
		{"from the server's seed", func(k *keptThread) {
			k.begin("s1", seed)
			k.add([]protocol.Event{keptEvent(6, 10), keptEvent(7, 10)})
		}, []uint64{5, 6, 7}, true},
		{"a seed of another session is not this one's window", func(k *keptThread) {
			k.begin("s2", seed)
		}, nil, false},
		{"the socket's window starts it again", func(k *keptThread) {
			k.begin("s1", seed)
			k.window(protocol.Window{From: 9})
			k.add([]protocol.Event{keptEvent(9, 10)})
		}, []uint64{9}, true},
		{"a window without events: nothing worth saving", func(k *keptThread) {
			k.begin("s1", nil)
			k.window(protocol.Window{From: 1})
		}, nil, false},
		{"past the bound it stops, and is not saved", func(k *keptThread) {
			k.begin("s1", seed)
			k.add([]protocol.Event{keptEvent(6, keptBytes)})
			k.add([]protocol.Event{keptEvent(7, 10)})
		}, []uint64{5}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var k keptThread
			c.steps(&k)
			var offsets []uint64
			for _, ev := range k.seed.Events {
				offsets = append(offsets, ev.Offset)
			}
			require.Equal(t, c.offsets, offsets)
			require.Equal(t, c.savable, k.savable())
		})
	}
}

// TestKeptSessionsNewestFirst: a save puts its session first; past keptSessions, the
// oldest are dropped (their threads removed).
func TestKeptSessionsNewestFirst(t *testing.T) {
	for _, c := range []struct {
		list          []string
		save          string
		kept, dropped []string
	}{
		{nil, "a", []string{"a"}, nil},
		{[]string{"a", "b"}, "b", []string{"b", "a"}, nil},
		{[]string{"a", "b", "c", "d"}, "e", []string{"e", "a", "b", "c"}, []string{"d"}},
		{[]string{"a", "b", "c", "d"}, "c", []string{"c", "a", "b", "d"}, nil},
	} {
		kept, dropped := keptAfterSave(c.list, c.save)
		require.Equal(t, c.kept, kept, "%v + %s", c.list, c.save)
		require.Equal(t, c.dropped, dropped, "%v + %s", c.list, c.save)
	}
}
