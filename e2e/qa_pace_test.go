package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// What a tester found driving `make run` at a person's pace (docs/look.md): each test is one
// finding, seen in the page.

// TestArchivedSessionsCanBeRestored: an archived session is not gone for good. The sidebar's
// "Archived" toggle (a disclosure button) lists the archived sessions, each with Restore,
// from the keyboard; Restore puts it back in the list, on the server too.
func TestArchivedSessionsCanBeRestored(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	seedSession(t, srv, "kept", 1)
	gone := seedSession(t, srv, "put away", 1)
	yes := true
	_, err := apiClient(srv).UpdateSession(context.Background(), gone, protocol.UpdateSessionRequest{Archived: &yes})
	require.NoError(t, err)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelectorAll('.sessions .session-item').length == 1`),
		waitJS(`document.documentElement.hasAttribute('data-composer-live')`))
	toggle := `document.querySelector('#sidebar .archived-toggle')`
	require.True(t, evalBool(t, ctx, `!!`+toggle), "the sidebar has an Archived toggle")
	assert.Equal(t, "false", evalString(t, ctx, toggle+`.getAttribute('aria-expanded')`))
	// From the keyboard: focus the toggle, Enter opens the list.
	do(t, ctx, 10*time.Second, js(toggle+`.focus()`), pressEnter(0),
		waitJS(toggle+`.getAttribute('aria-expanded') === 'true'`),
		waitJS(`!!document.querySelector('#sidebar .archived-item[data-session="`+gone+`"] .archived-restore')`))
	controls := evalString(t, ctx, toggle+`.getAttribute('aria-controls')`)
	assert.True(t, evalBool(t, ctx, `!!document.getElementById('`+controls+`')`), "aria-controls names the list")
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.archived-item .archived-title').textContent`), "put away")
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.archived-restore').getAttribute('aria-label')`), "put away")
	// Tab reaches the session's link (an archived session still opens), then Restore; Enter
	// restores.
	do(t, ctx, 10*time.Second, tabKey(0),
		waitJS(`document.activeElement === document.querySelector('.archived-item[data-session="`+gone+`"] .archived-title')`),
		tabKey(0),
		waitJS(`document.activeElement === document.querySelector('.archived-item[data-session="`+gone+`"] .archived-restore')`),
		pressEnter(0),
		waitJS(`!!document.querySelector('.sessions .session-item[data-session="`+gone+`"]')`),
		waitJS(`!document.querySelector('.archived-item[data-session="`+gone+`"]')`),
		// The focus is not dropped on the body: it goes to the restored session's row.
		waitJS(`document.activeElement === document.querySelector('.sessions .session-item[data-session="`+gone+`"] .session-link')`))
	info, err := apiClient(srv).GetSession(context.Background(), gone)
	require.NoError(t, err)
	assert.False(t, info.Archived, "restored on the server")
}

