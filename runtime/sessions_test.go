package runtime

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// blankOf reads a session's blank bit both ways the browser can: alone and in the listing.
func blankOf(t *testing.T, rt *Runtime, id string) (one, listed bool) {
	t.Helper()
	ctx := context.Background()
	info, err := rt.Session(ctx, id)
	require.NoError(t, err)
	list, err := rt.ListSessions(ctx)
	require.NoError(t, err)
	for _, s := range list {
		if s.ID == id {
			return info.Blank, s.Blank
		}
	}
	t.Fatalf("session %s not listed", id)
	return
}

func TestSessionIsBlankUntilItsFirstPrompt(t *testing.T) {
	dir := t.TempDir()
	emb, rt := start(t, dir)
	ctx := context.Background()

	used, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	assert.True(t, used.Blank)
	blank, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	one, listed := blankOf(t, rt, used.ID)
	assert.True(t, one)
	assert.True(t, listed)

	_, err = rt.SendPrompt(ctx, used.ID, protocol.SendPromptRequest{Text: "hi", AttemptID: "a"})
	require.NoError(t, err)
	one, listed = blankOf(t, rt, used.ID)
	assert.False(t, one, "a stored prompt ends blankness")
	assert.False(t, listed)
	waitEvents(t, rt, used.ID, 5)
	stop(emb, rt)

	emb, rt = start(t, dir)
	defer stop(emb, rt)
	one, listed = blankOf(t, rt, used.ID)
	assert.False(t, one, "and a restart keeps it so")
	assert.False(t, listed)
	one, listed = blankOf(t, rt, blank.ID)
	assert.True(t, one, "a session never prompted stays blank across a restart")
	assert.True(t, listed)
}

func TestSessionBlankIsCheckedAgainstTheLog(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	// A prompt stored by a process that stopped before it updated the index.
	logMessage(t, rt, s.ID, protocol.EventUserMessage, protocol.Message{Text: "x"})

	one, listed := blankOf(t, rt, s.ID)
	assert.False(t, one)
	assert.False(t, listed)
	indexed, err := rt.sessions.get(ctx, s.ID)
	require.NoError(t, err)
	assert.False(t, indexed.Blank, "the index learned it")
}

// TestABlankSessionTakesItsTitleFromItsFirstRun: the hero's blank session is created
// untitled; its first prompt names it, and a later prompt does not rename it; a function run
// names it after the function, as a first prompt does. Either way it is dated from that run,
// and a session given a title at creation keeps it.
func TestABlankSessionTakesItsTitleFromItsFirstRun(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	for _, c := range []struct {
		name, title string
		run         func(t *testing.T, id string)
	}{
		{"two prompts", "plan the garden", func(t *testing.T, id string) {
			_, err := rt.SendPrompt(ctx, id, protocol.SendPromptRequest{Text: "plan the garden\nthen water it", AttemptID: "a"})
			require.NoError(t, err)
			_, err = rt.SendPrompt(ctx, id, protocol.SendPromptRequest{Text: "second", AttemptID: "b"})
			require.NoError(t, err)
		}},
		{"a function run", "Greet someone", func(t *testing.T, id string) {
			_, err := rt.RunFunction(ctx, "greet", protocol.RunFunctionRequest{Session: id, Args: raw(map[string]any{"name": "Ada"})})
			require.NoError(t, err)
			waitFor(t, rt, id, "run ends", testkit.Has(protocol.EventTurnEnded))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			blank, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
			require.NoError(t, err)
			named, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "kept"})
			require.NoError(t, err)
			c.run(t, blank.ID)
			c.run(t, named.ID)
			got, err := rt.Session(ctx, blank.ID)
			require.NoError(t, err)
			assert.Equal(t, c.title, got.Title)
			assert.False(t, got.Blank)
			assert.NotZero(t, got.Active, "dated from the run")
			got, err = rt.Session(ctx, named.ID)
			require.NoError(t, err)
			assert.Equal(t, "kept", got.Title, "a title given at creation stays")
		})
	}
}

