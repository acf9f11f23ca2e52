package input

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestUndo(t *testing.T) {
	typed := func(from, ms int, text string) []step {
		var s []step
		for i, r := range text {
			s = append(s, Edit{Start: from + i, End: from + i, Text: string(r), At: at(ms + 100*i)})
		}
		return s
	}
	runTable(t, []tcase{
		{name: "typing within the window is one step", start: "|", steps: append(typed(0, 0, "hello"), Undo{}),
			want: "|", effects: []Effect{SetView{Start: 0, End: 5}}},
		{name: "a pause past the window starts a new step", start: "|", steps: append(append(typed(0, 0, "ab"), typed(2, 5000, "cd")...), Undo{}),
			want: "ab|", effects: []Effect{SetView{Start: 2, End: 4, SelStart: 2, SelEnd: 2}}},
		{name: "a newline is its own step", start: "|", steps: append(append(typed(0, 0, "ab"), Newline{Selection: Range{2, 2}, At: at(250)}), Undo{}),
			want: "ab|", effects: []Effect{SetView{Start: 2, End: 3, SelStart: 2, SelEnd: 2}}},
		{name: "redo", start: "|", steps: append(typed(0, 0, "hey"), Undo{}, Redo{}),
			want: "hey|", effects: []Effect{SetView{Start: 0, End: 0, Text: "hey", SelStart: 3, SelEnd: 3}}},
		{name: "no merge into an undone-then-redone step", start: "|", steps: append(append(typed(0, 0, "ab"), Undo{}, Redo{}), append(typed(2, 300, "c"), Undo{})...),
			want: "ab|", effects: []Effect{SetView{Start: 2, End: 3, SelStart: 2, SelEnd: 2}}},
		{name: "undo brings a removed chip back, same id", start: "a￼|", steps: []step{backspace(2), Undo{}},
			want: "a[￼]", effects: []Effect{SetView{Start: 1, End: 1, Text: chip, SelStart: 1, SelEnd: 2}}},
		{name: "undo of insert-ref reports the chip's removal", start: "@m|", steps: []step{insertRef(ref("m"), 0, 2), Undo{}},
			want: "[@m]", effects: []Effect{ChipRemoved{ID: 1, Reference: ref("m")}, SetView{Start: 0, End: 1, Text: "@m", SelStart: 0, SelEnd: 2}}},
		{name: "undo of begin-command drops the claim", start: "/ex|", steps: steps(toClaimed, Undo{}),
			want: "[/ex]", phase: Plain, effects: []Effect{SetView{Start: 0, End: 9, Text: "/ex", SelStart: 0, SelEnd: 3}}},
		{name: "undo into a token brings the claim back", start: "/ex|", steps: steps(toClaimed, backspace(9), Undo{}),
			want: "/example[ ]", phase: Claimed, effects: []Effect{SetView{Start: 8, End: 8, Text: " ", SelStart: 8, SelEnd: 9}}},
		{name: "nothing to undo", start: "x|", steps: []step{Undo{}}, want: "x|"},
		{name: "a successful submit clears the log", start: "x|", steps: steps(toSubmitting, SubmitSettled{Attempt: attemptID(1)}, Undo{}),
			want: "|"},
		{name: "a restored submit restores the log", start: "|", steps: append(typed(0, 0, "hi"), Submit{}, AdjudicationFailed{Attempt: attemptID(1)}, Undo{}),
			want: "|", effects: []Effect{SetView{Start: 0, End: 2}}},
	})
}

