package slash

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/input"
)

// menuHarness has two '/' sources and an '@' source, with the menu open on "/re".
func menuHarness(t *testing.T) (*harness, *src, *src) {
	t.Helper()
	cmd := &src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}, {ID: "rename"}},
		out: BeginCommand(input.Claim{Token: "/review ", Hint: "<pr>"})}
	skill := &src{trigger: '/', name: "skill", items: []Item{{ID: "refactor"}}, out: InsertText("/refactor ")}
	at := &src{trigger: '@', name: "people", items: []Item{{ID: "alice"}}}
	h := newHarness(cmd, skill, at)
	h.settle(h.typeDraft("/re|", Plain))
	require.True(t, h.c.Menu().Open)
	require.Len(t, h.c.Menu().Options, 3)
	return h, cmd, skill
}

// TestAClickPicksTheOptionItWasOn: a click names the option the person saw, so an answer
// that re-ranks the menu between the render and the click does not turn it into a pick
// of whatever now stands in that place; an option no longer offered is no pick.
func TestAClickPicksTheOptionItWasOn(t *testing.T) {
	h, cmd, _ := menuHarness(t)
	seen := h.c.Menu().Options[1]
	require.Equal(t, "rename", seen.Item.ID)

	// "rebase" arrives and takes the place "rename" had on screen.
	cmd.items = []Item{{ID: "review"}, {ID: "rebase"}, {ID: "rename"}}
	h.settle(h.typeDraft("/r|", Plain))
	h.settle(h.typeDraft("/re|", Plain))
	require.Equal(t, "rebase", h.c.Menu().Options[1].Item.ID)

	effs := h.c.Dispatch(Choose{ID: seen.ID()})
	assert.Equal(t, []Item{{ID: "rename"}}, cmd.picks, "the option clicked, not the one now in its place")
	require.Len(t, of[Picked](effs), 1)

	h.settle(h.typeDraft("/re|", Plain))
	gone := Option{cmd.key(), Item{ID: "retire"}}.ID()
	assert.Empty(t, h.c.Dispatch(Choose{ID: gone}), "an option no longer offered is no pick")
	assert.Len(t, cmd.picks, 1)
}

func TestKeyArbitration(t *testing.T) {
	tests := []struct {
		name        string
		key         Key
		wantPrevent bool
		wantActive  int // after the key; -1 closed
		wantBail    []string
	}{
		{"down moves", press("ArrowDown"), true, 1, nil},
		{"up wraps", press("ArrowUp"), true, 2, nil},
		{"escape closes", press("Escape"), true, -1, nil},
		{"enter picks", press("Enter"), true, -1, []string{`begin-command "/review " 0-3@1`}},
		{"tab picks", press("Tab"), true, -1, []string{`begin-command "/review " 0-3@1`}},
		{"shift+enter goes first", Key{Key: "Enter", Shift: true}, false, 0, nil},
		{"shift+enter goes first even composing", Key{Key: "Enter", Shift: true, Composing: true}, false, 0, nil},
		{"enter while composing", Key{Key: "Enter", Composing: true}, false, 0, nil},
		{"enter with keyCode 229", Key{Key: "Enter", KeyCode: 229}, false, 0, nil},
		{"down while composing", Key{Key: "ArrowDown", Composing: true}, false, 0, nil},
		{"escape while composing", Key{Key: "Escape", KeyCode: 229}, false, 0, nil},
		{"ctrl+enter is the line break", Key{Key: "Enter", Ctrl: true}, false, 0, nil},
		{"meta+enter", Key{Key: "Enter", Meta: true}, false, 0, nil},
		{"shift+tab leaves", Key{Key: "Tab", Shift: true}, false, 0, nil},
		{"shift+down extends the selection", Key{Key: "ArrowDown", Shift: true}, false, 0, nil},
		{"a letter types", press("v"), false, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _, _ := menuHarness(t)
			effs := h.c.Dispatch(tt.key)
			assert.Equal(t, tt.wantPrevent, Prevented(effs))
			assert.Equal(t, tt.wantActive, h.c.Menu().Active)
			assert.Equal(t, tt.wantBail, h.bail.calls)
		})
	}
}

