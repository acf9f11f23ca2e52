package server_test

import (
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// watchVersions reads "versions" frames (other frames are skipped) until one satisfies ok,
// and returns it.
func watchVersions(t *testing.T, conn *websocket.Conn, ok func(protocol.Versions) bool) protocol.Versions {
	t.Helper()
	for {
		f := testkit.ReadFrame(t, conn)
		if f.Type != protocol.FrameVersions {
			continue
		}
		require.NotNil(t, f.Versions, "a versions frame without its versions")
		if ok(*f.Versions) {
			return *f.Versions
		}
	}
}

// TestASocketWatchCarriesTheVersions: a socket that sends "watch" gets the session list's and
// the approvals queue's versions at once, the ones GET /api/sessions and /api/approvals answer
// with, and again as each moves (a session made, a decision asked), beside a subscription on
// the same socket: a page follows both without holding an HTTP request.
func TestASocketWatchCarriesTheVersions(t *testing.T) {
	ts, _ := testServer(t)
	c := clientOf(ts)
	ctx := t.Context()
	current := func() protocol.Versions {
		l, err := c.SessionList(ctx, nil)
		require.NoError(t, err)
		q, err := c.ApprovalQueue(ctx, nil)
		require.NoError(t, err)
		return protocol.Versions{Sessions: l.Version, Approvals: q.Version}
	}

	conn := ts.Client(t).Dial(nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"watch"}`))
	first := watchVersions(t, conn, func(protocol.Versions) bool { return true })
	assert.Equal(t, current(), first, "the first frame says the versions now")

	s := createSessionHTTP(t, ts)
	made := watchVersions(t, conn, func(v protocol.Versions) bool { return v.Sessions != first.Sessions })
	assert.Equal(t, first.Approvals, made.Approvals, "a session made moves the list's version only")

	// A second watch is the same watch; a subscription goes on beside it.
	write(t, conn, websocket.MessageText, []byte(`{"type":"watch"}`))
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s+`"}`))
	for f := testkit.ReadFrame(t, conn); f.Type != protocol.FrameSubscribed; f = testkit.ReadFrame(t, conn) {
		require.Equal(t, protocol.FrameVersions, f.Type, "%+v", f)
	}

	promptHTTP(t, ts, s, "/script confirm('Ship it?')")
	waitDecisions(t, ts, s, 1)
	want := current()
	asked := watchVersions(t, conn, func(v protocol.Versions) bool { return v == want })
	assert.NotEqual(t, first.Approvals, asked.Approvals, "a decision asked moves the queue's version")
}

// TestASocketWatchFollowsAnotherReplica: a page's socket on one runtime hears of a session
// made through another on the same NATS (each watches the index's bucket).
func TestASocketWatchFollowsAnotherReplica(t *testing.T) {
	a, b := twoReplicas(t)

	conn := a.Client(t).Dial(nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"watch"}`))
	first := watchVersions(t, conn, func(protocol.Versions) bool { return true })
	createSessionHTTP(t, b)
	moved := watchVersions(t, conn, func(v protocol.Versions) bool { return v.Sessions != first.Sessions })
	l, err := clientOf(a).SessionList(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, l.Sessions, 1)
	assert.Equal(t, l.Version, moved.Sessions)
}
