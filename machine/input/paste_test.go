package input

import (
	"fmt"
	"testing"
)

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
				upgrade(1, Range{13, 17}, rb)},
			want: "xsee ￼ and ￼ ok|", effects: []Effect{SetView{Start: 11, End: 15, Text: chip, SelStart: 15, SelEnd: 15}}},
		{name: "two undo steps: the upgrade, then the paste", start: "x|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}, Components: []Component{{Range{4, 8}, ra}}},
				upgrade(1, Range{13, 17}, rb), Undo{}},
			want:    "xsee ￼ and [b.go] ok",
			effects: []Effect{ChipRemoved{ID: 2, Reference: rb}, SetView{Start: 11, End: 12, Text: "b.go", SelStart: 11, SelEnd: 15}}},
		{name: "an upgrade before an earlier one maps through it", start: "|",
			steps: []step{PasteBegin{Text: text}, upgrade(1, Range{13, 17}, rb), upgrade(1, Range{4, 8}, ra)},
			want:  "see ￼ and ￼ ok|", effects: []Effect{SetView{Start: 4, End: 8, Text: chip, SelStart: 14, SelEnd: 14}}},
		{name: "an overlapping upgrade is refused", start: "|",
			steps: []step{PasteBegin{Text: text, Components: []Component{{Range{4, 8}, ra}}}, upgrade(1, Range{6, 10}, rb)},
			want:  "see ￼ and b.go ok|", effects: []Effect{Refused{Reason: Guard}}},
		{name: "invalidate-paste ends the attempt", start: "|",
			steps: []step{PasteBegin{Text: text}, InvalidatePaste{}, upgrade(1, Range{4, 8}, ra)},
			want:  text + "|", effects: []Effect{Refused{Reason: Stale}}},
		{name: "typing ends the attempt", start: "|",
			steps: []step{PasteBegin{Text: text}, typeAt(20, "!"), upgrade(1, Range{4, 8}, ra)},
			want:  text + "!|", effects: []Effect{Refused{Reason: Stale}}},
		{name: "a stray U+FFFC in pasted text is not a chip", start: "|",
			steps: []step{PasteBegin{Text: "a" + chip + "b"}}, want: "a\uFFFDb|",
			effects: []Effect{SetView{Text: "a\uFFFDb", SelStart: 3, SelEnd: 3}, MatchPaste{Paste: 1, Text: "a" + chip + "b"}}},
	})
}

// upgrade is a matcher's answer of one range.
func upgrade(p PasteID, r Range, ref Reference) PasteUpgrades {
	return PasteUpgrades{Paste: p, Upgrades: []Component{{r, ref}}}
}

