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

func (m *Machine) onPasteUpgrade(ev PasteUpgrade) []Effect {
	p := m.paste
	if p == nil || p.id != ev.Paste {
		return refused(Stale)
	}
	r := ev.Range
	if r.Start < 0 || r.End <= r.Start || r.End > p.size {
		return refused(OutOfRange)
	}
	at := p.start + r.Start
	i := 0
	for ; i < len(p.done) && p.done[i].End <= r.Start; i++ {
		at -= p.done[i].End - p.done[i].Start - 1
	}
	if i < len(p.done) && p.done[i].Start < r.End {
		return refused(Guard)
	}
	end := at + r.End - r.Start
	if m.splitsPair(at) || m.splitsPair(end) {
		return refused(Guard)
	}
	m.nextID++
	add := []placed{{pos: at, e: &entry{id: m.nextID, ref: ev.Reference}}}
	// The match arrives while the user may keep typing after the paste: the selection
	// stays where it was, mapped through the shrink.
	sel := Range{mapThrough(m.sel.Start, at, end), mapThrough(m.sel.End, at, end)}
	effs := m.apply(edit{s: at, e: end, ins: []uint16{placeholderUnit}, add: add, view: true, keepPaste: true, sel: &sel})
	p.n -= r.End - r.Start - 1
	p.done = slices.Insert(p.done, i, r)
	return effs
}
