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
		{name: "an upgrade is its own transaction", start: "x|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}, Components: []Component{{Range{4, 8}, ra}}},
				PasteUpgrade{Paste: 1, Range: Range{13, 17}, Reference: rb}},
			want: "xsee ￼ and ￼| ok", effects: []Effect{SetView{Start: 11, End: 15, Text: chip, SelStart: 12, SelEnd: 12}}},
		{name: "two undo steps: the upgrade, then the paste", start: "x|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}, Components: []Component{{Range{4, 8}, ra}}},
				PasteUpgrade{Paste: 1, Range: Range{13, 17}, Reference: rb}, Undo{}},
			want:    "xsee ￼ and [b.go] ok",
			effects: []Effect{ChipRemoved{ID: 2, Reference: rb}, SetView{Start: 11, End: 12, Text: "b.go", SelStart: 11, SelEnd: 15}}},
		{name: "an upgrade before an earlier one maps through it", start: "|",
			steps: []step{PasteBegin{Text: text}, PasteUpgrade{Paste: 1, Range: Range{13, 17}, Reference: rb}, PasteUpgrade{Paste: 1, Range: Range{4, 8}, Reference: ra}},
			want:  "see ￼| and ￼ ok", effects: []Effect{SetView{Start: 4, End: 8, Text: chip, SelStart: 5, SelEnd: 5}}},
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
