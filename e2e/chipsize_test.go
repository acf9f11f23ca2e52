package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChipSizesToItsLabel (docs/input.md, "Chips that size to their label"): a chip is as
// wide as its label, so `@README.md` reads whole; a label past about 24 characters is cut
// with an ellipsis, its whole text in the chip's title; the textarea lays the chip out as
// wide as the backdrop draws it, with CJK text on both sides, so the caret after a chip
// sits right after its box and what is typed there lands after it.
func TestChipSizesToItsLabel(t *testing.T) {
	t.Parallel()
	const long = "docs/architecture/decisions/0007-event-log-on-jetstream.md"
	data := t.TempDir()
	ws := data + "-workspace"
	require.NoError(t, os.MkdirAll(filepath.Join(ws, filepath.Dir(long)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "README.md"), []byte("# readme"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, long), []byte("# the log"), 0o644))
	srv := startServer(t, data, "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Focus(composer))
	evalBool(t, ctx, `(() => { const s = document.createElement('style');
		s.textContent = '#composer-input::selection { background: #ff00ff !important; color: transparent !important }';
		document.head.appendChild(s); return true })()`)

	do(t, ctx, 10*time.Second, typeText("看 @READ"), menuOpen("@README.md"), pick("@README.md"), waitDraft("看 "+chip), menuClosed)
	do(t, ctx, 10*time.Second, typeText("中文 and @0007"), menuOpen("@"+long), pick("@"+long), waitDraft("看 "+chip+"中文 and "+chip), menuClosed)
	do(t, ctx, 10*time.Second, typeText("。"), waitDraft("看 "+chip+"中文 and "+chip+"。"))
	do(t, ctx, 10*time.Second, waitJS(`document.fonts.check('15px ParleyChip', '\uE400') && document.fonts.status === 'loaded'`))

	type chipBox struct {
		Label, Title, Data, Glyph, TAGlyph, Overflow string
		Offset                                       int
		Left, Right, Mid                             float64
		Scroll, Client                               float64
	}
	var boxes []chipBox
	require.NoError(t, json.Unmarshal([]byte(evalString(t, ctx, `JSON.stringify([...document.querySelectorAll('#composer-backdrop .ib-chip')].map(e => {
		const r = e.getBoundingClientRect(), l = e.querySelector('.ib-chip-label'), off = +e.dataset.offset;
		return {label: l.textContent, title: e.title, data: e.dataset.label, glyph: e.firstChild.data,
			taGlyph: document.querySelector('#composer-input').value[off], overflow: getComputedStyle(l).textOverflow, offset: off,
			left: r.left, right: r.right, mid: (r.top + r.bottom) / 2, scroll: l.scrollWidth, client: l.clientWidth} }))`)), &boxes))
	require.Len(t, boxes, 2)
	short, cut := boxes[0], boxes[1]

	// The short chip shows its whole label, in a box sized to it (not a fixed 7em).
	assert.Equal(t, "@README.md", short.Label)
	assert.LessOrEqual(t, short.Scroll, short.Client, "@README.md is not cut")
	labelPx := get(t, ctx, chromedp.Evaluate[float64](`(() => { const s = document.createElement('span'); s.textContent = '@README.md';
		s.style.font = getComputedStyle(document.querySelector('#composer-input')).font; s.style.position = 'fixed';
		document.body.appendChild(s); const w = s.getBoundingClientRect().width; s.remove(); return w })()`))
	width := short.Right - short.Left
	assert.InDelta(t, glyphPx(t, short.Glyph), width, 0.05, "the chip is its glyph's width")
	assert.GreaterOrEqual(t, width, labelPx+0.7*15, "the box holds the label and its padding")
	assert.LessOrEqual(t, width, labelPx+0.7*15+0.35*15+1, "the box is no wider than the label needs, to a quarter em")
	assert.Equal(t, short.Glyph, short.TAGlyph, "the textarea holds the backdrop's glyph")

	// The long chip is cut with an ellipsis; its whole text is there for the pointer and in
	// the description a screen reader reads.
	assert.Equal(t, "@"+long, cut.Label)
	assert.Equal(t, "@"+long, cut.Title)
	assert.Equal(t, "@"+long, cut.Data)
	assert.Greater(t, cut.Scroll, cut.Client, "the long label is cut")
	assert.Equal(t, "ellipsis", cut.Overflow)
	assert.Equal(t, cut.Glyph, cut.TAGlyph)
	assert.Greater(t, cut.Right-cut.Left, width, "a longer label has a wider chip")
	assert.LessOrEqual(t, cut.Right-cut.Left, 26*15.0, "no wider than the widest glyph")
	shownPx := get(t, ctx, chromedp.Evaluate[float64](`(() => { const s = document.createElement('span'); s.textContent = `+quote("@"+long[:22]+"…")+`;
		s.style.font = getComputedStyle(document.querySelector('#composer-input')).font; s.style.position = 'fixed';
		document.body.appendChild(s); const w = s.getBoundingClientRect().width; s.remove(); return w })()`))
	assert.InDelta(t, shownPx+0.7*15, cut.Right-cut.Left, 0.5*15, "cut after 23 characters and the ellipsis")
	assert.Contains(t, evalString(t, ctx, `document.querySelector('#composer-refs').textContent`), "@"+long)

	// The textarea and the backdrop agree on every character, CJK on both sides of the chips.
	l := measureLayout(t, ctx, false)
	assert.Empty(t, disagreements(l))

	// The textarea's own selection of each chip covers the chip's box, and the character
	// after it (中, 。) starts where the box ends: the caret after the chip sits right after it.
	dpr := get(t, ctx, chromedp.Evaluate[float64](`window.devicePixelRatio`))
	for _, c := range boxes {
		sel := selectionBox(t, ctx, c.Offset, c.Offset+1)
		assert.InDelta(t, c.Left, float64(sel.Min.X)/dpr, 1.0, "%s: the textarea's chip starts where the box does", c.Label)
		assert.InDelta(t, c.Right, float64(sel.Max.X)/dpr, 1.0, "%s: the textarea's chip ends where the box does", c.Label)
		next := selectionBox(t, ctx, c.Offset+1, c.Offset+2)
		assert.InDelta(t, c.Right, float64(next.Min.X)/dpr, 1.0, "%s: the next character starts at the box's end", c.Label)
	}

	// Typed with the caret right after the short chip, text lands right after it, in both
	// layers.
	selectRange(t, ctx, short.Offset+1, short.Offset+1)
	do(t, ctx, 10*time.Second, typeText("Z"), waitDraft("看 "+chip+"Z中文 and "+chip+"。"))
	z := get(t, ctx, chromedp.Evaluate[float64](`(() => { const c = document.querySelector('#composer-backdrop .ib-chip');
		const t = c.nextSibling, r = document.createRange(); r.setStart(t, 0); r.setEnd(t, 1);
		return t.data[0] === 'Z' ? r.getBoundingClientRect().left : -1 })()`))
	assert.InDelta(t, short.Right, z, 1.0, "the backdrop draws Z right after the chip")
	zSel := selectionBox(t, ctx, short.Offset+1, short.Offset+2)
	assert.InDelta(t, short.Right, float64(zSel.Min.X)/dpr, 1.0, "the textarea lays Z out right after the chip")

	// One Backspace after a chip still takes it whole; undo brings it back at its width.
	selectRange(t, ctx, short.Offset+1, short.Offset+1)
	do(t, ctx, 10*time.Second, backspace, waitDraft("看 Z中文 and "+chip+"。"))
	do(t, ctx, 10*time.Second, undoKey, waitDraft("看 "+chip+"Z中文 and "+chip+"。"))
	assert.Equal(t, short.Glyph, evalString(t, ctx, `document.querySelector('#composer-input').value[`+itoa(short.Offset)+`]`), "undo restores the chip's glyph")

	// Copy expands the chips to their text; the send carries the references.
	selectRange(t, ctx, 0, utf16Len("看 "+chip+"Z中文 and "+chip+"。"))
	assert.Equal(t, "看 @README.mdZ中文 and @"+long+"。", clipboardEvent(t, ctx, "copy", ""))
	assert.False(t, strings.ContainsAny(draft(t, ctx), "\uE400\uE465"), "the machine's view of the draft holds U+FFFC")
}