// TestARefusedPromptNamesNoSession: a session whose first prompts are commands refused
// before they run (an example that does not exist, a script with no code) is not named
// after them: it stays untitled until a prompt that would run names it, and that name stays.
func TestARefusedPromptNamesNoSession(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	title := func() string {
		t.Helper()
		got, err := rt.Session(ctx, s.ID)
		require.NoError(t, err)
		return got.Title
	}
	for i, text := range []string{"/example nosuch", "/script   ", `/example hello {bad json`} {
		_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: text, AttemptID: fmt.Sprint("r", i)})
		require.NoError(t, err)
		assert.Equal(t, protocol.Untitled, title(), "after %q", text)
	}
	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "/example hello", AttemptID: "ok"})
	require.NoError(t, err)
	assert.Equal(t, "Example hello", title(), "named by the first prompt that runs")
	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "plan the garden", AttemptID: "later"})
	require.NoError(t, err)
	assert.Equal(t, "Example hello", title(), "and that name stays")
}

// onAClock starts a runtime on a store of its own whose clock moves only when the test
// advances it.
func onAClock(t *testing.T) (rt *Runtime, clock func() time.Time, advance func(time.Duration)) {
	t.Helper()
	var mu sync.Mutex
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	clock = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance = func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	return freshWith(t, Options{Exclusive: true, Now: clock}), clock, advance
}

// TestSessionIsDatedFromItsFirstPrompt: the empty page makes its blank session ahead of
// time; the list dates a session from its first prompt, not from when the page was opened,
// so "5 min ago" is never counted from a page left open. A session given its first prompt
// keeps that date.
func TestSessionIsDatedFromItsFirstPrompt(t *testing.T) {
	rt, clock, advance := onAClock(t)
	ctx := context.Background()

	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	assert.Equal(t, clock().UnixMilli(), s.Created)
	advance(7 * time.Minute)
	prompted := clock().UnixMilli()
	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "hi", AttemptID: "a"})
	require.NoError(t, err)
	advance(time.Minute)
	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "again", AttemptID: "b"})
	require.NoError(t, err)
	got, err := rt.Session(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, prompted, got.Created, "dated from its first prompt")
	list, err := rt.ListSessions(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, prompted, list[0].Created)

	// A prompt the index did not hear of (stored by a process that stopped): the read that
	// learns it from the log dates it too.
	b, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	advance(3 * time.Minute)
	logMessage(t, rt, b.ID, protocol.EventUserMessage, protocol.Message{Text: "x"})
	got, err = rt.Session(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, clock().UnixMilli(), got.Created)
}

// TestTheListFollowsTheLastPrompt: sessions are listed and dated by their last prompt, as
// chat apps list conversations, and a burst of prompts writes the index once per
// activeEvery, with its newest prompt's time.
func TestTheListFollowsTheLastPrompt(t *testing.T) {
	rt, clock, advance := onAClock(t)
	ctx := context.Background()
	send := func(id, attempt string) {
		_, err := rt.SendPrompt(ctx, id, protocol.SendPromptRequest{Text: "hi " + attempt, AttemptID: attempt})
		require.NoError(t, err)
	}
	order := func() []string {
		list, err := rt.ListSessions(ctx)
		require.NoError(t, err)
		var ids []string
		for _, s := range list {
			ids = append(ids, s.ID)
		}
		return ids
	}

	older, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "older"})
	require.NoError(t, err)
	send(older.ID, "o1")
	advance(time.Minute)
	newer, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "newer"})
	require.NoError(t, err)
	send(newer.ID, "n1")
	assert.Equal(t, []string{newer.ID, older.ID}, order())

	advance(5 * time.Minute)
	used := clock().UnixMilli()
	send(older.ID, "o2")
	assert.Equal(t, []string{older.ID, newer.ID}, order(), "the session just used comes first")
	got, err := rt.Session(ctx, older.ID)
	require.NoError(t, err)
	assert.Equal(t, used, got.LastActive(), "dated by its last prompt")

	// Another session's prompt, then one in this one within activeEvery of its last write
	// (QA round 14 #8): the list still puts this one first, once that time is up, dated by
	// that prompt.
	advance(500 * time.Millisecond)
	send(newer.ID, "n2")
	assert.Equal(t, []string{newer.ID, older.ID}, order())
	advance(500 * time.Millisecond)
	_, rev, err := rt.sessions.kv.Get(ctx, older.ID)
	require.NoError(t, err)
	// A burst: nothing written at once, then one write for all of it, with its newest time.
	for i := range 5 {
		send(older.ID, fmt.Sprintf("burst%d", i))
		advance(100 * time.Millisecond)
	}
	newest := clock().UnixMilli() - 100
	_, now, err := rt.sessions.kv.Get(ctx, older.ID)
	require.NoError(t, err)
	assert.Equal(t, rev, now, "prompts within activeEvery of the last write write nothing at once")
	testkit.Eventually(t, func() bool {
		got, err := rt.Session(ctx, older.ID)
		return err == nil && got.LastActive() == newest
	}, "the burst's newest prompt dates the session once activeEvery is up")
	assert.Equal(t, []string{older.ID, newer.ID}, order())
}

