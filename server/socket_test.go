package server_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

func TestSocketSubscribesAfterAnOffset(t *testing.T) {
	ts, rt := testServer(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	first, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "one", AttemptID: "1"})
	require.NoError(t, err)

	conn := ts.Client(t).Dial(nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`","after":`+itoa(first.Offset)+`}`))
	sub := testkit.ReadFrame(t, conn)
	assert.Equal(t, protocol.FrameSubscribed, sub.Type)
	turn := testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameEvent, turn.Type)
	assert.Equal(t, protocol.EventTurnStarted, turn.Event.Type, "only what follows the offset")
	assert.Greater(t, turn.Event.Offset, first.Offset)
	assert.Equal(t, protocol.EventAgentMessage, testkit.ReadFrame(t, conn).Event.Type)
	assert.Equal(t, protocol.EventTurnEnded, testkit.ReadFrame(t, conn).Event.Type)

	live, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "two", AttemptID: "2"})
	require.NoError(t, err)
	got := testkit.ReadFrame(t, conn)
	assert.Equal(t, live.Offset, got.Event.Offset)
	assert.Equal(t, protocol.EventTurnStarted, testkit.ReadFrame(t, conn).Event.Type)
	assert.Equal(t, protocol.EventAgentMessage, testkit.ReadFrame(t, conn).Event.Type)
}

func TestSocketSurvivesBadFrames(t *testing.T) {
	ts, rt := testServer(t)
	s, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	conn := ts.Client(t).Dial(nil)

	bad := []struct {
		name     string
		typ      websocket.MessageType
		data     []byte
		contains string
	}{
		{"not JSON", websocket.MessageText, []byte(`hello`), "not a valid JSON"},
		{"unknown type", websocket.MessageText, []byte(`{"type":"dance"}`), "unknown frame type"},
		{"no type", websocket.MessageText, []byte(`{}`), `no "type"`},
		{"bad session id", websocket.MessageText, []byte(`{"type":"subscribe","session":"a.*"}`), "not a session id"},
		{"binary", websocket.MessageBinary, []byte{1, 2, 3}, "binary"},
		{"oversized", websocket.MessageText, bytes.Repeat([]byte("x"), 1<<20), "larger than"},
		{"unknown session", websocket.MessageText, []byte(`{"type":"subscribe","session":"nosuch"}`), "no such session"},
	}
	for _, c := range bad {
		write(t, conn, c.typ, c.data)
		f := testkit.ReadFrame(t, conn)
		require.Equal(t, protocol.FrameError, f.Type, c.name)
		assert.Contains(t, f.Error.Error, c.contains, c.name)
	}

	// The socket is still up and still works.
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`"}`))
	assert.Equal(t, protocol.FrameSubscribed, testkit.ReadFrame(t, conn).Type)
	assert.Equal(t, protocol.EventSessionCreated, testkit.ReadFrame(t, conn).Event.Type)
}

func TestSocketRefusesAnotherOrigin(t *testing.T) {
	ts, _ := testServer(t)
	header := http.Header{"Origin": {"http://evil.example"}, "Authorization": {"Bearer " + testToken}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", &websocket.DialOptions{HTTPHeader: header})
	require.Error(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	same := http.Header{"Origin": {ts.URL}}
	ts.Client(t).Dial(same) // the page's own origin is welcome
}

func TestClosingTheSocketReleasesItsConsumer(t *testing.T) {
	ts, rt := testServer(t)
	s, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	base := ts.Consumers(t)
	conn := ts.Client(t).Dial(nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`"}`))
	testkit.ReadFrame(t, conn)
	assert.Equal(t, base+1, ts.Consumers(t))
	conn.Close(websocket.StatusNormalClosure, "bye")
	assert.Eventually(t, func() bool { return ts.Consumers(t) == base }, 5*time.Second, 20*time.Millisecond)
}

// TestSocketSaysWhereTheReplayEnds: "subscribed" carries the session's last offset, so a
// client tells the replay of stored events from what happens now.
func TestSocketSaysWhereTheReplayEnds(t *testing.T) {
	ts, rt := testServer(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	head, err := rt.Head(ctx, s.ID)
	require.NoError(t, err)
	require.NotZero(t, head, "session.created is stored")
	p, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "one", AttemptID: "1"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { h, _ := rt.Head(ctx, s.ID); return h > p.Offset }, 5*time.Second, 10*time.Millisecond, "the offline reply is stored")
	head, err = rt.Head(ctx, s.ID)
	require.NoError(t, err)

	conn := ts.Client(t).Dial(nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`"}`))
	sub := testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameSubscribed, sub.Type)
	assert.Equal(t, head, sub.Head)
	var last uint64
	for last < head {
		ev := testkit.ReadFrame(t, conn)
		require.Equal(t, protocol.FrameEvent, ev.Type)
		last = ev.Event.Offset
	}
	assert.Equal(t, head, last, "the replay ends exactly at head")

	none, err := rt.Head(ctx, "nosuchsession")
	require.NoError(t, err)
	assert.Zero(t, none)
}
