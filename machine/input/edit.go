package input

import (
	"time"
	"unicode/utf8"

	"parley/machine/chipglyph"

	"parley/machine/utf16x"
)

// This file holds the draft-changed forms, Newline, TypeIn and the bail events.

func (m *Machine) onEdit(ev Edit) []Effect {
	m.scratch = utf16x.Append(m.scratch[:0], ev.Text)
	effs, _ := m.userEdit(ev.Start, ev.End, m.scratch, ev.At, true)
	return effs
}

func (m *Machine) onNewline(ev Newline) []Effect {
	m.scratch = append(m.scratch[:0], '\n')
	effs, _ := m.userEdit(ev.Selection.Start, ev.Selection.End, m.scratch, ev.At, false)
	return effs
}

func (m *Machine) onTypeIn(ev TypeIn) []Effect {
	e := min(max(ev.Selection.End, 0), m.buf.Len())
	s := min(max(ev.Selection.Start, 0), e)
	if s == e && ev.Erase < 0 {
		s = max(s-1, 0) // userEdit widens it over a surrogate pair
	} else if s == e && ev.Erase > 0 {
		e = min(e+1, m.buf.Len())
	}
	m.scratch = utf16x.Append(m.scratch[:0], ev.Text)
	effs, _ := m.userEdit(s, e, m.scratch, ev.At, false)
	return effs
}

func (m *Machine) onDraftChanged(ev DraftChanged) []Effect {
	var effs []Effect
	exact, done := true, false
	if ev.Hint != nil {
		effs, exact, done = m.hinted(ev)
	}
	if !done {
		old := m.Draft()
		nw := ev.Draft
		if old == nw {
			return nil
		}
		p := commonPrefix(old, nw)
		q := commonSuffix(old, nw, min(len(old), len(nw))-p)
		s := m.unitAt(old, p)
		e := s + utf16x.Len(old[p:len(old)-q])
		m.scratch = utf16x.Append(m.scratch[:0], nw[p:len(nw)-q])
		effs, exact = m.userEdit(s, e, m.scratch, ev.At, true)
	}
	// The machine now holds exactly the textarea's value: keep it as the cached string.
	// Invalid UTF-8 always comes out longer in the buffer, so equal lengths mean a
	// faithful copy.
	if exact && m.buf.bytes == len(ev.Draft) {
		m.cache, m.cached = ev.Draft, true
	}
	return effs
}

// hinted applies a DraftChanged through its hint, reading only the edited slice of the
// new draft: the bytes before Start are known from the gap, the bytes after OldEnd from
// the total. done is false when the hint does not fit, and the scan takes over.
func (m *Machine) hinted(ev DraftChanged) (effs []Effect, exact, done bool) {
	h := *ev.Hint
	n := m.buf.Len()
	if h.Start < 0 || h.OldEnd < h.Start || h.OldEnd > n || h.NewEnd < h.Start || m.splitsPair(h.Start) || m.splitsPair(h.OldEnd) {
		return nil, true, false
	}
	m.buf.moveGap(h.Start)
	bs := m.buf.gapBytes
	tail := m.buf.bytes - bs - m.buf.bytesBetween(h.Start, h.OldEnd)
	be := len(ev.Draft) - tail
	if be < bs {
		return nil, true, false
	}
	// The hint is trusted, not verified: checking the whole draft would cost what the
	// hint saves. The characters on both sides of the edit are checked, which catches a
	// hint off by a few units or cutting a character.
	if r, _ := utf8.DecodeLastRuneInString(ev.Draft[:bs]); bs > 0 && r != m.buf.runeBefore(h.Start) {
		return nil, true, false
	}
	if r, _ := utf8.DecodeRuneInString(ev.Draft[be:]); be < len(ev.Draft) && r != m.buf.runeAt(h.OldEnd) {
		return nil, true, false
	}
	m.scratch = utf16x.Append(m.scratch[:0], ev.Draft[bs:be])
	if len(m.scratch) != h.NewEnd-h.Start {
		return nil, true, false
	}
	if h.OldEnd == h.Start && len(m.scratch) == 0 {
		return nil, true, false // a hint of no edit: let the scan confirm it
	}
	effs, exact = m.userEdit(h.Start, h.OldEnd, m.scratch, ev.At, true)
	return effs, exact, true
}

// unitAt converts byte offset p of old (the cached draft, on a rune boundary) to units,
// counting only from the gap, where the previous edit left it.
func (m *Machine) unitAt(old string, p int) int {
	g, u := m.buf.gapBytes, m.buf.gs
	if p >= g {
		return u + utf16x.Len(old[g:p])
	}
	return u - utf16x.Len(old[p:g])
}

