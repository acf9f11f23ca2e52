package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sessions list in the sidebar: how a session is listed, named, dated, ordered, renamed,
// archived and restored.

// TestRenameAndArchiveASession renames a session from the list, then archives it after a
// confirmation: the server has both.
func TestRenameAndArchiveASession(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "first", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelectorAll('.sessions .session-item').length == 1`),
		// The hero's bar takes the focus once live: rename after that.
		waitJS(`document.documentElement.hasAttribute('data-composer-live')`))
	assert.Equal(t, "Today", evalString(t, ctx, `document.querySelector('.session-group-name').textContent`))
	assert.Equal(t, "just now", evalString(t, ctx, `document.querySelector('.session-when').textContent`))

	do(t, ctx, 10*time.Second, js(`document.querySelector('.session-op[aria-label^=Rename]').click()`),
		waitJS(`document.activeElement && document.activeElement.classList.contains('session-rename')`),
		chromedp.SendKeys(chromedp.CSS(`.session-rename`), "Release notes"), pressEnter(0),
		waitJS(`document.querySelector('.session-title') && document.querySelector('.session-title').textContent === 'Release notes'`))
	info, err := apiClient(srv).GetSession(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, "Release notes", info.Title)

	do(t, ctx, 10*time.Second, js(`document.querySelector('.session-op[aria-label^=Archive]').click()`),
		waitJS(`!!document.querySelector('.session-item.confirming')`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.session-question').textContent`), "Release notes")
	do(t, ctx, 10*time.Second, js(`document.querySelector('.session-item.confirming .session-op.danger').click()`),
		waitJS(`document.querySelectorAll('.sessions .session-item').length == 0`))
	list, err := apiClient(srv).ListSessions(context.Background())
	require.NoError(t, err)
	for _, s := range list {
		assert.NotEqual(t, id, s.ID, "archived: not listed")
	}
}

// TestArchiveMovesTheFocusToTheNextRow: archiving a session from the list leaves the focus
// on the next row, else the previous, else New session, never on the page body. The question
// takes the focus at its safe answer (Keep), and Keep gives it back to Archive.
func TestArchiveMovesTheFocusToTheNextRow(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	for _, title := range []string{"one", "two", "three"} {
		seedSession(t, srv, title, 1)
	}
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelectorAll('.sessions .session-item').length == 3`),
		waitJS(`document.documentElement.hasAttribute('data-composer-live')`))
	// As listed, top to bottom.
	ids := strings.Split(evalString(t, ctx, `[...document.querySelectorAll('.sessions .session-item')].map(e => e.dataset.session).join(',')`), ",")
	require.Len(t, ids, 3)
	third, second, first := ids[0], ids[1], ids[2]
	row := func(id string) string { return `#sidebar .session-item[data-session="` + id + `"]` }
	focusedLinkOf := func(id string) string {
		return `document.activeElement === document.querySelector('` + row(id) + ` .session-link')`
	}
	archive := func(id string, then string) {
		t.Helper()
		defer func() {
			if t.Failed() {
				t.Log("rows", ids, "archiving", id, "want", then, "focus:", evalString(t, ctx, `document.activeElement.outerHTML.slice(0, 100) + ' in ' + document.activeElement.closest('li')?.dataset.session + ' rows ' + [...document.querySelectorAll('.sessions .session-item')].map(e => e.dataset.session).join(',')`))
			}
		}()
		do(t, ctx, 10*time.Second, js(`document.querySelector('`+row(id)+` .session-op[data-op=archive]').click()`),
			waitJS(`document.activeElement === document.querySelector('`+row(id)+` .session-op[data-op=keep]')`),
			js(`document.querySelector('`+row(id)+` .session-op.danger').click()`),
			waitJS(`!document.querySelector('`+row(id)+`')`), waitJS(then))
	}
	// Keep: the question goes, the focus is back on Archive.
	do(t, ctx, 10*time.Second, js(`document.querySelector('`+row(second)+` .session-op[data-op=archive]').click()`),
		waitJS(`document.activeElement === document.querySelector('`+row(second)+` .session-op[data-op=keep]')`),
		js(`document.querySelector('`+row(second)+` .session-op[data-op=keep]').click()`),
		waitJS(`document.activeElement === document.querySelector('`+row(second)+` .session-op[data-op=archive]')`))
	archive(second, focusedLinkOf(first)) // the middle one: the next row
	archive(first, focusedLinkOf(third))  // the last one: the previous row
	archive(third, `document.activeElement === document.querySelector('#sidebar .new-session')`)
	assert.Equal(t, 0, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.sessions .session-item').length`))))
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
