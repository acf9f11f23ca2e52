package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The findings of a QA pass driving `make run` (docs/look.md): each test is what a person
// saw go wrong, seen in the page.

// TestPendingCountFollowsAnswers: the sidebar's count is every open decision, in every
// session (what the approvals queue lists); each session's row says how many wait in it.
// Answered in the composer, both drop at once, without a reload.
func TestPendingCountFollowsAnswers(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, `/script a = confirm('Ship it?'); b = ask('Which colour?', {'type': 'object', 'properties': {'c': {'type': 'string', 'title': 'Colour'}}})`)
	id := sessionOf(t, ctx)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.pending-count')?.textContent === '1'`),
		waitJS(`document.querySelector('.session-item[data-session="`+id+`"] .session-waiting')?.textContent === '1'`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.approvals-link').getAttribute('aria-label')`), "1 ")
	// Yes in the composer: the confirm ends, the form is asked; still one waits.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice`)),
		waitJS(`document.querySelectorAll('.thread .entry-decision').length === 2`))
	// The form answered from another client: nothing waits, and the page says so.
	dec := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending')?.dataset.decision || ''`)
	if dec == "" {
		q := waitQueue(t, srv, 1)
		dec = q[0].ID
	}
	_, err := apiClient(srv).Reply(context.Background(), id, dec, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: []byte(`{"c":"red"}`)})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('.pending-count') && !document.querySelector('.session-waiting')`))
}

// TestNewSessionIsListedUnderTodayAtOnce: the hero's first prompt lists its session under
// Today with its time, before the server's list is read again.
func TestNewSessionIsListedUnderTodayAtOnce(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 20*time.Second, typeText("hello there"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`),
		waitJS(`document.querySelectorAll('.sessions .session-item').length === 1`))
	assert.Equal(t, "Today", evalString(t, ctx, `document.querySelector('.session-group-name').textContent`))
	assert.Equal(t, "just now", evalString(t, ctx, `document.querySelector('.session-when')?.textContent || ''`))
}

// TestApprovalsScreenOnFirstLoad: opened straight from the address bar, the screen lists the
// sessions in its sidebar, counts the grants on their tab before it is opened, and says who
// spoke in a thread's status: a script's words are the script's, not the agent's.
func TestApprovalsScreenOnFirstLoad(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	script := `/script r = run(['echo', 'granted']); send(r.stdout.strip() or r.error)`
	do(t, ctx, 10*time.Second, typeText(script), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode .choice')`))
	do(t, ctx, 10*time.Second, clickJS(`#composer-mode .choice:nth-child(2)`)) // Always
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.entry-run.status-done').length === 1`))
	// The script's send() is the last thing said before this confirm.
	do(t, ctx, 10*time.Second, typeText(`/script confirm('Tag the release?')`), pressEnter(0),
		waitJS(`!!document.querySelector('#composer-mode .choice')`))
	id := sessionOf(t, ctx)

	fresh := browser(t)
	do(t, fresh, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry').length === 1`),
		waitJS(`document.querySelector('.tab-grants').textContent === 'Grants (1)'`),
		waitJS(`!!document.querySelector('.sessions .session-item[data-session="`+id+`"]')`))
	status := evalString(t, fresh, `document.querySelector('.queue-entry .thread-status').innerText`)
	assert.Contains(t, status, "Script: granted")
	assert.NotContains(t, status, "Agent:")
	assert.Contains(t, status, "You: /script confirm('Tag the release?')")
	// Nothing the page does later empties the list.
	do(t, fresh, 10*time.Second, clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 1`))
	assert.True(t, evalBool(t, fresh, `!!document.querySelector('.sessions .session-item[data-session="`+id+`"]')`))
	assert.Contains(t, evalString(t, fresh, `document.querySelector('.history-entry .thread-status').innerText`), "You: /script r = run")
}

// TestSessionTimesMoveOn: a session's "just now" becomes "1 min ago" as the minute passes,
// with nothing else happening on the page. The page's wall clock is moved on a minute (Go's
// wasm reads it from Date's getTime; its timers run on the monotonic clock, untouched), so
// the test waits for the page's next look at the time (every 15 s), not for a minute.
func TestSessionTimesMoveOn(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	seedSession(t, srv, "first", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelector('.session-when')?.textContent === 'just now'`),
		js(`(get => { Date.prototype.getTime = function () { return get.call(this) + 61000 } })(Date.prototype.getTime)`))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.session-when')?.textContent === '1 min ago'`))
}

