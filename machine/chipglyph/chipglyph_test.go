package chipglyph

import (
	"math"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestPick(t *testing.T) {
	for _, c := range []struct {
		label float64
		want  rune
		em    float64
	}{
		{0, First + 1, 1},            // nothing but the padding: 1em, still a visible box
		{-3, First, 0.75},            // nonsense measures are not wider
		{math.NaN(), First, 0.75},    // nor is a failed one
		{0.2, First + 1, 1},          // 1.0em needed: exactly glyph 1
		{0.2001, First + 2, 1.25},    // a hair over: the next quarter
		{4.2, First + 17, 5},         // "@README.md" in a UI sans serif is about 4.2em
		{5.0, First + 21, 6},         // 5.8em: rounded up to the quarter
		{MaxEm - PadEm, Last, MaxEm}, // the widest glyph exactly
		{MaxEm, Last, MaxEm},         // wider than any: the widest, the label is cut
		{math.Inf(1), Last, MaxEm},   // and so is infinity
		{1e300, Last, MaxEm},         // no overflow
		{3*StepEm - PadEm + MinEm, First + 3, MinEm + 3*StepEm}, // exact steps stay exact
	} {
		got := Pick(c.label)
		if got != c.want {
			t.Errorf("Pick(%v) = U+%04X, want U+%04X", c.label, got, c.want)
			continue
		}
		em, ok := Advance(got)
		if !ok || em != c.em {
			t.Errorf("Advance(Pick(%v)) = %v, %v; want %v", c.label, em, ok, c.em)
		}
		if c.label == c.label && c.label+PadEm <= MaxEm && em < c.label+PadEm {
			t.Errorf("Pick(%v): %vem does not hold the label and its padding", c.label, em)
		}
	}
}

// Every width from nothing to past the widest picks the narrowest glyph that holds it, and
// wider labels never get narrower glyphs.
func TestPickIsTheNarrowestThatHolds(t *testing.T) {
	prev := First
	for x := 0.0; x < MaxEm+2; x += 0.01 {
		g := Pick(x)
		if g < prev {
			t.Fatalf("Pick(%v) = U+%04X narrower than for a narrower label (U+%04X)", x, g, prev)
		}
		prev = g
		em, _ := Advance(g)
		if x+PadEm <= MaxEm {
			if em < x+PadEm {
				t.Fatalf("Pick(%v): %vem does not hold %vem", x, em, x+PadEm)
			}
			if g > First {
				if less, _ := Advance(g - 1); less >= x+PadEm {
					t.Fatalf("Pick(%v) = %vem, but %vem holds it", x, em, less)
				}
			}
		} else if g != Last {
			t.Fatalf("Pick(%v) = U+%04X, want the widest", x, g)
		}
	}
}

func TestFit(t *testing.T) {
	for _, c := range []struct {
		label, line float64
		want        rune
	}{
		{6.5, 0, Pick(6.5)},     // no line: Pick
		{6.5, -1, Pick(6.5)},    // nor a nonsense one
		{6.5, 40, Pick(6.5)},    // a wide line: Pick
		{6.5, 7.5, First + 27},  // exactly the label's glyph (7.5em)
		{6.5, 7.49, First + 26}, // a hair less: the next narrower, 7.25em
		{20, 13.3, First + 50},  // 13.25em, the widest within the line
		{20, 0.5, First},        // narrower than any glyph: the narrowest
		{math.NaN(), 10, First}, // a failed measure
	} {
		if got := Fit(c.label, c.line); got != c.want {
			t.Errorf("Fit(%v, %v) = U+%04X, want U+%04X", c.label, c.line, got, c.want)
		}
		if em, _ := Advance(Fit(c.label, c.line)); c.line >= MinEm && em > c.line {
			t.Errorf("Fit(%v, %v) is %vem, wider than the line", c.label, c.line, em)
		}
	}
}

func TestAdvanceAndRange(t *testing.T) {
	if Last != 0xE465 {
		t.Errorf("Last = U+%04X", Last)
	}
	for _, r := range []rune{First - 1, Last + 1, Placeholder, 'a', 0xE000} {
		if IsGlyph(r) {
			t.Errorf("U+%04X is not a chip glyph", r)
		}
		if _, ok := Advance(r); ok {
			t.Errorf("U+%04X has no advance", r)
		}
	}
	for r := First; r <= Last; r++ {
		if utf16.RuneLen(r) != 1 {
			t.Fatalf("U+%04X is %d UTF-16 units: a chip is one", r, utf16.RuneLen(r))
		}
	}
	if em, _ := Advance(Last); em != 26 {
		t.Errorf("the widest glyph is %vem", em)
	}
}

func TestShown(t *testing.T) {
	long := "@docs/architecture/a-very-long-file-name.md"
	for _, c := range []struct {
		label, want string
		cut         bool
	}{
		{"@README.md", "@README.md", false},
		{"", "", false},
		{strings.Repeat("x", MaxChars), strings.Repeat("x", MaxChars), false},
		{strings.Repeat("x", MaxChars+1), strings.Repeat("x", MaxChars-1) + "…", true},
		{long, long[:MaxChars-1] + "…", true},
		{strings.Repeat("文", 30), strings.Repeat("文", MaxChars-1) + "…", true}, // characters, not bytes
		{strings.Repeat("文", MaxChars), strings.Repeat("文", MaxChars), false},
	} {
		got, cut := Shown(c.label)
		if got != c.want || cut != c.cut {
			t.Errorf("Shown(%q) = %q, %v; want %q, %v", c.label, got, cut, c.want, c.cut)
		}
		if n := utf8.RuneCountInString(got); n > MaxChars {
			t.Errorf("Shown(%q) has %d characters", c.label, n)
		}
	}
}

// The estimate puts the common labels in the glyphs a browser measures for them, give or
// take a step, and holds 24 of the widest characters within the widest glyph.
func TestEstimate(t *testing.T) {
	for _, c := range []struct {
		label  string
		lo, hi float64
	}{
		{"@README.md", 5.5, 7.5},
		{"@a", 1, 2},
		{"@main.go", 3.5, 5},
		{"@文件", 2.5, 3.5},
	} {
		if em := EstimateEm(c.label); em < c.lo || em > c.hi {
			t.Errorf("EstimateEm(%q) = %v, want within [%v, %v]", c.label, em, c.lo, c.hi)
		}
	}
	for _, widest := range []string{strings.Repeat("W", MaxChars), strings.Repeat("文", MaxChars)} {
		if em := EstimateEm(widest) + PadEm; em > MaxEm {
			t.Errorf("%q needs %vem, more than the widest glyph", widest, em)
		}
	}
}

func TestViewMapping(t *testing.T) {
	g := func(i int) rune { return First + rune(i) }
	for _, c := range []struct {
		draft  string
		glyphs []rune
		view   string
	}{
		{"", nil, ""},
		{"plain text", []rune{g(3)}, "plain text"},
		{"see \uFFFC ok", []rune{g(17)}, "see \uE411 ok"},
		{"\uFFFC\uFFFC\uFFFC", []rune{g(0), g(101), g(5)}, "\uE400\uE465\uE405"},
		{"a \uFFFC 文 \uFFFC 😀", []rune{g(1)}, "a \uE401 文 \uFFFC 😀"}, // a chip with no glyph keeps U+FFFC
		{"\uFFFCx", []rune{'x'}, "\uFFFCx"},                          // nor does a non-glyph
	} {
		v := ToView(c.draft, c.glyphs)
		if v != c.view {
			t.Errorf("ToView(%q) = %q, want %q", c.draft, v, c.view)
		}
		if back := FromView(v); back != c.draft {
			t.Errorf("FromView(%q) = %q, want %q", v, back, c.draft)
		}
	}
	// A glyph the person typed reads as U+FFFC: the machine's stray.
	if got := FromView("x\uE420y\uE47Fz"); got != "x\uFFFCy\uE47Fz" {
		t.Errorf("FromView = %q", got)
	}
}

// FuzzViewOffsets: for any draft the machine can hold (no chip glyph in it) and any glyphs,
// the view has the draft's UTF-16 length, a chip glyph at exactly the draft's U+FFFC units
// and the draft's unit everywhere else, and reads back as the draft.
func FuzzViewOffsets(f *testing.F) {
	f.Add("see \uFFFC and \uFFFC.", []byte{17, 3})
	f.Add("文\uFFFC😀\uFFFC\uFFFC", []byte{0, 255, 101})
	f.Add("\uE400 typed", []byte{1})
	f.Add("\xff\uFFFC", []byte{9})
	f.Fuzz(func(t *testing.T, draft string, seed []byte) {
		if !utf8.ValidString(draft) {
			draft = strings.ToValidUTF8(draft, "\uFFFD")
		}
		// The machine never holds a glyph of the range (it replaces it, as U+FFFC, by U+FFFD).
		draft = strings.Map(func(r rune) rune {
			if IsGlyph(r) {
				return 0xFFFD
			}
			return r
		}, draft)
		glyphs := make([]rune, len(seed))
		for i, b := range seed {
			glyphs[i] = First + rune(int(b)%(Count+4)) // some past Last: not glyphs
		}
		view := ToView(draft, glyphs)
		du, vu := utf16.Encode([]rune(draft)), utf16.Encode([]rune(view))
		if len(du) != len(vu) {
			t.Fatalf("%d units in the draft, %d in the view", len(du), len(vu))
		}
		k := 0
		for i := range du {
			if du[i] == Placeholder {
				want := uint16(Placeholder)
				if k < len(glyphs) && IsGlyph(glyphs[k]) {
					want = uint16(glyphs[k])
				}
				if vu[i] != want {
					t.Fatalf("unit %d: chip %d is U+%04X in the view, want U+%04X", i, k, vu[i], want)
				}
				k++
				continue
			}
			if vu[i] != du[i] {
				t.Fatalf("unit %d: U+%04X became U+%04X", i, du[i], vu[i])
			}
		}
		if back := FromView(view); back != draft {
			t.Fatalf("FromView(ToView(%q)) = %q", draft, back)
		}
	})
}
