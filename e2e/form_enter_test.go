package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Enter in a form asked one question at a time (docs/elicitation.md, "One question at a
// time"), typed at the keys as a person would.

const (
	shownError = `(document.querySelector('#composer-mode .field:not(.is-hidden) .field-error') || {textContent: ''}).textContent`
	gotReply   = `[...document.querySelectorAll('.thread .msg-text')].find(m => m.textContent.startsWith('got '))`
)

// TestAnUnreadableDateOrNumberIsNotDropped (QA round 19, P2-1): a date input shows
// 02/30/2026 and a number input 1-2, which their browser cannot read (its value is "", its
// validity.badInput true). Enter there says what is wrong and stays, the chip gets no check
// mark, and Send refuses the form, showing the date with its error. Before, Enter moved on
// with no error and Send answered without the date: the person's input vanished.
func TestAnUnreadableDateOrNumberIsNotDropped(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	sendAPI(t, srv, sessionOf(t, ctx), `/script r = ask("Plan", {"type":"object","properties":{"d":{"type":"string","format":"date","title":"Day"},"n":{"type":"integer","title":"Count"},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}); send("got " + str(r))`)
	do(t, ctx, 20*time.Second, waitJS(modeShown), waitJS(`document.activeElement?.type === 'date'`))
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("02302026"))
	require.True(t, evalBool(t, ctx, `document.activeElement.type === 'date' && document.activeElement.validity.badInput`),
		"the date input holds a date that does not exist")
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitShowing(t, ctx, 10*time.Second, shownError+` !== ''`, shownTitle+` + ' | ' + document.activeElement?.outerHTML.slice(0, 120)`)
	require.Equal(t, "Not a date: use the date picker, or type a whole date that exists.", evalString(t, ctx, shownError))
	require.True(t, evalBool(t, ctx, `document.activeElement.type === 'date'`), "the focus stays in the date")
	require.Equal(t, "Day", modeText(t, ctx, `[role=tab][aria-selected=true]`), "no check mark on its chip")

	// The number: its chip, then 1-2 and Enter.
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode [role=tab]')].find(c => c.textContent.startsWith('Count')).click()`),
		waitJS(`document.activeElement?.type === 'number'`), chromedp.KeyEvent("1-2"))
	require.True(t, evalBool(t, ctx, `document.activeElement.validity.badInput`), "the number input holds what is no number")
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitShowing(t, ctx, 10*time.Second, shownError+` !== ''`, shownTitle+` + ' | ' + document.activeElement?.outerHTML.slice(0, 120)`)
	require.Equal(t, "Not a whole number: type digits, like 12 or -3.", evalString(t, ctx, shownError))
	require.True(t, evalBool(t, ctx, `document.activeElement.type === 'number'`), "the focus stays in the number")

	// The tags, then Send: refused, and the date is shown with its error.
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode [role=tab]')].find(c => c.textContent.startsWith('Tags')).click()`),
		chromedp.Click(chromedp.CSS(`#composer-mode input[value=a]`)),
		chromedp.Click(chromedp.CSS(`#composer-mode .send:not([disabled])`)),
		waitJS(shownTitle+` === 'Day' && `+shownError+` !== ''`))
	time.Sleep(300 * time.Millisecond) // a check that nothing is sent
	assertOnePending(t, srv, ctx, "nothing was sent: the question is still pending")
	require.False(t, evalBool(t, ctx, `!!`+gotReply))
}

// TestEnterSendsAFormWithAnOptionalQuestionLeftEmpty (QA round 19, P2-2): Enter on an empty
// optional question moves on; on the last, it sends, the question left empty unanswered.
// Before, each Enter went back to the first question, as unanswered, and back again:
// nothing was sent and nothing said why.
func TestEnterSendsAFormWithAnOptionalQuestionLeftEmpty(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	sendAPI(t, srv, sessionOf(t, ctx), `/script r = ask("Two", {"type":"object","properties":{"a":{"type":"string","title":"A"},"b":{"type":"string","title":"B"}}}); send("got " + str(r))`)
	do(t, ctx, 20*time.Second, waitJS(modeShown), waitJS(`document.activeElement?.type === 'text' && `+shownTitle+` === 'A'`))
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`document.activeElement?.type === 'text' && `+shownTitle+` === 'B'`),
		chromedp.KeyEvent("x"), pressEnter(0))
	waitShowing(t, ctx, 10*time.Second, modeGone+` && !!`+gotReply, shownTitle+` + ' | ' + document.activeElement?.outerHTML.slice(0, 120)`)
	require.Equal(t, `got {"b": "x"}`, evalString(t, ctx, gotReply+`.textContent`))
}
