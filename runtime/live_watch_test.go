package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// TestLiveWatchersOfASessionShareOneSubscription: every caller of Live on a session hears
// every delta, through one subscription to the session's subject for all of them, which goes
// with the last of them; a caller that leaves takes nothing from the others.
func TestLiveWatchersOfASessionShareOneSubscription(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	subs := rt.nc.NumSubscriptions()
	ctxA, cancelA := context.WithCancel(ctx)
	ctxB, cancelB := context.WithCancel(ctx)
	defer cancelA()
	defer cancelB()
	a, err := rt.Live(ctxA, s.ID)
	require.NoError(t, err)
	b, err := rt.Live(ctxB, s.ID)
	require.NoError(t, err)
	require.Equal(t, subs+1, rt.nc.NumSubscriptions(), "one subscription for the session's two watchers")

	// The subscription is in place once a delta published after it reaches a watcher.
	send := func(text string) protocol.Delta {
		d := protocol.Delta{Stream: "7-1", Text: text}
		rt.publishLive(s.ID, d)
		return d
	}
	want := send("hello")
	require.Equal(t, want, testkit.Recv(t, a, "a hears the delta"))
	require.Equal(t, want, testkit.Recv(t, b, "b hears the delta"))

	cancelA()
	testkit.Eventually(t, func() bool {
		rt.live.watchMu.Lock()
		defer rt.live.watchMu.Unlock()
		return len(rt.live.watch[s.ID].outs) == 1
	}, "a's channel leaves the watchers")
	want = send("hello again")
	require.Equal(t, want, testkit.Recv(t, b, "b hears the delta after a left"))
	require.Equal(t, subs+1, rt.nc.NumSubscriptions())

	cancelB()
	testkit.Eventually(t, func() bool { return rt.nc.NumSubscriptions() == subs }, "the subscription goes with the last watcher")
}
