package input

import (
	"testing"

	"parley/machine/machinetest"
)

func TestProjections(t *testing.T) {
	m := build(t, "see ￼ and ￼!", ref("a.go"), ref("b.go"))
	run(t, m, SetInvalid{IDs: []OccurrenceID{2}})
	equal(t, "persist", m.PersistText(), "see @a.go and @b.go!")
	equal(t, "copy of a selection", m.ClipboardText(2, 7), "e @a.go a")
	equal(t, "copy clamps", m.ClipboardText(-3, 99), m.PersistText())
	equal(t, "backdrop", m.Backdrop(), []Segment{
		{Text: "see "},
		{Text: "a.go", Chip: true, Occ: Occurrence{ID: 1, Reference: ref("a.go"), Offset: 4}},
		{Text: " and "},
		{Text: "b.go", Chip: true, Occ: Occurrence{ID: 2, Reference: ref("b.go"), Offset: 10, Invalid: true}},
		{Text: "!"},
	})
}

func TestEnumStrings(t *testing.T) {
	equal(t, "phases", []string{Plain.String(), Adjudicating.String(), Claimed.String(), Submitting.String(), Phase(9).String()},
		[]string{"plain", "adjudicating", "claimed", "submitting", "Phase(9)"})
	equal(t, "modes", []string{Queue.String(), Steer.String()}, []string{"queue", "steer"})
	equal(t, "reasons", []string{Stale.String(), Busy.String(), OutOfRange.String(), Guard.String(), Empty.String(), Reason(-1).String()},
		[]string{"stale", "busy", "out-of-range", "guard", "empty", "Reason(-1)"})
	equal(t, "notices", []string{AdjudicationFailedNotice.String(), SendFailedNotice.String(), SerializeFailedNotice.String(), NoOwnerNotice.String(), CanceledNotice.String()},
		[]string{"adjudication-failed", "send-failed", "serialize-failed", "no-owner", "canceled"})
	equal(t, "stages", []string{stageAdjudicating.String(), stageSerializing.String(), stageSending.String()},
		[]string{"adjudicating", "serializing", "sending"})
}

// TestEffectsAreComparable holds the line that effects are plain data (machine/machinetest).
func TestEffectsAreComparable(t *testing.T) {
	machinetest.Comparable(t, []Effect{SetView{}, Refused{}, ChipRemoved{}, Adjudicate{}, Serialize{}, DefaultSink{}, BeginSubmit{}, Abort{}, Notice{}, MatchPaste{}}...)
}

func TestSliceReadsAroundAnEdit(t *testing.T) {
	m := New(Config{})
	m.Dispatch(DraftChanged{Draft: "ab😀cd"})
	m.Dispatch(Edit{Start: 1, End: 1, Text: "x"})
	cases := []struct {
		s, e int
		want string
	}{{0, 2, "ax"}, {2, 6, "b😀c"}, {-3, 100, "axb😀cd"}, {4, 2, ""}}
	for _, c := range cases {
		if got := m.Slice(c.s, c.e); got != c.want {
			t.Errorf("Slice(%d, %d) = %q, want %q", c.s, c.e, got, c.want)
		}
	}
}
