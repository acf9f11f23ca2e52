package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// QA round 14's approval findings: a batch's "approve all" never approves a request marked
// Reject (#1), a batch's long command wraps in the composer (#6), an argument's newline shows
// as \n (#9), and on a touch screen an approval focuses its dialog, not its field (#10).

// markedBatch asks for two commands as one batch; the second must never run once marked Reject.
const markedBatch = `/script rs = run_batch([['echo', 'keep'], ['echo', 'DO-NOT-RUN']]); send(' | '.join([r.stdout.strip() or r.error for r in rs]))`

// TestApproveAllNeverRunsARequestMarkedReject (#1): in the composer, a request marked Reject
// turns "Approve all" into "Approve 1, reject 1", and Ctrl+Enter sends exactly that; so does
// the thread card's Approve all with the mark made in the composer.
func TestApproveAllNeverRunsARequestMarkedReject(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	mode := `#composer-mode.mode-approval`
	approve := `document.querySelector('` + mode + ` .choice-primary .choice-label')?.textContent`
	do(t, ctx, 10*time.Second, typeText(markedBatch), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('`+mode+` .batch-item').length === 2`),
		waitJS(`document.activeElement.id === 'approval-instruction'`))
	require.Equal(t, "Approve all", evalString(t, ctx, approve))
	do(t, ctx, 10*time.Second, clickJS(mode+` .batch-item[data-item="1"] .tone-deny`))
	waitShowing(t, ctx, 10*time.Second, approve+` === 'Approve 1, reject 1'`, approve)
	do(t, ctx, 10*time.Second, js(`document.querySelector('#approval-instruction').focus()`), pressEnter(modCtrl))
	waitReply(t, ctx, "keep | rejected by the user")

	// Marked in the composer, approved on the thread's card.
	do(t, ctx, 10*time.Second, js(`document.querySelector('#composer-input').focus()`), typeText(markedBatch), pressEnter(0))
	card := `.thread .entry-decision.status-pending`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('`+mode+` .batch-item').length === 2 && !!document.querySelector('`+card+` .batch-item')`),
		clickJS(mode+` .batch-item[data-item="1"] .tone-deny`), waitJS(approve+` === 'Approve 1, reject 1'`),
		clickJS(card+` .entry-actions .tone-affirm`))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "keep | rejected by the user", msgs[3].Text)
}

// TestAltANeverApprovesARequestMarkedReject (#1): on /approvals, Alt+A on a batch with a
// request marked Reject asks "Approve 2 and reject 1 of …, as marked?", and Enter sends that.
func TestAltANeverApprovesARequestMarkedReject(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Batch", batchRun)
	waitQueue(t, srv, 1)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry .batch-item').length === 3`),
		chromedp.Click(chromedp.CSS(`.queue-entry .batch-item[data-item="1"] .tone-deny`)),
		waitJS(`document.querySelector('.queue-entry .batch-item[data-item="1"] .tone-deny').getAttribute('aria-pressed') === 'true'`),
		waitJS(`document.querySelector('.queue-entry .entry-actions .tone-affirm .choice-label').textContent === 'Approve 2, reject 1'`),
		altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`))
	require.Equal(t, "Approve 2 and reject 1 of “Allow these 3 requests”, as marked?", evalString(t, ctx, `document.querySelector('.confirm span').textContent`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitQueue(t, srv, 0)
	waitAgentReplies(t, srv, s, 1)
	h, err := apiClient(srv).ApprovalHistory(context.Background(), protocol.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	require.Equal(t, "Approved 2 of 3", h.Entries[0].Answer)
}

// longBatch holds a command longer than any screen is wide, with a newline in an argument.
const longBatch = `/script run_batch([["echo", "a"], ["echo", "b"], ["printf", "%s\n", "a very long argument that goes on and on and on, well past the right edge of the composer on a desktop and far past it on a small phone screen"]])`

// TestABatchsLongCommandWrapsInTheComposer (#6): the composer's batch wraps a long command as
// the thread's card does: nothing scrolls sideways, at 1200×900 and on a 390×844 phone.
func TestABatchsLongCommandWrapsInTheComposer(t *testing.T) {
	t.Parallel()
	for _, size := range []string{"desktop", "phone"} {
		t.Run(size, func(t *testing.T) {
			_, ctx := openHome(t)
			do(t, ctx, 10*time.Second, typeText(longBatch), pressEnter(0))
			do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('#composer-mode .batch-item').length === 3`))
			if size == "phone" { // a phone's Enter breaks the line: sent first, then the phone
				do(t, ctx, 10*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), waitJS(`innerWidth === 390`))
			}
			wide := `[...document.querySelectorAll('#composer-mode .morph-body, #composer-mode .batch-details')].filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.className + ' ' + e.clientWidth + '/' + e.scrollWidth).join('|')`
			require.Empty(t, evalString(t, ctx, wide), "scrolls sideways")
			h := `(i => document.querySelector('#composer-mode .batch-item[data-item="' + i + '"] .batch-details').getBoundingClientRect().height)`
			require.True(t, evalBool(t, ctx, h+`(2) > 1.5 * `+h+`(0)`), "the long command wraps onto more lines than a short one")
		})
	}
}