func TestKeysPassWhenMenuClosed(t *testing.T) {
	h := newHarness(&src{trigger: '/', name: "cmd"})
	h.typeDraft("hello|", Plain)
	for _, k := range []string{"ArrowDown", "ArrowUp", "Enter", "Tab", "Escape", " "} {
		assert.Empty(t, h.c.Dispatch(press(k)), k)
	}
}

func TestMenuEffects(t *testing.T) {
	h, cmd, skill := menuHarness(t)
	// Escape keeps the hit; a new trigger reopens.
	assert.Equal(t, []Effect{PreventDefault{}, HideMenu{}}, h.c.Dispatch(press("Escape")))
	_, ok := h.c.Hit()
	assert.True(t, ok, "the hit survives the menu")
	effs := h.typeDraft("/ren|", Plain)
	assert.Empty(t, of[FetchCandidates](effs), "a dismissed menu stays closed for its hit")
	h.settle(h.typeDraft("/ren @|", Plain))
	h.settle(h.typeDraft("/ren @ /re|", Plain))
	assert.True(t, h.c.Menu().Open, "a new trigger reopens")

	// Hover and click.
	assert.Equal(t, 2, len(of[shown](append(h.c.Dispatch(Hover{Index: 2}), h.c.Dispatch(Hover{Index: 1})...))))
	assert.Empty(t, h.c.Dispatch(Hover{Index: 9}))
	effs = h.c.Dispatch(Choose{ID: h.c.Menu().Options[2].ID()})
	assert.Equal(t, []Item{{ID: "refactor"}}, skill.picks)
	assert.Empty(t, cmd.picks)
	assert.Equal(t, Picked{Source: skill.key(), Outcome: InsertText("/refactor "), Rewrote: true}, of[Picked](effs)[0])
	assert.Equal(t, []string{`insert-text "/refactor " 7-10@4`}, h.bail.calls)
	assert.Contains(t, effs, Effect(HideMenu{}))
	_, ok = h.c.Hit()
	assert.False(t, ok, "a rewrite ends the hit")

	// Blur.
	h.settle(h.typeDraft("/re|", Plain))
	assert.Equal(t, []Effect{HideMenu{}}, h.c.Dispatch(Dismiss{}))
	assert.False(t, h.c.Menu().Open)
	// The focus comes back and the person types on: the word's menu opens again (it
	// stayed shut for the rest of the word, so "@b", a click away, "et" never offered "beta").
	effs = h.typeDraft("/ref|", Plain)
	assert.NotEmpty(t, of[FetchCandidates](effs), "typing on after a blur asks the sources again")
	h.settle(effs)
	assert.True(t, h.c.Menu().Open, "the menu is back")
	// Escape's close holds for the word, a blur after it or not.
	h.c.Dispatch(press("Escape"))
	h.c.Dispatch(Dismiss{})
	assert.Empty(t, of[FetchCandidates](h.typeDraft("/refa|", Plain)), "Escape closed it for the word")
	assert.False(t, h.c.Menu().Open)
}

func TestPickOutcomes(t *testing.T) {
	ref := input.Reference{Source: "@file", Ref: "a.go", Label: "a.go"}
	tests := []struct {
		name     string
		out      PickOutcome
		accept   bool
		wantBail []string
		wantHit  bool
		wantOpen bool
	}{
		{"begin-command", BeginCommand(input.Claim{Token: "/x "}), true, []string{`begin-command "/x " 0-2@1`}, false, false},
		{"insert-reference", InsertReference(ref), true, []string{`insert-reference a.go 0-2@1`}, false, false},
		{"insert-text", InsertText("/x "), true, []string{`insert-text "/x " 0-2@1`}, false, false},
		{"consume-token", ConsumeToken(), true, []string{`consume-token 0-2@1`}, false, false},
		{"none closes the menu and keeps the hit", PickOutcome{}, true, nil, true, false},
		{"a refused rewrite keeps the menu", InsertText("/x "), false, []string{`insert-text "/x " 0-2@1`}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(&src{trigger: '/', name: "s", items: []Item{{ID: "x"}}, out: tt.out})
			h.settle(h.typeDraft("/x|", Plain))
			h.bail.accept = tt.accept
			effs := h.c.Dispatch(press("Enter"))
			assert.True(t, Prevented(effs), "an Enter meant for the menu never submits")
			assert.Equal(t, tt.wantBail, h.bail.calls)
			_, hit := h.c.Hit()
			assert.Equal(t, tt.wantHit, hit)
			assert.Equal(t, tt.wantOpen, h.c.Menu().Open)
			assert.Equal(t, tt.accept && tt.out.Kind != KindNone, of[Picked](effs)[0].Rewrote)
		})
	}
}