// TestFnFormTabOrderAndKeptFields: Tab from the function picker goes to the first field (the
// visual order: the run and close buttons come after the fields), and closing the form keeps
// what was typed: reopened on the same function, the field still holds it.
func TestFnFormTabOrderAndKeptFields(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	openFns := js(`document.querySelector('.control-button:not(.model-button)').click()`)
	pick := js(`(s => { s.value = 'greet'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#fn-pick'))`)
	field := `#composer-mode .fn-form input[type=text]`
	do(t, ctx, 10*time.Second, openFns, waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`), pick,
		waitJS(`!!document.querySelector('`+field+`')`),
		js(`document.querySelector('#fn-pick').focus()`), tabKey(0),
		waitJS(`document.activeElement === document.querySelector('`+field+`')`))
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(field), "Ada"),
		js(`document.querySelector('#composer-mode .square.close').click()`), waitJS(modeGone))
	do(t, ctx, 10*time.Second, openFns, waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`))
	// Reopened on the function it was closed on, with its field as typed.
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('`+field+`')`))
	assert.Equal(t, "greet", evalString(t, ctx, `document.querySelector('#fn-pick').value`))
	assert.Equal(t, "Ada", evalString(t, ctx, `document.querySelector('`+field+`').value`))
	// Picked again, the same.
	do(t, ctx, 10*time.Second, pick, waitJS(`!!document.querySelector('`+field+`')`))
	assert.Equal(t, "Ada", evalString(t, ctx, `document.querySelector('`+field+`').value`))
}

// TestCopyButtonsAreOneTabStop: Tab through a thread stops at one message, not at every
// message's Copy button; the arrows move between messages, and Tab from the focused message
// reaches its Copy.
func TestCopyButtonsAreOneTabStop(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "long", 6)
	ctx := openPage(t, srv, "/s/"+id)
	do(t, ctx, 60*time.Second, waitCaughtUp(), waitJS(`document.querySelectorAll('.thread-inner .msg-copy').length >= 12`))
	// From the thread region, Tab until the focus leaves the thread.
	walked := evalString(t, ctx, `(document.querySelector('.thread').focus(), 'ok')`)
	require.Equal(t, "ok", walked)
	copies, messages := 0, 0
	for range 40 {
		do(t, ctx, 10*time.Second, tabKey(0))
		where := evalString(t, ctx, `(a => !a.closest('.thread') ? 'out' : a.classList.contains('msg-copy') ? 'copy' : a.classList.contains('msg') ? 'msg' : 'other')(document.activeElement)`)
		if where == "out" {
			break
		}
		switch where {
		case "copy":
			copies++
		case "msg":
			messages++
		}
	}
	assert.LessOrEqual(t, copies, 1, "Tab stops at one Copy at most")
	assert.Equal(t, 1, messages, "one message holds the thread's tab stop")
	// The arrows walk the messages; Tab from one reaches its Copy.
	do(t, ctx, 10*time.Second, js(`document.querySelector('.thread-inner .msg[tabindex="0"]').focus()`),
		waitJS(`document.activeElement.classList.contains('msg')`))
	last := evalString(t, ctx, `document.activeElement.dataset.offset`)
	// The message's Copy joins the Tab order at the render after the focus moved: Tab before
	// it would skip the Copy.
	do(t, ctx, 10*time.Second, rawKey("ArrowUp", 38, 0),
		waitJS(`document.activeElement.classList.contains('msg') && document.activeElement.dataset.offset !== '`+last+`'`+
			` && document.activeElement.querySelector('.msg-copy')?.tabIndex === 0`))
	up := evalString(t, ctx, `document.activeElement.dataset.offset`)
	do(t, ctx, 10*time.Second, tabKey(0),
		waitJS(`document.activeElement.classList.contains('msg-copy') && document.activeElement.closest('.msg').dataset.offset === '`+up+`'`))
}

// TestShowEarlierKeepsTheFocus: "Show earlier messages" pressed from the keyboard leaves the
// focus on the first message it revealed, not on the page's body.
func TestShowEarlierKeepsTheFocus(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "long", 30) // 60 entries: more than the newest window holds
	ctx := openPage(t, srv, "/s/"+id)
	do(t, ctx, 60*time.Second, waitCaughtUp(), waitJS(`!!document.querySelector('.thread .earlier')`))
	before := int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread-inner .msg').length`)))
	do(t, ctx, 20*time.Second, js(`document.querySelector('.thread .earlier').focus()`), pressEnter(0),
		waitJS(`document.querySelectorAll('.thread-inner .msg').length > `+itoa(before)),
		waitJS(`document.activeElement.classList.contains('msg')`))
	assert.Equal(t, "long prompt 0", evalString(t, ctx, `document.activeElement.querySelector('.msg-text').textContent`),
		"the focus is on the first message revealed")
}

