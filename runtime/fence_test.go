package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/agent/model"
)

// A replica whose heartbeat fails stops its turns before its lease lapses: its model turn,
// waiting on an approval, is left open with the approval pending, the other replica finds
// the lease gone and resumes it, and the reply runs the write there, once. The fenced replica
// writes nothing for that turn, starts nothing while fenced, and runs turns again once its
// heartbeat does.
func TestALapsingLeaseStopsTheTurnsBeforeAnotherTakesThem(t *testing.T) {
	emb, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	defer emb.Close()
	ctx := context.Background()
	ws := testkit.Folder(t, nil)
	m := testkit.NewModel(t,
		testkit.Calls(testkit.Call{ID: "call_0", Name: "write_file", Args: map[string]string{"path": "out.txt", "content": "ok"}}))
	opts := Options{Workspace: ws, Lease: time.Second, Model: model.Config{URL: m.Base(), Model: "test"}}
	a, err := New(ctx, emb.Conn, opts)
	require.NoError(t, err)
	defer a.Close()
	var cut atomic.Bool
	beat := a.renew
	a.renew = func(ctx context.Context) error {
		if cut.Load() {
			return errors.New("the presence bucket cannot be reached")
		}
		return beat(ctx)
	}

	s := newSession(t, a)
	prompt(t, a, s, "write out.txt", protocol.ModeQueue)
	approval := waitPending(t, a, s, 1)[0]
	b, err := New(ctx, emb.Conn, opts)
	require.NoError(t, err)
	defer b.Close()

	m.Add(testkit.Text("Wrote out.txt."))
	cut.Store(true)
	require.Eventually(t, func() bool {
		st, err := b.turnState(ctx, s)
		return err == nil && st.Open && st.Started.Owner == b.owner
	}, testkit.Wait, 20*time.Millisecond, "B takes the turn over once A's lease lapses")
	again := waitPending(t, b, s, 1)[0]
	assert.Equal(t, approval.ID, again.ID, "the same approval, still pending")
	_, err = os.Stat(filepath.Join(ws, "out.txt"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing ran before the answer")

	_, err = b.Reply(ctx, s, approval.ID, pick(0))
	require.NoError(t, err)
	evs := waitFor(t, b, s, "the resumed turn ends", testkit.TurnsEnded(1))
	got, err := os.ReadFile(filepath.Join(ws, "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ok", string(got))
	assert.Equal(t, 1, testkit.Count(evs, protocol.EventToolResult), "the write ran once")
	assert.Equal(t, []string{"Wrote out.txt."}, testkit.AgentTexts(t, evs), "no note of an interruption: A wrote nothing")
	for _, te := range testkit.DataOf[protocol.TurnEnded](t, evs, protocol.EventTurnEnded) {
		assert.False(t, te.Interrupted)
	}

	// A's heartbeat works again: a prompt sent to A is answered (by either replica).
	cut.Store(false)
	m.Add(testkit.Text("Back."))
	require.Eventually(t, func() bool {
		a.fence.mu.Lock()
		defer a.fence.mu.Unlock()
		return a.fence.lifted == nil
	}, testkit.Wait, 20*time.Millisecond, "A renews its lease")
	prompt(t, a, s, "are you back?", protocol.ModeQueue)
	evs = waitFor(t, a, s, "the next prompt is answered", testkit.TurnsEnded(2))
	assert.Equal(t, []string{"Wrote out.txt.", "Back."}, testkit.AgentTexts(t, evs))
}
