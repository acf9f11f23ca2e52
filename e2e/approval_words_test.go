package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
)

// TestApprovalWordsSurviveAReload: the words typed into an approval's "Or say what to do
// instead" come back after a reload, as the composer's draft and a question's answers do
// (a QA pass lost them); Enter then rejects with them, and they are forgotten.
func TestApprovalWordsSurviveAReload(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, `/script send(run(['echo', 'hi']).stdout or 'not run')`)
	const words = "use printf instead"
	const keptJS = `Object.keys(sessionStorage).some(k => k.startsWith('parley.instead.') && sessionStorage.getItem(k) === '` + words + `')`
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#approval-instruction')`),
		chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), words),
		waitJS(keptJS))
	do(t, ctx, 60*time.Second, chromedp.Reload(),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelector('#approval-instruction')?.value === '`+words+`'`))
	// The kept words can be sent.
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('#composer-mode button.send')?.disabled === false`))
	do(t, ctx, 30*time.Second, js(`document.querySelector('#approval-instruction').focus()`), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('#approval-instruction') && document.querySelector('.thread').innerText.includes('`+words+`')`))
	do(t, ctx, 30*time.Second, waitJS(`Object.keys(sessionStorage).every(k => !k.startsWith('parley.instead.'))`))
}

// TestApprovalWordsOutliveItsTimeout: words typed into an approval that then times out go
// back into the composer's box, and a notice says so (QA round 12 #3: they vanished).
func TestApprovalWordsOutliveItsTimeout(t *testing.T) {
	t.Parallel()
	srv := startServerFlags(t, t.TempDir(), "-decision-timeout", "3s")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	prompt(t, ctx, `/script send(run(['echo', 'hi']).stdout or 'not run')`)
	const words = "only if the tests pass"
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#approval-instruction')`),
		chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), words))
	do(t, ctx, 30*time.Second, waitJS(modeGone), waitDraft(words))
	assert.Contains(t, noticeText(t, ctx), "They are back in the box below")
}