// TestHeroDoesNotMoveAsStartersArrive: on the empty page nothing moves under the pointer
// while the starters load: the composer's box is where it was at first paint.
func TestHeroDoesNotMoveAsStartersArrive(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	waitSized(t, ctx)
	// Each frame from the first paint notes where the composer is.
	addOnNewDocument(t, ctx, `
window.__composerAt = []; window.__frames = 0;
(function frame() {
  window.__frames++;
  const el = document.querySelector('.composer');
  if (el) {
    const r = el.getBoundingClientRect(), at = Math.round(r.top) + ',' + Math.round(r.left);
    if (window.__composerAt[window.__composerAt.length - 1] !== at) window.__composerAt.push(at);
  }
  requestAnimationFrame(frame);
})();`)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.documentElement.hasAttribute('data-composer-live')`),
		waitJS(`!!document.querySelector('.starter[data-starter^="fn:"]') && !!document.querySelector('.starter[data-starter^="/example"]')`))
	// Two frames more, so the last layout is noted.
	frames := int(get(t, ctx, chromedp.Evaluate[float64](`window.__frames`)))
	do(t, ctx, 10*time.Second, waitJS(`window.__frames > `+itoa(frames+1)))
	at := evalString(t, ctx, `window.__composerAt.join(' ')`)
	assert.NotContains(t, at, " ", "the composer moved: "+at)
}

// TestApprovalsTabsMoveWithTheArrows: the approvals screen's tabs are the ARIA tabs pattern:
// one tab stop (the open tab), and ← → (Home, End) move to the next tab and open it.
func TestApprovalsTabsMoveWithTheArrows(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.tab-queue')`))
	open := func(tab string) string {
		return `document.activeElement === document.querySelector('.tab-` + tab + `') && document.querySelector('.tab-` + tab + `').getAttribute('aria-selected') === 'true'`
	}
	do(t, ctx, 10*time.Second, js(`document.querySelector('.tab-queue').focus()`), waitJS(open("queue")))
	assert.Equal(t, "0,-1,-1", evalString(t, ctx, `[...document.querySelectorAll('[role=tab]')].map(e => e.tabIndex).join(',')`), "one tab stop")
	do(t, ctx, 10*time.Second, rawKey("ArrowRight", 39, 0), waitJS(open("history")), waitJS(`!!document.querySelector('.filter-outcome')`))
	do(t, ctx, 10*time.Second, rawKey("ArrowRight", 39, 0), waitJS(open("grants")))
	do(t, ctx, 10*time.Second, rawKey("ArrowRight", 39, 0), waitJS(open("queue")))
	do(t, ctx, 10*time.Second, rawKey("ArrowLeft", 37, 0), waitJS(open("grants")))
	do(t, ctx, 10*time.Second, rawKey("Home", 36, 0), waitJS(open("queue")))
	assert.Equal(t, "tab-queue", evalString(t, ctx, `document.querySelector('[role=tabpanel]').getAttribute('aria-labelledby')`))
}

// TestANextConfirmTakesTheFocusAtNo: a confirm that follows an answer takes the focus at its
// safe answer, No, not at Yes: a second Enter meant for the first must not say Yes to it.
func TestANextConfirmTakesTheFocusAtNo(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, "/script a = confirm('Ship it?'); b = confirm('Really?'); send(str(a) + str(b))", waitJS(`document.querySelector('#composer-mode .question-message')?.textContent === 'Ship it?'`))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice.tone-neutral`)),
		waitJS(`document.querySelector('#composer-mode .question-message')?.textContent === 'Really?' && `+focusIn))
	assert.Equal(t, "No", evalString(t, ctx, `document.activeElement.textContent`))
}

// TestKeptAnswersGoWhenTheDecisionEndsElsewhere: what a form's fields kept in sessionStorage
// (so a reload keeps it) is removed once the decision ends, answered here or anywhere else.
func TestKeptAnswersGoWhenTheDecisionEndsElsewhere(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script ask('Two?', {'type': 'object', 'properties': {'x': {'type': 'string', 'title': 'X'}, 'y': {'type': 'string', 'title': 'Y'}}})`, waitJS(focusIn))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("abc"))
	id := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending')?.dataset.decision || ''`)
	require.NotEmpty(t, id)
	key := `sessionStorage.getItem('parley.answers.` + id + `')`
	do(t, ctx, 10*time.Second, waitJS(key+` !== null`))
	_, err := apiClient(srv).Reply(context.Background(), sessionOf(t, ctx), id,
		protocol.ReplyRequest{Action: protocol.ActionAccept, Content: []byte(`{"x":"from","y":"elsewhere"}`)})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(modeGone), waitJS(key+` === null`))
}