// TestAnArgumentsNewlineShowsEscaped (#9): an argument holding a newline reads as one word,
// $'%s\n', in the composer, in the thread's card and on /approvals, never as a line break.
func TestAnArgumentsNewlineShowsEscaped(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	want := `printf $'%s\n' 'a very long argument`
	do(t, ctx, 10*time.Second, typeText(longBatch), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('#composer-mode .batch-item').length === 3 && document.querySelectorAll('.thread .entry-decision.status-pending .batch-item').length === 3`))
	for _, sel := range []string{`#composer-mode .batch-item[data-item="2"] .batch-details`, `.thread .entry-decision.status-pending .batch-item[data-item="2"] .entry-output`} {
		text := evalString(t, ctx, `document.querySelector('`+sel+`').textContent`)
		require.True(t, strings.HasPrefix(text, want), "%s shows %q", sel, text)
		require.NotContains(t, text, "\n", "%s: one line", sel)
	}
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry .batch-item').length === 3`))
	text := evalString(t, ctx, `document.querySelector('.queue-entry .batch-item[data-item="2"] .entry-output').textContent`)
	require.True(t, strings.HasPrefix(text, want), "/approvals shows %q", text)
}

// TestOnATouchScreenAnApprovalFocusesItsDialog (#10): on a phone, an approval that arrives
// takes the focus at its dialog, not at its field for words (whose on-screen keyboard would
// cover the buttons); a tap in the field still brings it up, and the chords still answer.
// On a desktop the field takes it, as before (TestCtrlEnterWithWordsTypedRejects and others).
func TestOnATouchScreenAnApprovalFocusesItsDialog(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	prompt(t, ctx, "hello") // a phone's Enter breaks the line: sent first, then the phone
	waitMessages(t, ctx, 2)
	id := sessionOf(t, ctx)
	do(t, ctx, 10*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), waitJS(`matchMedia('(pointer: coarse)').matches`))
	sendAPI(t, srv, id, echoScript)
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval')`),
		waitJS(`document.activeElement?.id === 'composer-mode'`))
	// It stays there: nothing moves it into the field later.
	do(t, ctx, 10*time.Second, chromedp.Sleep(1500*time.Millisecond))
	require.Equal(t, "composer-mode", evalString(t, ctx, `document.activeElement?.id`))

	// After a reload, too.
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitJS(`!!document.querySelector('#composer-mode.mode-approval')`))
	do(t, ctx, 10*time.Second, chromedp.Sleep(1500*time.Millisecond))
	require.NotEqual(t, "approval-instruction", evalString(t, ctx, `document.activeElement?.id`))

	// The keys stay the composer's: Ctrl+Enter on the dialog approves.
	do(t, ctx, 10*time.Second, js(`document.querySelector('#composer-mode').focus()`), pressEnter(modCtrl))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "got hello", msgs[3].Text)
}
