package input

import "testing"

func TestEdits(t *testing.T) {
	r1, r2 := ref("r1"), ref("r2")
	runTable(t, []tcase{
		{name: "typing", start: "hi |", steps: []step{typeAt(3, "t"), typeAt(4, "here")}, want: "hi there|"},
		{name: "replace a selection", start: "hi [you]", steps: []step{Edit{Start: 3, End: 6, Text: "me"}}, want: "hi me|"},
		{name: "backspace over a chip removes it", start: "hi ￼|", steps: []step{backspace(4)}, want: "hi |",
			effects: []Effect{ChipRemoved{ID: 1, Reference: r1}}},
		{name: "a range crossing a chip removes the whole chip", start: "a￼b￼c", steps: []step{Edit{Start: 1, End: 3, Text: "X"}},
			want: "aX|￼c", effects: []Effect{ChipRemoved{ID: 1, Reference: r1}}},
		{name: "a replacement covering two chips", start: "a￼b￼c", steps: []step{Edit{Start: 0, End: 5, Text: "z"}},
			want: "z|", effects: []Effect{ChipRemoved{ID: 1, Reference: r1}, ChipRemoved{ID: 2, Reference: r2}}},
		{name: "same-named chips stay independent", start: "￼ ￼", refs: []Reference{r1, r1},
			steps: []step{Edit{Start: 0, End: 1}}, want: "| ￼", effects: []Effect{ChipRemoved{ID: 1, Reference: r1}}},
		{name: "bias: typing at a chip's left edge pushes it right", start: "a|￼", steps: []step{typeAt(1, "x")}, want: "ax|￼"},
		{name: "bias: typing at a chip's right edge stays after it", start: "a￼|", steps: []step{typeAt(2, "x")}, want: "a￼x|"},
		{name: "a typed U+FFFC is not a chip", start: "a|", steps: []step{typeAt(1, "x"+chip)}, want: "ax\uFFFD|",
			effects: []Effect{SetView{Start: 1, End: 3, Text: "x\uFFFD", SelStart: 3, SelEnd: 3}}},
		{name: "a typed chip glyph is not a chip either", start: "a|", steps: []step{typeAt(1, "\uE411x")}, want: "a\uFFFDx|",
			effects: []Effect{SetView{Start: 1, End: 3, Text: "\uFFFDx", SelStart: 3, SelEnd: 3}}},
		{name: "nor an inserted one", start: "a|", steps: []step{insertText("\uE400\uE465\uE466", 1, 1)},
			want: "a\uFFFD\uFFFD\uE466|", effects: []Effect{SetView{Start: 1, End: 1, Text: "\uFFFD\uFFFD\uE466", SelStart: 4, SelEnd: 4}}},
		{name: "deleting half of a surrogate pair deletes the pair", start: "a😀b", steps: []step{Edit{Start: 2, End: 3}},
			want: "a|b", effects: []Effect{SetView{Start: 1, End: 2, SelStart: 1, SelEnd: 1}}},
		{name: "an edit out of range is refused", start: "ab", steps: []step{Edit{Start: 1, End: 5}}, want: "ab|",
			effects: []Effect{Refused{Reason: OutOfRange}}},
		{name: "newline is written by the machine", start: "a[b]c", steps: []step{Newline{Selection: Range{1, 2}}},
			want: "a\n|c", effects: []Effect{SetView{Start: 1, End: 2, Text: "\n", SelStart: 2, SelEnd: 2}}},
		{name: "typed in from a decision: at the caret, which stays after it", start: "AAA xxx| BBB",
			steps: []step{TypeIn{Text: " y", Selection: Range{7, 7}}, TypeIn{Text: "y", Selection: Range{9, 9}}},
			want:  "AAA xxx yy| BBB", effects: []Effect{SetView{Start: 9, End: 9, Text: "y", SelStart: 10, SelEnd: 10}}},
		{name: "typed in over a selection replaces it", start: "a[bc]d", steps: []step{TypeIn{Text: "X", Selection: Range{1, 3}}},
			want: "aX|d", effects: []Effect{SetView{Start: 1, End: 3, Text: "X", SelStart: 2, SelEnd: 2}}},
		{name: "typed in at a selection past the draft goes at its end", start: "ab", steps: []step{TypeIn{Text: "c", Selection: Range{5, 9}}},
			want: "abc|", effects: []Effect{SetView{Start: 2, End: 2, Text: "c", SelStart: 3, SelEnd: 3}}},
		{name: "typed in at a chip's right edge stays after it", start: "a￼", steps: []step{TypeIn{Text: "x", Selection: Range{2, 2}}},
			want: "a￼x|", effects: []Effect{SetView{Start: 2, End: 2, Text: "x", SelStart: 3, SelEnd: 3}}},
		{name: "a Backspace pressed on a decision erases before the caret, which stays there", start: "note abuo|t",
			steps: []step{TypeIn{Erase: -1, Selection: Range{9, 9}}, TypeIn{Erase: -1, Selection: Range{8, 8}}},
			want:  "note ab|t", effects: []Effect{SetView{Start: 7, End: 8, SelStart: 7, SelEnd: 7}}},
		{name: "a Delete erases after it", start: "ab|cd", steps: []step{TypeIn{Erase: 1, Selection: Range{2, 2}}},
			want: "ab|d", effects: []Effect{SetView{Start: 2, End: 3, SelStart: 2, SelEnd: 2}}},
		{name: "either erases a selection whole", start: "a[bc]d", steps: []step{TypeIn{Erase: -1, Selection: Range{1, 3}}},
			want: "a|d", effects: []Effect{SetView{Start: 1, End: 3, SelStart: 1, SelEnd: 1}}},
		{name: "a Backspace after a chip erases it whole", start: "see ￼|", steps: []step{TypeIn{Erase: -1, Selection: Range{5, 5}}},
			want: "see |", effects: []Effect{ChipRemoved{ID: 1, Reference: r1}, SetView{Start: 4, End: 5, SelStart: 4, SelEnd: 4}}},
		{name: "a Backspace erases a surrogate pair whole", start: "a😀|", steps: []step{TypeIn{Erase: -1, Selection: Range{3, 3}}},
			want: "a|", effects: []Effect{SetView{Start: 1, End: 3, SelStart: 1, SelEnd: 1}}},
		{name: "nothing to erase at either end", start: "ab", steps: []step{TypeIn{Erase: -1, Selection: Range{0, 0}}, TypeIn{Erase: 1, Selection: Range{2, 2}}},
			want: "ab|"},
		{name: "typed in: a U+FFFC is no chip", start: "a", steps: []step{TypeIn{Text: chip, Selection: Range{0, 0}}},
			want: "\uFFFD|a", effects: []Effect{SetView{Start: 0, End: 0, Text: "\uFFFD", SelStart: 1, SelEnd: 1}}},
	})
}

