package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// The open findings of the seventh QA pass (docs/qa-round7.md #5, #6, #7, #9, #10) and the
// review's focus finding on /approvals, each seen in the page.

// TestApproveClickedWithWordsKeepsThem: a person types words in an approval's field, then
// clicks Approve. It approves (the button they clicked says so), and the words are not
// dropped: they wait in the box below for the next message, with a notice that says so. The
// Ctrl+Enter hint is on what Ctrl+Enter does with words typed (Send: reject with them), not on
// Approve.
func TestApproveClickedWithWordsKeepsThem(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, echoScript, waitJS(`document.activeElement.id === 'approval-instruction'`))
	const approveButton = `#composer-mode .choices .choice.tone-affirm`
	assert.True(t, evalBool(t, ctx, `!!document.querySelector('`+approveButton+` .key-hint')`), "with nothing typed, Approve is Ctrl+Enter")
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), "then say bye"),
		waitJS(`document.querySelector('#approval-instruction').value === 'then say bye'`),
		// The hint moves to Send: with words typed, Ctrl+Enter sends them (the rejection).
		waitJS(`!document.querySelector('`+approveButton+` .key-hint') && !!document.querySelector('#composer-mode .morph-actions .send .key-hint')`))
	do(t, ctx, 30*time.Second, chromedp.Click(chromedp.CSS(approveButton)), waitJS(modeGone),
		waitJS(`document.querySelector('#composer-input').value === 'then say bye'`))
	msgs := waitMessages(t, ctx, 2)
	assert.Equal(t, "got hello", msgs[len(msgs)-1].Text, "approved: the command ran")
	assert.Contains(t, noticeText(t, ctx), "Approved. Your words are back in the box", "the person is told where the words went")
}

// TestEnterInAnApprovalsReasonRejects: on /approvals, Enter in an approval card's "Reason,
// if you reject" asks the confirmation Alt+R asks, the words still in the field; Enter again
// rejects with them. The Enter of an IME composition does neither.
func TestEnterInAnApprovalsReasonRejects(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	alphaAsks(t, srv)
	ctx := openApprovals(t, srv)
	const reason = `.queue-entry .entry-reason`
	const confirmShown = `!!document.querySelector('.queue-entry .confirm[role=alertdialog]')`
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('`+reason+`')`),
		chromedp.SendKeys(chromedp.CSS(reason), "use printf "),
		waitJS(`document.querySelector('`+reason+`').value === 'use printf '`),
		imeEnter("日本"), waitJS(`document.querySelector('`+reason+`').value === 'use printf 日本'`))
	// The composing Enter asked nothing: the next, real, Enter is the one that asks.
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(confirmShown))
	assert.True(t, evalBool(t, ctx, `document.activeElement === document.querySelector('`+reason+`')`), "the words stay where they were typed")
	assert.Len(t, waitQueue(t, srv, 1), 1, "asked, not answered yet")
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`!document.querySelector('.queue-entry')`))
	waitQueue(t, srv, 0)
	h, err := apiClient(srv).ApprovalHistory(context.Background(), protocol.HistoryFilter{})
	require.NoError(t, err)
	require.NotEmpty(t, h.Entries)
	assert.Equal(t, protocol.HistoryRejected, h.Entries[0].Outcome)
	assert.Equal(t, "use printf 日本", h.Entries[0].Reason, "the reason typed went with the rejection")
}

// TestAnsweringOnItsCardKeepsTheFocus: on /approvals, an entry's own button (Yes, Approve),
// clicked or pressed with Enter, answers it; the keyboard moves on to the next entry, then to
// the words that say nothing waits, never to the page's body.
func TestAnsweringOnItsCardKeepsTheFocus(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a, b := newSession(t, srv, "Alpha", ""), newSession(t, srv, "Beta", "")
	sendTo(t, srv, a, `/script confirm('Ship it?')`)
	q := waitQueue(t, srv, 1)
	sendTo(t, srv, b, `/script run(['echo', 'beta ran'])`)
	waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	// By the keyboard: Enter on the card's button (the first entry's), the pointer away.
	first := `document.querySelector('.queue-entry[data-decision="` + q[0].ID + `"] .entry-actions .choice.tone-affirm')`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry .entry-actions .choice').length >= 4`),
		// The screen opens on its first entry; then the person moves to its button.
		waitJS(`document.activeElement === document.querySelector('.queue-entry')`),
		js(first+`.focus()`), waitJS(`document.activeElement === `+first), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `document.querySelectorAll('.queue-entry').length === 1 && document.activeElement === document.querySelector('.queue-entry')`, focusNow)
	// By the mouse, on the last one: the pointer over the list holds it in place, hidden.
	do(t, ctx, 30*time.Second, chromedp.Click(chromedp.CSS(`.queue-entry .entry-actions .choice.tone-affirm`)))
	waitShowing(t, ctx, 30*time.Second, `!document.querySelector('.queue-entry') && document.activeElement === document.querySelector('.queue-empty')`, focusNow)
	waitQueue(t, srv, 0)
}

// focusNow says what the approvals list holds and where the focus is.
const focusNow = `document.querySelectorAll('.queue-entry').length + ' waiting, ' + document.querySelectorAll('.queue-gone').length + ' gone; focus on ' + document.activeElement.tagName + '.' + document.activeElement.className`

