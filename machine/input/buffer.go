package input

import (
	"strings"

	"parley/machine/utf16x"
)

// buffer is the draft as a gap buffer of UTF-16 code units. Typing happens at the caret,
// so an edit next to the previous one moves nothing and allocates nothing; a string is
// materialized only when asked for.
//
// It also tracks UTF-8 byte counts (of the whole draft, and of the text before the gap),
// so that a full-draft event, which arrives as a Go string, can be mapped to unit offsets
// without walking the draft.
type buffer struct {
	b        []uint16
	gs, ge   int // the gap is b[gs:ge]
	gapBytes int // UTF-8 bytes of b[:gs]
	bytes    int // UTF-8 bytes of the whole draft
}

func (x *buffer) Len() int { return len(x.b) - (x.ge - x.gs) }

func (x *buffer) at(i int) uint16 {
	if i < x.gs {
		return x.b[i]
	}
	return x.b[i+x.ge-x.gs]
}

// moveGap puts the gap at unit offset p, in O(|p-gs|).
func (x *buffer) moveGap(p int) {
	switch {
	case p < x.gs:
		n := x.gs - p
		x.gapBytes -= utf16x.UTF8Len(x.b[p:x.gs])
		copy(x.b[x.ge-n:x.ge], x.b[p:x.gs])
		x.gs = p
		x.ge -= n
	case p > x.gs:
		n := p - x.gs
		x.gapBytes += utf16x.UTF8Len(x.b[x.ge : x.ge+n])
		copy(x.b[x.gs:x.gs+n], x.b[x.ge:x.ge+n])
		x.gs += n
		x.ge += n
	}
}

func (x *buffer) grow(need int) {
	if x.ge-x.gs >= need {
		return
	}
	tail := len(x.b) - x.ge
	size := max(2*len(x.b), x.Len()+need+64)
	nb := make([]uint16, size)
	copy(nb, x.b[:x.gs])
	copy(nb[size-tail:], x.b[x.ge:])
	x.b = nb
	x.ge = size - tail
}

// replace deletes [s, e) and inserts ins at s, leaving the gap after the insertion.
func (x *buffer) replace(s, e int, ins []uint16) {
	x.moveGap(s)
	if e > s {
		x.bytes -= utf16x.UTF8Len(x.b[x.ge : x.ge+e-s])
		x.ge += e - s
	}
	if len(ins) > 0 {
		x.grow(len(ins))
		copy(x.b[x.gs:], ins)
		x.gs += len(ins)
		n := utf16x.UTF8Len(ins)
		x.gapBytes += n
		x.bytes += n
	}
}

// appendRange appends the units [s, e) to dst.
func (x *buffer) appendRange(dst []uint16, s, e int) []uint16 {
	if s < x.gs {
		dst = append(dst, x.b[s:min(e, x.gs)]...)
	}
	if e > x.gs {
		gap := x.ge - x.gs
		dst = append(dst, x.b[max(s, x.gs)+gap:e+gap]...)
	}
	return dst
}

// runeAt is the character starting at unit p, or -1 at the end of the draft.
func (x *buffer) runeAt(p int) rune {
	if p >= x.Len() {
		return -1
	}
	u := x.at(p)
	if utf16x.IsHigh(u) && p+1 < x.Len() {
		return utf16x.Pair(u, x.at(p+1))
	}
	return rune(u)
}

// runeBefore is the character ending at unit p, or -1 at the start of the draft.
func (x *buffer) runeBefore(p int) rune {
	if p <= 0 {
		return -1
	}
	u := x.at(p - 1)
	if utf16x.IsLow(u) && p >= 2 {
		return utf16x.Pair(x.at(p-2), u)
	}
	return rune(u)
}

// hasPrefix reports whether the draft starts with p.
func (x *buffer) hasPrefix(p []uint16) bool {
	if len(p) > x.Len() {
		return false
	}
	for i, u := range p {
		if x.at(i) != u {
			return false
		}
	}
	return true
}

// bytesBetween is the UTF-8 byte count of units [s, e).
func (x *buffer) bytesBetween(s, e int) int {
	n := 0
	if s < x.gs {
		n += utf16x.UTF8Len(x.b[s:min(e, x.gs)])
	}
	if e > x.gs {
		gap := x.ge - x.gs
		n += utf16x.UTF8Len(x.b[max(s, x.gs)+gap : e+gap])
	}
	return n
}

// stringRange materializes [s, e) as UTF-8.
func (x *buffer) stringRange(s, e int) string {
	if s >= e {
		return ""
	}
	if x.gs > 0 && x.gs < x.Len() && utf16x.IsHigh(x.b[x.gs-1]) {
		x.moveGap(x.gs - 1) // keep a surrogate pair on one side of the gap
	}
	var b strings.Builder
	b.Grow(x.bytesBetween(s, e))
	if s < x.gs {
		utf16x.AppendString(&b, x.b[s:min(e, x.gs)])
	}
	if e > x.gs {
		gap := x.ge - x.gs
		utf16x.AppendString(&b, x.b[max(s, x.gs)+gap:e+gap])
	}
	return b.String()
}

func (x *buffer) String() string { return x.stringRange(0, x.Len()) }