func TestDraftChangedForms(t *testing.T) {
	// Each edit in the three forms must leave the same draft, chips and effects.
	type form struct {
		name string
		ev   func(m *Machine, e Edit) Event
	}
	splice := func(m *Machine, e Edit) string {
		us := []rune(m.Draft()) // fixtures below are BMP-only
		return string(us[:e.Start]) + e.Text + string(us[e.End:])
	}
	forms := []form{
		{"delta", func(m *Machine, e Edit) Event { return e }},
		{"hint", func(m *Machine, e Edit) Event {
			return DraftChanged{Draft: splice(m, e), Hint: &EditRange{Start: e.Start, OldEnd: e.End, NewEnd: e.Start + len([]rune(e.Text))}}
		}},
		{"scan", func(m *Machine, e Edit) Event { return DraftChanged{Draft: splice(m, e)} }},
	}
	cases := []struct {
		start string
		edit  Edit
		want  string
		chips int
	}{
		{"hello ￼ world", Edit{Start: 5, End: 5, Text: "!"}, "hello!| ￼ world", 1},
		{"hello ￼ world", Edit{Start: 6, End: 7}, "hello | world", 0},
		{"hello ￼ world", Edit{Start: 0, End: 13, Text: "new"}, "new|", 0},
		{"hello ￼ world", Edit{Start: 7, End: 7, Text: chip}, "hello ￼\uFFFD| world", 1},
		{"", Edit{Start: 0, End: 0, Text: "é"}, "é|", 0},
	}
	for _, c := range cases {
		for _, f := range forms {
			t.Run(f.name+"/"+c.want, func(t *testing.T) {
				m := build(t, c.start)
				run(t, m, f.ev(m, c.edit))
				equal(t, "draft", show(m), c.want)
				equal(t, "chips", len(m.Occurrences()), c.chips)
			})
		}
	}
}

