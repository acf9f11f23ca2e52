// Command chipfont writes web/chip.ttf: the input bar's "ParleyChip" web font, which holds
// one glyph, an empty one for U+FFFC with an advance of ChipEm em.
//
// A chip is one U+FFFC in the composer's textarea, and the backdrop behind it holds the same
// U+FFFC in a span that draws the chip's label over it. With this font listed first in both
// layers' font-family (and unicode-range: U+FFFC, so no other character ever uses it), both
// lay the same text out with the same advances: caret, selection and line wrapping line up
// with what is drawn, and every chip is ChipEm em wide.
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
