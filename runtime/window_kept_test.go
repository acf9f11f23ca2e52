package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// answered sends n prompts one by one, each answered before the next.
func answered(t *testing.T, rt *Runtime, session string, from, n int) []protocol.Event {
	t.Helper()
	var evs []protocol.Event
	for i := from; i < from+n; i++ {
		_, err := rt.SendPrompt(context.Background(), session, protocol.SendPromptRequest{Text: fmt.Sprintf("prompt %d", i), AttemptID: fmt.Sprintf("p%d", i)})
		require.NoError(t, err)
		evs = testkit.WaitEvents(t, rt.Log().Read, session, "answered", testkit.TurnsEnded(i+1))
	}
	return evs
}

// openCost opens the session's newest window and says how many events the index folded.
func openCost(t *testing.T, rt *Runtime, session string) (protocol.Window, []protocol.Event, int) {
	t.Helper()
	x := rt.windows.index(session)
	x.mu.Lock()
	before := x.read
	x.mu.Unlock()
	w, pre, err := rt.Window(context.Background(), session, 0, 10)
	require.NoError(t, err)
	x.mu.Lock()
	defer x.mu.Unlock()
	return w, pre, x.read - before
}

// TestTheFirstOpenAfterARestartReadsOnlyWhatIsNew: a long session's window index is kept
// beside the log, so a runtime that starts again opens it by folding only the events stored
// since, and finds the same window a fold of the whole log finds.
func TestTheFirstOpenAfterARestartReadsOnlyWhatIsNew(t *testing.T) {
	dir := t.TempDir()
	emb, rt := start(t, dir)
	ctx := context.Background()
	s := newSession(t, rt)
	all := answered(t, rt, s, 0, 30)
	w, _, read := openCost(t, rt, s)
	require.True(t, w.Older, "30 prompts open on a window")
	assert.Equal(t, len(all), read, "the first open folds the whole log")
	stop(emb, rt)

	emb, rt = start(t, dir)
	defer func() { stop(emb, rt) }()
	again, _, read := openCost(t, rt, s)
	assert.Equal(t, 0, read, "after a restart, nothing new: nothing folded")
	assert.Equal(t, w, again)

	all = answered(t, rt, s, 30, 2)
	_, _, err := rt.Window(ctx, s, 0, 10) // what a page opening now does
	require.NoError(t, err)
	stop(emb, rt)

	emb, rt = start(t, dir)
	kept, keptPrelude, read := openCost(t, rt, s)
	assert.Less(t, read, 20, "only the two new prompts' events are folded")
	require.NoError(t, rt.windowsKept.Purge(ctx, s))
	rt.windows = windowCache{}
	whole, wholePrelude, read := openCost(t, rt, s)
	assert.Equal(t, len(all), read, "without the kept index, the whole log")
	assert.Equal(t, whole, kept, "the same window as the whole fold")
	assert.Equal(t, wholePrelude, keptPrelude)
}