func TestBailEvents(t *testing.T) {
	stale := func(ev Event) step { return ev } // a span at Rev 0 is always stale
	runTable(t, []tcase{
		{name: "begin-command rewrites and claims", start: "/ex|", steps: []step{beginCommand(example, 0, 3)},
			want: "/example |", phase: Claimed, rewrote: yes(),
			effects: []Effect{SetView{Start: 0, End: 3, Text: "/example ", SelStart: 9, SelEnd: 9}}},
		{name: "begin-command stale", start: "/ex|", steps: []step{stale(BeginCommand{Claim: example, Span: Span{0, 3, 0}})},
			want: "/ex|", rewrote: no(), effects: []Effect{Refused{Reason: Stale}}},
		{name: "begin-command not at the start", start: "say /ex|", steps: []step{beginCommand(example, 4, 7)},
			want: "say /ex|", rewrote: no(), effects: []Effect{Refused{Reason: Guard}}},
		{name: "begin-command while submitting", start: "x|", steps: steps(toSubmitting, beginCommand(example, 0, 0)),
			want: "|", phase: Submitting, rewrote: no(), effects: []Effect{Refused{Reason: Busy}}},
		{name: "insert-ref", start: "see @fi|", steps: []step{insertRef(ref("main.go"), 4, 7)},
			want: "see ￼|", rewrote: yes(), effects: []Effect{SetView{Start: 4, End: 7, Text: chip, SelStart: 5, SelEnd: 5}}},
		{name: "insert-ref stale after typing", start: "see @fi|",
			steps: []step{func(m *Machine) Event {
				sp := span(4, 7)(m)
				m.Dispatch(typeAt(7, "l"))
				return InsertRef{Reference: ref("main.go"), Span: sp}
			}},
			want: "see @fil|", rewrote: no(), effects: []Effect{Refused{Reason: Stale}}},
		{name: "insert-ref while claimed keeps the claim", start: "/ex|", steps: steps(toClaimed, typeAt(9, "@m"), insertRef(ref("m"), 9, 11)),
			want: "/example ￼|", phase: Claimed, rewrote: yes(), effects: []Effect{SetView{Start: 9, End: 11, Text: chip, SelStart: 10, SelEnd: 10}}},
		{name: "insert-text (a plain-text reference)", start: "ask /rev|", steps: []step{insertText("/review ", 4, 8)},
			want: "ask /review |", rewrote: yes(), effects: []Effect{SetView{Start: 4, End: 8, Text: "/review ", SelStart: 12, SelEnd: 12}}},
		{name: "insert-text stale", start: "ask /rev|", steps: []step{stale(InsertText{Text: "x", Span: Span{4, 8, 0}})},
			want: "ask /rev|", rewrote: no(), effects: []Effect{Refused{Reason: Stale}}},
		{name: "consume-token by bare token", start: "/ex|", steps: steps(toClaimed, typeAt(9, "a"), ConsumeToken{Token: "/example "}),
			want: "|a", phase: Plain, rewrote: yes(), effects: []Effect{SetView{Start: 0, End: 9, SelStart: 0, SelEnd: 0}}},
		{name: "consume-token bare token mismatch", start: "/other x|", steps: []step{ConsumeToken{Token: "/example "}},
			want: "/other x|", rewrote: no(), effects: []Effect{Refused{Reason: Guard}}},
		{name: "consume-token by span", start: "/ex|", steps: steps(toClaimed, consumeSpan(0, 9)),
			want: "|", phase: Plain, rewrote: yes(), effects: []Effect{SetView{Start: 0, End: 9}}},
		{name: "consume-token stale span", start: "/ex|", steps: steps(toClaimed, ConsumeToken{Span: Span{0, 9, 1}}),
			want: "/example |", phase: Claimed, rewrote: no(), effects: []Effect{Refused{Reason: Stale}}},
		{name: "release gives the claim up, draft untouched", start: "/ex|", steps: steps(toClaimed, Release{}),
			want: "/example |", phase: Plain},
		{name: "undo brings a released claim back", start: "/ex|", steps: steps(toClaimed, Release{}, Undo{}),
			want: "/example |", phase: Claimed, effects: []Effect{SetView{SelStart: 9, SelEnd: 9}}},
	})
}

func TestGhost(t *testing.T) {
	m := build(t, "/ex|")
	run(t, m, toClaimed...)
	equal(t, "ghost", m.Ghost(), example.Hint)
	run(t, m, typeAt(9, "a"))
	equal(t, "ghost after typing", m.Ghost(), "")
}

