package input

import "testing"

func TestPaste(t *testing.T) {
	ra, rb := ref("a.go"), ref("b.go")
	text := "see a.go and b.go ok"
	runTable(t, []tcase{
		{name: "components become chips in the same transaction", start: "|",
			steps: []step{PasteBegin{Text: text, Components: []Component{{Range{4, 8}, ra}}, Generation: 7}},
			want:  "see ￼ and b.go ok|",
			effects: []Effect{SetView{Start: 0, End: 0, Text: "see ￼ and b.go ok", SelStart: 17, SelEnd: 17},
				MatchPaste{Paste: 1, Text: text, Generation: 7}}},
		{name: "one undo returns to before the paste", start: "x|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}, Components: []Component{{Range{4, 8}, ra}}}, Undo{}},
			want:  "x|", effects: []Effect{ChipRemoved{ID: 1, Reference: ra}, SetView{Start: 1, End: 18, SelStart: 1, SelEnd: 1}}},
		{name: "an upgrade is its own transaction and leaves the caret where it was", start: "x|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}, Components: []Component{{Range{4, 8}, ra}}},
				PasteUpgrade{Paste: 1, Range: Range{13, 17}, Reference: rb}},
			want: "xsee ￼ and ￼ ok|", effects: []Effect{SetView{Start: 11, End: 15, Text: chip, SelStart: 15, SelEnd: 15}}},
		{name: "two undo steps: the upgrade, then the paste", start: "x|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}, Components: []Component{{Range{4, 8}, ra}}},
				PasteUpgrade{Paste: 1, Range: Range{13, 17}, Reference: rb}, Undo{}},
			want:    "xsee ￼ and [b.go] ok",
			effects: []Effect{ChipRemoved{ID: 2, Reference: rb}, SetView{Start: 11, End: 12, Text: "b.go", SelStart: 11, SelEnd: 15}}},
		{name: "an upgrade before an earlier one maps through it", start: "|",
			steps: []step{PasteBegin{Text: text}, PasteUpgrade{Paste: 1, Range: Range{13, 17}, Reference: rb}, PasteUpgrade{Paste: 1, Range: Range{4, 8}, Reference: ra}},
			want:  "see ￼ and ￼ ok|", effects: []Effect{SetView{Start: 4, End: 8, Text: chip, SelStart: 14, SelEnd: 14}}},
		{name: "an overlapping upgrade is refused", start: "|",
			steps: []step{PasteBegin{Text: text, Components: []Component{{Range{4, 8}, ra}}}, PasteUpgrade{Paste: 1, Range: Range{6, 10}, Reference: rb}},
			want:  "see ￼ and b.go ok|", effects: []Effect{Refused{Reason: Guard}}},
		{name: "invalidate-paste ends the attempt", start: "|",
			steps: []step{PasteBegin{Text: text}, InvalidatePaste{}, PasteUpgrade{Paste: 1, Range: Range{4, 8}, Reference: ra}},
			want:  text + "|", effects: []Effect{Refused{Reason: Stale}}},
		{name: "typing ends the attempt", start: "|",
			steps: []step{PasteBegin{Text: text}, typeAt(20, "!"), PasteUpgrade{Paste: 1, Range: Range{4, 8}, Reference: ra}},
			want:  text + "!|", effects: []Effect{Refused{Reason: Stale}}},
		{name: "a stray U+FFFC in pasted text is not a chip", start: "|",
			steps: []step{PasteBegin{Text: "a" + chip + "b"}}, want: "a\uFFFDb|",
			effects: []Effect{SetView{Text: "a\uFFFDb", SelStart: 3, SelEnd: 3}, MatchPaste{Paste: 1, Text: "a" + chip + "b"}}},
	})
}

func TestPasteInsertedRangeShrinks(t *testing.T) {
	m := build(t, "x|")
	text := "see a.go and b.go ok"
	run(t, m, PasteBegin{Text: text, Selection: Range{1, 1}})
	ranges := []Range{}
	_, r, _ := m.Paste()
	ranges = append(ranges, r)
	run(t, m, PasteUpgrade{Paste: 1, Range: Range{4, 8}, Reference: ref("a.go")})
	_, r, _ = m.Paste()
	ranges = append(ranges, r)
	run(t, m, PasteUpgrade{Paste: 1, Range: Range{13, 17}, Reference: ref("b.go")})
	_, r, _ = m.Paste()
	ranges = append(ranges, r)
	equal(t, "insertedRange", ranges, []Range{{1, 21}, {1, 18}, {1, 15}})
}

