// Package markdown parses the agent's Markdown into a tree of plain values, for a view to
// draw as elements (never as HTML text). It reads a CommonMark subset plus GitHub's tables,
// strikethrough and bare links, and has no raw HTML at all: a tag in the text stays text.
//
// It is hand-written rather than goldmark because goldmark alone added 121 KB of brotli to
// the wasm, nearly all that was left of its 1.6 MB budget (docs/markdown.md has the numbers).
// It is pure (no browser, no go-app) so it runs and is fuzzed natively and under wasm alike.
//
// Split cuts a growing message into top-level chunks that parse alone as they would together,
// so a view re-parses only the chunk that is still streaming.
package markdown

import "strings"

// Kind says what a Node is.
type Kind uint8

// The kinds of node. Blocks first, then inlines.
const (
	KindParagraph Kind = iota
	KindHeading        // Level 1-6
	KindCodeBlock      // Text the code, Info its language
	KindQuote
	KindList  // Ordered, Level the first number, Tight
	KindItem  // a list item
	KindTable // rows; the first is the header
	KindRow
	KindCell // Align
	KindRule // a thematic break
	KindText
	KindEmph
	KindStrong
	KindStrike
	KindCode  // inline code: Text
	KindLink  // URL ("" when the destination was not a safe one), Children the text
	KindImage // URL, Text the alt text
	KindBreak // a hard line break
)

var kindNames = [...]string{"paragraph", "heading", "code-block", "quote", "list", "item", "table", "row", "cell", "rule", "text", "emph", "strong", "strike", "code", "link", "image", "break"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Align is a table column's alignment.
type Align uint8

// The alignments of a table column.
const (
	AlignNone Align = iota
	AlignLeft
	AlignCenter
	AlignRight
)

var alignNames = [...]string{"", "left", "center", "right"}

func (a Align) String() string {
	if int(a) < len(alignNames) {
		return alignNames[a]
	}
	return "align?"
}

// Node is one block or inline of a parsed text. It is a value: a tree compares with ==
// field by field and reflect.DeepEqual as a whole, which is what go-app diffs props with.
type Node struct {
	Kind     Kind
	Text     string // Text, Code and CodeBlock: the literal text; Image: the alt text
	Info     string // CodeBlock: the language, the info string's first word
	URL      string // Link and Image: the destination if it is http(s) or mailto, else ""
	Level    int    // Heading: 1-6; ordered List: its first number
	Ordered  bool   // List
	Tight    bool   // List: no blank lines between items, so no paragraph spacing
	Align    Align  // Cell
	Children []Node
}

// Parse parses a whole text into its blocks.
func Parse(text string) []Node {
	return parseBlocks(lines(text), 0)
}

// lines splits text into lines with \r\n and \r normalised and leading tabs expanded, so the
// block parser counts indentation in columns without ever seeing a tab there.
func lines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	ls := strings.Split(text, "\n")
	expandOutsideFences(ls, func(string) bool { return true })
	return ls
}

// expandOutsideFences expands the leading tabs of the lines that want it, but not of a
// fenced code block's lines: tabs shape the blocks, yet a code block's text keeps its own,
// so a Makefile copied from a reply still has the tabs make needs (QA round 21: Copy gave
// four spaces, and make said "missing separator").
func expandOutsideFences(ls []string, want func(string) bool) {
	var fence fenceInfo
	for i, l := range ls {
		t, ind := trimIndent(l)
		switch {
		case fence.n > 0:
			if ind <= 3 && fence.closes(t) {
				fence = fenceInfo{}
			} else {
				continue // the code's own line
			}
		case ind <= 3:
			if f, ok := openFence(t); ok {
				fence = f
			}
		}
		if strings.IndexByte(l, '\t') >= 0 && want(l) {
			ls[i] = expandLeadingTabs(l)
		}
	}
}

func expandLeadingTabs(l string) string {
	var b strings.Builder
	col := 0
	i := 0
	for ; i < len(l) && (l[i] == ' ' || l[i] == '\t'); i++ {
		if l[i] == '\t' {
			n := 4 - col%4
			b.WriteString("    "[:n])
			col += n
		} else {
			b.WriteByte(' ')
			col++
		}
	}
	b.WriteString(l[i:])
	return b.String()
}

// Split cuts text into top-level chunks, each without its trailing blank lines. A cut falls
// only before a line that starts in column 0 after a blank line, outside a fenced code
// block, and that is not the next item of the list the chunk is: nothing in the subset
// continues across such a line, so each chunk parses alone as it would in the whole text.
//
// Text only ever grows while a message streams, and a cut depends only on the lines before
// it and the line after it, so every chunk but the last two stays byte for byte the same as
// text arrives. Nearly always only the last one changes; the one before it changes when a
// line that began as prose turns out to be the list's next item ("2" becoming "2. ").
func Split(text string) []string {
	var out []string
	scanChunks(text, func(chunk string, _ int) { out = append(out, chunk) })
	return out
}

