package inputbar

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/i18n"
	"parley/machine/input"
	"parley/machine/utf16x"
	"parley/slash"
)

// The backdrop is a div behind the textarea with the same box and font. The textarea draws
// its own text; the backdrop's text is transparent, and it draws what the textarea cannot:
// chips as spans around the textarea's chip glyph (an empty glyph) with the label drawn over
// it, plain-text references as highlighted spans, and the claim's ghost hint after the
// draft. The backdrop's text is the textarea's value, character for character, in the same
// font, so the two lay out alike and each mark falls under its text: the ParleyChip font
// (web/chip.ttf) gives each chip glyph its width in both, the one chipsize.go picked for the
// label.
//
// A chip is deliberately not an inline-block of that width: an atomic inline has break
// opportunities of its own (CSS Text: before and after it, whatever its neighbours), while
// a character follows UAX #14, so "@chip," would keep its comma in the textarea and wrap it
// alone in the backdrop. go-app never renders its children: the bar writes
// them here, so a keystroke paints without a go-app render.
//
// A keystroke inside a plain run is one replaceData on one text node (O(edit), no draft
// copy); anything else (a chip, a decoration, a rewrite by the machine) rebuilds it whole.
// A character typed at the end of the draft is not written at all until something needs it
// (lag): nothing the backdrop draws sits after it, and writing it would cost the key a second
// layout (docs/composer.md, "One layout per key").

type nodeKind uint8

const (
	kindText nodeKind = iota
	kindChip
	kindRef
)

// bnode is one child of the backdrop and the draft units [start, end) it draws.
type bnode struct {
	start, end int
	kind       nodeKind
	el         app.Value
}

type backdrop struct {
	root      app.Value
	doc       app.Value
	nodes     []bnode
	ghost     app.Value
	ghostText string
	refs      app.Value // the textarea's description: the chips' labels, for a screen reader
	refsText  string
	// lag is what was typed at the end of the last run and not yet written to its text node
	// (catchUp writes it).
	lag strings.Builder
	// rtl says the draft may hold a right-to-left letter: text appended to a line then
	// reorders what is before it on the line, so nothing waits (QA round 13 #4). broken says
	// the last run holds a space: a word typed at its end wraps alone, never dragging a
	// mark before the run to the next line with it (QA round 13 #5).
	rtl, broken bool
}

// maxLag is how much typing waits unwritten at most: a catch-up is one appendData.
const maxLag = 4096

func newBackdrop(root, refs app.Value) *backdrop {
	return &backdrop{root: root, refs: refs, doc: app.Window().Get("document")}
}

// rebuild draws the machine's draft with the references refs (sorted, in units).
func (b *backdrop) rebuild(m *input.Machine, refs []slash.TextRef, glyph func(label string) rune) {
	b.lag.Reset() // drawn from the machine's draft, which holds it
	b.rtl, b.broken = false, false
	frag := b.doc.Call("createDocumentFragment")
	b.nodes = b.nodes[:0]
	pos, ri := 0, 0
	var labels []string
	for _, seg := range m.Backdrop() {
		if seg.Chip {
			labels = append(labels, seg.Text)
			el := b.doc.Call("createElement", "span")
			cls := "ib-chip"
			if seg.Occ.Invalid {
				cls += " ib-chip-invalid"
			}
			el.Set("className", cls)
			// The span holds the textarea's own character, the chip's glyph, so both layers
			// hold the same text and break lines alike; the label is drawn over it by a
			// child out of the flow (.ib-chip-label), cut with an ellipsis past its box.
			el.Set("textContent", string(glyph(seg.Text)))
			lab := b.doc.Call("createElement", "span")
			lab.Set("className", "ib-chip-label")
			lab.Set("textContent", seg.Text)
			el.Call("appendChild", lab)
			el.Get("dataset").Set("label", seg.Text)
			el.Set("title", seg.Text)
			el.Get("dataset").Set("occ", strconv.FormatUint(uint64(seg.Occ.ID), 10))
			el.Get("dataset").Set("offset", strconv.Itoa(pos))
			frag.Call("appendChild", el)
			b.nodes = append(b.nodes, bnode{start: pos, end: pos + 1, kind: kindChip, el: el})
			pos++
			continue
		}
		text := seg.Text
		end := pos + utf16x.Len(text)
		cur, off := pos, 0 // unit and byte position in text
		for ri < len(refs) && refs[ri].Start < end {
			r := refs[ri]
			ri++
			if r.Start < cur || r.End > end {
				continue // a stale mark: the next observe redraws
			}
			if r.Start > cur {
				next := off + byteOf(text[off:], r.Start-cur)
				b.appendText(frag, cur, r.Start, text[off:next])
				off, cur = next, r.Start
			}
			next := off + byteOf(text[off:], r.End-cur)
			el := b.doc.Call("createElement", "span")
			el.Set("className", "ib-ref")
			el.Set("textContent", text[off:next])
			b.rtl = b.rtl || hasRTL(text[off:next])
			frag.Call("appendChild", el)
			b.nodes = append(b.nodes, bnode{start: cur, end: r.End, kind: kindRef, el: el})
			off, cur = next, r.End
		}
		if cur < end {
			b.appendText(frag, cur, end, text[off:])
		}
		pos = end
	}
	b.ghost = b.doc.Call("createElement", "span")
	b.ghost.Set("className", "ib-ghost")
	b.ghost.Set("textContent", b.ghostText)
	frag.Call("appendChild", b.ghost)
	// A zero-width space keeps a trailing line break's empty line, as the textarea shows it.
	frag.Call("appendChild", b.doc.Call("createTextNode", "\u200b"))
	b.root.Call("replaceChildren", frag)
	b.describe(labels)
}