// TestPasteUpgrades: the matcher's whole answer is one transaction, whatever chips lie
// between its ranges.
func TestPasteUpgrades(t *testing.T) {
	ra, rb, rc := ref("a.go"), ref("b.go"), ref("c.go")
	text := "see a.go and b.go ok"
	runTable(t, []tcase{
		{name: "one transaction, one SetView from the first range to the last", start: "x|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}},
				PasteUpgrades{Paste: 1, Upgrades: []Component{{Range{13, 17}, rb}, {Range{4, 8}, ra}}}},
			want: "xsee ￼ and ￼ ok|", effects: []Effect{SetView{Start: 5, End: 18, Text: chip + " and " + chip, SelStart: 15, SelEnd: 15}}},
		{name: "one undo step, back to the paste", start: "x|",
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}},
				PasteUpgrades{Paste: 1, Upgrades: []Component{{Range{4, 8}, ra}, {Range{13, 17}, rb}}}, Undo{}},
			want: "xsee [a.go and b.go] ok", effects: []Effect{ChipRemoved{ID: 1, Reference: ra}, ChipRemoved{ID: 2, Reference: rb},
				SetView{Start: 5, End: 12, Text: "a.go and b.go", SelStart: 5, SelEnd: 18}}},
		{name: "a chip between the ranges is carried through, not removed", start: "|",
			steps: []step{PasteBegin{Text: "a.go b.go c.go", Components: []Component{{Range{5, 9}, rb}}},
				PasteUpgrades{Paste: 1, Upgrades: []Component{{Range{0, 4}, ra}, {Range{10, 14}, rc}}}},
			want: "￼ ￼ ￼|", effects: []Effect{SetView{Start: 0, End: 11, Text: chip + " " + chip + " " + chip, SelStart: 5, SelEnd: 5}}},
		{name: "and its undo reports only the chips the upgrades made", start: "|",
			steps: []step{PasteBegin{Text: "a.go b.go c.go", Components: []Component{{Range{5, 9}, rb}}},
				PasteUpgrades{Paste: 1, Upgrades: []Component{{Range{0, 4}, ra}, {Range{10, 14}, rc}}}, Undo{}},
			want: "[a.go ￼ c.go]", effects: []Effect{ChipRemoved{ID: 2, Reference: ra}, ChipRemoved{ID: 3, Reference: rc},
				SetView{Start: 0, End: 5, Text: "a.go " + chip + " c.go", SelStart: 0, SelEnd: 11}}},
		{name: "the ranges an answer of their own would be refused stay text", start: "|",
			steps: []step{PasteBegin{Text: text, Components: []Component{{Range{4, 8}, ra}}},
				PasteUpgrades{Paste: 1, Upgrades: []Component{{Range{6, 10}, rb}, {Range{13, 17}, rb}, {Range{14, 16}, rc}, {Range{18, 30}, rc}}}},
			want: "see ￼ and ￼ ok|", effects: []Effect{SetView{Start: 10, End: 14, Text: chip, SelStart: 14, SelEnd: 14}}},
		{name: "none taken: the reason of the last in the text", start: "|",
			steps: []step{PasteBegin{Text: text, Components: []Component{{Range{4, 8}, ra}}},
				PasteUpgrades{Paste: 1, Upgrades: []Component{{Range{18, 30}, rc}, {Range{6, 10}, rb}}}},
			want: "see ￼ and b.go ok|", effects: []Effect{Refused{Reason: OutOfRange}}},
		{name: "none at all: nothing", start: "|",
			steps: []step{PasteBegin{Text: text}, PasteUpgrades{Paste: 1}},
			want:  text + "|"},
		{name: "another paste's answer", start: "|",
			steps: []step{PasteBegin{Text: text}, InvalidatePaste{}, PasteUpgrades{Paste: 1, Upgrades: []Component{{Range{4, 8}, ra}}}},
			want:  text + "|", effects: []Effect{Refused{Reason: Stale}}},
	})
}

// TestPasteUpgradesAsOneByOne: a big paste's upgrades applied as one PasteUpgrades leave
// the draft, the chips (ids, references, offsets), the selection and the attempt exactly
// as the same upgrades applied one at a time, each its own transaction (as the shell sent
// them before); and one undo, not one per upgrade, takes them back, so the paste's own
// step is still there after it.
func TestPasteUpgradesAsOneByOne(t *testing.T) {
	text, ups := pasteOfRefs(300)
	text = "😀 " + text // the ranges count units: move them all by the pair and the space
	var comps []Component
	for i := range ups {
		ups[i].Range.Start += 3
		ups[i].Range.End += 3
		if i%7 == 3 {
			comps = append(comps, ups[i]) // known at once: a chip of the paste itself
		}
	}
	ups = append(ups, Component{Range{0, 1}, ref("half a pair")}, Component{ups[10].Range, ref("twice")}, Component{Range{5, len(text) + 9}, ref("past")})
	// The matcher's order is the text's; the batch sorts whatever it gets.
	shuffled := append([]Component(nil), ups[150:]...)
	shuffled = append(shuffled, ups[:150]...)

	one, batch := build(t, "before | after"), build(t, "before | after")
	for _, m := range []*Machine{one, batch} {
		run(t, m, PasteBegin{Text: text, Selection: Range{7, 7}, Components: comps})
	}
	pasted := viewOf(batch)
	for _, u := range ups {
		one.Dispatch(upgrade(1, u.Range, u.Reference))
	}
	effs := run(t, batch, PasteUpgrades{Paste: 1, Upgrades: shuffled})
	if len(effs) != 1 || !Rewrote(effs) {
		t.Fatalf("the batch's effects: %v", effs)
	}
	check(t, one)
	equal(t, "draft and chips", viewOf(batch), viewOf(one))
	equal(t, "selection", batch.Selection(), one.Selection())
	_, r1, ok1 := one.Paste()
	_, r2, ok2 := batch.Paste()
	equal(t, "inserted range", fmt.Sprint(r2, ok2), fmt.Sprint(r1, ok1))
	equal(t, "chips", len(batch.Occurrences()), 300)

	run(t, batch, Undo{})
	equal(t, "after one undo", viewOf(batch), pasted)
	run(t, batch, Undo{})
	equal(t, "after two", show(batch), "before | after")
}

