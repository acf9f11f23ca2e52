package e2e

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
)

// greetField is the text field of the "greet" function's form.
const greetField = `document.querySelector('#composer-mode .fn-form input[type=text]')`

// openGreet opens the fn-form ("ƒ Functions") on the "greet" function, or goes back to it.
var openGreet = []chromedp.Action[chromedp.Void]{
	js(`document.querySelector('.control-button:not(.model-button)').click()`),
	waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
	waitJS(`document.querySelectorAll('#fn-pick option').length > 1`),
	js(`(s => { if (s.value !== 'greet') { s.value = 'greet'; s.dispatchEvent(new Event('change', {bubbles: true})) } })(document.querySelector('#fn-pick'))`),
	waitJS(`!!` + greetField),
}

// TestADecisionWaitsForThePauseInTheFnForm: a decision that lands while the person types in
// their fn-form waits until they pause, and only then takes the form's place (QA round 12
// #17). Before, it took the place mid-word: the word's start stayed in the form's kept
// fields and its end went to the draft.
func TestADecisionWaitsForThePauseInTheFnForm(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, append(openGreet, js(greetField+`.focus()`))...)
	// The note that says a decision waits, caught whenever it shows.
	evalBool(t, ctx, `(window.__held = false, new MutationObserver(() => {
		if (document.querySelector('.composer-note')?.textContent.includes('A decision is waiting')) window.__held = true
	}).observe(document.body, {subtree: true, childList: true, characterData: true}), true)`)

	sendAPI(t, srv, sessionOf(t, ctx), `/script send('ok=' + str(confirm('Interrupting?')))`)
	const name = "Ada Lovelace of London"
	typeAt(t, ctx, rand.New(rand.NewPCG(17, 17)), name, [2]time.Duration{60 * time.Millisecond, 150 * time.Millisecond})
	assert.True(t, evalBool(t, ctx, `window.__held`), "the confirm landed while the person typed, and waited")
	assert.Equal(t, name, evalString(t, ctx, greetField+`?.value ?? ''`), "every key went to the form")

	// Paused, the person sees the decision take the form's place.
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-question')`))
	assert.Equal(t, "Interrupting?", modeText(t, ctx, `.question-message`))
	assert.Equal(t, "", draft(t, ctx), "no key went to the draft")
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))
	assert.Equal(t, "ok=True", waitMessages(t, ctx, 4)[3].Text)

	// The form kept the words whole.
	do(t, ctx, 10*time.Second, openGreet...)
	assert.Equal(t, name, evalString(t, ctx, greetField+`.value`))
}

// TestADecisionWaitsForAnOpenCompositionInTheFnForm: an input method's composition left open
// in the fn-form (a candidate being chosen, no key for seconds) holds a decision that is due;
// once it is committed and the person pauses, the decision takes the form's place, and the
// form kept the committed text (QA round 13 #6: the decision took the place mid-composition
// and the form kept the unconverted reading).
func TestADecisionWaitsForAnOpenCompositionInTheFnForm(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, append(openGreet, js(greetField+`.focus()`), chromedp.KeyEvent("Ada "), imeCompose("か"), imeCompose("かんじ"))...)
	sendAPI(t, srv, sessionOf(t, ctx), `/script send('ok=' + str(confirm('Interrupting?')))`)
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('.composer-note')?.textContent.includes('A decision is waiting')`))
	time.Sleep(2500 * time.Millisecond) // choosing a candidate: no key
	assert.True(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode.mode-fn-form')`), "the form stays while the composition is open")
	do(t, ctx, 10*time.Second, imeCommit("漢字"))
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-question')`))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))
	do(t, ctx, 10*time.Second, openGreet...)
	assert.Equal(t, "Ada 漢字", evalString(t, ctx, greetField+`.value`), "the form kept the committed text")
}

