package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The findings of the tenth QA pass (docs/qa-round10.md), and the open P3s of the ninth, each
// seen in the page as a person meets it.

// TestRenameKeepsTheFocusAmongManyRows: with twenty sessions in the list, a rename ended by
// Enter (saved) or by Escape gives the focus back to the row's Rename control, never to the
// page's body (round 9 #2).
func TestRenameKeepsTheFocusAmongManyRows(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	var ids []string
	for i := range 20 {
		ids = append(ids, seedSession(t, srv, fmt.Sprintf("Session %02d", i), 1))
	}
	ctx := openPage(t, srv, "/s/"+ids[19])
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('#sidebar .session-item').length === 20`))
	// A row in the middle of the list, reached by the keyboard: its link, then Tab to Rename.
	target := ids[10]
	row := `#sidebar .session-item[data-session="` + target + `"]`
	onRename := `document.activeElement === document.querySelector('` + row + ` .session-op[data-op="rename"]')`
	focusNow := `'focus on ' + document.activeElement.tagName + '.' + document.activeElement.className + ' ' + (document.activeElement.closest('.session-item')?.dataset.session || '')`
	inField := waitJS(`document.activeElement && document.activeElement.classList.contains('session-rename')`)
	do(t, ctx, 10*time.Second, js(`document.querySelector('`+row+` .session-link').focus()`),
		waitJS(`document.activeElement === document.querySelector('`+row+` .session-link')`))
	for !evalBool(t, ctx, onRename) {
		require.True(t, evalBool(t, ctx, `!!document.activeElement.closest('`+row+`')`), "Tab left the row before Rename")
		do(t, ctx, 10*time.Second, tabKey(0))
	}
	// The field opens with its title selected: the first Backspace clears it.
	selected := waitJS(`(e => e.selectionStart === 0 && e.selectionEnd === e.value.length && e.value.length > 0)(document.activeElement)`)
	do(t, ctx, 10*time.Second, pressEnter(0), inField, selected)
	typeAt(t, ctx, newRand(), "⌫Renamed⏎", typingPaces[1])
	waitShowing(t, ctx, 30*time.Second, `document.querySelector('`+row+` .session-title')?.textContent === 'Renamed'`, focusNow)
	info, err := apiClient(srv).GetSession(context.Background(), target)
	require.NoError(t, err)
	assert.Equal(t, "Renamed", info.Title)
	// The list is drawn again from the server's answer: the focus must hold through that.
	do(t, ctx, 10*time.Second, waitJS(`document.querySelectorAll('#sidebar .session-item').length === 20`))
	waitShowing(t, ctx, 10*time.Second, onRename, focusNow)
	time.Sleep(time.Second) // a pause: nothing may take the focus away after
	assert.True(t, evalBool(t, ctx, onRename), evalString(t, ctx, focusNow))

	// Escape: the same.
	do(t, ctx, 10*time.Second, pressEnter(0), inField)
	typeAt(t, ctx, newRand(), "xyz", typingPaces[1])
	do(t, ctx, 10*time.Second, escape, waitJS(`!document.querySelector('.session-rename')`))
	waitShowing(t, ctx, 10*time.Second, onRename, focusNow)
	time.Sleep(time.Second)
	assert.True(t, evalBool(t, ctx, onRename), evalString(t, ctx, focusNow))

	// Archive, then Keep: the focus is back on Archive, the pointer still elsewhere.
	onArchive := `document.activeElement === document.querySelector('` + row + ` .session-op[data-op="archive"]')`
	do(t, ctx, 10*time.Second, tabKey(0), waitJS(onArchive), pressEnter(0),
		waitJS(`document.activeElement?.dataset.op === 'keep'`), pressEnter(0))
	waitShowing(t, ctx, 10*time.Second, onArchive, focusNow)
}

// TestHistorySaysAnOutcomeAsTheThreadDoes: an approval approved with "always" and another
// rejected with a reason read the same in their thread and in /approvals' history:
// "Approved, always for this command", "Rejected: skip beta please" (round 9 #3).
func TestHistorySaysAnOutcomeAsTheThreadDoes(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	c := apiClient(srv)
	id := newSession(t, srv, "Outcomes", "")
	sendTo(t, srv, id, `/script run(['echo', 'alpha'])`)
	q := waitQueue(t, srv, 1)
	always := -1
	for i, o := range q[0].Request.Options {
		if o.Grant != nil {
			always = i
		}
	}
	require.GreaterOrEqual(t, always, 0, "an approval offers an always")
	content, _ := json.Marshal(protocol.ApprovalAnswer{Option: &always})
	_, err := c.Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: content})
	require.NoError(t, err)
	waitQueue(t, srv, 0)
	sendTo(t, srv, id, `/script run(['echo', 'beta'])`)
	q = waitQueue(t, srv, 1)
	_, err = c.Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "skip beta please"})
	require.NoError(t, err)
	waitQueue(t, srv, 0)

	ctx := openPage(t, srv, "/s/"+id)
	const inThread = `[...document.querySelectorAll('.thread .entry-decision .entry-outcome')].map(e => e.textContent).join('|')`
	want := "Approved, always for this command|Rejected: skip beta please"
	waitShowing(t, ctx, 30*time.Second, inThread+` === '`+want+`'`, inThread)

	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`),
		clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 2`))
	// The history lists the newest first.
	const inHistory = `[...document.querySelectorAll('.history-entry .history-outcome')].reverse().map(e => e.textContent).join('|')`
	assert.Equal(t, want, evalString(t, ctx, inHistory))
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
	assert.Equal(t, "run,decision", evalString(t, ctx, runOrder), "the run began, then it asked")
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitCaughtUp(),
		waitJS(`document.querySelectorAll('.thread-inner .entry-decision').length === 1`))
	assert.Equal(t, "run,decision", evalString(t, ctx, runOrder), "after a reload too")
}

