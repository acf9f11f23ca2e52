// Package chipglyph sizes the input bar's chips: which character of the ParleyChip font
// (tools/chipfont, web/chip.ttf) stands for a chip in the textarea, and the one mapping
// between the machine's draft and the textarea's value.
//
// The machine keeps one U+FFFC per chip. The textarea holds, at the same offset, one of
// Count empty glyphs in the Private Use Area, U+E400 onwards, graded from MinEm to MaxEm
// in steps of StepEm: the one whose advance holds the chip's label. Every glyph is one
// UTF-16 unit, as U+FFFC is, so every offset, selection, undo step and IME range of the
// draft is the textarea's, unchanged. ToView writes the draft for the textarea, FromView
// reads the textarea back; the machine never holds a glyph of the range (it takes one in
// user text for a stray, as it does U+FFFC), so the two are exact inverses.
//
// See docs/input.md, "Chips that size to their label".
package chipglyph

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// Placeholder is the machine's chip, U+FFFC (machine/input.Placeholder).
	Placeholder = '\uFFFC'
	// First is the narrowest glyph; glyph i is First+i, MinEm + i*StepEm wide.
	First rune = 0xE400
	// Count glyphs: 0.75em to 26em. 26em holds 24 characters of the widest labels a
	// workspace has (capitals, CJK at 1em each) with the chip's padding.
	Count  = 102
	MinEm  = 0.75
	StepEm = 0.25
	MaxEm  = MinEm + (Count-1)*StepEm
	// MaxChars is the longest label a chip shows whole; a longer one is sized for its
	// first MaxChars-1 characters and an ellipsis, and cut there with its whole text in
	// the chip's title.
	MaxChars = 24
	// PadEm is what a chip adds to its label: 0.35em of padding each side (web/parley.css,
	// .ib-chip-label) and 0.1em of slack for the rounding between a measure and a layout.
	PadEm = 0.8
)

// Last is the widest glyph.
const Last = First + Count - 1

// IsGlyph reports whether r is one of the graded chip glyphs.
func IsGlyph(r rune) bool { return r >= First && r <= Last }

// Advance is glyph r's width in em, and whether r is a chip glyph at all.
func Advance(r rune) (float64, bool) {
	if !IsGlyph(r) {
		return 0, false
	}
	return MinEm + float64(r-First)*StepEm, true
}

// Pick is the narrowest glyph that holds a label labelEm wide with the chip's padding; a
// label too wide for any gets the widest.
func Pick(labelEm float64) rune {
	need := labelEm + PadEm
	if !(need > MinEm) { // also NaN
		return First
	}
	if need >= MaxEm {
		return Last
	}
	// The smallest i with MinEm + i*StepEm >= need, exact for the quarter steps.
	i := int((need - MinEm) / StepEm)
	if MinEm+float64(i)*StepEm < need {
		i++
	}
	if i >= Count {
		return Last
	}
	return First + rune(i)
}

// Fit is Pick for a textarea whose lines are lineEm wide: never a glyph wider than the line
// (the label is then cut to it), since a chip that overflows its line is laid out apart in
// the textarea and in the backdrop's element. The narrowest glyph, when even it is wider;
// no limit when lineEm is not positive.
func Fit(labelEm, lineEm float64) rune {
	g := Pick(labelEm)
	if !(lineEm > 0) {
		return g
	}
	for g > First {
		if em, _ := Advance(g); em <= lineEm {
			break
		}
		g--
	}
	return g
}

// Shown is the text a chip's width is measured on: the label itself up to MaxChars
// characters, else its first MaxChars-1 and an ellipsis (cut reports so).
func Shown(label string) (text string, cut bool) {
	if utf8.RuneCountInString(label) <= MaxChars {
		return label, false
	}
	n, i := 0, 0
	for i = range label {
		if n == MaxChars-1 {
			break
		}
		n++
	}
	return label[:i] + "…", true
}

// EstimateEm is a label's width in em in a UI sans serif, from its characters' classes:
// for when nothing can measure it (the shell measures with the page's own font).
func EstimateEm(s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r == ' ' || r == '.' || r == ',' || r == ':' || r == ';' || r == '\'' || r == '|' || r == '!':
			w += 0.3
		case r == 'i' || r == 'l' || r == 'j' || r == 'I' || r == 't' || r == 'f' || r == '/' || r == '-' || r == '(' || r == ')':
			w += 0.35
		case r == 'm' || r == 'w' || r == 'M' || r == 'W' || r == '@' || r == '%':
			w += 0.9
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r >= 0xFF00 && r <= 0xFFEF || r >= 0x3000 && r <= 0x303F:
			w += 1
		case unicode.IsUpper(r) || unicode.IsDigit(r):
			w += 0.65
		default:
			w += 0.55
		}
	}
	return w
}

// ToView is the draft as the textarea holds it: its k-th U+FFFC (the k-th chip) becomes
// glyphs[k]. A chip without a glyph (glyphs too short, or not a chip glyph) keeps U+FFFC,
// which the font draws 7em wide. The UTF-16 length and every other character are the
// draft's.
func ToView(draft string, glyphs []rune) string {
	if !strings.ContainsRune(draft, Placeholder) {
		return draft
	}
	var b strings.Builder
	b.Grow(len(draft))
	k, prev := 0, 0
	for i, r := range draft {
		if r != Placeholder {
			continue
		}
		b.WriteString(draft[prev:i])
		g := Placeholder
		if k < len(glyphs) && IsGlyph(glyphs[k]) {
			g = glyphs[k]
		}
		b.WriteRune(g)
		k++
		prev = i + len(string(Placeholder))
	}
	b.WriteString(draft[prev:])
	return b.String()
}

// FromView is the textarea's text as the machine counts it: every chip glyph becomes
// U+FFFC. A glyph typed or dropped by the person then reaches the machine as a U+FFFC in
// user text, which it takes for a stray.
func FromView(view string) string {
	// Every glyph of the range is 3 bytes in UTF-8, starting 0xEE 0x90/0x91.
	if !strings.Contains(view, "\xee\x90") && !strings.Contains(view, "\xee\x91") {
		return view
	}
	var b strings.Builder
	b.Grow(len(view))
	prev := 0
	for i, r := range view {
		if !IsGlyph(r) {
			continue
		}
		b.WriteString(view[prev:i])
		b.WriteRune(Placeholder)
		prev = i + utf8.RuneLen(r)
	}
	b.WriteString(view[prev:])
	return b.String()
}