// TestEnterSendsACompleteCommand: Enter on a command typed whole that needs no argument
// accepts and sends in one press (Picked.Send); Tab and a click only complete it, an Enter
// on a command that needs an argument only completes, and an IME Enter does nothing.
func TestEnterSendsACompleteCommand(t *testing.T) {
	complete := BeginCommand(input.Claim{Token: "/help "})
	complete.Complete = true
	tests := []struct {
		name     string
		out      PickOutcome
		ev       Event
		accept   bool
		wantSend bool
		wantPick bool
	}{
		{"enter on a complete command sends", complete, press("Enter"), true, true, true},
		{"tab only completes", complete, press("Tab"), true, false, true},
		{"a click only completes", complete, Choose{ID: Option{SourceKey{'/', "cmd"}, Item{ID: "help"}}.ID()}, true, false, true},
		{"enter on a command that needs an argument only completes", BeginCommand(input.Claim{Token: "/help ", Hint: "<slug>"}), press("Enter"), true, false, true},
		{"a refused rewrite sends nothing", complete, press("Enter"), false, false, true},
		{"an IME Enter neither picks nor sends", complete, Key{Key: "Enter", Composing: true}, true, false, false},
		{"an Enter with keyCode 229 neither picks nor sends", complete, Key{Key: "Enter", KeyCode: 229}, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(&src{trigger: '/', name: "cmd", items: []Item{{ID: "help"}}, out: tt.out})
			h.settle(h.typeDraft("/help|", Plain))
			require.True(t, h.c.Menu().Open)
			h.bail.accept = tt.accept
			picked := of[Picked](h.c.Dispatch(tt.ev))
			if !tt.wantPick {
				assert.Empty(t, picked)
				return
			}
			require.Len(t, picked, 1)
			assert.Equal(t, tt.wantSend, picked[0].Send)
		})
	}
}

func TestGenerationDropsLateCandidates(t *testing.T) {
	cmd := &src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}, {ID: "rename"}}}
	h := newHarness(cmd)
	first := of[FetchCandidates](h.typeDraft("/r|", Plain))
	second := of[FetchCandidates](h.typeDraft("/rev|", Plain))
	require.Len(t, first, 1)
	require.Len(t, second, 1)
	assert.Less(t, first[0].Gen, second[0].Gen)

	late := CandidatesArrived{Gen: first[0].Gen, Source: cmd.key(), Items: []Item{{ID: "review"}, {ID: "rename"}}}
	assert.Empty(t, h.c.Dispatch(late), "an older generation is dropped")
	assert.False(t, h.c.Menu().Open)

	effs := h.c.Dispatch(CandidatesArrived{Gen: second[0].Gen, Source: cmd.key(), Items: []Item{{ID: "review"}}})
	assert.Equal(t, []Effect{shown{Menu: Menu{Open: true, Trigger: '/', Query: "rev",
		Options: []Option{{cmd.key(), Item{ID: "review"}}}, Active: 0}}}, effs)
	assert.Empty(t, h.c.Dispatch(CandidatesArrived{Gen: second[0].Gen, Source: cmd.key()}), "answered once")

	// The hit ends: what is in flight is dropped too.
	third := of[FetchCandidates](h.typeDraft("/re|", Plain))
	assert.Equal(t, []Effect{HideMenu{}}, h.typeDraft("/re x|", Plain))
	assert.Empty(t, h.c.Dispatch(CandidatesArrived{Gen: third[0].Gen, Source: cmd.key(), Items: []Item{{ID: "review"}}}))

	// A failed fetch is an empty group.
	fourth := of[FetchCandidates](h.typeDraft("/|", Plain))
	assert.Empty(t, h.c.Dispatch(CandidatesArrived{Gen: fourth[0].Gen, Source: cmd.key(), Items: []Item{{ID: "x"}}, Err: errBoom}))
}

