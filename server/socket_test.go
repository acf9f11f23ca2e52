package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/server"
)

func TestSocketSubscribesAfterAnOffset(t *testing.T) {
	ts, rt := testServer(t)
	ctx := t.Context()
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
	s, err := rt.CreateSession(t.Context(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	conn := ts.Client(t).Dial(nil)

	bad := []struct {
		name     string
		typ      websocket.MessageType
		data     []byte
		contains string
	}{
		{"not JSON", websocket.MessageText, []byte(`hello`), "frame is not valid JSON at byte 1"},
		{"an offset as text", websocket.MessageText, []byte(`{"type":"subscribe","session":"abc","after":"5"}`), `frame field "after" must be a whole number from 0, not a string`},
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
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Wait)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, testkit.WebSocketURL(ts.URL), &websocket.DialOptions{HTTPHeader: header})
	require.Error(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	same := http.Header{"Origin": {ts.URL}}
	ts.Client(t).Dial(same) // the page's own origin is welcome
}

func TestClosingTheSocketReleasesItsConsumer(t *testing.T) {
	ts, rt := testServer(t)
	s, err := rt.CreateSession(t.Context(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	conn := ts.Client(t).Dial(nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`"}`))
	require.Equal(t, protocol.FrameSubscribed, testkit.ReadFrame(t, conn).Type)
	require.Equal(t, protocol.EventSessionCreated, testkit.ReadFrame(t, conn).Event.Type, "the replay is read")
	// One shared feed on the session, once the socket's catch-up read of the replay is over.
	// The session's consumers are counted, not the stream's: the runtime's own reads (a
	// session created, a log scanned) hold consumers of their own for a moment.
	testkit.Eventually(t, func() bool { return ts.ConsumersOf(t, s.ID) == 1 }, "the session's feed is its one consumer")
	conn.Close(websocket.StatusNormalClosure, "bye")
	// The session's feed lingers a moment (2 s) for a reload, then lets its consumer go.
	testkit.Eventually(t, func() bool { return ts.ConsumersOf(t, s.ID) == 0 }, "the feed lets its consumer go")
}

// TestSocketSaysWhereTheReplayEnds: "subscribed" carries the session's last offset, so a
// client tells the replay of stored events from what happens now.
func TestSocketSaysWhereTheReplayEnds(t *testing.T) {
	ts, rt := testServer(t)
	ctx := t.Context()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	head, err := rt.Head(ctx, s.ID)
	require.NoError(t, err)
	require.NotZero(t, head, "session.created is stored")
	p, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "one", AttemptID: "1"})
	require.NoError(t, err)
	// The offline reply's turn is over once turn.ended is stored: nothing follows it.
	testkit.WaitEvents(t, rt.Log().Read, s.ID, "the offline reply is stored", testkit.TurnsEnded(1))
	head, err = rt.Head(ctx, s.ID)
	require.NoError(t, err)
	require.Greater(t, head, p.Offset)

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

// headFailing cannot read where a session's log ends. Follow is not overridden: a socket
// that followed after a failed Head would panic the test.
type headFailing struct {
	server.Runtime
	err error
}

func (h headFailing) Head(context.Context, string) (uint64, error) { return 0, h.err }

// TestSocketSaysWhenItCannotReadTheHead: without the head a client cannot tell the replay
// from what happens now, so the socket answers with an error frame, never "subscribed".
func TestSocketSaysWhenItCannotReadTheHead(t *testing.T) {
	for _, c := range []struct {
		name, code, says string
		err              error
	}{
		{"slow store", "unavailable", "did not answer in time; subscribe again in a moment", fmt.Errorf("last message: %w", context.DeadlineExceeded)},
		{"broken store", "internal", "it is logged", errors.New("stream gone")},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := serveRuntime(t, headFailing{err: c.err}).Dial(nil)
			testkit.WriteFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: "s1"})
			f := testkit.ReadFrame(t, conn)
			require.Equal(t, protocol.FrameError, f.Type, "%+v", f)
			assert.Equal(t, c.code, f.Error.Code)
			assert.Contains(t, f.Error.Error, "could not read where this session's log ends")
			assert.Contains(t, f.Error.Error, c.says)
			assert.NotContains(t, f.Error.Error, "stream gone", "no internals")
		})
	}
}

