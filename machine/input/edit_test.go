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
		{name: "deleting half of a surrogate pair deletes the pair", start: "a😀b", steps: []step{Edit{Start: 2, End: 3}},
			want: "a|b", effects: []Effect{SetView{Start: 1, End: 2, SelStart: 1, SelEnd: 1}}},
		{name: "an edit out of range is refused", start: "ab", steps: []step{Edit{Start: 1, End: 5}}, want: "ab|",
			effects: []Effect{Refused{Reason: OutOfRange}}},
		{name: "newline is written by the machine", start: "a[b]c", steps: []step{Newline{Selection: Range{1, 2}}},
			want: "a\n|c", effects: []Effect{SetView{Start: 1, End: 2, Text: "\n", SelStart: 2, SelEnd: 2}}},
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
		{name: "insert-text (Decision 21)", start: "ask /rev|", steps: []step{insertText("/review ", 4, 8)},
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