func TestSetInvalidIsNotATransaction(t *testing.T) {
	m := build(t, "￼ ￼")
	rev := m.Rev()
	equal(t, "effects", m.Dispatch(SetInvalid{IDs: []OccurrenceID{2}}), []Effect(nil))
	equal(t, "rev", m.Rev(), rev)
	equal(t, "can undo", m.CanUndo(), false)
	occs := m.Occurrences()
	equal(t, "invalid bits", []bool{occs[0].Invalid, occs[1].Invalid}, []bool{false, true})
}

// TestClaimWatch: the claim is set only by begin-command and watched as a prefix; any
// transaction after which the draft stops starting with the token releases it, and the
// hint is ghost text only while nothing follows the token.
func TestClaimWatch(t *testing.T) {
	m := build(t, "/ex|")
	_, ok := m.Claim()
	equal(t, "a draft that looks like a command claims nothing", ok, false)
	run(t, m, toClaimed...)
	equal(t, "ghost", m.Ghost(), example.Hint)
	equal(t, "phase", m.Phase(), Claimed)

	run(t, m, typeAt(9, "a"))
	equal(t, "ghost after an argument", m.Ghost(), "")
	run(t, m, backspace(10))
	equal(t, "ghost back", m.Ghost(), example.Hint)

	run(t, m, typeAt(3, "x")) // typing inside the token breaks the prefix too
	equal(t, "typing inside the token", show(m), "/exx|ample ")
	equal(t, "phase", m.Phase(), Plain)
	equal(t, "ghost without a claim", m.Ghost(), "")
	run(t, m, Undo{})
	equal(t, "undo restores the claim", m.Phase(), Claimed)

	run(t, m, insertRef(ref("a"), 0, 0)) // a chip before the token breaks the prefix
	equal(t, "a chip before the token", m.Phase(), Plain)
	run(t, m, Undo{}, Newline{Selection: Range{9, 9}})
	equal(t, "a newline after the token keeps it", m.Phase(), Claimed)
}

// TestCAS: each bail event is compare-and-swap on draftRev and reports, through Rewrote,
// whether it rewrote. Beyond the stale case, every guard refuses without a rewrite.
func TestCAS(t *testing.T) {
	runTable(t, []tcase{
		{name: "insert-ref out of range", start: "ab|", steps: []step{insertRef(ref("x"), 1, 5)},
			want: "ab|", rewrote: no(), effects: []Effect{Refused{Reason: OutOfRange}}},
		{name: "insert-ref inside a surrogate pair", start: "a😀|", steps: []step{insertRef(ref("x"), 2, 2)},
			want: "a😀|", rewrote: no(), effects: []Effect{Refused{Reason: Guard}}},
		{name: "insert-ref over a chip removes it", start: "a￼|", steps: []step{insertRef(ref("x"), 1, 2)},
			want: "a￼|", rewrote: yes(), effects: []Effect{ChipRemoved{ID: 1, Reference: ref("r1")}, SetView{Start: 1, End: 2, Text: chip, SelStart: 2, SelEnd: 2}}},
		{name: "insert-text of nothing over nothing is no rewrite", start: "ab|", steps: []step{insertText("", 1, 1)},
			want: "ab|", rewrote: no()},
		{name: "insert-text with a U+FFFC inserts no chip", start: "|", steps: []step{insertText("a"+chip, 0, 0)},
			want: "a\uFFFD|", rewrote: yes(), effects: []Effect{SetView{Text: "a\uFFFD", SelStart: 2, SelEnd: 2}}},
		{name: "begin-command with an empty token", start: "/ex|", steps: []step{beginCommand(Claim{}, 0, 3)},
			want: "/ex|", rewrote: no(), effects: []Effect{Refused{Reason: Guard}}},
		{name: "begin-command stale by one revision", start: "/ex|",
			steps: []step{func(m *Machine) Event { return BeginCommand{Claim: example, Span: Span{0, 3, m.Rev() - 1}} }},
			want:  "/ex|", rewrote: no(), effects: []Effect{Refused{Reason: Stale}}},
		{name: "consume-token by token while submitting", start: "x|", steps: steps(toSubmitting, ConsumeToken{Token: "/example "}),
			want: "|", phase: Submitting, rewrote: no(), effects: []Effect{Refused{Reason: Busy}}},
		{name: "consume-token by span while adjudicating", start: "x|", steps: steps(toAdjudicating, typeAt(0, "ab"), consumeSpan(0, 1)),
			want: "ab|", phase: Adjudicating, rewrote: no(), effects: []Effect{Refused{Reason: Busy}}},
		{name: "consume-token of an empty span is no rewrite", start: "ab|", steps: []step{consumeSpan(1, 1)},
			want: "ab|", rewrote: no()},
	})
}