// TestAReloadMidQuestionGivesTheFocusBack: the person was typing in a question's field and
// reloaded. The question is back with the focus in its field at once, so the keys they go
// on typing are its. Before, it waited the focus delay as a decision that lands on its own
// does: the first second's letters went to the draft, and the draft's writer then kept the
// focus (the re-test of QA round 12).
func TestAReloadMidQuestionGivesTheFocusBack(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('name=' + ask('Your name?', {'type': 'string'}))`, waitJS(focusIn))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("Ad"))
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitJS(modeShown))
	typeAt(t, ctx, rand.New(rand.NewPCG(7, 7)), "a Lovelace", [2]time.Duration{60 * time.Millisecond, 150 * time.Millisecond})
	assert.Equal(t, "", draft(t, ctx), "no key went to the draft")
	assert.True(t, evalBool(t, ctx, focusIn), "the focus is in the question")
	assert.True(t, strings.HasSuffix(evalString(t, ctx, `document.querySelector('#composer-mode input[type=text], #composer-mode textarea')?.value ?? ''`), "a Lovelace"))
}

// TestKeysTypedAsThePageComesBackGoToTheQuestion: the person was typing in a question's
// field, reloaded, and went on typing while the page came back, before the question showed
// again. web/early.js holds those keys, and the composer gives them to the question's field
// once it is back (QA round 13 #1: the first letters went to the hidden draft).
func TestKeysTypedAsThePageComesBackGoToTheQuestion(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('name=' + ask('Your name?', {'type': 'string'}))`, waitJS(focusIn))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("Ad"))
	do(t, ctx, 30*time.Second, chromedp.Reload())
	typeAt(t, ctx, rand.New(rand.NewPCG(9, 9)), "a Lovelace", [2]time.Duration{40 * time.Millisecond, 100 * time.Millisecond})
	const value = `(document.querySelector('#composer-mode input[type=text], #composer-mode textarea')?.value ?? '')`
	waitShowing(t, ctx, 20*time.Second, value+`.endsWith('a Lovelace')`, value+` + ' | draft: ' + document.querySelector('#composer-input')?.value`)
	assert.Equal(t, "", draft(t, ctx), "no key went to the draft")
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitReply(t, ctx, "name=Ada Lovelace")
}

// TestTheComposersBatchPicksSurviveAReload: a batch of approvals answered request by request
// in the composer keeps its picks across a reload, under the key its thread card and
// /approvals keep them under, so all three show the same (QA round 12 #18, the composer's
// half).
func TestTheComposersBatchPicksSurviveAReload(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Batch", batchRun)
	waitQueue(t, srv, 1)
	ctx := openPage(t, srv, "/s/"+s)
	const items = `document.querySelectorAll('#composer-mode .batch-item').length === 3`
	pressed := func(in string) string {
		return `[...document.querySelectorAll('` + in + ` .batch-item [aria-pressed="true"]')].map(b => b.closest('.batch-item').dataset.item + b.textContent).join()`
	}
	do(t, ctx, 20*time.Second, waitJS(items),
		clickJS(`#composer-mode .batch-item[data-item="0"] .tone-affirm`), clickJS(`#composer-mode .batch-item[data-item="1"] .tone-deny`),
		waitJS(pressed(`#composer-mode`)+` === '0Allow,1Reject'`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitJS(items))
	waitShowing(t, ctx, 10*time.Second, pressed(`#composer-mode`)+` === '0Allow,1Reject'`, pressed(`#composer-mode`))

	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry .batch-item').length === 3`))
	assert.Equal(t, "0Allow,1Reject", evalString(t, ctx, pressed(`.queue-entry`)), "/approvals shows the composer's picks")
}

// TestTheAtMenuLaysOutATitleByItsOwnDirection: a session's title in the `@` menu is laid out
// by its own first strong letter, a Hebrew one right to left in the left-to-right page, an
// English one left to right (QA round 12 #13, the menu's part).
func TestTheAtMenuLaysOutATitleByItsOwnDirection(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	seedSession(t, srv, "שלום עולם", 1)
	seedSession(t, srv, "other", 1)
	home := seedSession(t, srv, "home", 1)
	ctx := openPage(t, srv, "/s/"+home)
	waitMessages(t, ctx, 2)
	labels := `[...document.querySelectorAll('#composer-menu [role=option] .ib-option-label')]`
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("@"),
		waitJS(labels+`.some(l => l.textContent.includes('שלום')) && `+labels+`.some(l => l.textContent.includes('other'))`))
	assert.True(t, evalBool(t, ctx, labels+`.find(l => l.textContent.includes('שלום')).matches(':dir(rtl)')`), "the Hebrew title")
	assert.True(t, evalBool(t, ctx, labels+`.find(l => l.textContent.includes('other')).matches(':dir(ltr)')`), "the English one")
}