func TestMenuGroupsInRegistrationOrder(t *testing.T) {
	a := &src{trigger: '/', name: "a", items: []Item{{ID: "ra"}}}
	b := &src{trigger: '/', name: "b", items: []Item{{ID: "rb1"}, {ID: "rb2"}}}
	h := newHarness(a, b)
	f := of[FetchCandidates](h.typeDraft("/r|", Plain))
	require.Len(t, f, 2)
	// b answers first; the user moves to rb2; then a answers above it.
	h.c.Dispatch(CandidatesArrived{Gen: f[1].Gen, Source: b.key(), Items: b.items})
	assert.True(t, h.c.Menu().Loading)
	h.c.Dispatch(press("ArrowDown"))
	h.c.Dispatch(CandidatesArrived{Gen: f[0].Gen, Source: a.key(), Items: a.items})
	m := h.c.Menu()
	assert.Equal(t, []Option{{a.key(), Item{ID: "ra"}}, {b.key(), Item{ID: "rb1"}}, {b.key(), Item{ID: "rb2"}}}, m.Options)
	o, ok := m.ActiveOption()
	assert.True(t, ok)
	assert.Equal(t, "rb2", o.Item.ID, "the highlight follows its option, not its index")
	assert.False(t, m.Loading)
	// Typing on keeps the previous results until the sources answer.
	h.typeDraft("/rb|", Plain)
	assert.True(t, h.c.Menu().Open)
	assert.True(t, h.c.Menu().Loading)
}

func TestSpaceAdjudication(t *testing.T) {
	claim := BeginCommand(input.Claim{Token: "/review ", Hint: "<pr>"})
	tests := []struct {
		name        string
		draft       string
		tier        Tier
		answers     []bool // per '/' source, in registration order
		accept      bool
		key         Key
		escape      bool // close the menu first
		stale       bool // the draft moved on after the controller saw it
		wantPrevent bool
		wantAsked   []string
		wantBail    []string
	}{
		{"first answer wins", "/review|", Plain, []bool{false, true, true}, true, press(" "), false, false, true,
			[]string{"s0:review", "s1:review"}, []string{`begin-command "/review " 0-7@1`}},
		{"no claimant: the space is typed", "/review|", Plain, []bool{false, false, false}, true, press(" "), false, false, false,
			[]string{"s0:review", "s1:review", "s2:review"}, nil},
		{"a refused rewrite lets the space through", "/review|", Plain, []bool{true}, false, press(" "), false, false, false,
			[]string{"s0:review"}, []string{`begin-command "/review " 0-7@1`}},
		{"a stale span never rewrites", "/review|", Plain, []bool{true}, true, press(" "), false, true, false,
			[]string{"s0:review"}, []string{`begin-command "/review " 0-7@1`}},
		{"the hit is kept after the menu closes", "/review|", Plain, []bool{true}, true, press(" "), true, false, true,
			[]string{"s0:review"}, []string{`begin-command "/review " 0-7@1`}},
		{"shift+space is a space", "/review|", Plain, []bool{true}, true, Key{Key: " ", Shift: true}, false, false, true,
			[]string{"s0:review"}, []string{`begin-command "/review " 0-7@1`}},
		{"caret inside the name", "/rev|iew", Plain, []bool{true}, true, press(" "), false, false, false, nil, nil},
		{"while composing", "/review|", Plain, []bool{true}, true, Key{Key: " ", Composing: true}, false, false, false, nil, nil},
		{"ctrl+space", "/review|", Plain, []bool{true}, true, Key{Key: " ", Ctrl: true}, false, false, false, nil, nil},
		{"no hit", "x/review|", Plain, []bool{true}, true, press(" "), false, false, false, nil, nil},
		{"claimed: no slash hit", "/review|", Claimed, []bool{true}, true, press(" "), false, false, false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			var sources []Source
			for i, a := range tt.answers {
				s := &src{trigger: '/', name: string(rune('0' + i)), items: []Item{{ID: "review"}}}
				s.name = "s" + s.name
				sources = append(sources, &spacer{src: s, answer: a, space: claim, asked: &asked})
			}
			// An '@' matcher that would claim anything: never asked for a '/' hit.
			sources = append(sources, &spacer{src: &src{trigger: '@', name: "at"}, answer: true, space: claim, asked: &asked})
			h := newHarness(sources...)
			h.settle(h.typeDraft(tt.draft, tt.tier))
			if tt.escape {
				h.c.Dispatch(press("Escape"))
				require.False(t, h.c.Menu().Open)
			}
			if tt.stale {
				h.bail.rev++
			}
			h.bail.accept = tt.accept
			effs := h.c.Dispatch(tt.key)
			assert.Equal(t, tt.wantPrevent, Prevented(effs))
			assert.Equal(t, tt.wantAsked, asked)
			assert.Equal(t, tt.wantBail, h.bail.calls)
			if tt.wantAsked != nil && len(tt.wantBail) > 0 {
				assert.Equal(t, tt.wantPrevent, of[Picked](effs)[0].Rewrote)
			}
		})
	}
}

