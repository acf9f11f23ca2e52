//go:build !js

package socket_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/socket"
	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
)

// TestAWatchFollowsTheVersionsAcrossALostLink: a follower of no session hears the versions at once and
// as they move; when the link drops it reconnects, and the new link says the versions as
// they are, a change made while it was down included.
func TestAWatchFollowsTheVersionsAcrossALostLink(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{})
	ctx := t.Context()
	versions := make(chan protocol.Versions, 100)
	states, _ := run(t, &socket.Follower{URL: testkit.WebSocketURL(ts.URL), OnVersions: func(v protocol.Versions) { versions <- v }})
	current := func() uint64 {
		l, err := ts.Runtime.SessionList(ctx, false, nil, 0)
		require.NoError(t, err)
		return l.Version
	}

	first := testkit.Recv(t, versions, "no versions on a new link")
	assert.Equal(t, current(), first.Sessions)
	_, err := ts.Runtime.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	moved := testkit.Recv(t, versions, "a session made moved no version")
	assert.Equal(t, current(), moved.Sessions)

	ts.Handler.CloseSockets()
	waitState(t, states, socket.Reconnecting)
	_, err = ts.Runtime.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	for v := testkit.Recv(t, versions, "no versions after the reconnect"); v.Sessions != current(); {
		v = testkit.Recv(t, versions, "the reconnected link never said the session made while it was down")
	}
}
