package input

import (
	"slices"

	"parley/internal/smallsort"
	"parley/machine/utf16x"
)

// pasteAttempt is the open PasteMatchAttempt: where the pasted text sits in the draft
// and which of its ranges are chips already, in the pasted text's own units, so that an
// asynchronous match found on the pasted text can be placed after earlier upgrades.
type pasteAttempt struct {
	id    PasteID
	start int     // draft offset of the pasted text
	n     int     // insertedRange length: shrinks by len-1 with each upgrade
	size  int     // length of the pasted text
	done  []Range // chip ranges of the pasted text, sorted
}

func (m *Machine) onPasteBegin(ev PasteBegin) []Effect {
	sel := ev.Selection
	if sel.Start < 0 || sel.End < sel.Start || sel.End > m.buf.Len() {
		return refused(OutOfRange)
	}
	if m.splitsPair(sel.Start) {
		sel.Start--
	}
	if m.splitsPair(sel.End) {
		sel.End++
	}
	text := utf16x.Append(nil, ev.Text)
	if len(text) == 0 {
		return nil
	}
	comps := slices.Clone(ev.Components)
	smallsort.Stable(comps, func(a, b Component) int { return a.Range.Start - b.Range.Start })
	ins := make([]uint16, 0, len(text))
	var add []placed
	var done []Range
	prev := 0
	for _, c := range comps {
		r := c.Range
		if r.Start < prev || r.End <= r.Start || r.End > len(text) || utf16x.Splits(text, r.Start) || utf16x.Splits(text, r.End) {
			continue // overlapping or malformed: leave the text as text
		}
		ins = append(ins, strays(text[prev:r.Start])...)
		m.nextID++
		add = append(add, placed{pos: sel.Start + len(ins), e: &entry{id: m.nextID, ref: c.Reference}})
		ins = append(ins, placeholderUnit)
		done = append(done, r)
		prev = r.End
	}
	ins = append(ins, strays(text[prev:])...)
	effs := m.apply(edit{s: sel.Start, e: sel.End, ins: ins, add: add, at: ev.At, view: true})
	m.pasteSeq++
	m.paste = &pasteAttempt{id: m.pasteSeq, start: sel.Start, n: len(ins), size: len(text), done: done}
	return append(effs, MatchPaste{Paste: m.pasteSeq, Text: ev.Text, Generation: ev.Generation})
}

// mapThrough maps offset p through replacing [s, e) with one chip: a position inside
// the replaced text goes after the chip, since a caret cannot sit inside one.
func mapThrough(p, s, e int) int {
	switch {
	case p <= s:
		return p
	case p >= e:
		return p - (e - s - 1)
	}
	return s + 1
}

// onPasteUpgrades turns ranges of the pasted text into chips, all of them in one
// transaction: one splice from the first range to the end of the last (the chips between
// them carried through as they were), one undo step, one SetView. A matcher's answer for a
// paste of 2,000 references was 2,000 transactions, each one drawn, and the page froze for
// seconds, quadratically in the references; its undo records also pushed the paste's own out
// of the ring. A range the attempt cannot take (outside the pasted text, over a chip already
// made or an earlier range, splitting a surrogate pair) stays text; when no range is taken,
// the answer is why the last one in the text was not.
func (m *Machine) onPasteUpgrades(id PasteID, ups []Component) []Effect {
	p := m.paste
	if p == nil || p.id != id {
		return refused(Stale)
	}
	ups = slices.Clone(ups)
	smallsort.Stable(ups, func(a, b Component) int { return a.Range.Start - b.Range.Start })
	type take struct {
		at, end int // in the draft before the batch
		ref     Reference
	}
	var (
		took  []take
		done  = make([]Range, 0, len(p.done)+len(ups))
		why   Reason
		shift = 0 // what the chips made before a range took off the draft
		i     = 0
	)
	for _, u := range ups {
		r := u.Range
		if r.Start < 0 || r.End <= r.Start || r.End > p.size {
			why = OutOfRange
			continue
		}
		for ; i < len(p.done) && p.done[i].End <= r.Start; i++ {
			shift += p.done[i].End - p.done[i].Start - 1
			done = append(done, p.done[i])
		}
		at := p.start + r.Start - shift
		end := at + r.End - r.Start
		if i < len(p.done) && p.done[i].Start < r.End || len(took) > 0 && at < took[len(took)-1].end || m.splitsPair(at) || m.splitsPair(end) {
			why = Guard
			continue
		}
		took = append(took, take{at, end, u.Reference})
		done = append(done, r)
	}
	if len(took) == 0 {
		if len(ups) == 0 {
			return nil
		}
		return refused(why)
	}
	s, e := took[0].at, took[len(took)-1].end
	old := m.occ.in(s, e, m.buf.Len())
	ins := make([]uint16, 0, e-s)
	add := make([]placed, 0, len(old)+len(took))
	pos, k := s, 0
	for _, t := range took {
		for ; k < len(old) && old[k].pos < t.at; k++ {
			add = append(add, placed{pos: s + len(ins) + old[k].pos - pos, e: old[k].e})
		}
		ins = append(m.buf.appendRange(ins, pos, t.at), placeholderUnit)
		m.nextID++
		add = append(add, placed{pos: s + len(ins) - 1, e: &entry{id: m.nextID, ref: t.ref}})
		pos = t.end
	}
	// The match arrives while the user may keep typing after the paste: the selection
	// stays where it was, mapped through each shrink.
	sel := m.sel
	for j := len(took) - 1; j >= 0; j-- {
		t := took[j]
		sel = Range{mapThrough(sel.Start, t.at, t.end), mapThrough(sel.End, t.at, t.end)}
	}
	effs := m.apply(edit{s: s, e: e, ins: ins, add: add, view: true, keepPaste: true, sel: &sel})
	p.n -= e - s - len(ins)
	p.done = append(done, p.done[i:]...)
	return effs
}
