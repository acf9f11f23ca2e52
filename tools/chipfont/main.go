// Command chipfont writes web/chip.ttf: the input bar's "ParleyChip" web font, which holds
// only empty glyphs: chipglyph.Count graded ones at U+E400 onwards (machine/chipglyph), from
// 0.75em to 26em wide in quarter-em steps, and one for U+FFFC, ChipEm em wide.
//
// A chip is one character in the composer's textarea: the graded glyph whose advance holds
// its label, which the shell writes where the machine's draft holds U+FFFC. The backdrop
// behind it holds the same character in a span that draws the chip's label over it. With
// this font listed first in both layers' font-family (and a unicode-range of just these
// characters, so no other uses it), both lay the same text out with the same advances:
// caret, selection and line wrapping line up with what is drawn, and every chip is as wide
// as its glyph.
//
// No font tools are needed: the font is written here, table by table (TrueType outlines;
// cmap format 4, head, hhea, hmtx, maxp, name, OS/2, post, glyf, loca), deterministically,
// and a test holds web/chip.ttf equal to this output.
//
//	usage: go run ./tools/chipfont [FILE]   (FILE defaults to web/chip.ttf)
package main

import (
	"fmt"
	"os"
)

func main() {
	out := "web/chip.ttf"
	switch len(os.Args) {
	case 1:
	case 2:
		out = os.Args[1]
	default:
		fmt.Fprintln(os.Stderr, "usage: chipfont [FILE]   (writes the ParleyChip font, web/chip.ttf by default)")
		os.Exit(2)
	}
	if err := os.WriteFile(out, Font(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "chipfont:", err)
		os.Exit(1)
	}
}
