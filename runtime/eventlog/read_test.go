package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// TestDecodeRecordReadsWhatPublishWrites: the decoder without reflection reads every record
// publish writes as encoding/json does, and leaves anything else to encoding/json.
func TestDecodeRecordReadsWhatPublishWrites(t *testing.T) {
	for _, data := range []any{
		protocol.Message{Text: "hello"},
		protocol.Message{Text: `quotes " and \ and </script> & unicode é ✓ and "at":1}`},
		map[string]any{"nested": map[string]any{"a": []int{1, 2}}, "b": nil},
		nil,
		"a string",
		42,
		json.RawMessage(`{}`),
	} {
		raw, err := json.Marshal(data)
		require.NoError(t, err)
		for _, at := range []int64{0, 1764000000000, -5} {
			body, err := json.Marshal(record{Type: protocol.EventAgentMessage, At: at, Data: raw})
			require.NoError(t, err)
			var want record
			require.NoError(t, json.Unmarshal(body, &want))
			got, ok := decodeRecord(body)
			require.True(t, ok, "%s", body)
			assert.Equal(t, want, got, "%s", body)
		}
	}
	empty, err := json.Marshal(record{Type: protocol.EventSessionCreated, At: 7})
	require.NoError(t, err)
	got, ok := decodeRecord(empty)
	require.True(t, ok, "%s", empty)
	assert.Equal(t, record{Type: protocol.EventSessionCreated, At: 7}, got)

	for _, odd := range []string{
		`{"at":1,"type":"agent.message"}`,              // another order
		`{"type":"a\"b","at":1}`,                       // an escape in the type
		`{"type":"agent.message","at":1,"data":{"x":}`, // not JSON
		`{"type":"agent.message","at":1.5}`,
		`{"type":"agent.message", "at":1}`,
		`{"type":"agent.message","at":1,"data":1,"more":2}`,
		``,
	} {
		_, ok := decodeRecord([]byte(odd))
		assert.False(t, ok, "left to encoding/json: %s", odd)
	}
	ev, err := Decode("session.s.events", 3, []byte(`{"at":1,"type":"agent.message","data":{"text":"x"}}`))
	require.NoError(t, err)
	assert.Equal(t, protocol.Event{Session: "s", Offset: 3, Type: protocol.EventAgentMessage, At: 1, Data: json.RawMessage(`{"text":"x"}`)}, ev)
}

// TestReadRangeReadsExactlyTheRange: ReadRange hands a session's events in (after,
// through] in order, in chunks no larger than RangeChunk, over as many pulls as it takes,
// whatever other sessions store between them.
func TestReadRangeReadsExactlyTheRange(t *testing.T) {
	defer func(n uint64) { rangeFetch = n }(rangeFetch)
	rangeFetch = 100 // several pulls
	l := openLog(t, Config{})
	ctx := context.Background()
	for i := range 700 {
		session := "a"
		if i%4 == 0 {
			session = "b"
		}
		_, _, err := l.Append(ctx, session, protocol.EventAgentMessage, protocol.Message{Text: fmt.Sprint(i)}, "")
		require.NoError(t, err)
	}
	all, err := l.Read(ctx, "a", 0)
	require.NoError(t, err)
	require.Len(t, all, 525)
	for _, c := range []struct{ after, through int }{{-1, 524}, {0, 524}, {99, 400}, {300, 301}, {523, 524}, {-1, 0}} {
		after := uint64(0)
		if c.after >= 0 {
			after = all[c.after].Offset
		}
		through := all[c.through].Offset
		var got []protocol.Event
		chunks := 0
		require.NoError(t, l.ReadRange(ctx, "a", after, through, func(evs []protocol.Event) error {
			assert.LessOrEqual(t, len(evs), RangeChunk)
			assert.NotEmpty(t, evs)
			chunks++
			got = append(got, evs...)
			return nil
		}))
		assert.Equal(t, all[c.after+1:c.through+1], got, "(%d, %d]", after, through)
	}
	require.NoError(t, l.ReadRange(ctx, "a", all[10].Offset, all[10].Offset, func([]protocol.Event) error {
		t.Fatal("an empty range visits nothing")
		return nil
	}))
	stop := fmt.Errorf("enough")
	n := 0
	err = l.ReadRange(ctx, "a", 0, all[524].Offset, func(evs []protocol.Event) error { n += len(evs); return stop })
	assert.ErrorIs(t, err, stop, "the visitor's error ends the read")
	assert.Less(t, n, 525)
}
