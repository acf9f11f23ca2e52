package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The input bar's findings of a tester typing at a person's pace (key events 40–150 ms
// apart), round 13.

// personPace is the tester's gap between keys.
var personPace = [2]time.Duration{40 * time.Millisecond, 150 * time.Millisecond}

// arrowLeft presses ← n times, as a person moving the caret back.
func arrowLeft(n int) chromedp.Action[chromedp.Void] {
	var steps []chromedp.Action[chromedp.Void]
	for range n {
		steps = append(steps, rawKey("ArrowLeft", 37, 0))
	}
	return chromedp.Steps(steps...)
}

// stripText is the "Your draft is kept: …" strip of the decision shown, "" when none.
const stripText = `(document.querySelector('#composer-mode .draft-strip') || {textContent: ''}).textContent`

// TestKeysOnADecisionGoWhereTheCaretWas (P1): the person edits in the middle of their draft
// ("AAA xxx| BBB"); an approval takes the input area; after a pause they type on. Their
// letters go to the draft where the caret was, in order ("AAA xxx yyy BBB"), and the strip
// shows the draft as it is. Before, each letter was appended at the draft's end
// ("AAA xxx BBB yyy").
func TestKeysOnADecisionGoWhereTheCaretWas(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	rng := newRand()
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.id === 'composer-input'`))
	typeAt(t, ctx, rng, "AAA BBB", personPace)
	do(t, ctx, 10*time.Second, arrowLeft(4), waitJS(`document.querySelector('#composer-input').selectionStart === 3`))
	typeAt(t, ctx, rng, " xxx", personPace)
	do(t, ctx, 10*time.Second, waitDraft("AAA xxx BBB"))

	sendAPI(t, srv, sessionOf(t, ctx), `/script r = run(['echo','hi'])`)
	do(t, ctx, 30*time.Second, waitJS(modeShown), waitJS(stripText+` === 'Your draft is kept: AAA xxx BBB'`))
	time.Sleep(2 * time.Second) // the person reads it
	typeAt(t, ctx, rng, " yyy", personPace)
	waitShowing(t, ctx, 10*time.Second, stripText+` === 'Your draft is kept: AAA xxx yyy BBB'`, stripText)
	assert.True(t, evalBool(t, ctx, modeShown), "the approval is still there, unanswered")
	assert.Equal(t, "", evalString(t, ctx, `(document.querySelector('#approval-instruction') || {value: ''}).value`), "no letter went into the approval")

	// Back in the draft, the caret is after the letters, so the next ones follow them.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .draft-strip`)), waitJS(modeGone),
		waitJS(`document.activeElement.id === 'composer-input'`))
	assert.Equal(t, "AAA xxx yyy BBB", draft(t, ctx))
	typeAt(t, ctx, rng, " zz", personPace)
	do(t, ctx, 10*time.Second, waitDraft("AAA xxx yyy zz BBB"))
}

// TestACommandMidDraftOpensNoMenu (P2): "/exa" typed after words is text, as in Claude Code
// and Codex, where a command is one only at the prompt's start (and the server's door runs
// one only there). Before, the Commands menu opened with /example highlighted, and Enter and
// Tab were both swallowed: a command's pick claims the draft from its start, which the input
// machine refused mid-draft, and the menu stayed open. At the start, the menu still opens and
// Tab picks.
func TestACommandMidDraftOpensNoMenu(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	rng := newRand()
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.id === 'composer-input'`))
	// The command list is warm: at the start "/exa" offers /example.
	typeAt(t, ctx, rng, "/exa", personPace)
	do(t, ctx, 10*time.Second, menuOpen("/example"))
	clearDraft(t, ctx)

	typeAt(t, ctx, rng, "hello /exa", personPace)
	// The candidates come back in a few ms; the menu would be open well within the second.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		require.Equal(t, "false", evalString(t, ctx, `document.querySelector('#composer-input').getAttribute('data-expanded')`),
			"no command menu mid-draft")
		time.Sleep(50 * time.Millisecond)
	}
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 3)
	assert.Equal(t, "hello /exa", msgs[2].Text, "Enter sends the draft as typed")

	// At the start of the draft the menu opens, and Tab picks.
	do(t, ctx, 10*time.Second, waitDraft(""))
	typeAt(t, ctx, rng, "/exa", personPace)
	// (The example names' menu may open after it: /example takes an argument.)
	do(t, ctx, 10*time.Second, menuOpen("/example"), tabKey(0), waitDraft("/example "))
}

// TestAModelPickGivesTheKeysBack (P3): after a model picked with ↓ and Enter, the focus is
// back in the composer's textarea, so the person types on and sends. Before, it stayed on the
// model button and the letters went nowhere.
func TestAModelPickGivesTheKeysBack(t *testing.T) {
	t.Parallel()
	fake, ctx := openModelSession(t, "pick")
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('#model-button')?.textContent || '').startsWith('test')`),
		chromedp.Focus(chromedp.CSS(`#model-button`)),
		rawKey("ArrowDown", 40, 0), waitJS(`document.activeElement?.id === 'model-listbox'`),
		rawKey("ArrowDown", 40, 0), waitJS(`document.querySelector('#model-listbox').getAttribute('aria-activedescendant') === 'model-option-1'`),
		pressEnter(0), waitJS(`!document.querySelector('#model-listbox') && document.querySelector('#model-button').textContent.startsWith('other')`))
	waitShowing(t, ctx, 5*time.Second, `document.activeElement?.id === 'composer-input'`, `document.activeElement?.outerHTML`)
	typeAt(t, ctx, newRand(), "hi", personPace)
	do(t, ctx, 10*time.Second, waitDraft("hi"), pressEnter(0))
	require.Eventually(t, func() bool { return len(fake.asked()) == 1 }, 20*time.Second, 50*time.Millisecond)
	assert.Equal(t, []string{"other"}, fake.asked(), "the prompt went out, to the model picked")

	// Escape leaves the list without a pick: the focus goes back to the button it came from.
	do(t, ctx, 10*time.Second, chromedp.Focus(chromedp.CSS(`#model-button`)),
		rawKey("ArrowDown", 40, 0), waitJS(`document.activeElement?.id === 'model-listbox'`),
		rawKey("Escape", 27, 0), waitJS(`!document.querySelector('#model-listbox') && document.activeElement?.id === 'model-button'`))
}