// TestPhoneApprovalsHeaderHasRoom: on a 390×844 phone, /approvals' header holds the Sessions
// toggle, the title and the language picker in one row, none touching another, and the picker
// clear of the screen's edge.
func TestPhoneApprovalsHeaderHasRoom(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	phone(t, ctx, 844)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"), waitJS(`!!document.querySelector('.approvals-page .session-header .locale-pick') && !!document.querySelector('.queue-empty')`))
	type headerBoxes struct {
		Toggle, Title, Picker, Header [4]float64 // left, top, right, bottom
		Width                         float64
	}
	r := get(t, ctx, chromedp.Evaluate[headerBoxes](`(() => {
		const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom] };
		const h = document.querySelector('.approvals-page > .session-header');
		return {Toggle: box(document.querySelector('.mobile-bar button, .mobile-bar a')), Title: box(h.querySelector('h1')),
			Picker: box(h.querySelector('.locale-field')), Header: box(h), Width: document.documentElement.clientWidth} })()`))
	t.Logf("boxes: %+v", r)
	const gap = 8
	assert.GreaterOrEqual(t, r.Title[0]-r.Toggle[2], float64(gap), "the title clear of the Sessions toggle: %+v", r)
	assert.GreaterOrEqual(t, r.Picker[0]-r.Title[2], float64(2*gap), "the picker clear of the title: %+v", r)
	assert.GreaterOrEqual(t, r.Width-r.Picker[2], float64(gap), "the picker clear of the screen's edge: %+v", r)
	assert.LessOrEqual(t, r.Picker[3]-r.Picker[1], r.Header[3]-r.Header[1], "one row: %+v", r)
	assert.Equal(t, "Approvals", evalString(t, ctx, `document.querySelector('.approvals-page > .session-header h1').textContent`))
	assert.False(t, evalBool(t, ctx, `(h => h.scrollWidth > h.clientWidth)(document.querySelector('.approvals-page > .session-header h1'))`), "the title whole")
}

// TestReloadMidTurnFocusesTheComposer: a page reloaded while the model streams (a long
// message, a prompt queued behind it) gives the composer the focus, as the first load did:
// what the person types next goes in. (docs/qa-round7.md #9: not seen again on this build.)
func TestReloadMidTurnFocusesTheComposer(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	defer close(hold)
	_, _, ctx := openModel(t, testkit.Reply{Steps: []testkit.Step{testkit.TextChunk("Thinking " + strings.Repeat("word ", 900)), {Hold: hold}, testkit.TextChunk("done."), testkit.Finish("stop")}},
		testkit.Text("Queued done."))
	prompt(t, ctx, "think")
	do(t, ctx, 30*time.Second, waitJS(`((document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent || '').endsWith('word ')`))
	do(t, ctx, 30*time.Second, typeText("queued one"), pressEnter(0), waitJS(`!!document.querySelector('.queue-item')`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitCaughtUp(),
		waitJS(`!!document.querySelector('.thread .msg-streaming')`),
		waitJS(`document.activeElement && document.activeElement.id === 'composer-input'`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("next"), waitJS(`document.querySelector('#composer-input').value === 'next'`))
}

// TestAFailedFirstPromptNamesNothing: a session whose first prompt was refused (an example
// that does not exist) is not named after it: it is a "New session" until a prompt that works
// names it.
func TestAFailedFirstPromptNamesNothing(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	const title = `document.querySelector('.session-header h1').textContent`
	const row = `(document.querySelector('.sessions [aria-current=page] .session-title') || {textContent: ''}).textContent`
	do(t, ctx, 60*time.Second, typeText("/example nosuch"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`),
		waitJS(`document.querySelector('.thread').innerText.includes('There is no example')`))
	waitShowing(t, ctx, 30*time.Second, title+` === 'New session' && `+row+` === 'New session'`, title+` + ' / ' + `+row)
	info, err := apiClient(srv).GetSession(context.Background(), sessionOf(t, ctx))
	require.NoError(t, err)
	assert.Equal(t, "New session", info.Title)

	do(t, ctx, 30*time.Second, typeText("/help"), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, title+` === 'Help' && `+row+` === 'Help'`, title+` + ' / ' + `+row)
	info, err = apiClient(srv).GetSession(context.Background(), sessionOf(t, ctx))
	require.NoError(t, err)
	assert.Equal(t, "Help", info.Title, "named by the first prompt that worked")
}

// TestTheHeroReadsTheWorkspacesOnce: with two workspaces, the hero shows its picker, and the
// page asked the server for the workspaces once (the hero's connection and the session list's
// names share one read).
func TestTheHeroReadsTheWorkspacesOnce(t *testing.T) {
	t.Parallel()
	srv := startServerWith(t, t.TempDir(), "127.0.0.1:0", t.TempDir())
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelectorAll('.workspaces [role=radio]').length === 2 && !!document.querySelector('.workspaces [aria-checked=true]')`),
		typeText("hello"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`),
		// The header names the session's workspace: the list is known to the session's view.
		waitJS(`!!document.querySelector('.session-header .session-workspace')`))
	n := get(t, ctx, chromedp.Evaluate[float64](`performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname === '/api/workspaces').length`))
	assert.Equal(t, 1, int(n), "the workspaces read once")
}