// TestSameNamedChips: two chips for the same reference are two occurrences: each is
// removed, restored, marked invalid and serialized on its own.
func TestSameNamedChips(t *testing.T) {
	r := ref("main.go")
	m := build(t, "￼ and ￼|", r, r)
	run(t, m, SetInvalid{IDs: []OccurrenceID{2}})
	occs := m.Occurrences()
	equal(t, "two rows", []OccurrenceID{occs[0].ID, occs[1].ID}, []OccurrenceID{1, 2})
	equal(t, "invalid is per chip", []bool{occs[0].Invalid, occs[1].Invalid}, []bool{false, true})

	equal(t, "removing the second", run(t, m, backspace(7)), []Effect{ChipRemoved{ID: 2, Reference: r}})
	equal(t, "the first stays", m.Occurrences()[0].ID, OccurrenceID(1))
	run(t, m, Undo{})
	occs = m.Occurrences()
	equal(t, "undo restores the same occurrence", []OccurrenceID{occs[0].ID, occs[1].ID}, []OccurrenceID{1, 2})
	equal(t, "with its invalid bit", occs[1].Invalid, true)

	effs := run(t, m, Submit{}, Adjudicated{Attempt: attemptID(1)})
	equal(t, "one serializer call per occurrence", effs, []Effect{
		Serialize{Attempt: attemptID(1), ID: 1, Source: "@file", Ref: "main.go"},
		Serialize{Attempt: attemptID(1), ID: 2, Source: "@file", Ref: "main.go"}})
	effs = run(t, m, Serialized{Attempt: attemptID(1), ID: 2, Text: "B"}, Serialized{Attempt: attemptID(1), ID: 1, Text: "A"})
	equal(t, "each occurrence its own text", effs, []Effect{DefaultSink{Attempt: attemptID(1), Text: "A and B"}})
}

// TestDraftChangedSurrogates: the three forms of draft-changed agree around surrogate
// pairs, and a hint that does not fit the draft falls back to the scan.
func TestDraftChangedSurrogates(t *testing.T) {
	cases := []struct {
		name  string
		start string
		ev    Event
		want  string
	}{
		{"hint: insert after an emoji", "a😀b", DraftChanged{Draft: "a😀xb", Hint: &EditRange{3, 3, 4}}, "a😀x|b"},
		{"hint: insert an emoji", "ab", DraftChanged{Draft: "a😀b", Hint: &EditRange{1, 1, 3}}, "a😀|b"},
		{"hint: delete an emoji", "a😀b", DraftChanged{Draft: "ab", Hint: &EditRange{1, 3, 1}}, "a|b"},
		{"hint inside a pair: the scan takes over", "a😀b", DraftChanged{Draft: "a😀😀b", Hint: &EditRange{2, 2, 4}}, "a😀😀|b"},
		{"hint of the wrong length: the scan takes over", "ab", DraftChanged{Draft: "axyb", Hint: &EditRange{1, 1, 2}}, "axy|b"},
		{"hint past the end: the scan takes over", "ab", DraftChanged{Draft: "abc", Hint: &EditRange{5, 5, 6}}, "abc|"},
		{"hint off by one: the scan takes over", "abcd", DraftChanged{Draft: "abXcd", Hint: &EditRange{1, 1, 2}}, "abX|cd"},
		{"hint off by one the other way", "abcd", DraftChanged{Draft: "abXcd", Hint: &EditRange{3, 3, 4}}, "abX|cd"},
		{"hint cutting an emoji in the new draft", "ab", DraftChanged{Draft: "a😀b", Hint: &EditRange{1, 1, 2}}, "a😀|b"},
		{"scan: replace an emoji by another", "a😀b", DraftChanged{Draft: "a😁b"}, "a😁|b"},
		{"scan: a chip next to an emoji", "😀￼😀", DraftChanged{Draft: "😀😀"}, "😀|😀"},
		{"delta: a pair split at both ends is widened", "😀😀", Edit{Start: 1, End: 3, Text: "x"}, "x|"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := build(t, c.start)
			run(t, m, c.ev)
			equal(t, "draft", show(m), c.want)
		})
	}
}
