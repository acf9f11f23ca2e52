package e2e

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// The open findings of QA round 12 on /approvals (docs/qa-round12.md, "Open"): where the
// keyboard goes once an entry is answered (#9, #10), a batch's picks across a reload and the
// look of its Send (#18), and session titles laid out by their own direction (#13).

// TestEnterAfterAnAnswerOpensNoThread: Enter pressed again after Alt+R and Enter rejected an
// entry is meant for the entry answered: it opens no thread, neither the answered entry's
// (still waiting on the server's answer) nor the next one's, which the page moved the focus
// to (QA round 12 #9). The person's own move (↓) makes Enter open the thread again.
func TestEnterAfterAnAnswerOpensNoThread(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	alpha := alphaAsks(t, srv)
	beta := sessionWith(t, srv, "Beta", `/script r = run(['echo', 'beta ran']); send(r.stdout.strip() or r.error)`)
	waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.activeElement?.dataset.session === '`+alpha+`'`))

	do(t, ctx, 10*time.Second, altKey("r", "KeyR", 82), waitJS(`document.activeElement?.classList.contains('entry-reason')`),
		chromedp.KeyEvent("not now"))
	// Enter rejects; the second, at once, is the person's double press.
	do(t, ctx, 10*time.Second, pressEnter(0), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `location.pathname === '/approvals' && document.querySelectorAll('.queue-entry').length === 1 &&
		document.activeElement === document.querySelector('.queue-entry[data-session="`+beta+`"]')`, `location.pathname + ' ' + `+focusNow)
	// Another Enter, once the page moved the focus to Beta, then Alt+A: the confirmation shows
	// on Beta, so the Enter before it was taken, and it opened nothing.
	do(t, ctx, 10*time.Second, pressEnter(0), altKey("a", "KeyA", 65))
	waitShowing(t, ctx, 10*time.Second, `!!document.querySelector('.queue-entry[data-session="`+beta+`"] .confirm')`, `location.pathname + ' ' + `+focusNow)
	assert.Equal(t, "/approvals", evalString(t, ctx, `location.pathname`))
	h, err := apiClient(srv).ApprovalHistory(context.Background(), protocol.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.Equal(t, protocol.HistoryRejected, h.Entries[0].Outcome)
	assert.Equal(t, "not now", h.Entries[0].Reason)

	// Escape, and the person moves (↓: Beta is the last, the keyboard stays on it): now Enter
	// is theirs, and opens Beta's thread.
	do(t, ctx, 10*time.Second, rawKey("Escape", 27, 0), waitJS(`!document.querySelector('.confirm')`),
		rawKey("ArrowDown", 40, 0), pressEnter(0), waitJS(`location.pathname === '/s/`+beta+`'`))
	waitQueue(t, srv, 1)
}

// TestTheNextDecisionOfARunTakesTheFocus: the only entry is approved, the focus goes to the
// words that say nothing waits; then the model's next call of the same run asks again. The
// focus goes to the new entry, never to the page's body, which the words' leaving would give
// it (QA round 12 #10). The page moved it there: Enter opens nothing, and Alt+A answers it.
func TestTheNextDecisionOfARunTakesTheFocus(t *testing.T) {
	t.Parallel()
	next := make(chan struct{})
	var closeOnce sync.Once
	release := func() { closeOnce.Do(func() { close(next) }) }
	defer release()
	fake := testkit.NewModel(t, testkit.Calls(runCommand("call_0", "echo", "first")),
		testkit.Reply{Steps: append([]testkit.Step{{Hold: next}}, testkit.Calls(runCommand("call_1", "echo", "second")).Steps...)},
		testkit.Text("Both ran."))
	srv := startServerModel(t, t.TempDir(), fake.Base())
	s := sessionWith(t, srv, "Twice", "run echo twice")
	waitQueue(t, srv, 1)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.activeElement?.dataset.session === '`+s+`'`),
		altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `!document.querySelector('.queue-entry') && document.activeElement === document.querySelector('.queue-empty')`, focusNow)

	release()
	waitShowing(t, ctx, 30*time.Second, `document.querySelector('.queue-entry .entry-output')?.textContent === 'echo second'`, focusNow)
	waitShowing(t, ctx, 10*time.Second, `document.activeElement === document.querySelector('.queue-entry')`, focusNow)
	do(t, ctx, 10*time.Second, pressEnter(0), altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`))
	assert.Equal(t, "/approvals", evalString(t, ctx, `location.pathname`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `!document.querySelector('.queue-entry') && document.activeElement === document.querySelector('.queue-empty')`, focusNow)
	waitQueue(t, srv, 0)
}

// batchRun asks for three commands as one batch.
const batchRun = `/script rs = run_batch([['echo', 'one'], ['echo', 'two'], ['echo', 'three']]); send(' | '.join([r.stdout.strip() or r.error for r in rs]))`

// TestBatchPicksSurviveAReload: a batch's answers picked request by request on /approvals are
// still picked after a reload, and in the thread's card, until the batch is answered; then
// they are forgotten (QA round 12 #18). "Send these answers" is dimmed until it can send, then
// drawn in the accent, as the card's Approve all.
func TestBatchPicksSurviveAReload(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Batch", batchRun)
	waitQueue(t, srv, 1)
	ctx := openApprovals(t, srv)
	item := func(i, tone string) string { return `.queue-entry .batch-item[data-item="` + i + `"] .tone-` + tone }
	pressed := `[...document.querySelectorAll('.queue-entry .batch-item [aria-pressed="true"]')].map(b => b.closest('.batch-item').dataset.item + b.textContent).join()`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry .batch-item').length === 3`))

	// The look: dimmed while it cannot send.
	send := `document.querySelector('.queue-entry .batch-send')`
	look := `(s => [getComputedStyle(s).opacity, getComputedStyle(s).borderTopColor])(` + send + `).join()`
	approveAll := `getComputedStyle(document.querySelector('.queue-entry .entry-actions .tone-affirm')).borderTopColor`
	assert.Less(t, get(t, ctx, chromedp.Evaluate[float64](`+getComputedStyle(`+send+`).opacity`)), 0.6, "dimmed while it cannot send: %s", evalString(t, ctx, look))

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(item("0", "affirm"))), chromedp.Click(chromedp.CSS(item("1", "deny"))),
		waitJS(pressed+` === '0Allow,1Reject'`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry .batch-item').length === 3`))
	waitShowing(t, ctx, 10*time.Second, pressed+` === '0Allow,1Reject'`, pressed)
	assert.Contains(t, evalString(t, ctx, send+`.textContent`), "2 of 3")

	// The thread's card shows the same picks.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+s), waitReady(),
		waitJS(`document.querySelectorAll('.thread .entry-decision.status-pending .batch-item').length === 3`))
	assert.Equal(t, "0Allow,1Reject", evalString(t, ctx, `[...document.querySelectorAll('.thread .entry-decision.status-pending .batch-item [aria-pressed="true"]')].map(b => b.closest('.batch-item').dataset.item + b.textContent).join()`))

	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry .batch-item').length === 3`),
		waitJS(pressed+` === '0Allow,1Reject'`), mouseTo(2, 2),
		chromedp.Click(chromedp.CSS(item("2", "affirm"))), waitJS(`!`+send+`.disabled`), mouseTo(2, 2))
	// Ready to send: the accent, as the card's Approve all, and not dimmed.
	assert.Equal(t, evalString(t, ctx, approveAll), evalString(t, ctx, `getComputedStyle(`+send+`).borderTopColor`), "in the accent: %s", evalString(t, ctx, look))
	assert.Equal(t, "1", evalString(t, ctx, `getComputedStyle(`+send+`).opacity`))

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.queue-entry .batch-send`)))
	waitQueue(t, srv, 0)
	waitAgentReplies(t, srv, s, 1)
	h, err := apiClient(srv).ApprovalHistory(context.Background(), protocol.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.Equal(t, "Approved 2 of 3", h.Entries[0].Answer)
	do(t, ctx, 10*time.Second, waitJS(`!Object.keys(sessionStorage).some(k => k.startsWith('parley.picks.'))`))
}

// TestApprovalsSessionTitlesTakeTheirOwnDirection: a session's title on /approvals (the
// queue's and the history's links, the Session filter's options, a grant's link) is laid out
// by its own first strong letter: a Hebrew title right to left in the left-to-right page
// (QA round 12 #13).
func TestApprovalsSessionTitlesTakeTheirOwnDirection(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	const hebrew = "שלום עולם"
	s := sessionWith(t, srv, hebrew, `/script r = run(['echo', 'hi']); send(r.stdout.strip() or r.error)`)
	q := waitQueue(t, srv, 1)
	// An "always" answer makes a grant, whose link names the session.
	always := -1
	for i, o := range q[0].Request.Options {
		if o.Grant != nil {
			always = i
			break
		}
	}
	require.GreaterOrEqual(t, always, 0, "an always option: %+v", q[0].Request.Options)
	_, err := apiClient(srv).Reply(context.Background(), s, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: []byte(`{"option":` + strconv.Itoa(always) + `}`)})
	require.NoError(t, err)
	waitQueue(t, srv, 0)
	waitAgentReplies(t, srv, s, 1)
	sendTo(t, srv, s, `/script confirm('Again?')`)
	waitQueue(t, srv, 1)

	ctx := openApprovals(t, srv)
	direction := func(sel string) string {
		return evalString(t, ctx, `(e => e ? e.getAttribute('dir') + ' ' + getComputedStyle(e).direction : 'none')(document.querySelector('`+sel+`'))`)
	}
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.queue-entry .queue-thread')`))
	assert.Equal(t, "auto rtl", direction(`.queue-entry .queue-thread`), "the queue's link")
	do(t, ctx, 10*time.Second, clickJS(`.tab-history`), waitJS(`!!document.querySelector('.history-entry .queue-thread') && !!document.querySelector('.filter-session option[value="`+s+`"]')`))
	assert.Equal(t, "auto rtl", direction(`.history-entry .queue-thread`), "the history's link")
	assert.Equal(t, "auto", evalString(t, ctx, `document.querySelector('.filter-session option[value="`+s+`"]').getAttribute('dir')`), "the Session filter's option")
	do(t, ctx, 10*time.Second, clickJS(`.tab-grants`), waitJS(`!!document.querySelector('.grant-origin')`))
	assert.Equal(t, hebrew, evalString(t, ctx, `document.querySelector('.grant-origin').textContent`))
	assert.Equal(t, "auto rtl", direction(`.grant-origin`), "the grant's link")
}
