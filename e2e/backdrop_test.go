package e2e

import (
	"testing"
	"time"
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
