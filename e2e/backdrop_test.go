package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// backdropMatches is true when the backdrop draws exactly the textarea's value: its text
// without the labels drawn over the chips (each chip's span holds the textarea's glyph), the
// ghost hint and the zero-width space that keeps a trailing empty line. A character typed at
// the end may wait unwritten in the backdrop (docs/composer.md, "One layout per key"): a
// scroll event, which syncs the backdrop's scroll, writes it first.
const backdropMatches = `(() => {
	document.querySelector('#composer-input').dispatchEvent(new Event('scroll'));
	const c = document.querySelector('#composer-backdrop').cloneNode(true);
	c.querySelectorAll('.ib-ghost, .ib-chip-label').forEach(e => e.remove());
	return c.textContent.replace(/\u200b$/, '') === document.querySelector('#composer-input').value;
})()`

// TestTheBackdropDrawsWhatIsTyped: a typed character is drawn into the backdrop at its
// beforeinput, ahead of the browser's edit (one layout for both layers, docs/composer.md);
// the input event confirms it. The backdrop draws the textarea's text after typing around a
// chip, over a selection and after undo, and when a listener after the bar's prevents a
// key's beforeinput (so no input event confirms what the bar drew), the backdrop is redrawn
// from the draft, not left holding a character the textarea never got.
func TestTheBackdropDrawsWhatIsTyped(t *testing.T) {
	t.Parallel()
	_, ctx, _ := openAmong(t, "alpha notes")
	matches := waitJS(backdropMatches)

	do(t, ctx, 20*time.Second, typeText("see @alp"), menuOpen("@alpha notes"), tab, waitDraft("see "+chip), menuClosed)
	do(t, ctx, 10*time.Second, typeText(" and then more words"), waitDraft("see "+chip+" and then more words"), matches)

	// A key over a selection replaces it, in both layers.
	selectRange(t, ctx, 10, 14) // "then"
	do(t, ctx, 10*time.Second, typeText("X"), waitDraft("see "+chip+" and X more words"), matches)
	// Before the chip, and right after it.
	selectRange(t, ctx, 4, 4)
	do(t, ctx, 10*time.Second, typeText("my "), waitDraft("see my "+chip+" and X more words"), matches)
	selectRange(t, ctx, 8, 8)
	do(t, ctx, 10*time.Second, typeText(","), waitDraft("see my "+chip+", and X more words"), matches)

	// A listener after the bar's refuses the q: the textarea never gets it, and neither does
	// the backdrop once the key is up.
	evalBool(t, ctx, `(() => { addEventListener('beforeinput', e => { if (e.data === 'q') e.preventDefault() }); return true })()`)
	do(t, ctx, 10*time.Second, endKey, typeText(" aqz"), waitDraft("see my "+chip+", and X more words az"), matches)
	do(t, ctx, 10*time.Second, typeText("q"), waitDraft("see my "+chip+", and X more words az"), matches)
	// Undo redraws the backdrop from the draft.
	do(t, ctx, 10*time.Second, undoKey, waitJS(draftJS+` !== "see my \uFFFC, and X more words az"`), matches)
}

// The textarea draws its own text; the backdrop draws the marks (chips, references, the
// ghost hint) under it, and a character typed at the end of the draft may wait unwritten in
// the backdrop (docs/composer.md, "One layout per key"). These tests hold the marks under
// their text where the waiting could move the text before it: a word that wraps a chip with
// it, a right-to-left line, and a phone's larger font (QA round 13 #3 to #5).

// markDisagreements are the chips the backdrop draws more than 1px from where the textarea
// lays their glyph out (layoutJS's mirror), at the field's current width.
func markDisagreements(t *testing.T, ctx context.Context) []string {
	t.Helper()
	var l draftLayout
	require.NoError(t, json.Unmarshal([]byte(evalString(t, ctx, layoutJS(false))), &l))
	var chipsOnly draftLayout
	for _, c := range l.Chars {
		if c.Chip {
			chipsOnly.Chars = append(chipsOnly.Chars, c)
		}
	}
	require.NotEmpty(t, chipsOnly.Chars, "the draft holds a chip")
	return disagreements(chipsOnly)
}

// TestAChipStaysUnderItsGlyphWhenTheWordAfterItWraps: a word typed straight after a chip
// (no space) wraps to the next line with the chip. At widths where that happens as the word
// is typed, the backdrop's chip goes with it. (The width is set first: a resize redraws the
// backdrop whole.)
func TestAChipStaysUnderItsGlyphWhenTheWordAfterItWraps(t *testing.T) {
	t.Parallel()
	_, ctx, _ := openAmong(t, "alpha notes")
	for w := 240; w <= 400; w += 40 {
		evalBool(t, ctx, fmt.Sprintf(`(document.querySelector('.ib-field').style.width = '%dpx', true)`, w))
		do(t, ctx, 20*time.Second, typeText("see the notes in @alp"), menuOpen("@alpha notes"), pick("@alpha notes"), menuClosed)
		typeAt(t, ctx, newRand(), "andthenitkeepsgoing", typingPaces[0])
		do(t, ctx, 10*time.Second, waitDraft("see the notes in "+chip+"andthenitkeepsgoing"))
		require.Empty(t, markDisagreements(t, ctx), "at %dpx", w)
		selectRange(t, ctx, 0, utf16Len("see the notes in "+chip+"andthenitkeepsgoing"))
		do(t, ctx, 10*time.Second, backspace, waitDraft(""))
	}
}

// TestAChipStaysUnderItsGlyphInARightToLeftLine: in a Hebrew line, English typed after a
// chip reorders the line as it grows; the chip drawn behind stays on its glyph.
func TestAChipStaysUnderItsGlyphInARightToLeftLine(t *testing.T) {
	t.Parallel()
	_, ctx, _ := openAmong(t, "alpha notes")
	do(t, ctx, 20*time.Second, typeText("שלום @alp"), menuOpen("@alpha notes"), pick("@alpha notes"), menuClosed)
	typeAt(t, ctx, newRand(), " please read it now", typingPaces[1])
	do(t, ctx, 10*time.Second, waitDraft("שלום "+chip+" please read it now"))
	require.Empty(t, markDisagreements(t, ctx))
}

// TestAChipStaysUnderItsGlyphOnAPhone: a phone's composer is drawn at 16px (so iOS does not
// zoom into it), the backdrop too.
func TestAChipStaysUnderItsGlyphOnAPhone(t *testing.T) {
	t.Parallel()
	_, ctx, _ := openAmong(t, "alpha notes")
	do(t, ctx, 20*time.Second, chromedp.EmulateViewport(390, 844), chromedp.Focus(composer),
		typeText("two words and more words to wrap past the edge of this box @alp"), menuOpen("@alpha notes"), pick("@alpha notes"), menuClosed)
	typeAt(t, ctx, newRand(), " end", typingPaces[1])
	require.Equal(t, evalString(t, ctx, `getComputedStyle(document.querySelector('#composer-input')).fontSize`),
		evalString(t, ctx, `getComputedStyle(document.querySelector('#composer-backdrop')).fontSize`))
	require.Empty(t, markDisagreements(t, ctx))
}