// TestSocketRefusesAnOffsetPastTheEnd: offsets only grow, so an after past the session's
// last offset comes from another log (a reset data folder). Clamping would splice this log
// onto the client's copy; the socket says so instead, and the socket stays usable.
func TestSocketRefusesAnOffsetPastTheEnd(t *testing.T) {
	ts, rt := testServer(t)
	s, err := rt.CreateSession(t.Context(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	head, err := rt.Head(t.Context(), s.ID)
	require.NoError(t, err)

	conn := ts.Client(t).Dial(nil)
	testkit.WriteFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: s.ID, After: head + 1000})
	f := testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameError, f.Type, "%+v", f)
	assert.Equal(t, "after_past_end", f.Error.Code)
	assert.Contains(t, f.Error.Error, fmt.Sprintf("after %d is past the end of session %s (its last offset is %d)", head+1000, s.ID, head))
	assert.Contains(t, f.Error.Error, "subscribe again with after 0")

	testkit.WriteFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: "nosuch", After: 5})
	f = testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameError, f.Type, "%+v", f)
	assert.Equal(t, "no_session", f.Error.Code, "an unknown session is said to be unknown, whatever the offset")

	testkit.WriteFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: s.ID, After: head})
	sub := testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameSubscribed, sub.Type, "after == head is fine: nothing to replay")
	assert.Equal(t, head, sub.Head)
	_, err = rt.SendPrompt(t.Context(), s.ID, protocol.SendPromptRequest{Text: "now", AttemptID: "1"})
	require.NoError(t, err)
	assert.Equal(t, protocol.EventUserMessage, testkit.ReadFrame(t, conn).Event.Type, "and live events flow")
}

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
	ctx := t.Context()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	_, _, err = rt.Log().Append(ctx, s.ID, protocol.EventAgentDraft, protocol.AgentDraft{Stream: "9-1", Seq: 1, Text: "Hello, "}, "d1")
	require.NoError(t, err)
	fed := liveFed{Runtime: rt, deltas: make(chan protocol.Delta, 8)}
	c := serveRuntime(t, fed)

	fed.deltas <- protocol.Delta{Stream: "9-1", Pos: 0, Text: "Hello, wor"} // before the replay is out
	conn, sub := c.Subscribe(s.ID, 0)
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

// TestASocketsReplayMeetsTheLiveEventsExactly: sockets that subscribe while the session
// grows, after 0, after an offset in its middle or after its head, batched or not, first
// from the log and then from what the runtime keeps of the session, each receive every
// event after their offset once, in log order: the replay up to the head "subscribed" names,
// then the live ones, with no gap and no repeat at the seam.
func TestASocketsReplayMeetsTheLiveEventsExactly(t *testing.T) {
	ts, rt := testServer(t)
	ctx := t.Context()
	info, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "seam"})
	require.NoError(t, err)
	appendN := func(from, n int) {
		for i := from; i < from+n; i++ {
			_, _, err := rt.Log().Append(ctx, info.ID, protocol.EventAgentMessage, protocol.Message{Text: fmt.Sprintf("message %d", i)}, "")
			if err != nil {
				panic(err) // not the test's goroutine
			}
		}
	}
	appendN(0, 300)

	type socket struct {
		conn  *websocket.Conn
		after uint64
		head  uint64
	}
	var socks []socket
	subscribe := func(after uint64, batch bool) {
		conn := ts.Client(t).Dial(nil)
		conn.SetReadLimit(8 << 20)
		testkit.WriteFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: info.ID, After: after, Batch: batch})
		sub := testkit.ReadFrame(t, conn)
		require.Equal(t, protocol.FrameSubscribed, sub.Type, "%+v", sub.Error)
		socks = append(socks, socket{conn: conn, after: after, head: sub.Head})
	}
	// The writer waits, halfway, for a round of sockets that subscribed after it began, so
	// at least one round meets the session while it grows, however slow the machine.
	writing, round := make(chan struct{}), make(chan struct{}, 1)
	go func() {
		defer close(writing)
		appendN(300, 150)
		<-round // drain one that may predate the writer
		<-round
		appendN(450, 150)
	}()
	for i := 0; ; i++ {
		head, err := rt.Head(ctx, info.ID)
		require.NoError(t, err)
		subscribe(0, i%2 == 0)
		subscribe(head/2, i%2 == 1)
		subscribe(head, true)
		select {
		case round <- struct{}{}:
		default:
		}
		select {
		case <-writing:
		default:
			continue
		}
		break
	}
	all, err := rt.Log().Read(ctx, info.ID, 0)
	require.NoError(t, err)
	final := all[len(all)-1].Offset
	for i, s := range socks {
		var got []uint64
		for last := s.after; last < final; {
			rctx, cancel := context.WithTimeout(ctx, testkit.Wait)
			_, data, err := s.conn.Read(rctx)
			cancel()
			require.NoError(t, err, "socket %d", i)
			evs, err := eventsOf(data, nil)
			require.NoError(t, err, "socket %d", i)
			for _, ev := range evs {
				got = append(got, ev.Offset)
				last = ev.Offset
			}
		}
		var want []uint64
		for _, ev := range all {
			if ev.Offset > s.after {
				want = append(want, ev.Offset)
			}
		}
		require.Equal(t, want, got, "socket %d (after %d, head %d): every event once, in order", i, s.after, s.head)
		s.conn.CloseNow()
	}
	assert.Greater(t, len(socks), 3)
}
