package server_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/server"
)

// liveFed is the runtime with live deltas the test hands out.
type liveFed struct {
	server.Runtime
	deltas chan protocol.Delta
}

func (l liveFed) Live(context.Context, string) (<-chan protocol.Delta, error) { return l.deltas, nil }

// TestSocketSendsDeltasAfterTheReplayFromWhereTheClientIs: a delta that arrives during the
// replay waits for it; the client gets only the bytes its drafts lack, then only new ones;
// a delta of a closed message is dropped.
func TestSocketSendsDeltasAfterTheReplayFromWhereTheClientIs(t *testing.T) {
	_, rt := testServer(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	_, _, err = rt.Log().Append(ctx, s.ID, protocol.EventAgentDraft, protocol.AgentDraft{Stream: "9-1", Seq: 1, Text: "Hello, "}, "d1")
	require.NoError(t, err)
	b, err := server.LoadBundle(testkit.WebFolder(t))
	require.NoError(t, err)
	fed := liveFed{Runtime: rt, deltas: make(chan protocol.Delta, 8)}
	ts := httptest.NewServer(server.New(fed, testkit.Token, b).Handler())
	defer ts.Close()

	fed.deltas <- protocol.Delta{Stream: "9-1", Pos: 0, Text: "Hello, wor"} // before the replay is out
	conn, sub := testkit.Client{T: t, Base: ts.URL, Token: testkit.Token}.Subscribe(s.ID, 0)
	require.Equal(t, protocol.FrameSubscribed, sub.Type)
	var got []protocol.ServerFrame
	for len(got) == 0 || got[len(got)-1].Type != protocol.FrameDelta {
		got = append(got, testkit.ReadFrame(t, conn))
	}
	for _, f := range got[:len(got)-1] {
		require.Equal(t, protocol.FrameEvent, f.Type, "the replay first")
	}
	assert.Equal(t, sub.Head, got[len(got)-2].Event.Offset, "the delta waited for the whole replay")
	assert.Equal(t, protocol.Delta{Stream: "9-1", Pos: 7, Text: "wor"}, *got[len(got)-1].Delta, "only what the draft did not hold")

	fed.deltas <- protocol.Delta{Stream: "9-1", Pos: 0, Text: "Hello, world"}
	f := testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameDelta, f.Type)
	assert.Equal(t, protocol.Delta{Stream: "9-1", Pos: 10, Text: "ld"}, *f.Delta)

	_, _, err = rt.Log().Append(ctx, s.ID, protocol.EventAgentMessage, protocol.Message{Text: "Hello, world!", Stream: "9-1"}, "m1")
	require.NoError(t, err)
	f = testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameEvent, f.Type)
	fed.deltas <- protocol.Delta{Stream: "9-1", Pos: 0, Text: "Hello, world!"}
	_, _, err = rt.Log().Append(ctx, s.ID, protocol.EventSessionCreated, protocol.SessionCreated{}, "x1")
	require.NoError(t, err)
	f = testkit.ReadFrame(t, conn)
	assert.Equal(t, protocol.FrameEvent, f.Type, "the late delta was dropped: %+v", f)
}