// TestExampleEnterEnterListsTheExamples: on the empty page a newcomer types `/example` and
// presses Enter twice. The first Enter completes the command and opens the list of examples
// with none highlighted; the second sends `/example`, whose answer lists them. No example
// runs unasked. An arrow then Enter still picks one (round 8 #3, round 9 #5).
func TestExampleEnterEnterListsTheExamples(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	menuOpen := `document.querySelector('#composer-menu').classList.contains('open')`
	typeAt(t, ctx, newRand(), "/example", typingPaces[1])
	do(t, ctx, 10*time.Second, waitJS(menuOpen), pressEnter(0),
		waitJS(`document.querySelector('#composer-input').value === '/example '`),
		// The examples, not the command list the first Enter closed (on a loaded machine its
		// options, "example" highlighted, are still drawn the moment the draft changes).
		waitJS(menuOpen+` && [...document.querySelectorAll('#composer-menu .ib-option-label')].some(e => e.textContent === 'ask-deploy')`))
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('#composer-menu [aria-selected=true]')`), "nothing highlighted")
	assert.Empty(t, evalString(t, ctx, `document.querySelector('#composer-input').getAttribute('aria-activedescendant') || ''`))
	do(t, ctx, 60*time.Second, pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	msgs := waitMessages(t, ctx, 2)
	assert.Equal(t, "/example", strings.TrimSpace(msgs[0].Text))
	assert.Contains(t, msgs[1].Text, "ask-deploy", "the answer lists the examples")
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-run')`), "no example ran")

	// The arrows still pick: ↓ highlights the first, Enter puts it in place.
	do(t, ctx, 10*time.Second, chromedp.Focus(composer))
	typeAt(t, ctx, newRand(), "/example ", typingPaces[1])
	do(t, ctx, 10*time.Second, waitJS(menuOpen+` && !!document.querySelector('#composer-menu .ib-option')`),
		rawKey("ArrowDown", 40, 0), waitJS(`!!document.querySelector('#composer-menu [aria-selected=true]')`))
	first := evalString(t, ctx, `document.querySelector('#composer-menu [aria-selected=true] .ib-option-label').textContent`)
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`document.querySelector('#composer-input').value === '/example `+first+` '`))
}

// TestALinkWithLangOpensInThatLanguage: the printed link with ?lang=zh added opens Parley in
// Chinese in an English browser, the pre-rendered page too, and the next page, reached
// without the parameter, stays Chinese.
func TestALinkWithLangOpensInThatLanguage(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link+"&lang=zh"), waitReady())
	waitShowing(t, ctx, 30*time.Second, `document.querySelector('.hero h1')?.textContent === '要做点什么？'`, `document.documentElement.lang + ' ' + document.querySelector('.hero h1')?.textContent`)
	assert.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	pre := get(t, ctx, chromedp.Evaluate[string](`fetch('/?lang=zh').then(r => r.text())`, chromedp.EvalAwaitPromise))
	assert.Contains(t, pre, `lang="zh-Hans"`, "the pre-rendered page is Chinese")
	assert.Contains(t, pre, "要做点什么？")
	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`))
	assert.Equal(t, "审批", evalString(t, ctx, `document.querySelector('.approvals-page h1').textContent`), "the choice holds on the next page")
}

// TestASessionNamedByACommandReadsInTheLocale: in Chinese, a session named after the
// command that began it ("Example hello", as the server titles it) reads "示例 hello" in the
// sidebar, the session's header and the tab's title, as its run card does; a title a person
// wrote stays as written.
func TestASessionNamedByACommandReadsInTheLocale(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	mine := seedSession(t, srv, "Example of my own words", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link+"&lang=zh"), waitReady())
	typeAt(t, ctx, newRand(), "/example hello⏎", typingPaces[1])
	do(t, ctx, 60*time.Second, waitJS(`location.pathname.startsWith('/s/')`), waitJS(`!!document.querySelector('.entry-run.status-done')`))
	id := sessionOf(t, ctx)
	title := `document.querySelector('#sidebar .session-item[data-session="` + id + `"] .session-title')?.textContent`
	waitShowing(t, ctx, 30*time.Second, title+` === '示例 hello'`, title)
	assert.Equal(t, "示例 hello", evalString(t, ctx, `document.querySelector('.session-header h1, main h1').textContent`))
	assert.Contains(t, evalString(t, ctx, `document.title`), "示例 hello")
	assert.Equal(t, "Example of my own words", evalString(t, ctx, `document.querySelector('#sidebar .session-item[data-session="`+mine+`"] .session-title')?.textContent`))
}

// TestChineseHistorySaysAConfirmsAnswerInChinese: in Chinese, /approvals' history says a
// confirm answered No as "已回答：否", with the Chinese colon, where it said "已回答: No".
func TestChineseHistorySaysAConfirmsAnswerInChinese(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := newSession(t, srv, "Confirm", "")
	sendTo(t, srv, id, `/script confirm('Deploy now?')`)
	q := waitQueue(t, srv, 1)
	_, err := apiClient(srv).Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("false")})
	require.NoError(t, err)
	waitQueue(t, srv, 0)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link+"&lang=zh"), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`),
		clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 1`))
	assert.Equal(t, "已回答：否", evalString(t, ctx, `document.querySelector('.history-entry .history-outcome').textContent`))
}