// TestPasteUpgradeMapping: an upgrade names a range of the pasted text; the machine maps
// it through the chips before it (synchronous or upgraded) into the draft, counting
// UTF-16 units, and the caret keeps its place.
func TestPasteUpgradeMapping(t *testing.T) {
	a, b, c := ref("a"), ref("b"), ref("c")
	// Units: 😀 0-1, a 3, U+FFFC 5, b 7, c 9.
	text := "😀 a " + chip + " b c"
	runTable(t, []tcase{
		{name: "after an emoji and a stray U+FFFC", start: ">|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}}, PasteUpgrade{Paste: 1, Range: Range{9, 10}, Reference: c}},
			want:  ">😀 a \uFFFD b ￼|", effects: []Effect{SetView{Start: 10, End: 11, Text: chip, SelStart: 11, SelEnd: 11}}},
		{name: "between a component and an upgrade", start: "|",
			steps: []step{PasteBegin{Text: text, Components: []Component{{Range{3, 4}, a}}},
				PasteUpgrade{Paste: 1, Range: Range{9, 10}, Reference: c},
				PasteUpgrade{Paste: 1, Range: Range{7, 8}, Reference: b}},
			want: "😀 ￼ \uFFFD ￼ ￼|", effects: []Effect{SetView{Start: 7, End: 8, Text: chip, SelStart: 10, SelEnd: 10}}},
		{name: "a range splitting the emoji", start: "|",
			steps: []step{PasteBegin{Text: text}, PasteUpgrade{Paste: 1, Range: Range{1, 3}, Reference: a}},
			want:  text[:len(text)-len(" b c")-3] + "\uFFFD b c|", effects: []Effect{Refused{Reason: Guard}}},
		{name: "a range past the pasted text", start: "|",
			steps: []step{PasteBegin{Text: "ab"}, PasteUpgrade{Paste: 1, Range: Range{1, 3}, Reference: a}},
			want:  "ab|", effects: []Effect{Refused{Reason: OutOfRange}}},
		{name: "an empty range", start: "|",
			steps: []step{PasteBegin{Text: "ab"}, PasteUpgrade{Paste: 1, Range: Range{1, 1}, Reference: a}},
			want:  "ab|", effects: []Effect{Refused{Reason: OutOfRange}}},
		{name: "another paste's upgrade", start: "|",
			steps: []step{PasteBegin{Text: "ab"}, PasteBegin{Text: "cd"}, PasteUpgrade{Paste: 1, Range: Range{0, 1}, Reference: a}},
			want:  "cd|ab", effects: []Effect{Refused{Reason: Stale}}},
		{name: "undo ends the attempt", start: "|",
			steps: []step{PasteBegin{Text: "ab"}, PasteUpgrade{Paste: 1, Range: Range{0, 1}, Reference: a}, Undo{},
				PasteUpgrade{Paste: 1, Range: Range{1, 2}, Reference: b}},
			want: "[a]b", effects: []Effect{Refused{Reason: Stale}}},
		{name: "redo puts the caret back where the upgrade left it", start: "|",
			steps: []step{PasteBegin{Text: "ab cd"}, PasteUpgrade{Paste: 1, Range: Range{0, 2}, Reference: a}, Undo{}, Redo{}},
			want:  "￼ cd|", effects: []Effect{SetView{Start: 0, End: 2, Text: chip, SelStart: 4, SelEnd: 4}}},
		{name: "malformed components stay text", start: "|",
			steps: []step{PasteBegin{Text: "😀ab", Components: []Component{{Range{1, 3}, a}, {Range{2, 2}, b}, {Range{3, 9}, c}}}},
			want:  "😀ab|", effects: []Effect{SetView{Text: "😀ab", SelStart: 4, SelEnd: 4}, MatchPaste{Paste: 1, Text: "😀ab"}}},
		{name: "overlapping components: the first wins", start: "|",
			steps: []step{PasteBegin{Text: "abcd", Components: []Component{{Range{1, 3}, b}, {Range{0, 2}, a}}}},
			want:  "￼cd|", effects: []Effect{SetView{Text: chip + "cd", SelStart: 3, SelEnd: 3}, MatchPaste{Paste: 1, Text: "abcd"}}},
	})
}

func TestMapThrough(t *testing.T) {
	// Replacing [2, 5) by one chip.
	for p, want := range []int{0, 1, 2, 3, 3, 3, 4} {
		if got := mapThrough(p, 2, 5); got != want {
			t.Errorf("mapThrough(%d) = %d, want %d", p, got, want)
		}
	}
}
