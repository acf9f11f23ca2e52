package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestScriptFromTheComposerRunsAfterApproval drives /script end to end, as a person would:
// typed in the composer, its run() held for approval in the composer (the thread's card says
// it waits there), approved with the keyboard, its output shown once, in the run's card, and
// no agent turn fired.
func TestScriptFromTheComposerRunsAfterApproval(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)

	do(t, ctx, 10*time.Second,
		typeText(`/script r = run(['echo', 'hi from echo']); send(r.stdout.strip())`), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending') && !!document.querySelector('#composer-mode .choice')`))
	require.True(t, evalBool(t, ctx, `!!document.querySelector('.thread .working')`), "the working indicator spans the approval")
	require.Equal(t, "Allow running echo?", evalString(t, ctx, `document.querySelector('.entry-decision .entry-title').textContent`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.entry-decision .entry-status').textContent`), "Waiting for your answer below")
	labels := evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .choice-label')].map(e => e.textContent).join('|')`)
	require.Equal(t, "Approve|Approve, and always for this command|Reject", labels, "no 'always for echo': a bare program could run anything")

	// Keyboard only: focus the first answer and press Enter.
	get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('#composer-mode .choice').focus(); true`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("\r"))

	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-run.status-done') && !document.querySelector('.thread .working')`))
	msgs := thread(t, ctx)
	require.Len(t, msgs, 1, "the script's message repeats its run's output: it is shown once, in the card; and no offline-agent reply")
	require.Equal(t, "user", msgs[0].Role)
	require.Contains(t, evalString(t, ctx, `document.querySelector('.entry-run .entry-output').textContent`), "hi from echo")
	require.Equal(t, 1, strings.Count(evalString(t, ctx, `[...document.querySelectorAll('.thread-inner .msg-agent, .thread-inner .entry-run')].map(e => e.innerText).join(' ')`), "hi from echo"))
	require.Equal(t, "Approved", evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`))
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-decision .choice')`), "an answered card offers no answers")

	// A reload shows the same thread, with the cards in their final state.
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitJS(`!!document.querySelector('.entry-run.status-done')`))
	require.Equal(t, msgs, thread(t, ctx))
}

// TestStopEndsTheTurnAndItsQuestion stops a script waiting on a confirm: the card says it was
// stopped, the run failed as stopped, and the session takes the next prompt.
func TestStopEndsTheTurnAndItsQuestion(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)

	do(t, ctx, 10*time.Second, typeText(`/script confirm('Deploy to production?')`), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending')`))
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-decision .choice')`), "the card has no answers: the composer holds them")
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.thread .stop`)))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-aborted') && !document.querySelector('.thread .working')`))
	require.Equal(t, "Stopped by you", evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`))
	require.Equal(t, "Stopped by you", evalString(t, ctx, `document.querySelector('.entry-run.status-stopped .entry-result').textContent`))
	require.Equal(t, "composer-input", evalString(t, ctx, `document.activeElement.id`), "the keyboard stays where the next prompt goes")

	do(t, ctx, 10*time.Second, typeText("still there?"), pressEnter(0))
	msgs := waitMessages(t, ctx, 3)
	require.Contains(t, msgs[2].Text, "No model is configured")
}

// TestScriptTextIsShownAsText sends markup from a script: it must arrive as text.
func TestScriptTextIsShownAsText(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText(`/script send('<img src=x onerror="document.title=1">'); print('<b>bold</b>')`), pressEnter(0))
	waitReply(t, ctx, `<img src=x onerror="document.title=1">`)
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-run.status-done')`))
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.thread img, .thread b')`), "no markup from a script became an element")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.entry-run .entry-output').textContent`), "<b>bold</b>")
}

// TestPromptSentDuringATurnWaitsThenFollowsIt sends a prompt while a script waits on a
// confirm: it waits below the thread, and joins it, with its reply after it, when its turn
// starts.
func TestPromptSentDuringATurnWaitsThenFollowsIt(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText(`/script ok = confirm('Go on?'); send('first done' if ok else 'first stopped')`), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending')`))

	// The confirm occupies the composer; "Chat about this" gives the input back, with the
	// question still open.
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .chat-about`)),
		waitJS(`!document.querySelector('#composer-mode')`),
		typeText("second prompt"), pressEnter(0),
		waitJS(`!!document.querySelector('.queue-dock [data-queued]')`))
	require.Equal(t, "second prompt", evalString(t, ctx, `document.querySelector('.queue-dock .queue-text').textContent`))
	require.Equal(t, "Waiting for the current turn", evalString(t, ctx, `document.querySelector('.queue-dock .queue-when').textContent`))
	require.Len(t, thread(t, ctx), 1, "the waiting prompt is not in the thread yet")

	// The card says the answer is below; the chip brings the question back.
	do(t, ctx, 10*time.Second, js(`document.querySelector('.composer-env .env-chip').click()`),
		waitJS(`!!document.querySelector('#composer-mode .choice')`), pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)))
	msgs := waitMessages(t, ctx, 4)
	texts := []string{msgs[0].Text, msgs[1].Text, msgs[2].Text}
	require.Equal(t, []string{`/script ok = confirm('Go on?'); send('first done' if ok else 'first stopped')`, "first done", "second prompt"}, texts)
	require.Contains(t, msgs[3].Text, "No model is configured", "the second prompt's reply follows it")
	do(t, ctx, 10*time.Second, waitJS(`!document.querySelector('.queue-dock [data-queued]') && !document.querySelector('.thread .working')`))
}

// TestRunCardPrecedesItsApproval: the script's card stays where the run began, above the
// approval that let its command run (docs/qa-round10.md), and holds what the command printed.
func TestRunCardPrecedesItsApproval(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, `/script r = run(['echo', 'approved output']); print(r.stdout)`)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('#composer-mode .choice')`),
		clickJS(`#composer-mode .choice`),
		waitJS(`!!document.querySelector('.entry-run.status-done')`))
	order := evalString(t, ctx, `[...document.querySelectorAll('.thread-inner .entry-run, .thread-inner .entry-decision')].map(e => e.classList.contains('entry-run') ? 'run' : 'decision').join()`)
	require.Equal(t, "run,decision", order)
	require.Contains(t, evalString(t, ctx, `document.querySelector('.entry-run .entry-output')?.textContent || ''`), "approved output")
}