// TestAPermissionPickGivesTheKeysBack (P3, the permission mode made consistent with the model
// picker): a mode picked from the select's list gives the focus back to the textarea; the
// arrows on the closed select walk the modes in place and keep it; and a letter typed on the
// select goes to the draft. Before, the focus stayed on the select, and letters typed there
// changed the mode by type-ahead ("ask" set "Ask for everything").
func TestAPermissionPickGivesTheKeysBack(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	const mode = `document.querySelector('#permission-mode').value`
	do(t, ctx, 10*time.Second, waitJS(mode+` === 'reads'`), chromedp.Focus(chromedp.CSS(`#permission-mode`)),
		rawKey("ArrowDown", 40, 0), waitJS(mode+` === 'edits'`))
	time.Sleep(300 * time.Millisecond) // the change has run: the focus stays for the next step
	assert.Equal(t, "permission-mode", activeID(t, ctx), "a step of the arrows keeps the focus")
	typeAt(t, ctx, newRand(), "ask", personPace)
	do(t, ctx, 10*time.Second, waitDraft("ask"))
	assert.Equal(t, "edits", evalString(t, ctx, mode), "the letters did not pick a mode")
	assert.Equal(t, "composer-input", activeID(t, ctx))

	// A pick from the open list is a change with no key on the select (a click, or Enter in
	// the list, which the page does not see).
	do(t, ctx, 10*time.Second, chromedp.Focus(chromedp.CSS(`#permission-mode`)),
		js(`(s => { s.value = 'ask'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#permission-mode'))`))
	waitShowing(t, ctx, 5*time.Second, `document.activeElement?.id === 'composer-input'`, `document.activeElement?.outerHTML`)
	typeAt(t, ctx, newRand(), " me", personPace)
	do(t, ctx, 10*time.Second, waitDraft("ask me"))
	assert.Equal(t, "ask", evalString(t, ctx, mode))
}

// TestTheContextRingShowsItsFiguresOnFocus (P3): the ring is one Tab stop after the model
// button, and focused it shows its figures ("0 of 32,768 tokens (0%)" and where the window
// comes from) where a keyboard user can read them; the next Tab leaves it. Before, it could
// not be focused, and its figures were only in a hover tooltip.
func TestTheContextRingShowsItsFiguresOnFocus(t *testing.T) {
	t.Parallel()
	_, ctx := openModelSession(t, "ring")
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.context-ring')`),
		chromedp.Focus(chromedp.CSS(`#model-button`)), tabKey(0))
	waitShowing(t, ctx, 5*time.Second, `document.activeElement?.classList.contains('context-ring')`, `document.activeElement?.outerHTML`)
	tip := evalString(t, ctx, `getComputedStyle(document.querySelector('.context-ring'), '::after').content`)
	assert.Contains(t, tip, "0 of 32,768 tokens (0%)", "the figures show on focus")
	assert.Contains(t, tip, "-model-window", "and where the window comes from")
	assert.True(t, evalBool(t, ctx, `(s => s.display !== 'none' && s.visibility !== 'hidden' && s.opacity !== '0')(getComputedStyle(document.querySelector('.context-ring'), '::after'))`),
		"the tip is shown")
	assert.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('#model-button'), '::after').content`))
	// One stop: the next Tab leaves the ring, and the tip goes with the focus.
	do(t, ctx, 10*time.Second, tabKey(0), waitJS(`!document.activeElement?.classList.contains('context-ring')`))
	assert.False(t, evalBool(t, ctx, `!!document.activeElement?.closest('.model-controls')`), "the ring is the model controls' last stop")
	assert.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('.context-ring'), '::after').content`), "no tip without the focus")
}