// TestTheSessionListWaitsForTheIndexToChange: SessionList with the version of its last answer
// holds until the session index changes, whichever runtime changed it (a second one on the
// same store here: another replica), and answers with the list as it is then; a version that
// is not the current one answers at once, and an unchanged index after the hold.
func TestTheSessionListWaitsForTheIndexToChange(t *testing.T) {
	emb, rt := startWith(t, t.TempDir(), Options{})
	defer stop(emb, rt)
	other, err := New(context.Background(), emb.Conn, Options{Workspace: rt.Workspace()})
	require.NoError(t, err)
	defer other.Close()
	ctx := context.Background()

	first, err := rt.SessionList(ctx, false, nil, 0)
	require.NoError(t, err)
	require.Empty(t, first.Sessions)
	held := func(v uint64) <-chan protocol.SessionList {
		out := make(chan protocol.SessionList, 1)
		go func() {
			l, err := rt.SessionList(ctx, false, &v, time.Minute)
			assert.NoError(t, err)
			out <- l
		}()
		return out
	}
	ids := func(l protocol.SessionList) []string {
		var out []string
		for _, s := range l.Sessions {
			out = append(out, s.ID)
		}
		return out
	}

	// Made on the other runtime: this one's wait answers with it.
	woke := held(first.Version)
	select {
	case <-woke:
		t.Fatal("the wait answered before anything changed")
	case <-time.After(300 * time.Millisecond):
	}
	made, err := other.CreateSession(ctx, protocol.CreateSessionRequest{Title: "made elsewhere"})
	require.NoError(t, err)
	got := testkit.Recv(t, woke, "the session list's wait did not end when another runtime made a session")
	assert.Equal(t, []string{made.ID}, ids(got))
	assert.NotEqual(t, first.Version, got.Version)

	// Renamed there: the wait on the new version answers with the new title.
	woke = held(got.Version)
	title := "renamed elsewhere"
	_, err = other.UpdateSession(ctx, made.ID, protocol.UpdateSessionRequest{Title: &title})
	require.NoError(t, err)
	got = testkit.Recv(t, woke, "the session list's wait did not end on a rename")
	require.Len(t, got.Sessions, 1)
	assert.Equal(t, "renamed elsewhere", got.Sessions[0].Title)

	// A version that is not the current one answers at once; an index that does not change,
	// at the end of the hold, with the same version.
	stale := first.Version
	now, err := rt.SessionList(ctx, false, &stale, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, got.Version, now.Version)
	same, err := rt.SessionList(ctx, false, &now.Version, 100*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, now.Version, same.Version)
	assert.Equal(t, []string{made.ID}, ids(same))
}