// userEdit applies an edit made by the user. typed means the textarea already shows it
// (Edit, DraftChanged); otherwise the machine performs it (Newline). exact reports
// whether the machine's draft equals the textarea's after it, with no SetView needed.
func (m *Machine) userEdit(s, e int, ins []uint16, at time.Time, typed bool) (effs []Effect, exact bool) {
	n := m.buf.Len()
	if s < 0 || e < s || e > n {
		return []Effect{Refused{Reason: OutOfRange}}, false
	}
	os, oe := s, e
	if m.splitsPair(s) {
		s--
	}
	if m.splitsPair(e) {
		e++
	}
	exact = s == os && e == oe
	for i, u := range ins {
		if isStray(u) {
			ins[i] = strayUnit
			exact = false
		}
	}
	if s == e && len(ins) == 0 {
		return nil, exact
	}
	one := len(ins) == 1 && ins[0] != '\n' || len(ins) == 2 && utf16x.IsHigh(ins[0])
	g := groupNone
	switch {
	case !typed:
	case s == e && one:
		g = groupTyping
	case len(ins) == 0 && (e-s == 1 || e-s == 2 && utf16x.IsHigh(m.buf.at(s))):
		g = groupErase // one character (a pair is one), as a Backspace or a Delete erases
	}
	return m.apply(edit{
		s: s, e: e, ins: ins, at: at,
		view: !typed || !exact, typed: typed, rawEnd: os + len(ins) + (e - oe),
		group: g,
	}), exact
}

// guard checks a bail event's span: the phase when idle is needed, then the CAS on
// draftRev, then the range.
func (m *Machine) guard(sp Span, idle bool) (Reason, bool) {
	switch {
	case idle && m.attempt != nil:
		return Busy, false
	case sp.Rev != m.rev:
		return Stale, false
	case sp.Start < 0 || sp.End < sp.Start || sp.End > m.buf.Len():
		return OutOfRange, false
	case m.splitsPair(sp.Start) || m.splitsPair(sp.End):
		return Guard, false
	}
	return 0, true
}

func refused(r Reason) []Effect { return []Effect{Refused{Reason: r}} }

func (m *Machine) onBeginCommand(ev BeginCommand) []Effect {
	if r, ok := m.guard(ev.Span, true); !ok {
		return refused(r)
	}
	tok := utf16x.Append(nil, ev.Claim.Token)
	if ev.Span.Start != 0 || len(tok) == 0 || containsUnit(tok, placeholderUnit) {
		return refused(Guard)
	}
	c := ev.Claim
	return m.apply(edit{s: 0, e: ev.Span.End, ins: tok, claim: &c, view: true})
}

func (m *Machine) onInsertRef(ev InsertRef) []Effect {
	if r, ok := m.guard(ev.Span, false); !ok {
		return refused(r)
	}
	m.nextID++
	add := []placed{{pos: ev.Span.Start, e: &entry{id: m.nextID, ref: ev.Reference}}}
	return m.apply(edit{s: ev.Span.Start, e: ev.Span.End, ins: []uint16{placeholderUnit}, add: add, view: true})
}

func (m *Machine) onInsertText(ev InsertText) []Effect {
	if r, ok := m.guard(ev.Span, false); !ok {
		return refused(r)
	}
	ins := strays(utf16x.Append(nil, ev.Text))
	if ev.Span.Start == ev.Span.End && len(ins) == 0 {
		return nil
	}
	return m.apply(edit{s: ev.Span.Start, e: ev.Span.End, ins: ins, view: true})
}

func (m *Machine) onConsumeToken(ev ConsumeToken) []Effect {
	sp := ev.Span
	if ev.Token != "" {
		if m.attempt != nil {
			return refused(Busy)
		}
		tok := utf16x.Append(nil, ev.Token)
		if !m.buf.hasPrefix(tok) {
			return refused(Guard)
		}
		sp = Span{Start: 0, End: len(tok), Rev: m.rev}
	}
	if r, ok := m.guard(sp, true); !ok {
		return refused(r)
	}
	if sp.Start == sp.End {
		return nil
	}
	return m.apply(edit{s: sp.Start, e: sp.End, view: true})
}

// strays replaces U+FFFC in user text: only the machine places chips.
func strays(us []uint16) []uint16 {
	for i, u := range us {
		if isStray(u) {
			us[i] = strayUnit
		}
	}
	return us
}

// isStray is a unit user text may not bring: U+FFFC, or one of the textarea's chip glyphs
// (machine/chipglyph), which the draft never holds, so the textarea's view of it and the
// draft map one to one.
func isStray(u uint16) bool { return u == placeholderUnit || chipglyph.IsGlyph(rune(u)) }

func containsUnit(us []uint16, u uint16) bool {
	for _, x := range us {
		if x == u {
			return true
		}
	}
	return false
}
