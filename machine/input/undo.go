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
	typing bool      // single-character typing, open to merging
	sealed bool      // undone once: never merge into it again
}

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

// merge folds a single-character insertion into the last record when it continues it:
// same place, nothing to redo, within window of the last merged keystroke.
func (h *history) merge(x edit, window time.Duration) bool {
	if h.cur == 0 || h.cur != len(h.recs) {
		return false
	}
	top := h.recs[h.cur-1]
	if !top.typing || top.sealed || top.pos+len(top.ins) != x.s || x.at.Before(top.at) || x.at.Sub(top.at) > window {
		return false
	}
	top.ins = append(top.ins, x.ins...)
	top.at = x.at
	caret := x.s + len(x.ins)
	top.selAfter = Range{caret, caret}
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
	effs := make([]Effect, 0, len(removed)+1)
	for _, r := range removed {
		effs = append(effs, ChipRemoved{ID: r.e.id, Reference: r.e.ref})
	}
	return append(effs, SetView{Start: pos, End: pos + n, Text: utf16x.String(ins), SelStart: sel.Start, SelEnd: sel.End})
}

// releaseClaim records a claim-only change, so undo can bring the claim back.
func (m *Machine) releaseClaim() {
	c := &change{claimBefore: m.claim, selBefore: m.sel, selAfter: m.sel}
	m.setClaim(Claim{})
	m.paste = nil
	m.log.push(c, m.cfg.UndoDepth)
}
