package e2e

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
)

// TestADecisionWaitsForThePauseInTheFnForm: a decision that lands while the person types in
// their fn-form waits until they pause, and only then takes the form's place (QA round 12
// #17). Before, it took the place mid-word: the word's start stayed in the form's kept
// fields and its end went to the draft.
func TestADecisionWaitsForThePauseInTheFnForm(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	const field = `document.querySelector('#composer-mode .fn-form input[type=text]')`
	openGreet := []chromedp.Action[chromedp.Void]{
		js(`document.querySelector('.control-button:not(.model-button)').click()`),
		waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`),
		js(`(s => { if (s.value !== 'greet') { s.value = 'greet'; s.dispatchEvent(new Event('change', {bubbles: true})) } })(document.querySelector('#fn-pick'))`),
		waitJS(`!!` + field),
	}
	do(t, ctx, 10*time.Second, append(openGreet, js(field+`.focus()`))...)
	// The note that says a decision waits, caught whenever it shows.
	evalBool(t, ctx, `(window.__held = false, new MutationObserver(() => {
		if (document.querySelector('.composer-note')?.textContent.includes('A decision is waiting')) window.__held = true
	}).observe(document.body, {subtree: true, childList: true, characterData: true}), true)`)

	sendAPI(t, srv, sessionOf(t, ctx), `/script send('ok=' + str(confirm('Interrupting?')))`)
	const name = "Ada Lovelace of London"
	typeAt(t, ctx, rand.New(rand.NewPCG(17, 17)), name, [2]time.Duration{60 * time.Millisecond, 150 * time.Millisecond})
	assert.True(t, evalBool(t, ctx, `window.__held`), "the confirm landed while the person typed, and waited")
	assert.Equal(t, name, evalString(t, ctx, field+`?.value ?? ''`), "every key went to the form")

	// Paused, the person sees the decision take the form's place.
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-question')`))
	assert.Equal(t, "Interrupting?", modeText(t, ctx, `.question-message`))
	assert.Equal(t, "", draft(t, ctx), "no key went to the draft")
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))
	assert.Equal(t, "ok=True", waitMessages(t, ctx, 4)[3].Text)

	// The form kept the words whole.
	do(t, ctx, 10*time.Second, openGreet...)
	assert.Equal(t, name, evalString(t, ctx, field+`.value`))
}
