package input

import (
	"time"

	"parley/machine/utf16x"
)

// change is one undo record: a single splice of the draft plus its effect on the table
// and the claim. It stores the change, never a copy of the draft, so a record of a
// keystroke in a 100 KB draft is a few dozen bytes. Inverting it swaps del/ins,
// delOccs/insOccs and the before/after pairs, so undo followed by redo is the identity.
type change struct {
	pos              int
	del, ins         []uint16
	delOccs, insOccs []placed // chips removed and added, at absolute offsets
	claimBefore      Claim
	claimAfter       Claim
	selBefore        Range
	selAfter         Range

	at     time.Time // the last keystroke merged in
	group  group     // which keystrokes may merge into it
	sealed bool      // undone once: never merge into it again
}

// group is what a record of single keystrokes may take in, as a textarea groups its undo:
// a run of typing, of Backspaces or of Deletes is one step, and a change of kind starts the
// next. An Edit does not say which key erased; the place does: a Backspace erases just
// before the last erasure, a Delete where it was. After one erasure either may follow, so a
// Backspace and then a Delete at the same caret are one step where a textarea makes two.
type group uint8

const (
	groupNone     group = iota
	groupTyping         // single characters typed, each after the last
	groupErase          // one character erased: the next erasure says which way
	groupBackward       // erased backwards (Backspace), each before the last
	groupForward        // erased forwards (Delete), each where the last was
)

// history is the undo log: a ring of at most depth records, the applied ones first.
type history struct {
	recs    []*change
	cur     int    // recs[:cur] are applied, recs[cur:] can be redone
	epoch   uint64 // which log this is; a new one starts at Enter and after a successful submit
	dropped bool   // the ring has dropped its oldest record
}

func (m *Machine) newHistory() *history {
	m.epochs++
	return &history{epoch: m.epochs}
}

func (h *history) push(c *change, depth int) {
	for i := h.cur; i < len(h.recs); i++ {
		h.recs[i] = nil
	}
	h.recs = append(h.recs[:h.cur], c)
	if len(h.recs) > depth {
		copy(h.recs, h.recs[1:])
		h.recs[len(h.recs)-1] = nil
		h.recs = h.recs[:len(h.recs)-1]
		h.dropped = true
	}
	h.cur = len(h.recs)
}

// merge folds a single-character edit (x.group) into the last record when it continues it:
// typing right after its insertion, or an erasure of the same kind right before or at its
// erasure; nothing to redo, within window of the last merged keystroke. del is what x
// erased.
func (h *history) merge(x edit, del []uint16, window time.Duration) bool {
	if h.cur == 0 || h.cur != len(h.recs) {
		return false
	}
	top := h.recs[h.cur-1]
	if top.sealed || x.at.Before(top.at) || x.at.Sub(top.at) > window {
		return false
	}
	erasing := x.group == groupErase && top.group != groupTyping && top.group != groupNone
	switch {
	case x.group == groupTyping && top.group == groupTyping && top.pos+len(top.ins) == x.s:
		top.ins = append(top.ins, x.ins...)
	case erasing && top.group != groupForward && x.e == top.pos:
		top.del = append(del, top.del...)
		top.pos, top.group = x.s, groupBackward
	case erasing && top.group != groupBackward && x.s == top.pos:
		top.del = append(top.del, del...)
		top.group = groupForward
	default:
		return false
	}
	top.at = x.at
	caret := x.s + len(x.ins)
	top.selAfter = Range{caret, caret}
	if x.group == groupErase {
		// Undone, the run comes back selected, as one erasure's text does.
		top.selBefore = Range{top.pos, top.pos + len(top.del)}
	}
	return true
}

func (m *Machine) undo() []Effect {
	h := m.log
	if h.cur == 0 {
		return nil
	}
	h.cur--
	c := h.recs[h.cur]
	c.sealed = true
	return m.replay(c.pos, len(c.ins), c.del, c.delOccs, c.claimBefore, c.selBefore)
}

func (m *Machine) redo() []Effect {
	h := m.log
	if h.cur == len(h.recs) {
		return nil
	}
	c := h.recs[h.cur]
	h.cur++
	return m.replay(c.pos, len(c.del), c.ins, c.insOccs, c.claimAfter, c.selAfter)
}

// replay applies one side of a record: replace n units at pos with ins and its chips.
func (m *Machine) replay(pos, n int, ins []uint16, add []placed, claim Claim, sel Range) []Effect {
	removed := m.occ.replace(pos, pos+n, m.buf.Len(), add)
	m.buf.replace(pos, pos+n, ins)
	m.setClaim(claim)
	m.sel = sel
	m.rev++
	m.cached = false
	m.paste = nil
	effs := chipsRemoved(make([]Effect, 0, len(removed)+1), removed, add)
	return append(effs, SetView{Start: pos, End: pos + n, Text: utf16x.String(ins), SelStart: sel.Start, SelEnd: sel.End})
}

// releaseClaim records a claim-only change, so undo can bring the claim back.
func (m *Machine) releaseClaim() {
	c := &change{claimBefore: m.claim, selBefore: m.sel, selAfter: m.sel}
	m.setClaim(Claim{})
	m.paste = nil
	m.log.push(c, m.cfg.UndoDepth)
}