// StreamCut is where a streaming text's last chunk begins: text[:cut] is every chunk but the
// last, which no later text can change but for one case ("2" becoming "2. " folds the last
// chunk back into the list before it, and the cut moves back). It is 0 while the text is one
// chunk. A view draws text[:cut] as Markdown and the growing rest as it comes; it needs to
// draw the Markdown again only when the cut moves, about once a paragraph.
//
// A last chunk that a blank line ended, outside a fence and not a list, is done already: the
// cut is then the whole text, so a paragraph is drawn as Markdown when it ends, not when the
// next one begins (a model that pauses there, before a tool call, left it raw meanwhile). A
// list is left open: its next item may still come, and the list would turn back into text.
func StreamCut(text string) int {
	cut, _ := StreamCutFrom(text, 0)
	return cut
}

// StreamCutFrom is StreamCut for a text that keeps growing: it scans only from a place an
// earlier call on a shorter text gave as resume (0 scans it all), and gives the place the
// next call may start from. That place is the start of the last chunk whose first line had
// ended: a cut depends only on the lines before it and the line it starts, so once that line
// is whole the cut stands whatever comes after, and the scan starts there as it starts a
// text. A token then costs a scan of the last chunk or two, not of the whole answer.
func StreamCutFrom(text string, from int) (cut, resume int) {
	if from < 0 || from > len(text) {
		from = 0
	}
	chunks := 0
	if from > 0 {
		chunks = 1 // text[:from] holds a chunk at least: every chunk scanned from here is cut
	}
	cut, resume = from, from
	end := scanChunks(text[from:], func(_ string, at int) {
		if chunks > 0 {
			cut = from + at
			if strings.IndexByte(text[cut:], '\n') >= 0 {
				resume = cut
			}
		}
		chunks++
	})
	if chunks > 0 && end.blank && !end.fenced && end.lists == 0 {
		return len(text), resume
	}
	return cut, resume
}

// chunkEnd is how a text's last chunk stands at the text's end.
type chunkEnd struct {
	blank  bool  // the last line is blank
	fenced bool  // inside a fenced code block
	lists  uint8 // the kinds of list item the chunk has
}

// scanChunks hands each of Split's chunks to emit, with the offset of its first line, and
// says how the last one stands at the end.
func scanChunks(text string, emit func(chunk string, at int)) chunkEnd {
	start := 0
	blank := false
	var fence fenceInfo
	// The kinds of list item the chunk has: a line that would be the next item of one of its
	// lists is never cut from it. (Not cutting is always safe; cutting a list is not.)
	var lists uint8
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		line := text[pos:end]
		switch {
		case fence.n > 0:
			if t, ind := trimIndent(line); ind <= fence.indent+3 && fence.closes(t) {
				fence = fenceInfo{}
			}
		case isBlank(line):
			blank = true
		default:
			t, ind := trimIndent(line)
			var kind uint8
			if m, ok := listMarker(t); ok && !isRule(t) {
				kind = 1 << strings.IndexByte("-+*.)", m.char)
			}
			if blank && pos > start && ind == 0 && lists&kind == 0 {
				if chunk := trimBlankLines(text[start:pos]); chunk != "" {
					emit(chunk, start)
				}
				start, lists = pos, 0
			}
			lists |= kind
			blank = false
			if t, ind := trimIndent(line); ind <= 3 {
				if f, ok := openFence(t); ok {
					f.indent = ind
					fence = f
				}
			}
		}
		pos = end + 1
	}
	if chunk := trimBlankLines(text[start:]); chunk != "" {
		emit(chunk, start)
	}
	return chunkEnd{blank: blank, fenced: fence.n > 0, lists: lists}
}

// trimBlankLines drops the blank lines that end s, and keeps the spaces of its last line
// (they matter in code).
func trimBlankLines(s string) string {
	k := len(strings.TrimRight(s, " \t\r\n"))
	if k == 0 {
		return ""
	}
	if e := strings.IndexByte(s[k:], '\n'); e >= 0 {
		return s[:k+e]
	}
	return s
}

// PlainText is the text of inlines without their markup: an image's alt text, for one.
func PlainText(ns []Node) string {
	var b strings.Builder
	var walk func([]Node)
	walk = func(ns []Node) {
		for _, n := range ns {
			switch n.Kind {
			case KindText, KindCode, KindImage:
				b.WriteString(n.Text)
			case KindBreak:
				b.WriteByte('\n')
			default:
				walk(n.Children)
			}
		}
	}
	walk(ns)
	return b.String()
}