// TestUndoGroupsErasures (QA: after `abcdef`, six Backspaces took six Ctrl+Z to undo): a run
// of single-character Backspaces, or of Deletes, is one undo step within the merge window,
// as typing is and as a textarea groups them; the run comes back selected.
func TestUndoGroupsErasures(t *testing.T) {
	// backspaces erases n characters before caret, one a keystroke from ms on, 100 ms apart;
	// deletes erases n after it.
	backspaces := func(caret, n, ms int) []step {
		var s []step
		for i := range n {
			s = append(s, Edit{Start: caret - i - 1, End: caret - i, At: at(ms + 100*i)})
		}
		return s
	}
	deletes := func(caret, n, ms int) []step {
		var s []step
		for i := range n {
			s = append(s, Edit{Start: caret, End: caret + 1, At: at(ms + 100*i)})
		}
		return s
	}
	then := func(a []step, b ...step) []step { return append(append([]step(nil), a...), b...) }
	runTable(t, []tcase{
		{name: "six Backspaces are one step", start: "abcdef|", steps: then(backspaces(6, 6, 0), Undo{}),
			want: "[abcdef]", effects: []Effect{SetView{Start: 0, End: 0, Text: "abcdef", SelStart: 0, SelEnd: 6}}},
		{name: "and one redo erases them again", start: "abcdef|", steps: then(backspaces(6, 6, 0), Undo{}, Redo{}),
			want: "|", effects: []Effect{SetView{Start: 0, End: 6, SelStart: 0, SelEnd: 0}}},
		{name: "Backspaces mid-draft", start: "see abc| now", steps: then(backspaces(7, 3, 0), Undo{}),
			want: "see [abc] now", effects: []Effect{SetView{Start: 4, End: 4, Text: "abc", SelStart: 4, SelEnd: 7}}},
		{name: "three Deletes are one step", start: "x|abc", steps: then(deletes(1, 3, 0), Undo{}),
			want: "x[abc]", effects: []Effect{SetView{Start: 1, End: 1, Text: "abc", SelStart: 1, SelEnd: 4}}},
		{name: "a surrogate pair is one character", start: "a😀b|", steps: then([]step{Edit{Start: 3, End: 4, At: at(0)}, Edit{Start: 1, End: 3, At: at(100)}}, Undo{}),
			want: "a[😀b]", effects: []Effect{SetView{Start: 1, End: 1, Text: "😀b", SelStart: 1, SelEnd: 4}}},
		{name: "a pause past the window starts a new step", start: "abcd|", steps: then(append(backspaces(4, 2, 0), backspaces(2, 2, 5000)...), Undo{}),
			want: "[ab]", effects: []Effect{SetView{Start: 0, End: 0, Text: "ab", SelStart: 0, SelEnd: 2}}},
		{name: "typing then erasing is two steps", start: "|", steps: []step{typeAt(0, "a"), typeAt(1, "b"), Edit{Start: 1, End: 2, At: at(0)}, Undo{}},
			want: "a[b]", effects: []Effect{SetView{Start: 1, End: 1, Text: "b", SelStart: 1, SelEnd: 2}}},
		{name: "erasing then typing is two steps", start: "ab|", steps: then(backspaces(2, 1, 0), Edit{Start: 1, End: 1, Text: "x", At: at(100)}, Undo{}),
			want: "a|", effects: []Effect{SetView{Start: 1, End: 2, SelStart: 1, SelEnd: 1}}},
		{name: "Backspaces then Deletes are two steps", start: "ab|cd", steps: then(append(backspaces(2, 2, 0), deletes(0, 2, 200)...), Undo{}),
			want: "[cd]", effects: []Effect{SetView{Start: 0, End: 0, Text: "cd", SelStart: 0, SelEnd: 2}}},
		{name: "Deletes then Backspaces are two steps", start: "ab|cd", steps: then(append(deletes(2, 2, 0), backspaces(2, 2, 200)...), Undo{}),
			want: "[ab]", effects: []Effect{SetView{Start: 0, End: 0, Text: "ab", SelStart: 0, SelEnd: 2}}},
		{name: "an erasure elsewhere is a new step", start: "abc|", steps: []step{Edit{Start: 2, End: 3, At: at(0)}, Edit{Start: 0, End: 1, At: at(100)}, Undo{}},
			want: "[a]b", effects: []Effect{SetView{Start: 0, End: 0, Text: "a", SelStart: 0, SelEnd: 1}}},
		{name: "a chip erased is a step of its own", start: "ab￼|", steps: then(backspaces(3, 3, 0), Undo{}),
			want: "[ab]", effects: []Effect{SetView{Start: 0, End: 0, Text: "ab", SelStart: 0, SelEnd: 2}}},
		{name: "a word erased at once is a step of its own", start: "ab cd|", steps: []step{Edit{Start: 3, End: 5, At: at(0)}, Edit{Start: 2, End: 3, At: at(100)}, Undo{}},
			want: "ab[ ]", effects: []Effect{SetView{Start: 2, End: 2, Text: " ", SelStart: 2, SelEnd: 3}}},
	})
}

func TestUndoRing(t *testing.T) {
	m := build(t, "|")
	for i := range 150 {
		run(t, m, Edit{Start: i, End: i, Text: "x", At: at(10_000 * i)})
	}
	n := 0
	for m.CanUndo() {
		run(t, m, Undo{})
		n++
	}
	equal(t, "undo steps", n, 100)
	equal(t, "left after undoing the ring", m.Len(), 50)
}

