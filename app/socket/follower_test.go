//go:build !js

package socket_test

import (
	"context"
	"net/http"
	"testing"
	"time"

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
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan protocol.Event, 100)
	states := make(chan socket.State, 100)
	f := &socket.Follower{
		URL:     url,
		Session: session,
		After:   after,
		Header:  http.Header{"Authorization": {"Bearer " + testkit.Token}},
		OnEvent: func(ev protocol.Event) { events <- ev },
		OnState: func(st socket.State) { states <- st },
	}
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return f, events, states, done
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
	select {
	case ev := <-events:
		return ev
	case <-time.After(testkit.Wait):
		t.Fatal("no event")
	}
	return protocol.Event{}
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

// TestFollowerStopsWhenRetryingCannotHelp: a session that does not exist fails the
// follower with the server's words instead of retrying forever.
func TestFollowerStopsWhenRetryingCannotHelp(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{})
	cases := []struct {
		name, session string
		after         uint64
		says          string
	}{
		{"unknown session", "nosuch", 0, "no such session"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, events, states, done := follow(t, testkit.WebSocketURL(ts.URL), c.session, c.after)
			select {
			case <-done:
			case <-time.After(testkit.Wait):
				t.Fatal("the follower kept retrying")
			}
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

func TestBackoff(t *testing.T) {
	want := []time.Duration{250 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for n, w := range want {
		assert.Equal(t, w, socket.Backoff(n), "attempt %d", n)
	}
}