func TestSpaceOnAtHit(t *testing.T) {
	var asked []string
	slashSrc := &spacer{src: &src{trigger: '/', name: "cmd"}, answer: true, space: BeginCommand(input.Claim{Token: "/x "}), asked: &asked}
	people := &spacer{src: &src{trigger: '@', name: "people"}, answer: true, space: InsertText("@alice "), asked: &asked}
	h := newHarness(slashSrc, people)
	h.typeDraft("/x hi @alice|", Claimed)
	effs := h.c.Dispatch(press(" "))
	assert.True(t, Prevented(effs))
	assert.Equal(t, []string{"people:alice"}, asked)
	assert.Equal(t, []string{`insert-text "@alice " 6-12@1`}, h.bail.calls)
}

func TestEnterAdjudication(t *testing.T) {
	claim := input.Claim{Token: "/review "}
	type matcher struct {
		answer bool
		err    error
		warm   bool // needs a warm-up
	}
	tests := []struct {
		name      string
		matchers  []matcher
		warmErr   map[int]error // warm-ups that finish (nil error = success) before Enter
		wantAsked []string
		want      Verdict
	}{
		{"no matcher: default sink", nil, nil, nil, Verdict{Kind: VerdictDefaultSink}},
		{"all undefined: default sink", []matcher{{}, {}}, nil, []string{"e0:/review 1", "e1:/review 1"}, Verdict{Kind: VerdictDefaultSink}},
		{"first answer wins", []matcher{{}, {answer: true}, {answer: true}}, nil, []string{"e0:/review 1", "e1:/review 1"},
			Verdict{Kind: VerdictClaimed, Source: SourceKey{'/', "e1"}, Claim: claim}},
		{"an error rejects", []matcher{{err: errBoom}, {answer: true}}, nil, []string{"e0:/review 1"},
			Verdict{Kind: VerdictRejected, Source: SourceKey{'/', "e0"}, Reason: errBoom.Error()}},
		{"waits for the warm-up", []matcher{{answer: true, warm: true}}, map[int]error{0: nil}, []string{"e0:/review 1"},
			Verdict{Kind: VerdictClaimed, Source: SourceKey{'/', "e0"}, Claim: claim}},
		{"a failed warm-up rejects without a call", []matcher{{}, {answer: true, warm: true}}, map[int]error{1: errBoom}, []string{"e0:/review 1"},
			Verdict{Kind: VerdictRejected, Source: SourceKey{'/', "e1"}, Reason: errBoom.Error()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			var sources []Source
			sources = append(sources, &src{trigger: '/', name: "plain"}) // no hook: never polled
			for i, m := range tt.matchers {
				e := &enterer{src: &src{trigger: '/', name: "e" + string(rune('0'+i))}, claim: claim, answer: m.answer, err: m.err, asked: &asked}
				if m.warm {
					sources = append(sources, warmEnterer{e})
				} else {
					sources = append(sources, e)
				}
			}
			h := newHarness(sources...)
			effs := h.c.Dispatch(Adjudicate{Attempt: attempt(4), Draft: "/review 1"})
			// Warm-ups finish only now, while the adjudication waits.
			for i, err := range tt.warmErr {
				effs = append(effs, h.c.Dispatch(WarmDone{Source: SourceKey{'/', "e" + string(rune('0'+i))}, Err: err})...)
			}
			effs = append(effs, h.settle(effs)...)
			got := of[Adjudicated](effs)
			require.Len(t, got, 1)
			assert.Equal(t, attempt(4), got[0].Attempt)
			assert.Equal(t, tt.want, got[0].Verdict)
			assert.Equal(t, tt.wantAsked, asked)
		})
	}
}