// TestRingMemory fills the ring with edits to a 100 KB draft and reports the heap the
// log holds: it stores changes, so it stays flat however large the draft. The draft's own
// gap buffer may double once along the way; that is the draft, not the log, and is
// subtracted. A record with its slices is some 300 B in the allocator's size classes, so a
// full ring of 100 holds about 30 KB; the bound allows twice that for the collector's
// noise, where a log of copies would hold 100 × 200 KB.
func TestRingMemory(t *testing.T) {
	m := bigDraft(t, 100_000, 1000)
	heap := func() int64 {
		runtime.GC()
		var s runtime.MemStats
		runtime.ReadMemStats(&s)
		return int64(s.HeapAlloc) - 2*int64(cap(m.buf.b))
	}
	base := heap()
	var report []string
	for i := 1; i <= 200; i++ {
		p := 1 + (i*997)%(m.Len()-2)
		for m.splitsPair(p) {
			p++
		}
		run(t, m, Edit{Start: p, End: p, Text: "x", At: at(10_000 * i)})
		if i%25 == 0 {
			grown := heap() - base
			report = append(report, fmt.Sprintf("%d: %+d B", i, grown))
			if grown > 64<<10 {
				t.Errorf("the log grew by %d B after %d edits to a 100 KB draft", grown, i)
			}
		}
	}
	t.Logf("heap held by the undo ring after N edits to a 100 KB draft with 1000 chips (ring = 100): %s", strings.Join(report, ", "))
	runtime.KeepAlive(m)
}

// TestUndoLog pins the log's edges: the merge window on the injected clock, merging only
// at the caret, redo truncated by a new edit, chip ids kept across undo and redo, the
// ring's size.
func TestUndoLog(t *testing.T) {
	t.Run("merge window edge, injected clock", func(t *testing.T) {
		m := buildCfg(t, Config{Session: "s", MergeWindow: 500 * time.Millisecond}, "|")
		run(t, m, Edit{Start: 0, End: 0, Text: "a", At: at(0)}, Edit{Start: 1, End: 1, Text: "b", At: at(500)},
			Edit{Start: 2, End: 2, Text: "c", At: at(1001)})
		run(t, m, Undo{})
		equal(t, "501 ms later is a new step", show(m), "ab|")
		run(t, m, Undo{})
		equal(t, "exactly the window merges", show(m), "|")
	})
	t.Run("the window slides with each keystroke", func(t *testing.T) {
		m := build(t, "|")
		for i := range 5 {
			run(t, m, Edit{Start: i, End: i, Text: "x", At: at(900 * i)})
		}
		run(t, m, Undo{})
		equal(t, "one step", show(m), "|")
	})
	t.Run("a clock going backwards does not merge", func(t *testing.T) {
		m := build(t, "|")
		run(t, m, Edit{Start: 0, End: 0, Text: "a", At: at(1000)}, Edit{Start: 1, End: 1, Text: "b", At: at(900)}, Undo{})
		equal(t, "draft", show(m), "a|")
	})
	t.Run("typing elsewhere is a new step", func(t *testing.T) {
		m := build(t, "ab|")
		run(t, m, typeAt(2, "x"), typeAt(0, "y"), Undo{})
		equal(t, "draft", show(m), "|abx")
	})
	t.Run("pasting never merges", func(t *testing.T) {
		m := build(t, "ab|")
		run(t, m, PasteBegin{Text: "x", Selection: Range{2, 2}}, typeAt(3, "y"), Undo{})
		equal(t, "typing after a paste", show(m), "abx|")
		run(t, m, backspace(3), Undo{})
		equal(t, "a Backspace after a paste", show(m), "ab[x]")
	})
	t.Run("a new edit truncates redo", func(t *testing.T) {
		m := build(t, "|")
		run(t, m, typeAt(0, "a"), Undo{}, typeAt(0, "b"))
		equal(t, "can redo", m.CanRedo(), false)
		equal(t, "redo does nothing", run(t, m, Redo{}), []Effect(nil))
		equal(t, "draft", show(m), "b|")
	})
	t.Run("undo and redo keep occurrence ids", func(t *testing.T) {
		m := build(t, "￼ ￼|")
		run(t, m, Edit{Start: 0, End: 3}) // both chips in one deletion
		run(t, m, Undo{})
		equal(t, "ids after undo", idsOf(m), []OccurrenceID{1, 2})
		run(t, m, insertRef(ref("c"), 3, 3), Undo{}, Redo{})
		equal(t, "ids after redo", idsOf(m), []OccurrenceID{1, 2, 3})
		run(t, m, insertRef(ref("d"), 0, 0))
		equal(t, "a new chip gets a new id", idsOf(m), []OccurrenceID{4, 1, 2, 3})
	})
	t.Run("a smaller ring", func(t *testing.T) {
		m := buildCfg(t, Config{Session: "s", UndoDepth: 3}, "|")
		for i := range 5 {
			run(t, m, Edit{Start: i, End: i, Text: "x", At: at(10_000 * i)})
		}
		for m.CanUndo() {
			run(t, m, Undo{})
		}
		equal(t, "three steps back", show(m), "xx|")
		for m.CanRedo() {
			run(t, m, Redo{})
		}
		equal(t, "and forward again", show(m), "xxxxx|")
	})
}

func idsOf(m *Machine) []OccurrenceID {
	var ids []OccurrenceID
	for _, o := range m.Occurrences() {
		ids = append(ids, o.ID)
	}
	return ids
}
