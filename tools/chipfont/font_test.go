package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"regexp"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"parley/machine/chipglyph"
)

// The committed font is this generator's output: regenerate it with
// `go run ./tools/chipfont` when the design changes.
func TestCommittedFontIsGenerated(t *testing.T) {
	committed, err := os.ReadFile("../../web/chip.ttf")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, Font()) {
		t.Fatal("web/chip.ttf is not the generator's output: run `go run ./tools/chipfont`")
	}
	if len(committed) > 2048 {
		t.Errorf("the font is %d bytes: it should stay tiny (served uncompressed)", len(committed))
	}
}

func TestFontParses(t *testing.T) {
	f, err := sfnt.Parse(Font())
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	if got := f.UnitsPerEm(); got != UnitsPerEm {
		t.Errorf("units per em %d, want %d", got, UnitsPerEm)
	}
	if got := f.NumGlyphs(); got != numGlyphs {
		t.Errorf("%d glyphs, want %d", got, numGlyphs)
	}
	if fam, err := f.Name(&buf, sfnt.NameIDFamily); err != nil || fam != Family {
		t.Errorf("family %q (%v), want %q", fam, err, Family)
	}
	gi, err := f.GlyphIndex(&buf, ChipRune)
	if err != nil || gi != chipGlyph {
		t.Fatalf("U+FFFC maps to glyph %d (%v), want %d", gi, err, chipGlyph)
	}
	// At 15px (the page's font size) the chip is 7em: 105px, exactly.
	adv, err := f.GlyphAdvance(&buf, gi, fixed.I(15), font.HintingNone)
	if err != nil {
		t.Fatal(err)
	}
	if want := fixed.I(15 * ChipEm); adv != want {
		t.Errorf("U+FFFC advances %v at 15px, want %v", adv, want)
	}
	// In font units, unscaled.
	adv, err = f.GlyphAdvance(&buf, gi, fixed.Int26_6(UnitsPerEm), font.HintingNone)
	if err != nil || adv != fixed.Int26_6(ChipEm*UnitsPerEm) {
		t.Errorf("U+FFFC advances %d units (%v), want %d", adv, err, ChipEm*UnitsPerEm)
	}
	segs, err := f.LoadGlyph(&buf, gi, fixed.I(15), nil)
	if err != nil || len(segs) != 0 {
		t.Errorf("the chip's glyph has %d outline segments (%v), want none", len(segs), err)
	}
	// No other character is in the font.
	for _, r := range []rune{' ', 'a', '@', 0xFFFD, 0xFFFB, chipglyph.First - 1, chipglyph.Last + 1, 0xE000} {
		if gi, err := f.GlyphIndex(&buf, r); err != nil || gi != 0 {
			t.Errorf("U+%04X maps to glyph %d (%v), want none", r, gi, err)
		}
	}
}

// Each graded glyph of machine/chipglyph is in the font, empty, as wide as chipglyph.Advance
// says: the width the shell picks is the width the browser lays out.
func TestGradedGlyphs(t *testing.T) {
	f, err := sfnt.Parse(Font())
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	seen := map[sfnt.GlyphIndex]bool{}
	prev := fixed.Int26_6(0)
	for r := chipglyph.First; r <= chipglyph.Last; r++ {
		gi, err := f.GlyphIndex(&buf, r)
		if err != nil || gi < firstGraded || seen[gi] {
			t.Fatalf("U+%04X maps to glyph %d (%v): want a graded glyph of its own", r, gi, err)
		}
		seen[gi] = true
		em, ok := chipglyph.Advance(r)
		if !ok {
			t.Fatalf("U+%04X has no advance in chipglyph", r)
		}
		adv, err := f.GlyphAdvance(&buf, gi, fixed.Int26_6(UnitsPerEm), font.HintingNone)
		if err != nil || adv != fixed.Int26_6(em*UnitsPerEm) {
			t.Errorf("U+%04X advances %d units (%v), want %v", r, adv, err, em*UnitsPerEm)
		}
		if adv <= prev {
			t.Errorf("U+%04X is not wider than the glyph before it", r)
		}
		prev = adv
		if segs, err := f.LoadGlyph(&buf, gi, fixed.I(15), nil); err != nil || len(segs) != 0 {
			t.Errorf("U+%04X's glyph has %d outline segments (%v), want none", r, len(segs), err)
		}
	}
	if len(seen) != chipglyph.Count {
		t.Errorf("%d graded glyphs, want %d", len(seen), chipglyph.Count)
	}
	// "@README.md" (about 6.5em in a UI sans serif, plus the padding) gets a glyph of 7.5em
	// at most: 112.5px at 15px, not the 7em it was cut to.
	gi, _ := f.GlyphIndex(&buf, chipglyph.Pick(6.5))
	if adv, _ := f.GlyphAdvance(&buf, gi, fixed.I(15), font.HintingNone); adv != fixed.I(15*75)/10 {
		t.Errorf("a 6.5em label's chip is %v at 15px, want 112.5px", adv)
	}
}

// Every table's checksum is right, and the whole file sums to 0xB1B0AFBA.
func TestChecksums(t *testing.T) {
	b := Font()
	if got := checksum(b); got != 0xB1B0AFBA {
		t.Errorf("file checksum %08x, want b1b0afba", got)
	}
	n := int(binary.BigEndian.Uint16(b[4:]))
	for i := range n {
		e := b[12+16*i:]
		tag := string(e[:4])
		sum, off, l := binary.BigEndian.Uint32(e[4:]), binary.BigEndian.Uint32(e[8:]), binary.BigEndian.Uint32(e[12:])
		if off%4 != 0 {
			t.Errorf("%s at %d: not 4-byte aligned", tag, off)
		}
		body := append([]byte(nil), b[off:off+l]...)
		if tag == "head" {
			binary.BigEndian.PutUint32(body[8:], 0)
		}
		if got := checksum(body); got != sum {
			t.Errorf("%s checksum %08x, recorded %08x", tag, got, sum)
		}
	}
}

// parley.css gives the font U+FFFC and the graded range only, and lists it first for both layers of the input
// bar: the chip's width is the glyph's advance, in the textarea and in the backdrop.
func TestStylesheetAgrees(t *testing.T) {
	css, err := os.ReadFile("../../web/parley.css")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range regexp.MustCompile(`(?s)@font-face\s*\{[^}]*\}`).FindAll(css, -1) {
		if !bytes.Contains(f, []byte(`"`+Family+`"`)) {
			continue
		}
		found = true
		for _, want := range []string{`url("/web/chip.ttf")`, `unicode-range: U+FFFC, U+E400-E465;`} {
			if !bytes.Contains(f, []byte(want)) {
				t.Errorf("the %s @font-face lacks %s", Family, want)
			}
		}
	}
	if !found {
		t.Errorf("parley.css has no @font-face for %s", Family)
	}
	rule := regexp.MustCompile(`(?s)\.ib-backdrop, \.ib-field \.composer-input \{[^}]*\}`).Find(css)
	if !bytes.Contains(rule, []byte(`font-family: "`+Family+`", `)) {
		t.Errorf("the input bar's layers do not list %s first: %s", Family, rule)
	}
}