func TestEnterAdjudicationDropsStaleAnswers(t *testing.T) {
	var asked []string
	e := &enterer{src: &src{trigger: '/', name: "e"}, answer: true, asked: &asked}
	h := newHarness(e)
	first := of[RunEnterMatch](h.c.Dispatch(Adjudicate{Attempt: attempt(1), Draft: "/a"}))
	second := of[RunEnterMatch](h.c.Dispatch(Adjudicate{Attempt: attempt(2), Draft: "/b"}))
	require.Len(t, first, 1)
	require.Len(t, second, 1)
	assert.Empty(t, h.c.Dispatch(EnterMatched{Attempt: attempt(1), Source: e.key(), OK: true}), "superseded")
	assert.Empty(t, h.c.Dispatch(EnterMatched{Attempt: attempt(2), Source: SourceKey{'/', "other"}, OK: true}), "not asked")
	// Same sequence number, other session: another machine's attempt.
	assert.Empty(t, h.c.Dispatch(EnterMatched{Attempt: input.AttemptID{Session: "s2", Seq: 2}, Source: e.key(), OK: true}), "other session")
	claim := input.Claim{Token: "/b "}
	assert.Equal(t, []Effect{Adjudicated{Attempt: attempt(2), Verdict: Verdict{Kind: VerdictClaimed, Source: e.key(), Claim: claim}}},
		h.c.Dispatch(EnterMatched{Attempt: attempt(2), Source: e.key(), Claim: claim, OK: true}))
	assert.Empty(t, h.c.Dispatch(EnterMatched{Attempt: attempt(2), Source: e.key(), Claim: claim, OK: true}), "answered once")
}

func TestWarmAtBirth(t *testing.T) {
	plain := &src{trigger: '/', name: "plain"}
	wl := &warmLexer{lexer: &lexer{src: &src{trigger: '/', name: "skills"}, names: []string{"review"}}}
	h := newHarness(plain, wl)
	assert.Equal(t, []Effect{Warm{Source: wl.key()}}, h.birth, "only Warmers, once; the roster is not warm yet")
	h.typeDraft("/review|", Plain)
	assert.Empty(t, h.c.TextRefs())

	wl.warm = true
	effs := h.settle(h.birth)
	assert.Equal(t, []Effect{RosterChanged{}, decorated{Refs: []TextRef{{0, 7, '/', "review"}}}}, effs,
		"the warm-up's end re-polls the roster and lights up the draft")
	assert.Empty(t, h.c.Dispatch(WarmDone{Source: wl.key()}), "once")
}

func TestLexiconAggregation(t *testing.T) {
	skills := &lexer{src: &src{trigger: '/', name: "skills"}, names: []string{"review"}, warm: true}
	agents := &lexer{src: &src{trigger: '@', name: "agents"}, names: []string{"alice"}, warm: true}
	cold := &lexer{src: &src{trigger: '@', name: "cold"}, names: []string{"bob"}}
	h := newHarness(skills, agents, cold)
	assert.Equal(t, []Effect{RosterChanged{}}, h.birth)
	assert.Equal(t, []string{"review"}, h.c.Roster().Names('/'))
	assert.Equal(t, []string{"alice"}, h.c.Roster().Names('@'), "a cold roster adds nothing")

	effs := h.typeDraft("hi /review @alice @bob x|", Plain)
	assert.Equal(t, []Effect{decorated{Refs: []TextRef{{3, 10, '/', "review"}, {11, 17, '@', "alice"}}}}, effs)
	assert.Zero(t, skills.candidates+agents.candidates+cold.candidates, "decoration never fetches")

	// The cold source settles and notifies: the controller re-polls.
	cold.warm = true
	cold.notify()
	require.Equal(t, []Event{LexiconChanged{Source: cold.key()}}, h.posted)
	assert.Equal(t, []Effect{RosterChanged{}, decorated{Refs: []TextRef{{3, 10, '/', "review"}, {11, 17, '@', "alice"}, {18, 22, '@', "bob"}}}}, h.drain())

	// A notification that changes nothing emits nothing.
	agents.notify()
	assert.Empty(t, h.drain())

	// An edit that breaks a match drops it.
	assert.Equal(t, []Effect{decorated{Refs: []TextRef{{3, 10, '/', "review"}, {19, 23, '@', "bob"}}}}, h.typeDraft("hi /review @alicex @bob x|", Plain))

	// Close ends the subscriptions.
	h.c.Close()
	assert.Zero(t, cold.listeners.Len())
	assert.Nil(t, h.c.Dispatch(press("Enter")))
}