// TestMovingToApprovalsKeepsTheList: going from a thread to the approvals screen by its
// link, the sidebar never shows an empty list, and the Grants tab never says "(0)" while one
// grant exists: it has no count until it has read it.
func TestMovingToApprovalsKeepsTheList(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText(`/script r = run(['echo', 'granted']); send(r.stdout.strip() or r.error)`), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode .choice')`))
	do(t, ctx, 10*time.Second, clickJS(`#composer-mode .choice:nth-child(2)`)) // Always
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.entry-run.status-done').length === 1`),
		waitJS(`document.querySelectorAll('.sessions .session-item').length === 1`))
	// Watch every change of the page from before the click.
	do(t, ctx, 10*time.Second, js(`window.__seen = {empty: false, zero: false};
		new MutationObserver(() => {
			if (!document.querySelector('.approvals-page')) return;
			if (document.querySelectorAll('.sessions .session-item').length === 0) window.__seen.empty = true;
			const g = document.querySelector('.tab-grants');
			if (g && g.textContent === 'Grants (0)') window.__seen.zero = true;
		}).observe(document.body, {childList: true, subtree: true, characterData: true})`))
	do(t, ctx, 20*time.Second, clickJS(`.approvals-link`),
		waitJS(`!!document.querySelector('.approvals-page') && !!document.querySelector('.queue-empty')`),
		waitJS(`document.querySelector('.tab-grants').textContent === 'Grants (1)'`))
	assert.False(t, evalBool(t, ctx, `window.__seen.empty`), "the session list emptied")
	assert.False(t, evalBool(t, ctx, `window.__seen.zero`), "the Grants tab said (0)")
	assert.True(t, evalBool(t, ctx, `document.querySelectorAll('.sessions .session-item').length === 1`))
}

// TestSessionActionsOnHoverOrFocus: on a desktop a session's Rename and Archive are out of
// the way until its row is pointed at or holds the focus, and Tab from the row's link
// reaches them; on a touch phone they stay in view, each at least 44 px.
func TestSessionActionsOnHoverOrFocus(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	seedSession(t, srv, "first", 1)
	seedSession(t, srv, "second", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelectorAll('.sessions .session-item').length === 2`))
	shown := `[...document.querySelectorAll('.session-ops')].map(e => getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden' && e.getBoundingClientRect().height > 0)`
	assert.Equal(t, "false,false", evalString(t, ctx, shown+`.join()`), "no row is pointed at or focused")

	// Pointed at: that row's actions show, and nothing moves under the pointer.
	const linkBox = `JSON.stringify(document.querySelector('.session-item:nth-child(2) .session-link').getBoundingClientRect())`
	before := evalString(t, ctx, linkBox)
	do(t, ctx, 10*time.Second, hoverOver(`.session-item:nth-child(2)`), waitJS(`(`+shown+`).join() === 'false,true'`))
	assert.Equal(t, before, evalString(t, ctx, linkBox), "pointing at a row moves nothing")

	// The keyboard: focus on the first row's link shows its actions; Tab reaches Rename.
	do(t, ctx, 10*time.Second, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 900, 10), js(`document.querySelector('.session-link').focus()`),
		waitJS(`(`+shown+`).join() === 'true,false'`), tabKey(0),
		waitJS(`document.activeElement?.getAttribute('aria-label')?.startsWith('Rename')`))

	// A touch phone: kept in view, 44 px each.
	phone := browser(t)
	do(t, phone, 60*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), chromedp.Navigate(srv.link), waitReady(),
		clickJS(`.menu-toggle`), waitJS(`document.querySelector('#sidebar').classList.contains('open') && document.querySelectorAll('.sessions .session-item').length === 2`))
	assert.Equal(t, "true,true", evalString(t, phone, shown+`.join()`))
	assert.True(t, evalBool(t, phone, `[...document.querySelectorAll('.session-op')].every(b => { const r = b.getBoundingClientRect(); return r.width >= 44 && r.height >= 44 })`), "44 px targets")
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
	assert.Equal(t, "run,decision", order)
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.entry-run .entry-output')?.textContent || ''`), "approved output")
}

