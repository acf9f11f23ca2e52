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

// TestOneDraftReadsTheSameEverywhere: the send, the saved draft (restored after a reload)
// and a copy read a chip as the same words, spaced from a letter or a chip beside it as the
// screen draws it (QA round 14 #2: "see ￼now" was sent "see @README.md now", but saved and
// copied "see @README.mdnow", a file that does not exist).
func TestOneDraftReadsTheSameEverywhere(t *testing.T) {
	readme, mk := ref("README.md"), ref("Makefile")
	for _, c := range []struct {
		name, draft string
		refs        []Reference
		want        string
	}{
		{"a word typed straight after the chip", "see ￼now", []Reference{readme}, "see @README.md now"},
		{"a word straight before it", "see￼ now", []Reference{readme}, "see @README.md now"},
		{"a space typed: none added", "Look at ￼ and summarise", []Reference{readme}, "Look at @README.md and summarise"},
		{"punctuation stays on the chip", "(￼), ok", []Reference{readme}, "(@README.md), ok"},
		{"two chips side by side", "￼￼", []Reference{readme, mk}, "@README.md @Makefile"},
		{"digits and other scripts", "1￼é", []Reference{readme}, "1 @README.md é"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := build(t, c.draft, c.refs...)
			equal(t, "saved draft", m.PersistText(), c.want)
			equal(t, "select-all copy", m.ClipboardText(0, m.Len()), c.want)
			var texts []step
			for i, r := range c.refs {
				texts = append(texts, Serialized{Attempt: attemptID(1), ID: OccurrenceID(i + 1), Text: r.ClipboardText})
			}
			effs := run(t, m, append([]step{Submit{}, Adjudicated{Attempt: attemptID(1)}}, texts...)...)
			equal(t, "send", effs, []Effect{DefaultSink{Attempt: attemptID(1), Text: c.want}})
		})
	}
	m := build(t, "see ￼now", readme)
	equal(t, "a copy from inside the word after the chip", m.ClipboardText(4, 6), "@README.md n")
	equal(t, "the chip alone", m.ClipboardText(4, 5), "@README.md")
	equal(t, "a copy that ends at the chip has no space after it", m.ClipboardText(0, 5), "see @README.md")
	m = build(t, "see￼now", readme)
	equal(t, "a copy from inside the word before the chip", m.ClipboardText(2, 4), "e @README.md")
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