// runOrder is the thread's run cards and decision cards, in the order drawn.
const runOrder = `[...document.querySelectorAll('.thread-inner .entry-run, .thread-inner .entry-decision')].map(e => e.classList.contains('entry-run') ? 'run' : 'decision').join()`

// TestAQuestionFollowsTheRunThatAsksIt: `/example ask-deploy` draws its run card ("Example
// ask-deploy running…") first, then the question it asks, as it happened; after a reload too
// (round 9 #4).
func TestAQuestionFollowsTheRunThatAsksIt(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	typeAt(t, ctx, newRand(), "/example ask-deploy", typingPaces[1])
	// The menu's Enter takes the slug typed whole and sends it.
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('#composer-menu').classList.contains('open')`), pressEnter(0))
	do(t, ctx, 60*time.Second, waitJS(`location.pathname.startsWith('/s/')`), waitJS(modeShown),
		waitJS(`document.querySelectorAll('.thread-inner .entry-decision').length === 1 && document.querySelectorAll('.thread-inner .entry-run').length === 1`))
	require.Equal(t, "run,decision", evalString(t, ctx, runOrder), "the run began, then it asked")
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitCaughtUp(),
		waitJS(`document.querySelectorAll('.thread-inner .entry-decision').length === 1`))
	require.Equal(t, "run,decision", evalString(t, ctx, runOrder), "after a reload too")
}

// TestRequestRetryOnARequestCutOffByARestart: a script's question is pending when the server
// is killed; started again, the script cannot resume, so its question ends as cut off by the
// restart. Its card offers Run again (QA round 11 #4: it offered a retry request to the agent,
// which never asked it), and the click sends the script again, which asks again, without
// answering or granting anything.
func TestRequestRetryOnARequestCutOffByARestart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx := openHomeOn(t, data)
	const script = `/script confirm('Deploy to staging?')`
	do(t, ctx, 10*time.Second, typeText(script), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending')`))
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-decision .retry')`), "a pending request offers no retry")

	srv.kill()
	srv = startServer(t, data, srv.addr)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-aborted .retry')`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`), "the server restarted")
	require.Equal(t, "Run again", evalString(t, ctx, `document.querySelector('.entry-decision.status-aborted .retry').textContent`))
	// A button as wide as its words, like the card's answers: stretched across the card, a grey
	// box, it looked like a text field (QA round 17).
	require.Less(t, get(t, ctx, chromedp.Evaluate[float64](`(b => b.getBoundingClientRect().width / b.closest('.entry').getBoundingClientRect().width)(document.querySelector('.entry-decision .retry'))`)),
		0.4, "Run again is as wide as its words")
	do(t, ctx, 10*time.Second, clickJS(`.entry-decision.status-aborted .retry`),
		waitJS(`!!document.querySelector('.entry-decision .retry-note')`))
	do(t, ctx, 30*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg-user')].length === 2`), waitJS(modeShown))
	require.NotContains(t, evalString(t, ctx, `document.querySelector('.thread').textContent`), "please make the same request again", "the agent is not asked")

	list, err := apiClient(srv).ListGrants(context.Background())
	require.NoError(t, err)
	require.Empty(t, list, "a retry creates no trust")
	h := approvalHistory(t, srv)
	require.Len(t, h.Entries, 1)
	require.True(t, h.Entries[0].Retryable, "the history offers it too")
	require.True(t, h.Entries[0].RetryRuns, "as Run again")
}