// TestPhoneHeaderIsOpaque: on a phone the header row has a background of its own, so the
// thread never shows through it.
func TestPhoneHeaderIsOpaque(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "long", 12)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(390, 844), chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/s/"+id), waitReady())
	waitMessages(t, ctx, 24)
	bg := evalString(t, ctx, `getComputedStyle(document.querySelector('.session-header')).backgroundColor`)
	assert.NotEqual(t, "rgba(0, 0, 0, 0)", bg, "the header is transparent")
	// Whatever sits under the header's middle is the header (or the toggle), not a message.
	assert.True(t, evalBool(t, ctx, `(h => { const r = h.getBoundingClientRect(); const e = document.elementFromPoint(r.x + r.width - 20, r.y + r.height / 2); return h.contains(e) || !!e.closest('.mobile-bar') })(document.querySelector('.session-header'))`))
}

// TestPagesLookLikeTheApp: /approvals and /mcp use the app's controls, not the browser's:
// selects drawn by the stylesheet, links without underlines until pointed at, "Back to the
// chat" above the page's title; and the controls row names each control. axe finds nothing.
func TestPagesLookLikeTheApp(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, `/script confirm('Ship it?')`)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('#composer-mode .choice')`), clickJS(`#composer-mode .choice`),
		waitJS(`!document.querySelector('.entry-decision.status-pending')`))
	row := evalString(t, ctx, `document.querySelector('.composer-controls-row').innerText.replace(/\s+/g, ' ')`)
	for _, want := range []string{"Permission mode", "Model", "offline", "Language"} {
		assert.Contains(t, row, want)
	}
	assert.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('#permission-mode')).appearance`))
	noViolations(t, ctx, "a thread with the controls row")

	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.queue-empty')`),
		clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 1`))
	assert.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('.filter-session')).appearance`))
	assert.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('.history-entry .queue-thread')).textDecorationLine`))
	assert.NotEqual(t, "rgba(0, 0, 0, 0)", evalString(t, ctx, `getComputedStyle(document.querySelector('.history-entry')).backgroundColor`))
	noViolations(t, ctx, "the approvals history")
	for _, scheme := range []string{"light", "dark"} {
		do(t, ctx, 10*time.Second, colorScheme(scheme))
		noViolations(t, ctx, "the approvals history, "+scheme)
	}

	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/mcp"), waitJS(`!!document.querySelector('.mcp-empty')`))
	// One page header (docs/look.md): /mcp opens with the bar /approvals opens with, at the same
	// place, in the same title size; Back to the chat is the row under it.
	header := func(path string) string {
		do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+path), waitJS(`!!document.querySelector('main .page-header h1')`))
		return evalString(t, ctx, `(h => { const r = h.getBoundingClientRect(), t = getComputedStyle(h.querySelector('h1'));
			return [Math.round(r.top), Math.round(r.height), Math.round(h.querySelector('h1').getBoundingClientRect().left), t.fontSize, t.fontWeight, getComputedStyle(h).borderBottomWidth].join() })(document.querySelector('main .page-header'))`)
	}
	assert.Equal(t, header("/approvals"), header("/mcp"), "the two pages' headers: top, height, title's left, size, weight, line")
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.mcp-empty')`))
	assert.True(t, evalBool(t, ctx, `(b => b.getBoundingClientRect().top >= document.querySelector('.page-header').getBoundingClientRect().bottom)(document.querySelector('.back-link'))`),
		"Back to the chat sits under the header")
	assert.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('.back-link')).textDecorationLine`))
	noViolations(t, ctx, "/mcp")
}
