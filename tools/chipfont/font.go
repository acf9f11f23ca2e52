package main

import (
	"encoding/binary"
	"sort"
	"time"
	"unicode/utf16"

	"parley/machine/chipglyph"
)

// The font's design.
//
// The graded glyphs (machine/chipglyph): chipglyph.Count empty glyphs at U+E400 onwards,
// glyph i chipglyph.MinEm + i*chipglyph.StepEm em wide, one of which the input bar writes
// for each chip so that the chip is as wide as its label. They are glyphs 2 onwards.
//
// ChipEm, U+FFFC's width, for a chip written without a graded glyph: 7em (105px at the page's 15px) holds a label of about ten
// characters in a UI sans serif (0.55 to 0.6em each, plus 0.7em of padding), "@server.go",
// and still leaves two chips and a word on the line of a phone's composer (about 17em of
// text at 320px). A longer label ends in an ellipsis; its whole text is the chip's title.
const (
	Family     = "ParleyChip"
	UnitsPerEm = 1000
	ChipEm     = 7
	ChipRune   = 0xFFFC // OBJECT REPLACEMENT CHARACTER: what a chip is in the textarea

	chipAdvance   = ChipEm * UnitsPerEm
	chipGlyph     = 1
	firstGraded   = 2 // the glyph of chipglyph.First
	numGlyphs     = firstGraded + chipglyph.Count
	ascender      = 800
	descender     = -200
	notdefAdvance = 500
)

// notdef is glyph 0's outline, a box: the chip's glyph is empty, and a glyf table with no
// outline at all is one some sanitizers refuse. Nothing maps to it.
var notdef = struct{ xMin, yMin, xMax, yMax int16 }{50, 0, 450, 700}

// created is the head table's timestamp: fixed, so the output never changes.
var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Font returns the TrueType font.
func Font() []byte {
	glyf, loca := glyfLoca()
	tables := map[string][]byte{
		"OS/2": os2(),
		"cmap": cmap(),
		"glyf": glyf,
		"head": head(),
		"hhea": hhea(),
		"hmtx": hmtx(),
		"loca": loca,
		"maxp": maxp(),
		"name": name(),
		"post": post(),
	}
	return assemble(tables)
}

// w is a big-endian writer.
type w []byte

func (b *w) u8(v uint8)   { *b = append(*b, v) }
func (b *w) u16(v uint16) { *b = binary.BigEndian.AppendUint16(*b, v) }
func (b *w) i16(v int16)  { b.u16(uint16(v)) }
func (b *w) u32(v uint32) { *b = binary.BigEndian.AppendUint32(*b, v) }
func (b *w) i64(v int64)  { *b = binary.BigEndian.AppendUint64(*b, uint64(v)) }
func (b *w) tag(s string) { *b = append(*b, s[:4]...) }
func (b *w) zeros(n int)  { *b = append(*b, make([]byte, n)...) }

// search writes the binary-search hints that the table directory and cmap format 4 carry
// for n entries of unit bytes: searchRange (the largest power of two not above n, times
// unit), entrySelector (that power's log2) and rangeShift (the units left over).
func (b *w) search(n, unit int) {
	pow, log2 := 1, 0
	for pow*2 <= n {
		pow, log2 = pow*2, log2+1
	}
	b.u16(uint16(pow * unit))
	b.u16(uint16(log2))
	b.u16(uint16(n*unit - pow*unit))
}

// assemble writes the table directory and the tables, each 4-byte aligned, with their
// checksums and head's checkSumAdjustment.
func assemble(tables map[string][]byte) []byte {
	tags := make([]string, 0, len(tables))
	for t := range tables {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	n := len(tags)
	var b w
	b.u32(0x00010000) // TrueType outlines
	b.u16(uint16(n))
	b.search(n, 16)
	offset := 12 + 16*n
	headAt := 0
	var data w
	for _, t := range tags {
		body := tables[t]
		if t == "head" {
			headAt = offset + len(data)
		}
		b.tag(t)
		b.u32(checksum(body))
		b.u32(uint32(offset + len(data)))
		b.u32(uint32(len(body)))
		data = append(data, body...)
		for len(data)%4 != 0 {
			data = append(data, 0)
		}
	}
	out := append([]byte(b), data...)
	binary.BigEndian.PutUint32(out[headAt+8:], 0xB1B0AFBA-checksum(out))
	return out
}

// checksum is the sum of the big-endian uint32s of b, zero-padded.
func checksum(b []byte) uint32 {
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		var word [4]byte
		copy(word[:], b[i:])
		sum += binary.BigEndian.Uint32(word[:])
	}
	return sum
}