func TestPasteInsertedRangeShrinks(t *testing.T) {
	m := build(t, "x|")
	text := "see a.go and b.go ok"
	run(t, m, PasteBegin{Text: text, Selection: Range{1, 1}})
	ranges := []Range{}
	_, r, _ := m.Paste()
	ranges = append(ranges, r)
	run(t, m, upgrade(1, Range{4, 8}, ref("a.go")))
	_, r, _ = m.Paste()
	ranges = append(ranges, r)
	run(t, m, upgrade(1, Range{13, 17}, ref("b.go")))
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
			steps: []step{PasteBegin{Text: text, Selection: Range{1, 1}}, upgrade(1, Range{9, 10}, c)},
			want:  ">😀 a \uFFFD b ￼|", effects: []Effect{SetView{Start: 10, End: 11, Text: chip, SelStart: 11, SelEnd: 11}}},
		{name: "between a component and an upgrade", start: "|",
			steps: []step{PasteBegin{Text: text, Components: []Component{{Range{3, 4}, a}}},
				upgrade(1, Range{9, 10}, c),
				upgrade(1, Range{7, 8}, b)},
			want: "😀 ￼ \uFFFD ￼ ￼|", effects: []Effect{SetView{Start: 7, End: 8, Text: chip, SelStart: 10, SelEnd: 10}}},
		{name: "a range splitting the emoji", start: "|",
			steps: []step{PasteBegin{Text: text}, upgrade(1, Range{1, 3}, a)},
			want:  text[:len(text)-len(" b c")-3] + "\uFFFD b c|", effects: []Effect{Refused{Reason: Guard}}},
		{name: "a range past the pasted text", start: "|",
			steps: []step{PasteBegin{Text: "ab"}, upgrade(1, Range{1, 3}, a)},
			want:  "ab|", effects: []Effect{Refused{Reason: OutOfRange}}},
		{name: "an empty range", start: "|",
			steps: []step{PasteBegin{Text: "ab"}, upgrade(1, Range{1, 1}, a)},
			want:  "ab|", effects: []Effect{Refused{Reason: OutOfRange}}},
		{name: "another paste's upgrade", start: "|",
			steps: []step{PasteBegin{Text: "ab"}, PasteBegin{Text: "cd"}, upgrade(1, Range{0, 1}, a)},
			want:  "cd|ab", effects: []Effect{Refused{Reason: Stale}}},
		{name: "undo ends the attempt", start: "|",
			steps: []step{PasteBegin{Text: "ab"}, upgrade(1, Range{0, 1}, a), Undo{},
				upgrade(1, Range{1, 2}, b)},
			want: "[a]b", effects: []Effect{Refused{Reason: Stale}}},
		{name: "redo puts the caret back where the upgrade left it", start: "|",
			steps: []step{PasteBegin{Text: "ab cd"}, upgrade(1, Range{0, 2}, a), Undo{}, Redo{}},
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
