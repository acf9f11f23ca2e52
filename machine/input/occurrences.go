package input

import (
	"slices"
	"sort"
)

// OccurrenceID identifies one chip. Two chips for the same reference have different ids,
// so they stay independent through edits, undo and owner resolution.
type OccurrenceID uint64

// Occurrence is one row of the occurrence table: a chip, the U+FFFC at Offset that stands
// for it, and its invalid style bit.
type Occurrence struct {
	ID OccurrenceID
	Reference
	Offset  int  // UTF-16 code units; the draft holds U+FFFC there
	Invalid bool // set by SetInvalid; styles the chip, never blocks an edit
}

// entry is the immutable part of an occurrence. Undo records and snapshots share entries,
// so a chip restored by undo is the same chip, with the same id.
type entry struct {
	id  OccurrenceID
	ref Reference
}

// placed is an entry at an absolute offset, as undo records keep it.
type placed struct {
	pos int
	e   *entry
}

// table is the occurrence table, sorted by offset. It uses the gap-buffer trick on
// offsets: rows before split store their offset from the start of the draft, rows from
// split on store their distance from the end. An edit is made at split, so the rows after
// it keep their key while the draft grows or shrinks before them: shifting the table
// costs O(rows between two consecutive edits), not O(rows).
type table struct {
	rows  []slot
	split int
}

type slot struct {
	key int
	e   *entry
}

func (t *table) Len() int { return len(t.rows) }

// pos is the offset of row i in a draft of n units.
func (t *table) pos(i, n int) int {
	if i < t.split {
		return t.rows[i].key
	}
	return n - t.rows[i].key
}

// moveSplit makes rows before split exactly those with offset < p, in a draft of n units.
func (t *table) moveSplit(p, n int) {
	for t.split > 0 && t.rows[t.split-1].key >= p {
		t.split--
		t.rows[t.split].key = n - t.rows[t.split].key
	}
	for t.split < len(t.rows) && n-t.rows[t.split].key < p {
		t.rows[t.split].key = n - t.rows[t.split].key
		t.split++
	}
}

// replace mirrors buffer.replace(s, e, ins) on the table: it drops the rows in [s, e),
// adds the rows in add (offsets inside the insertion, ascending), and returns the rows it
// dropped. n is the draft length before the edit. The rows after the edit keep their
// key (their distance from the end), so the insertion's length is not needed.
func (t *table) replace(s, e, n int, add []placed) (removed []placed) {
	t.moveSplit(s, n)
	k := t.split
	for k < len(t.rows) && n-t.rows[k].key < e {
		k++
	}
	if k > t.split {
		removed = make([]placed, 0, k-t.split)
		for i := t.split; i < k; i++ {
			removed = append(removed, placed{pos: n - t.rows[i].key, e: t.rows[i].e})
		}
		t.rows = slices.Delete(t.rows, t.split, k)
	}
	if len(add) > 0 {
		rows := make([]slot, len(add))
		for i, p := range add {
			rows[i] = slot{key: p.pos, e: p.e}
		}
		t.rows = slices.Insert(t.rows, t.split, rows...)
		t.split += len(add)
	}
	return removed
}

// in returns the rows with offsets in [s, e) of a draft of n units, in order.
func (t *table) in(s, e, n int) []placed {
	i := sort.Search(len(t.rows), func(i int) bool { return t.pos(i, n) >= s })
	var out []placed
	for ; i < len(t.rows); i++ {
		p := t.pos(i, n)
		if p >= e {
			break
		}
		out = append(out, placed{pos: p, e: t.rows[i].e})
	}
	return out
}
