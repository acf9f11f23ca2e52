package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

func event(t *testing.T, off uint64, typ protocol.EventType, data any) protocol.Event {
	t.Helper()
	b, err := json.Marshal(data)
	require.NoError(t, err)
	return protocol.Event{Offset: off, Session: "s", Type: typ, Data: b}
}

// TestPrependKeepsEntriesInPlace: an older window put before the thread shifts what is held,
// and an entry updated in place after that (a run's output) is still the right one.
func TestPrependKeepsEntriesInPlace(t *testing.T) {
	var th Thread
	th.Apply(event(t, 10, protocol.EventRunStarted, protocol.RunStarted{ID: "r1"}))
	var older Thread
	older.Apply(event(t, 1, protocol.EventUserMessage, protocol.Message{Text: "old prompt"}))
	older.Apply(event(t, 2, protocol.EventAgentMessage, protocol.Message{Text: "old reply"}))
	rev := th.Rev
	th.Prepend(older.Messages)
	assert.Greater(t, th.Rev, rev)
	th.Apply(event(t, 11, protocol.EventRunOutput, protocol.RunOutput{Run: "r1", Text: "out"}))
	require.Len(t, th.Messages, 3)
	assert.Equal(t, []uint64{1, 2, 10}, []uint64{th.Messages[0].Offset, th.Messages[1].Offset, th.Messages[2].Offset})
	assert.Equal(t, "out", th.Messages[2].Detail)
	assert.Empty(t, th.Messages[0].Detail)
	th.Prepend(nil)
	assert.Len(t, th.Messages, 3)
}
