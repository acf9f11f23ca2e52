package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// TestAnOpenFnFormSurvivesAReload: a function's form open with fields typed comes back after
// a reload, on the same function, with what was typed, and the focus in the field the person
// was typing in, its caret at the end (QA round 14 #3: the composer came back idle, and
// "ƒ Functions" opened on "Choose a function…").
func TestAnOpenFnFormSurvivesAReload(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	const title, body = `document.querySelector('#composer-mode .fn-form input[type=text]')`, `document.querySelector('#composer-mode .fn-form textarea')`
	do(t, ctx, 20*time.Second,
		js(`document.querySelector('.control-button:not(.model-button)').click()`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`),
		js(`(s => { s.value = 'make-note'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#fn-pick'))`),
		waitJS(`!!`+title+` && !!`+body),
		js(title+`.focus()`), chromedp.KeyEvent("QA round"),
		js(body+`.focus()`), chromedp.KeyEvent("two lines"),
		waitJS(`Object.keys(sessionStorage).some(k => k.startsWith('parley.fnform.') && (sessionStorage.getItem(k) || '').includes('two lines'))`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady())
	waitShowing(t, ctx, 30*time.Second,
		`document.querySelector('#fn-pick')?.value === 'make-note' && `+title+`?.value === 'QA round' && `+body+`?.value === 'two lines' && document.activeElement === `+body,
		`(document.querySelector('#fn-pick')?.value ?? 'no form') + ' | ' + (`+title+`?.value ?? '') + ' | ' + (`+body+`?.value ?? '') + ' | focus: ' + document.activeElement?.tagName`)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent(" kept"))
	require.Equal(t, "two lines kept", evalString(t, ctx, body+`.value`), "the caret was at the end of what was typed")
	require.Equal(t, "", draft(t, ctx), "no key went to the draft")
}

// TestQuestionWordsComeBackWhenItEndsElsewhere: words typed into a question that another
// client declines come back into the composer's box, with the notice an approval's words get
// (QA round 14 #4: they vanished, and the composer went back to an empty box).
func TestQuestionWordsComeBackWhenItEndsElsewhere(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script x = ask("Your name?", {"type":"object","properties":{"n":{"type":"string","title":"Name"}},"required":["n"]})`, waitJS(focusIn))
	id := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending')?.dataset.decision || ''`)
	require.NotEmpty(t, id)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("Grace Hopper"),
		waitJS(`(sessionStorage.getItem('parley.answers.`+id+`') || '').includes('Grace Hopper')`))
	_, err := apiClient(srv).Reply(context.Background(), sessionOf(t, ctx), id, protocol.ReplyRequest{Action: protocol.ActionDecline})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(modeGone), waitDraft("Grace Hopper"))
	require.Contains(t, noticeText(t, ctx), "They are back in the box below")
}
