package server_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// TestASocketsReplayMeetsTheLiveEventsExactly: sockets that subscribe while the session
// grows, after 0, after an offset in its middle or after its head, batched or not, first
// from the log and then from what the runtime keeps of the session, each receive every
// event after their offset once, in log order: the replay up to the head "subscribed" names,
// then the live ones, with no gap and no repeat at the seam.
func TestASocketsReplayMeetsTheLiveEventsExactly(t *testing.T) {
	ts, rt := testServer(t)
	ctx := context.Background()
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
