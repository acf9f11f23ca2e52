// Package excerpt decides how much of a long text the thread shows folded: a prompt of
// 100 KB shows its first lines and a toggle for the rest, as a script's code shows its first
// line (QA round 12 #15). Folded, the page holds only the head, so a long paste costs the
// thread neither layout nor memory.
//
// The package is pure: it imports nothing of the browser, go-app, the network or the clock.
package excerpt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// A text within both bounds is shown whole: a few paragraphs are read in place.
	foldLines = 15
	foldRunes = 1500
	// A folded text shows a head within both of these, well under the bounds above, so a
	// fold always hides a good part of the text, never only its last line.
	headLines = 8
	headRunes = 600
	// A head cut inside a line ends at a word's end when one is this close to the cut.
	wordBackoff = 60
)

// Head returns the start of text that its folded view shows, and whether the text is long
// enough to fold; a text that is not comes back whole. It reads no further than the fold's
// bounds, whatever the text's length: it runs on every render of a message.
func Head(text string) (head string, folded bool) {
	lines, runes := 1, 0
	headEnd := -1 // the byte where the head ends, once it is known
	for i, r := range text {
		if headEnd < 0 && (runes == headRunes || r == '\n' && lines == headLines) {
			headEnd = i
		}
		runes++
		if r == '\n' {
			lines++
		}
		if lines > foldLines || runes > foldRunes {
			return trimHead(text, headEnd), true
		}
	}
	return text, false
}

// trimHead is text[:end], ended at a word's end when the cut falls inside a word and a
// space is near, without the white space at its end.
func trimHead(text string, end int) string {
	head := text[:end]
	if next, _ := utf8.DecodeRuneInString(text[end:]); !unicode.IsSpace(next) {
		if sp := strings.LastIndexFunc(head, unicode.IsSpace); sp >= 0 && utf8.RuneCountInString(head[sp:]) <= wordBackoff {
			head = head[:sp]
		}
	}
	return strings.TrimRightFunc(head, unicode.IsSpace)
}