// describe tells a screen reader what the chips are: the textarea holds one U+FFFC per chip,
// which it would read as "object replacement character".
func (b *backdrop) describe(labels []string) {
	if !b.refs.Truthy() {
		return
	}
	text := ""
	if len(labels) > 0 {
		text = locale.T(i18n.RefsInMessage, strings.Join(labels, ", "))
	}
	if text != b.refsText {
		b.refsText = text
		b.refs.Set("textContent", text)
	}
}

func (b *backdrop) appendText(frag app.Value, start, end int, s string) {
	b.rtl = b.rtl || hasRTL(s)
	b.broken = strings.ContainsAny(s, " \n\t") // the last call's is the last run's
	el := b.doc.Call("createTextNode", s)
	frag.Call("appendChild", el)
	b.nodes = append(b.nodes, bnode{start: start, end: end, kind: kindText, el: el})
}

// edit applies a typed edit inside one plain run: units [s, e) became ins (n units). It
// reports false when no single run holds the edit; the caller rebuilds.
func (b *backdrop) edit(s, e int, ins string, n int) bool {
	for i := range b.nodes {
		nd := &b.nodes[i]
		if nd.start > e {
			break
		}
		if nd.kind != kindText || s < nd.start || e > nd.end {
			continue
		}
		last := i == len(b.nodes)-1
		if last && s == e && e == nd.end && b.broken && !b.rtl && b.ghostText == "" && lagging(ins) && b.lag.Len() < maxLag {
			b.lag.WriteString(ins)
		} else {
			b.catchUp()
			nd.el.Call("replaceData", s-nd.start, e-s, ins)
			b.rtl = b.rtl || hasRTL(ins)
			switch {
			case !last:
			case e > s:
				// A deletion may have taken the run's space: read the run as it now is.
				b.broken = strings.ContainsAny(nd.el.Get("data").String(), " \n\t")
			case strings.ContainsAny(ins, " \n\t"):
				b.broken = true
			}
		}
		d := n - (e - s)
		nd.end += d
		for j := i + 1; j < len(b.nodes); j++ {
			b.nodes[j].start += d
			b.nodes[j].end += d
		}
		return true
	}
	return false
}

// lagging says typed text may wait unwritten at the draft's end: printable ASCII, which
// neither breaks a line nor can turn the direction dir="auto" reads from the text (the
// backdrop's text without it is the textarea's but for that end, so its first strong
// character, when it has one, is the textarea's too).
func lagging(ins string) bool {
	for i := range len(ins) {
		if c := ins[i]; c < ' ' || c > '~' {
			return false
		}
	}
	return ins != ""
}

// hasRTL says s holds a letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana,
// N'Ko and the scripts and presentation forms near them), or a right-to-left mark.
func hasRTL(s string) bool {
	for _, r := range s {
		switch {
		case r < 0x0590:
		case r <= 0x08FF, r >= 0xFB1D && r <= 0xFDFF, r >= 0xFE70 && r <= 0xFEFF,
			r >= 0x10800 && r <= 0x10FFF, r >= 0x1E800 && r <= 0x1EFFF, r == 0x200F, r == 0x202B, r == 0x202E, r == 0x2067:
			return true
		}
	}
	return false
}

// catchUp writes the typing that waited at the end of the last run: before anything that
// lays out or measures what follows it (the ghost hint, a scroll to sync).
func (b *backdrop) catchUp() {
	if b.lag.Len() == 0 {
		return
	}
	b.nodes[len(b.nodes)-1].el.Call("appendData", b.lag.String())
	b.lag.Reset()
}

// setGhost shows the claim's hint after the draft.
func (b *backdrop) setGhost(g string) {
	if g == b.ghostText {
		return
	}
	b.catchUp()
	b.ghostText = g
	if b.ghost.Truthy() {
		b.ghost.Set("textContent", g)
	}
}

// chipAt returns the chip drawn at unit offset p, if any.
func (b *backdrop) chipAt(p int) (bnode, bool) {
	for _, nd := range b.nodes {
		if nd.start > p {
			break
		}
		if nd.kind == kindChip && nd.start == p {
			return nd, true
		}
	}
	return bnode{}, false
}

// byteOf is the byte offset of unit u of s. Marks start and end on characters, so the
// rounding inside a surrogate pair (down, see utf16x) never comes into play.
func byteOf(s string, u int) int {
	b, _ := utf16x.ByteOffset(s, u)
	return b
}