func TestLateRegistration(t *testing.T) {
	cmd := &src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}}}
	h := newHarness(cmd)
	h.settle(h.typeDraft("/review|", Plain))
	require.Len(t, h.c.Menu().Options, 1)

	late := &warmLexer{lexer: &lexer{src: &src{trigger: '/', name: "skills", items: []Item{{ID: "review-deep"}}}, names: []string{"review"}, warm: true}}
	h.c.register(late)
	require.Equal(t, []Event{SourceAdded{Source: SourceInfo{Key: late.key(), Lexicon: true, Subscribes: true, Warms: true}}}, h.posted)
	effs := h.drain()
	assert.Equal(t, []Effect{
		Warm{Source: late.key()},
		FetchCandidates{Gen: h.c.Generation(), Source: late.key(), Hit: Hit{Trigger: '/', Query: "review", Span: input.Span{Start: 0, End: 7, Rev: 1}}},
		shown{Menu: Menu{Open: true, Trigger: '/', Query: "review", Options: []Option{{cmd.key(), Item{ID: "review"}}}, Active: 0, Loading: true}},
		RosterChanged{},
		decorated{Refs: []TextRef{{0, 7, '/', "review"}}},
	}, effs, "warmed, asked for candidates, and folded into the lexicon")
	h.settle(effs)
	assert.Len(t, h.c.Menu().Options, 2, "folded into the open menu, after the earlier group")
	assert.Equal(t, 1, late.listeners.Len(), "subscribed")

	// A dead controller hears nothing.
	h.c.Close()
	assert.Zero(t, late.listeners.Len(), "unsubscribed")
	assert.Empty(t, h.c.Dispatch(SourceAdded{Source: Describe(&src{trigger: '@', name: "later"})}))
}

func TestEnumStrings(t *testing.T) {
	assert.Equal(t, "insert-text", KindInsertText.String())
	assert.Equal(t, "OutcomeKind(42)", OutcomeKind(42).String())
	assert.Equal(t, "rejected", VerdictRejected.String())
	assert.Equal(t, "VerdictKind(-1)", VerdictKind(-1).String())
	assert.Equal(t, "@files", SourceKey{'@', "files"}.String())
}

// TestSpaceClaimWhileAnswersAreInFlight: Space right after a command name is decided at once,
// from the hot list, whatever is still in flight: the candidates asked for the name and the
// source's warm-up. Answers that arrive after the claim are of a generation gone by and
// change nothing: no menu for the name, no second rewrite, so nothing can take the space
// back. Typed fast (Space before any answer) or at a typist's pace (after), alike.
func TestSpaceClaimWhileAnswersAreInFlight(t *testing.T) {
	claim := BeginCommand(input.Claim{Token: "/review ", Hint: "<pr>"})
	for _, settleFirst := range []bool{false, true} {
		name := "space before the answers"
		if settleFirst {
			name = "space after the answers"
		}
		t.Run(name, func(t *testing.T) {
			var asked []string
			warming := &warmLexer{lexer: &lexer{src: &src{trigger: '/', name: "skills", items: []Item{{ID: "reviewer"}}}, warm: false}}
			cmd := &spacer{src: &src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}}}, answer: true, space: claim, asked: &asked}
			h := newHarness(cmd, warming)
			inFlight := append(slices.Clone(h.birth), h.typeDraft("/review|", Plain)...)
			if settleFirst {
				h.settle(inFlight)
				require.True(t, h.c.Menu().Open, "the menu had opened")
				inFlight = nil
			}
			effs := h.c.Dispatch(press(" "))
			require.True(t, Prevented(effs), "the claim takes the space: the rewrite types it")
			assert.Equal(t, []string{"cmd:review"}, asked)
			assert.Equal(t, []string{`begin-command "/review " 0-7@1`}, h.bail.calls)
			assert.False(t, h.c.Menu().Open, "the name's menu closes with the claim")
			_, hit := h.c.Hit()
			assert.False(t, hit)

			late := h.settle(inFlight)
			assert.Empty(t, of[ShowMenu](late), "a late answer opens no menu for the name")
			assert.False(t, h.c.Menu().Open)
			assert.Equal(t, []string{`begin-command "/review " 0-7@1`}, h.bail.calls, "and rewrites nothing")
		})
	}
}