func head() []byte {
	var b w
	b.u32(0x00010000) // version 1.0
	b.u32(0x00010000) // fontRevision 1.0
	b.u32(0)          // checkSumAdjustment, set by assemble
	b.u32(0x5F0F3CF5) // magicNumber
	b.u16(0x000B)     // flags: baseline at y=0, lsb at x=0, integer ppem
	b.u16(UnitsPerEm)
	secs := int64(created.Sub(time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)) / time.Second)
	b.i64(secs) // created
	b.i64(secs) // modified
	b.i16(notdef.xMin)
	b.i16(notdef.yMin)
	b.i16(notdef.xMax)
	b.i16(notdef.yMax)
	b.u16(0) // macStyle: regular
	b.u16(8) // lowestRecPPEM
	b.i16(2) // fontDirectionHint
	b.i16(0) // indexToLocFormat: short offsets
	b.i16(0) // glyphDataFormat
	return b
}

func hhea() []byte {
	var b w
	b.u32(0x00010000)
	b.i16(ascender)
	b.i16(descender)
	b.i16(0)                                                         // lineGap
	b.u16(gradedAdvance(chipglyph.Count - 1))                        // advanceWidthMax: the widest graded glyph
	b.i16(notdef.xMin)                                               // minLeftSideBearing (of glyphs with contours)
	b.i16(notdefAdvance - notdef.xMin - (notdef.xMax - notdef.xMin)) // minRightSideBearing
	b.i16(notdef.xMin + (notdef.xMax - notdef.xMin))                 // xMaxExtent
	b.i16(1)                                                         // caretSlopeRise
	b.i16(0)                                                         // caretSlopeRun
	b.i16(0)                                                         // caretOffset
	b.zeros(4 * 2)                                                   // reserved
	b.i16(0)                                                         // metricDataFormat
	b.u16(numGlyphs)                                                 // numberOfHMetrics
	return b
}

// gradedAdvance is graded glyph i's advance in font units.
func gradedAdvance(i int) uint16 {
	em, _ := chipglyph.Advance(chipglyph.First + rune(i))
	return uint16(em*UnitsPerEm + 0.5)
}

func hmtx() []byte {
	var b w
	b.u16(notdefAdvance)
	b.i16(notdef.xMin)
	b.u16(chipAdvance)
	b.i16(0)
	for i := range chipglyph.Count {
		b.u16(gradedAdvance(i))
		b.i16(0)
	}
	return b
}

func maxp() []byte {
	var b w
	b.u32(0x00010000) // version 1.0: TrueType
	b.u16(numGlyphs)  // numGlyphs
	b.u16(4)          // maxPoints
	b.u16(1)          // maxContours
	b.u16(0)          // maxCompositePoints
	b.u16(0)          // maxCompositeContours
	b.u16(2)          // maxZones
	// maxTwilightPoints, maxStorage, maxFunctionDefs, maxInstructionDefs, maxStackElements,
	// maxSizeOfInstructions, maxComponentElements, maxComponentDepth: no hinting program
	// and no composite glyphs.
	b.zeros(8 * 2)
	return b
}

// glyfLoca: glyph 0 is the box; the chips, glyph 1 and the graded ones, have no outline.
func glyfLoca() (glyf, loca []byte) {
	var g w
	g.i16(1) // numberOfContours
	g.i16(notdef.xMin)
	g.i16(notdef.yMin)
	g.i16(notdef.xMax)
	g.i16(notdef.yMax)
	g.u16(3) // endPtsOfContours
	g.u16(0) // instructionLength
	for range 4 {
		g.u8(0x01) // on curve; coordinates as int16 deltas
	}
	// Clockwise: (xMin,yMin) (xMin,yMax) (xMax,yMax) (xMax,yMin).
	for _, dx := range []int16{notdef.xMin, 0, notdef.xMax - notdef.xMin, 0} {
		g.i16(dx)
	}
	for _, dy := range []int16{notdef.yMin, notdef.yMax - notdef.yMin, 0, notdef.yMin - notdef.yMax} {
		g.i16(dy)
	}
	for len(g)%4 != 0 {
		g.u8(0)
	}
	var l w
	l.u16(0)
	for range numGlyphs {
		l.u16(uint16(len(g) / 2))
	}
	return g, l
}

