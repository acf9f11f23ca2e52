package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/protocol"
)

type stored struct {
	typ  protocol.EventType
	data any
	key  string
}

func TestWriterCheckpointsByTimeAndSizeThenStoresTheWhole(t *testing.T) {
	now := time.Unix(1000, 0)
	var got []stored
	fail := false
	w := &Writer{ID: "7-1", Now: func() time.Time { return now }, Store: func(_ context.Context, typ protocol.EventType, data any, key string) error {
		if fail {
			return errors.New("log unavailable")
		}
		got = append(got, stored{typ, data, key})
		return nil
	}}
	// A client that folds every live tail holds the message so far, whatever it missed.
	var live string
	var tails []protocol.Delta
	w.Live = func(d protocol.Delta) {
		tails = append(tails, d)
		live, _ = d.Fold(live)
	}

	w.Delta("Hello")
	now = now.Add(time.Second)
	w.Delta(", ")
	require.Empty(t, got, "nothing due yet")
	now = now.Add(time.Second)
	w.Delta("world")
	require.Len(t, got, 1, "2 s passed")
	require.Equal(t, stored{protocol.EventAgentDraft, protocol.AgentDraft{Stream: "7-1", Seq: 1, Text: "Hello, world"}, "draft-7-1-1"}, got[0])

	fail = true
	w.Delta(strings.Repeat("x", CheckpointBytes))
	require.Len(t, got, 1, "the failed checkpoint is not counted")
	fail = false
	w.Delta("!")
	require.Len(t, got, 2)
	require.Equal(t, stored{protocol.EventAgentDraft, protocol.AgentDraft{Stream: "7-1", Seq: 2, Pos: 12, Text: strings.Repeat("x", CheckpointBytes) + "!"}, "draft-7-1-2"}, got[1],
		"the same piece, grown, is tried again")

	id, err := w.Close(context.Background())
	require.NoError(t, err)
	require.Equal(t, "7-1", id)
	whole := "Hello, world" + strings.Repeat("x", CheckpointBytes) + "!"
	require.Len(t, got, 3)
	require.Equal(t, stored{protocol.EventAgentMessage, protocol.Message{Text: whole, Stream: "7-1"}, "message-7-1"}, got[2])
	require.Equal(t, whole, live, "every delta went live")
	require.Equal(t, protocol.Delta{Stream: "7-1", Pos: 0, Text: "Hello, "}, tails[1], "the tail since the last checkpoint")
	require.Equal(t, protocol.Delta{Stream: "7-1", Pos: 12, Text: strings.Repeat("x", CheckpointBytes) + "!"}, tails[len(tails)-1],
		"a failed checkpoint keeps the tail growing from the last stored one")

	w.Delta("late")
	_, err = w.Close(context.Background())
	require.NoError(t, err)
	require.Len(t, got, 3, "nothing after Close")
}

func TestAnEmptyMessageStoresNothing(t *testing.T) {
	w := &Writer{ID: "1-1", Now: time.Now, Store: func(context.Context, protocol.EventType, any, string) error {
		t.Error("stored")
		return nil
	}}
	id, err := w.Close(context.Background())
	require.NoError(t, err)
	require.Empty(t, id)
}
