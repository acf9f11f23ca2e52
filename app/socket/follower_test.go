//go:build !js

package socket_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/socket"
	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
)

// These tests drive the browser's follower natively (dial_native.go) against the real
// server, or against a scripted socket where the server cannot be made to misbehave.

// follow runs a follower until the test ends, its events and states on channels.
func follow(t *testing.T, url, session string, after uint64) (*socket.Follower, chan protocol.Event, chan socket.State, <-chan struct{}) {
	t.Helper()
	events := make(chan protocol.Event, 100)
	f := &socket.Follower{URL: url, Session: session, After: after, OnEvent: func(ev protocol.Event) { events <- ev }}
	states, done := run(t, f)
	return f, events, states, done
}

// run runs f with the test's token until the test ends, its states on a channel.
func run(t *testing.T, f *socket.Follower) (chan socket.State, <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	states := make(chan socket.State, 100)
	f.Header = http.Header{"Authorization": {"Bearer " + testkit.Token}}
	f.OnState = func(st socket.State) { states <- st }
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return states, done
}

// waitState reads states until one with status want, and returns it.
func waitState(t *testing.T, states <-chan socket.State, want socket.Status) socket.State {
	t.Helper()
	for {
		select {
		case st := <-states:
			if st.Status == want {
				return st
			}
		case <-time.After(testkit.Wait):
			t.Fatalf("never %v", want)
		}
	}
}

func next(t *testing.T, events <-chan protocol.Event) protocol.Event {
	t.Helper()
	return testkit.Recv(t, events, "no event")
}

// TestFollowerResumesWithoutGapOrDuplicate: the link drops mid-session and the follower
// resumes after the last offset it saw.
func TestFollowerResumesWithoutGapOrDuplicate(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{})
	rt := ts.Runtime
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)

	f, events, states, _ := follow(t, testkit.WebSocketURL(ts.URL), s.ID, 0)
	waitState(t, states, socket.Live)
	assert.Equal(t, protocol.EventSessionCreated, next(t, events).Type)

	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "before", AttemptID: "1"})
	require.NoError(t, err)
	assert.Equal(t, protocol.EventUserMessage, next(t, events).Type)
	assert.Equal(t, protocol.EventTurnStarted, next(t, events).Type)
	assert.Equal(t, protocol.EventAgentMessage, next(t, events).Type)
	assert.Equal(t, protocol.EventTurnEnded, next(t, events).Type)

	ts.Handler.CloseSockets()
	waitState(t, states, socket.Reconnecting)
	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "while away", AttemptID: "2"})
	require.NoError(t, err)
	f.RetryNow()
	waitState(t, states, socket.Live)
	away := next(t, events)
	assert.Equal(t, protocol.EventUserMessage, away.Type, "the resumed stream starts right after the last event seen")
	m, _ := away.DecodeMessage()
	assert.Equal(t, "while away", m.Text)
	assert.Equal(t, protocol.EventTurnStarted, next(t, events).Type)
	assert.Equal(t, protocol.EventAgentMessage, next(t, events).Type)
	assert.Equal(t, protocol.EventTurnEnded, next(t, events).Type)
	select {
	case ev := <-events:
		t.Fatalf("unexpected event %+v", ev)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestFollowerStopsWhenRetryingCannotHelp: a session that does not exist, or offsets past
// the end of the session's log (the copy is of another log), fail the follower with the
// server's words instead of retrying forever.
func TestFollowerStopsWhenRetryingCannotHelp(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{})
	s, err := ts.Runtime.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	cases := []struct {
		name, session string
		after         uint64
		says          string
	}{
		{"unknown session", "nosuch", 0, "no such session"},
		{"after past the end", s.ID, 1 << 40, "past the end of session " + s.ID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, events, states, done := follow(t, testkit.WebSocketURL(ts.URL), c.session, c.after)
			testkit.Recv(t, done, "the follower kept retrying")
			var last socket.State
			for len(states) > 0 {
				last = <-states
			}
			assert.Equal(t, socket.Failed, last.Status)
			assert.Contains(t, last.Error, c.says)
			assert.Empty(t, events)
		})
	}
}

// TestFollowerRetriesAnUnavailableStore: an error frame that answers the subscribe with a
// store too slow to read is a failed attempt: the follower waits, retries, and is live only
// once the server says "subscribed"; it never reports the replay as over before.
func TestFollowerRetriesAnUnavailableStore(t *testing.T) {
	attempts := make(chan int, 10)
	var n atomic.Int32
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		if _, _, err := conn.Read(r.Context()); err != nil { // the subscribe
			return
		}
		attempt := int(n.Add(1))
		attempts <- attempt
		reply := protocol.ServerFrame{Type: protocol.FrameError, Error: &protocol.ErrorResponse{Code: "unavailable", Error: "could not read where this session's log ends: the event store did not answer in time"}}
		if attempt > 1 {
			reply = protocol.ServerFrame{Type: protocol.FrameSubscribed, Session: "s1", Head: 7}
		}
		data, _ := json.Marshal(reply)
		_ = conn.Write(r.Context(), websocket.MessageText, data)
		_, _, _ = conn.Read(r.Context()) // hold the link until the follower leaves
	}))
	t.Cleanup(fake.Close)

	_, _, states, _ := follow(t, testkit.WebSocketURL(fake.URL), "s1", 3)
	st := waitState(t, states, socket.Reconnecting)
	assert.Contains(t, st.Error, "did not answer in time", "the person sees why")
	live := waitState(t, states, socket.Live)
	assert.False(t, live.CaughtUp, "offset 3 of 7: the replay is not over")
	assert.Equal(t, []int{1, 2}, []int{<-attempts, <-attempts}, "one refused attempt, then one that subscribed")
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{250 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for n, w := range want {
		assert.Equal(t, w, socket.Backoff(n), "attempt %d", n)
	}
}