// cmap maps the graded range to glyphs 2 onwards and U+FFFC to the chip's glyph, in one
// format 4 subtable that both the Unicode
// (0, 3) and the Windows (3, 1) encoding records point to.
func cmap() []byte {
	type seg struct{ start, end, delta uint16 }
	first, last := uint16(chipglyph.First), uint16(chipglyph.Last)
	segs := []seg{
		{first, last, (firstGraded - first) & 0xFFFF},
		{ChipRune, ChipRune, (chipGlyph - ChipRune) & 0xFFFF}, // (c + delta) mod 65536 = chipGlyph
		{0xFFFF, 0xFFFF, 1}, // the required last segment
	}
	n := len(segs)
	var sub w
	sub.u16(4)
	sub.u16(uint16(16 + 8*n)) // length
	sub.u16(0)                // language
	sub.u16(uint16(2 * n))
	sub.search(n, 2)
	for _, s := range segs {
		sub.u16(s.end)
	}
	sub.u16(0) // reservedPad
	for _, s := range segs {
		sub.u16(s.start)
	}
	for _, s := range segs {
		sub.u16(s.delta)
	}
	for range segs {
		sub.u16(0) // idRangeOffset
	}
	var b w
	b.u16(0) // version
	b.u16(2) // numTables
	for _, rec := range [][2]uint16{{0, 3}, {3, 1}} {
		b.u16(rec[0])
		b.u16(rec[1])
		b.u32(4 + 8*2)
	}
	return append(b, sub...)
}

// name holds the Windows (3, 1, en-US) names.
func name() []byte {
	names := []struct {
		id   uint16
		text string
	}{
		{1, Family},
		{2, "Regular"},
		{3, Family + " 1.000"},
		{4, Family},
		{5, "Version 1.000"},
		{6, Family},
	}
	var recs, strs w
	for _, nm := range names {
		var s w
		for _, u := range utf16.Encode([]rune(nm.text)) {
			s.u16(u)
		}
		recs.u16(3)      // platform: Windows
		recs.u16(1)      // encoding: Unicode BMP
		recs.u16(0x0409) // language: en-US
		recs.u16(nm.id)
		recs.u16(uint16(len(s)))
		recs.u16(uint16(len(strs)))
		strs = append(strs, s...)
	}
	var b w
	b.u16(0) // format
	b.u16(uint16(len(names)))
	b.u16(uint16(6 + len(recs))) // stringOffset
	b = append(b, recs...)
	return append(b, strs...)
}

func os2() []byte {
	var b w
	b.u16(4)                                     // version
	b.i16((notdefAdvance + chipAdvance) / 2)     // xAvgCharWidth (of no use here)
	b.u16(400)                                   // usWeightClass
	b.u16(5)                                     // usWidthClass
	b.u16(0)                                     // fsType: installable
	for _, v := range []int16{650, 600, 0, 75} { // subscript x/y size, x/y offset
		b.i16(v)
	}
	for _, v := range []int16{650, 600, 0, 350} { // superscript
		b.i16(v)
	}
	b.i16(50)  // yStrikeoutSize
	b.i16(300) // yStrikeoutPosition
	b.i16(0)   // sFamilyClass
	for range 10 {
		b.u8(0) // panose: any
	}
	b.u32(0)
	b.u32(1 << (60 - 32)) // ulUnicodeRange2: bit 60, Private Use Area (U+E000–U+F8FF)
	b.u32(1 << (69 - 64)) // ulUnicodeRange3: bit 69, Specials (U+FFF0–U+FFFF)
	b.u32(0)
	b.tag("PRLY")                  // achVendID
	b.u16(0x0040 | 0x0080)         // fsSelection: REGULAR, USE_TYPO_METRICS
	b.u16(uint16(chipglyph.First)) // usFirstCharIndex
	b.u16(ChipRune)                // usLastCharIndex
	b.i16(ascender)                // sTypoAscender
	b.i16(descender)               // sTypoDescender
	b.i16(0)                       // sTypoLineGap
	b.u16(ascender)                // usWinAscent
	b.u16(-descender)              // usWinDescent
	b.u32(1)                       // ulCodePageRange1: Latin 1
	b.u32(0)
	b.i16(0)    // sxHeight
	b.i16(0)    // sCapHeight
	b.u16(0)    // usDefaultChar
	b.u16(0x20) // usBreakChar
	b.u16(0)    // usMaxContext
	return b
}

func post() []byte {
	var b w
	b.u32(0x00030000) // version 3.0: no glyph names
	b.u32(0)          // italicAngle
	b.i16(-100)       // underlinePosition
	b.i16(50)         // underlineThickness
	b.u32(0)          // isFixedPitch
	b.zeros(4 * 4)    // the memory hints for Type 42 and Type 1: none
	return b
}
