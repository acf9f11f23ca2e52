package slash

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDetectArgument(t *testing.T) {
	cases := []struct {
		in      string
		ok      bool
		command string
		query   string
		start   int
		end     int
	}{
		{"/example |", true, "example", "", 9, 9},
		{"/example he|", true, "example", "he", 9, 11},
		{"/example he|llo {}", true, "example", "he", 9, 14},
		{"/example hello |", false, "", "", 0, 0}, // the second word is the person's
		{"/example|", false, "", "", 0, 0},
		{"/|", false, "", "", 0, 0},
		{"hi /example |", false, "", "", 0, 0},
		{"/exam|ple x", false, "", "", 0, 0},
		{"/ex-ample é|", true, "ex-ample", "é", 10, 11},
	}
	for _, c := range cases {
		draft, caret := fixture(c.in)
		hit, ok := DetectArgument(draft, caret, Claimed)
		require.Equal(t, c.ok, ok, c.in)
		if ok {
			assert.Equal(t, ArgTrigger, hit.Trigger, c.in)
			assert.Equal(t, c.command, hit.Command, c.in)
			assert.Equal(t, c.query, hit.Query, c.in)
			assert.Equal(t, c.start, hit.Span.Start, c.in)
			assert.Equal(t, c.end, hit.Span.End, c.in)
		}
	}
	_, ok := DetectArgument("/example ", 9, Frozen)
	assert.False(t, ok, "frozen: nothing fires")
}

// TestMachineArgumentCompletion: after "/example " the command's argument source is asked
// (and no other source); a pick replaces the word at the caret; a command without an
// argument source has no hit.
func TestMachineArgumentCompletion(t *testing.T) {
	slugs := &src{trigger: ArgTrigger, name: "example", items: []Item{{ID: "hello", Label: "hello"}, {ID: "git-status", Label: "git-status"}},
		out: InsertText("hello ")}
	other := &src{trigger: ArgTrigger, name: "script", items: []Item{{ID: "nope"}}}
	cmds := &src{trigger: '/', name: "commands", items: []Item{{ID: "example"}}}
	s := newShell(t, cmds, slugs, other)

	effs := s.typeIn("/example ", true)
	fetches := of[FetchCandidates](effs)
	require.Len(t, fetches, 1, "only the command's own argument source")
	assert.Equal(t, slugs.key(), fetches[0].Source)
	s.answer(fetches[0])
	m := s.c.Menu()
	require.True(t, m.Open)
	assert.Equal(t, []Option{{slugs.key(), Item{ID: "hello", Label: "hello"}}, {slugs.key(), Item{ID: "git-status", Label: "git-status"}}}, m.Options)

	effs = s.typeIn("/example he", true)
	s.answer(of[FetchCandidates](effs)[0])
	require.Len(t, s.c.Menu().Options, 1)
	s.c.Dispatch(press("Enter"))
	assert.Equal(t, "/example hello ", s.m.Draft())
	assert.Equal(t, []Item{{ID: "hello", Label: "hello"}}, slugs.picks)
	_, hit := s.c.Hit()
	assert.False(t, hit, "the next word is not completed")

	s.typeIn("/help ", true)
	_, hit = s.c.Hit()
	assert.False(t, hit, "no argument source: no hit")
}

// answer performs a fetch as app/slashhost does and dispatches its answer.
func (s *shell) answer(f FetchCandidates) []Effect {
	ev, _ := s.c.Perform(context.Background(), f)
	return s.c.Dispatch(ev)
}

// TestArgumentMenuHighlightsNoneUntilAnArrow: "/example " opens its argument menu with no
// option highlighted, so an Enter is not a pick (it goes to the input, which sends the
// draft: "/example" lists the examples); an arrow highlights one, and Enter then picks it.
// Tab picks the first. A word typed highlights the first match as every menu does.
func TestArgumentMenuHighlightsNoneUntilAnArrow(t *testing.T) {
	slugs := &src{trigger: ArgTrigger, name: "example", items: []Item{{ID: "hello"}, {ID: "git-status"}}, out: InsertText("hello ")}
	s := newShell(t, slugs)
	s.answer(of[FetchCandidates](s.typeIn("/example ", true))[0])
	m := s.c.Menu()
	require.True(t, m.Open)
	assert.Equal(t, -1, m.Active, "nothing highlighted")
	assert.Empty(t, m.ActiveID())
	assert.Empty(t, of[PreventDefault](s.c.Dispatch(press("Enter"))), "the Enter is not the menu's")
	assert.Empty(t, slugs.picks)

	s.c.Dispatch(press("ArrowUp"))
	assert.Equal(t, 1, s.c.Menu().Active, "up from none is the last")
	s.c.Dispatch(press("ArrowDown"))
	assert.Equal(t, 0, s.c.Menu().Active)
	s.c.Dispatch(press("Enter"))
	assert.Equal(t, []Item{{ID: "hello"}}, slugs.picks, "an arrow moved: Enter picks")

	s.answer(of[FetchCandidates](s.typeIn("/example ", true))[0])
	require.Equal(t, -1, s.c.Menu().Active, "a new menu starts with none again")
	s.c.Dispatch(press("Tab"))
	assert.Len(t, slugs.picks, 2, "Tab picks the first")

	s.answer(of[FetchCandidates](s.typeIn("/example g", true))[0])
	assert.Equal(t, 0, s.c.Menu().Active, "a word typed: its first match")
	s.answer(of[FetchCandidates](s.typeIn("/example ", true))[0])
	assert.Equal(t, -1, s.c.Menu().Active, "the word erased: none again")
	assert.Empty(t, of[PreventDefault](s.c.Dispatch(press("Enter"))), "and Enter sends")
}
