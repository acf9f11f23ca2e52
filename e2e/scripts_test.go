package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScriptFromTheComposerRunsAfterApproval drives /script end to end, as a person would:
// typed in the composer, its run() held for approval on a card in the thread, approved with
// the keyboard, its output and message landing in the thread, and no agent turn fired.
func TestScriptFromTheComposerRunsAfterApproval(t *testing.T) {
	_, ctx := openHome(t)

	do(t, ctx, 10*time.Second,
		typeText(`/script r = run(['echo', 'hi from echo']); send(r.stdout.strip())`), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending .choice')`))
	assert.True(t, evalBool(t, ctx, `!!document.querySelector('.thread .working')`), "the working indicator spans the approval")
	assert.Equal(t, "Allow running echo?", evalString(t, ctx, `document.querySelector('.entry-decision .entry-title').textContent`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.entry-decision .entry-output').textContent`), "echo 'hi from echo'")
	labels := evalString(t, ctx, `[...document.querySelectorAll('.entry-decision .choice-label')].map(e => e.textContent).join('|')`)
	assert.Equal(t, "Approve|Approve, and always for this command|Reject", labels, "no 'always for echo': a bare program could run anything")

	// Keyboard only: focus the first answer and press Enter.
	get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('.entry-decision .choice').focus(); true`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("\r"))

	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-run.status-done') && !document.querySelector('.thread .working')`))
	msgs := thread(t, ctx)
	require.Len(t, msgs, 2)
	assert.Equal(t, "user", msgs[0].Role)
	assert.Equal(t, "agent", msgs[1].Role)
	assert.Equal(t, "hi from echo", msgs[1].Text, "the script's message, and no offline-agent reply")
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.entry-run .entry-output').textContent`), "hi from echo")
	assert.Equal(t, "Approve", evalString(t, ctx, `document.querySelector('.entry-decision .entry-status').textContent`))
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-decision .choice')`), "an answered card offers no answers")

	// A reload shows the same thread, with the cards in their final state.
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitJS(`!!document.querySelector('.entry-run.status-done')`))
	assert.Equal(t, msgs, thread(t, ctx))
}

// TestStopEndsTheTurnAndItsQuestion stops a script waiting on a confirm: the card says it was
// stopped, the run failed as stopped, and the session takes the next prompt.
func TestStopEndsTheTurnAndItsQuestion(t *testing.T) {
	_, ctx := openHome(t)

	do(t, ctx, 10*time.Second, typeText(`/script confirm('Deploy to production?')`), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending')`))
	assert.Equal(t, "Yes|No|Decline", evalString(t, ctx, `[...document.querySelectorAll('.entry-decision .choice-label')].map(e => e.textContent).join('|')`))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.thread .stop`)))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-aborted') && !document.querySelector('.thread .working')`))
	assert.Equal(t, "Stopped", evalString(t, ctx, `document.querySelector('.entry-decision .entry-status').textContent`))
	assert.Equal(t, "Stopped by you", evalString(t, ctx, `document.querySelector('.entry-run.status-stopped .entry-result').textContent`))
	assert.Equal(t, "composer-input", evalString(t, ctx, `document.activeElement.id`), "the keyboard stays where the next prompt goes")

	do(t, ctx, 10*time.Second, typeText("still there?"), pressEnter(0))
	msgs := waitMessages(t, ctx, 3)
	assert.Contains(t, msgs[2].Text, "No model is configured")
}

// TestScriptTextIsShownAsText sends markup from a script: it must arrive as text.
func TestScriptTextIsShownAsText(t *testing.T) {
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText(`/script send('<img src=x onerror="document.title=1">'); print('<b>bold</b>')`), pressEnter(0))
	msgs := waitMessages(t, ctx, 2)
	assert.Equal(t, `<img src=x onerror="document.title=1">`, msgs[1].Text)
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-run.status-done')`))
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('.thread img, .thread b')`), "no markup from a script became an element")
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.entry-run .entry-output').textContent`), "<b>bold</b>")
}

// TestTextQuestionIsAnsweredOnItsCard answers a script's text question in the thread: a
// too-short answer is refused with the protocol's words, a good one resumes the script.
func TestTextQuestionIsAnsweredOnItsCard(t *testing.T) {
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second,
		typeText(`/script n = ask('Your name?', {'type': 'string', 'title': 'Name', 'minLength': 2}); send('hello ' + n)`), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending .entry-input')`))

	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`.entry-input`), "A"), chromedp.KeyEvent("\r"),
		waitJS(`!!document.querySelector('.entry-problem')`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.entry-problem').textContent`), "at least 2")
	assert.True(t, evalBool(t, ctx, `!!document.querySelector('.entry-decision.status-pending')`), "nothing was sent")

	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`.entry-input`), "da"), chromedp.KeyEvent("\r"))
	msgs := waitMessages(t, ctx, 2)
	assert.Equal(t, "hello Ada", msgs[1].Text)
	assert.Equal(t, "Answered: Ada", evalString(t, ctx, `document.querySelector('.entry-decision .entry-status').textContent`))
}

// TestPromptSentDuringATurnWaitsThenFollowsIt sends a prompt while a script waits on a
// confirm: it waits below the thread, and joins it, with its reply after it, when its turn
// starts.
func TestPromptSentDuringATurnWaitsThenFollowsIt(t *testing.T) {
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText(`/script ok = confirm('Go on?'); send('first done' if ok else 'first stopped')`), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending')`))

	// The confirm occupies the composer; "Chat about this" gives the input back, with the
	// question still open.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .chat-about`)),
		waitJS(`!document.querySelector('#composer-mode')`),
		typeText("second prompt"), pressEnter(0),
		waitJS(`!!document.querySelector('.queue-dock [data-queued]')`))
	assert.Equal(t, "second prompt", evalString(t, ctx, `document.querySelector('.queue-dock .queue-text').textContent`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.queue-dock .queue-when').textContent`), "Next")
	require.Len(t, thread(t, ctx), 1, "the waiting prompt is not in the thread yet")

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.entry-decision .choice`)))
	msgs := waitMessages(t, ctx, 4)
	texts := []string{msgs[0].Text, msgs[1].Text, msgs[2].Text}
	assert.Equal(t, []string{`/script ok = confirm('Go on?'); send('first done' if ok else 'first stopped')`, "first done", "second prompt"}, texts)
	assert.Contains(t, msgs[3].Text, "No model is configured", "the second prompt's reply follows it")
	do(t, ctx, 10*time.Second, waitJS(`!document.querySelector('.queue-dock [data-queued]') && !document.querySelector('.thread .working')`))
}
