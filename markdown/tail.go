package markdown

import (
	"strconv"
	"strings"
)

// TailShape is how a view draws a streaming text's last chunk (tail, text[StreamCut:]) while it
// grows: tail[:Settled] is whole blocks, drawn as Markdown; tail[Body:End] is the text still
// arriving, written as it comes; inside a code box when Code, a fence opened in column 0 that
// has not closed yet, whose language is Lang.
//
// Without it a code block was drawn as raw text, its fence and all, until its closing fence
// arrived, which for a long block is most of the answer (QA round 26). A fence opened in
// column 0 always starts a top-level block and its lines are its code as they stand, so the
// box can show them as they come and the finished block holds the same text. An indented
// fence (a list item's) stays in the raw tail: its lines carry the item's indentation.
//
// A list or a table showed as source until it ended too, and a list ends late: it stays
// open past a blank line (QA round 27). A tail that begins with a list item or a table row is
// drawn line by line: its whole lines are Markdown (drawn again as each line ends, a render a
// line, not a token) and only the line still arriving is text; a table's row still arriving
// is held back until it ends, as a half row read as stray pipes.
type TailShape struct {
	Settled, Body, End int
	Code               bool
	Lang               string
}

// Key names the shape but for End: while it stays the same, a token changes only the text
// written at Body, and the view need not be drawn again.
func (s TailShape) Key() string {
	k := strconv.Itoa(s.Settled) + "," + strconv.Itoa(s.Body)
	if s.Code {
		k += ",code," + s.Lang
	}
	return k
}

// ShapeTail reads a streaming text's last chunk as TailShape says. A last line still arriving
// inside an open fence that may yet turn out to be its closing fence (a backtick or two) is
// left out of the box until it has ended, so the fence's backticks never show as code. A tail with a
// carriage return is all text, as every tail was before: Parse ends a line at a lone \r, and
// a model that sends one is rare enough not to read lines two ways here.
func ShapeTail(tail string) TailShape {
	shape := TailShape{End: len(tail)}
	if strings.IndexByte(tail, '\r') >= 0 {
		return shape
	}
	var fence fenceInfo
	top := false // the open fence began in column 0
	byLine := linewise(tail)
	for pos := 0; pos < len(tail); {
		end, whole := len(tail), false
		if nl := strings.IndexByte(tail[pos:], '\n'); nl >= 0 {
			end, whole = pos+nl, true
		}
		t, ind := trimIndent(tail[pos:end])
		switch {
		case fence.n > 0 && !whole:
			if top && ind <= 3 && isBlank(strings.TrimLeft(t, string(fence.char))) {
				shape.End = pos
			}
		case fence.n > 0:
			// As scanChunks closes a fence, so the chunk and its shape agree.
			if ind <= fence.indent+3 && fence.closes(t) {
				if top {
					shape = TailShape{Settled: end + 1, Body: end + 1, End: len(tail)}
				}
				fence, top = fenceInfo{}, false
			}
		case ind <= 3:
			f, ok := openFence(t)
			if !ok {
				break
			}
			f.indent = ind
			fence, top = f, ind == 0
			if top {
				body := len(tail)
				if whole {
					body = end + 1
				}
				shape = TailShape{Settled: pos, Body: body, End: len(tail), Code: true, Lang: fenceLang(t, f)}
			}
		}
		if !whole && byLine && !top {
			// Whole lines are Markdown; the line arriving is text, a table's row held back.
			shape = TailShape{Settled: pos, Body: pos, End: len(tail)}
			if strings.HasPrefix(t, "|") {
				shape.End = pos
			}
		}
		pos = end + 1
	}
	if byLine && !top && strings.HasSuffix(tail, "\n") {
		shape = TailShape{Settled: len(tail), Body: len(tail), End: len(tail)} // every line whole
	}
	return shape
}

// linewise says a tail is drawn line by line: it begins with a list item or a table row.
func linewise(tail string) bool {
	first, _, _ := strings.Cut(tail, "\n")
	t, ind := trimIndent(first)
	if ind > 3 {
		return false
	}
	_, item := listMarker(t)
	return strings.HasPrefix(t, "|") || item && !isRule(t)
}

// fenceLang is the language an opening fence names: its info string's first word, if that is
// a plain word (codeLang).
func fenceLang(t string, f fenceInfo) string {
	info := strings.TrimSpace(t[f.n:])
	if sp := strings.IndexAny(info, " \t"); sp >= 0 {
		info = info[:sp]
	}
	return codeLang(unescape(info))
}
