package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/protocol"
)

type shownMessage struct {
	Role   string `json:"role"`
	Text   string `json:"text"`
	Offset string `json:"offset"`
}

// thread reads the messages the page shows.
func thread(t *testing.T, ctx context.Context) []shownMessage {
	t.Helper()
	raw := get(t, ctx, chromedp.Evaluate[string](`JSON.stringify([...document.querySelectorAll('.thread .msg[data-offset]')].map(e => ({
		role: e.classList.contains('msg-user') ? 'user' : 'agent',
		text: e.querySelector('.msg-text').innerText, offset: e.dataset.offset})))`))
	var out []shownMessage
	require.NoError(t, json.Unmarshal([]byte(raw), &out))
	return out
}

// waitMessages waits until the thread shows n messages.
func waitMessages(t *testing.T, ctx context.Context, n int) []shownMessage {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	err := chromedp.Do(tctx, waitJS(`document.querySelectorAll('.thread .msg[data-offset]').length >= `+strconv.Itoa(n)))
	if err != nil {
		t.Fatalf("waiting for %d messages: %v (shown: %+v)", n, err, thread(t, ctx))
	}
	return thread(t, ctx)
}

// waitReply waits for a first exchange (the prompt and its reply) and checks that the reply
// reads want: what a script sent once it was answered. It returns the messages shown.
func waitReply(t *testing.T, ctx context.Context, want string) []shownMessage {
	t.Helper()
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, want, msgs[1].Text)
	return msgs
}

// assertReloadShows reloads the page and checks that it shows want again, each message once.
func assertReloadShows(t *testing.T, ctx context.Context, want []shownMessage) {
	t.Helper()
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady())
	waitMessages(t, ctx, len(want))
	do(t, ctx, 20*time.Second, waitCaughtUp()) // a duplicate would be on the page by now
	require.Equal(t, want, thread(t, ctx))
}

func assertOnce(t *testing.T, msgs []shownMessage) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range msgs {
		require.False(t, seen[m.Offset], "offset %s shown twice", m.Offset)
		seen[m.Offset] = true
	}
}

func draft(t *testing.T, ctx context.Context) string {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[string](draftJS))
}

// TestChatSurvivesReloadAndServerRestart is the walking skeleton's acceptance path: a prompt
// and its reply through the socket, a reload, a kill -9 and restart of the server.
func TestChatSurvivesReloadAndServerRestart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	// The printed link sets the cookie and drops the token from the address.
	srv, ctx := openHomeOn(t, data)
	require.NotContains(t, get(t, ctx, chromedp.Location()), "token=")

	// Shift+Enter breaks the line; Enter sends.
	get(t, ctx, chromedp.Evaluate[bool](`window.heroTextarea = document.querySelector('#composer-input'); true`))
	do(t, ctx, 10*time.Second, typeText("hello parley"), pressEnter(modShift), typeText("second line"))
	require.Equal(t, "hello parley\nsecond line", draft(t, ctx))
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 2)
	require.Len(t, msgs, 2)
	require.Equal(t, "user", msgs[0].Role)
	require.Equal(t, "hello parley\nsecond line", msgs[0].Text)
	require.Equal(t, "agent", msgs[1].Role)
	require.Contains(t, msgs[1].Text, "No model is configured")
	require.Contains(t, get(t, ctx, chromedp.Location()), "/s/", "the hero's first send opens its session")
	require.True(t, get(t, ctx, chromedp.Evaluate[bool](`window.heroTextarea === document.querySelector('#composer-input')`)),
		"hero → session keeps the same textarea node")
	require.Empty(t, draft(t, ctx), "a sent draft is cleared, with no stray newline")

	// A reload shows the same thread once.
	assertReloadShows(t, ctx, msgs)

	// The server dies hard; the page says it is reconnecting.
	srv.kill()
	do(t, ctx, 15*time.Second, waitJS(`!!document.querySelector('.link-reconnecting')`))
	require.Contains(t, get(t, ctx, chromedp.Text(chromedp.CSS(`.link-reconnecting`))), "Reconnecting")

	// It comes back on the same address with the same data; the page catches up.
	srv = startServer(t, data, srv.addr)
	do(t, ctx, 30*time.Second, retryNow(), waitJS(`!document.querySelector('.link-reconnecting')`))
	do(t, ctx, 10*time.Second, typeText("after restart"), pressEnter(0))
	all := waitMessages(t, ctx, 4)
	require.Len(t, all, 4)
	require.Equal(t, msgs, all[:2])
	require.Equal(t, "after restart", all[2].Text)
	require.Equal(t, "agent", all[3].Role)
	assertOnce(t, all)

	// A fresh load after the restart replays every event exactly once.
	assertReloadShows(t, ctx, all)
}

// TestCompositionNeverSends: an Enter that belongs to an IME composition sends nothing.
func TestCompositionNeverSends(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText("start"), pressEnter(0))
	waitMessages(t, ctx, 2)

	// Chromium's IME path: a composition is open, and the Enter that commits it arrives as
	// keyCode 229 while composing.
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), imeCompose("にほん"), composingEnter(), imeCommit("日本"))
	require.Equal(t, "日本", draft(t, ctx), "the composition committed into the draft")
	time.Sleep(500 * time.Millisecond)
	require.Len(t, thread(t, ctx), 2, "nothing was sent during the composition")

	// After the composition, Enter sends the committed text.
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "日本", msgs[2].Text)
}

// TestTokenGuardsTheAPI: without the token /api and /ws answer 401, from a script and from a
// browser that never opened the printed link.
func TestTokenGuardsTheAPI(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	for _, path := range []string{"/api/sessions", "/ws"} {
		resp, err := http.Get(srv.base() + path)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
	resp, _ := httpAPI(t, srv).Get("/api/sessions")
	require.Equal(t, http.StatusOK, resp.StatusCode, "a bearer token is accepted")

	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/"))
	status := get(t, ctx, chromedp.Evaluate[int](`fetch('/api/sessions').then(r => r.status)`, chromedp.EvalAwaitPromise))
	require.Equal(t, http.StatusUnauthorized, status)
}

// TestOversizedPromptIsRefusedAndKept: a prompt over the limit gets a message that says
// what to do, and the text stays in the composer.
func TestOversizedPromptIsRefusedAndKept(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText("first"), pressEnter(0))
	waitMessages(t, ctx, 2)

	// Paste-sized text, put in the way a paste would: value, then an input event.
	get(t, ctx, chromedp.Evaluate[bool](`(() => {
		window.sessionTextarea = document.querySelector('#composer-input');
		const ta = document.querySelector('#composer-input');
		ta.value = 'x'.repeat(129 * 1024);
		ta.dispatchEvent(new Event('input', {bubbles: true}));
		return true })()`))
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), pressEnter(0),
		waitJS(`!!document.querySelector('.notice')`))
	notice := get(t, ctx, chromedp.Text(chromedp.CSS(`.notice`)))
	require.Contains(t, notice, "Not sent")
	require.Contains(t, notice, "limit is 128 KiB")
	require.Len(t, draft(t, ctx), 129*1024, "the text is back in the composer")
	require.Len(t, thread(t, ctx), 2, "nothing was stored")
	require.True(t, get(t, ctx, chromedp.Evaluate[bool](`window.sessionTextarea === document.querySelector('#composer-input')`)),
		"the notice does not rebuild the composer")

	// The person gives up on it and empties the box: the notice about that text goes with
	// it (it stood over the empty box, and over a question that came later).
	selectRange(t, ctx, 0, 129*1024)
	do(t, ctx, 10*time.Second, backspace, waitDraft(""), waitJS(`!document.querySelector('.notice')`))
}

// contrastJS returns the WCAG contrast ratio of an element's text against what is painted
// behind it (its own background composited over the page's), resolving any CSS colour
// (color-mix, color(srgb …)) through a canvas.
const contrastJS = `((sel) => {
	const el = document.querySelector(sel);
	if (!el) return -1;
	const cv = document.createElement('canvas'); cv.width = cv.height = 1;
	const g = cv.getContext('2d', {willReadFrequently: true});
	const paint = (...colors) => { g.clearRect(0, 0, 1, 1); for (const c of colors) { g.fillStyle = c; g.fillRect(0, 0, 1, 1); } return g.getImageData(0, 0, 1, 1).data; };
	const bgs = []; for (let e = el; e; e = e.parentElement) bgs.unshift(getComputedStyle(e).backgroundColor);
	const bg = paint('#fff', ...bgs);
	const fg = paint('rgb(' + bg[0] + ',' + bg[1] + ',' + bg[2] + ')', getComputedStyle(el).color);
	const lum = p => { const c = [0, 1, 2].map(i => { const v = p[i] / 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
	const a = lum(fg), b = lum(bg);
	return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
})`

// TestBannersReadableInLightTheme: in the light theme (headless Chromium's default) the
// "Reconnecting…" banner, a prompt's "Not sent yet" and the "Not sent" notice meet WCAG AA
// (4.5:1). They once kept the dark theme's --warn and --danger: about 1.4:1 and 2:1.
func TestBannersReadableInLightTheme(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := startServer(t, data, "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 10*time.Second, colorScheme("light"))
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 10*time.Second, typeText("hello"), pressEnter(0))
	waitMessages(t, ctx, 2)

	srv.kill()
	do(t, ctx, 15*time.Second, waitJS(`!!document.querySelector('.link-reconnecting')`))
	do(t, ctx, 10*time.Second, typeText("while down"), pressEnter(0),
		waitJS(`!!document.querySelector('.msg-unsent .unsent-why')`))
	// A refused send says "Not sent" in a notice: a prompt over the limit, refused before
	// any request.
	setDraftJS(t, ctx, strings.Repeat("x", 129*1024))
	do(t, ctx, 15*time.Second, chromedp.Focus(composer), pressEnter(0), waitJS(`!!document.querySelector('.notice')`))

	for _, sel := range []string{".link-reconnecting span", ".link-retry", ".notice", ".msg-unsent .unsent-why", ".msg-unsent .unsent-cancel"} {
		ratio := get(t, ctx, chromedp.Evaluate[float64](contrastJS+`(`+fmt.Sprintf("%q", sel)+`)`))
		require.GreaterOrEqual(t, ratio, 4.5, "contrast of %s in the light theme is %.2f:1", sel, ratio)
	}
}

// TestFailedSendNoticeIsHuman: a send while the server is down waits in the thread and says
// so in words, not "TypeError: Failed to fetch"; once the server is back it is sent and the
// words go.
func TestFailedSendNoticeIsHuman(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := startServer(t, data, "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 10*time.Second, typeText("first"), pressEnter(0))
	waitMessages(t, ctx, 2)

	srv.kill()
	do(t, ctx, 10*time.Second, typeText("while down"), pressEnter(0))
	do(t, ctx, 15*time.Second, waitJS(`!!document.querySelector('.msg-unsent[data-state=waiting] .unsent-why')`))
	why := evalString(t, ctx, `document.querySelector('.msg-unsent .unsent-why').innerText + document.querySelector('.notice-slot').innerText`)
	require.NotContains(t, why, "TypeError")
	require.Contains(t, why, "Not sent yet")
	require.Empty(t, draft(t, ctx), "the prompt waits in the thread, not in the box")

	srv = startServer(t, data, srv.addr)
	do(t, ctx, 30*time.Second, retryNow(), waitJS(`!!document.querySelector('.link-live')`))
	// The mark goes once the server stored the prompt, and the log shows it.
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('.msg-unsent')`))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "while down", msgs[2].Text)
	require.NotContains(t, noticeText(t, ctx), "cannot reach the server", "the server is reachable again")
}

// TestMessagesNameTheirAuthor: a screen reader reading the thread (role=log) hears who wrote
// each message, not bare text with the author only in a CSS class; and the working indicator
// is announced (an aria-label on a plain div is ignored).
func TestMessagesNameTheirAuthor(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	evalBool(t, ctx, `(() => { window.workingSeen = null;
		new MutationObserver(() => { const w = document.querySelector('.working');
			if (w && !window.workingSeen) window.workingSeen = {role: w.getAttribute('role') || '', text: w.textContent.trim()}; })
			.observe(document.body, {subtree: true, childList: true}); return true })()`)
	do(t, ctx, 10*time.Second, typeText("hello"), pressEnter(0))
	waitMessages(t, ctx, 2)

	// The author, however it is given: aria-label, aria-roledescription, aria-labelledby, or
	// text in the message outside its body (e.g. a visually hidden "You said").
	authors := evalString(t, ctx, `JSON.stringify([...document.querySelectorAll('.thread .msg[data-offset]')].map(e => {
		const by = (e.getAttribute('aria-labelledby') || '').split(' ').filter(Boolean).map(id => (document.getElementById(id) || {}).textContent || '').join(' ');
		const outside = [...e.childNodes].filter(n => !(n.classList && n.classList.contains('msg-text'))).map(n => n.textContent).join(' ');
		return [e.getAttribute('aria-label') || '', e.getAttribute('aria-roledescription') || '', by, outside].join(' ').trim(); }))`)
	var names []string
	require.NoError(t, json.Unmarshal([]byte(authors), &names))
	require.Len(t, names, 2)
	require.NotEmpty(t, names[0], "the user's message names its author")
	require.NotEmpty(t, names[1], "the agent's message names its author")
	require.NotEqual(t, names[0], names[1])

	seen := evalString(t, ctx, `JSON.stringify(window.workingSeen)`)
	if seen != "null" {
		var w struct{ Role, Text string }
		require.NoError(t, json.Unmarshal([]byte(seen), &w))
		require.True(t, w.Role != "" || w.Text != "", "the working indicator is announced (a role or text), got %s", seen)
	}
}

// TestTheSessionsToggleSaysWhatWaits: on a phone the sidebar is behind its toggle, which
// says how many decisions wait, in its words and its name (QA round 26: nothing did until
// the drawer opened), and stops saying it once none waits.
func TestTheSessionsToggleSaysWhatWaits(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := sessionWith(t, srv, "Waits", `/script send(str(confirm('Deploy?')))`)
	q := waitQueue(t, srv, 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(390, 844), chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelector('.menu-toggle')?.dataset.waiting === '1'`))
	require.Equal(t, "Sessions, 1 decision waits for you", evalString(t, ctx, `document.querySelector('.menu-toggle').getAttribute('aria-label')`))
	_, err := apiClient(srv).Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("true")})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('.menu-toggle').hasAttribute('data-waiting')`))
}

// TestSessionsMenuKeyboard: on a narrow screen the Sessions toggle opens the list over the
// thread; Tab from the toggle moves into the list (not to the composer hidden behind the
// overlay, where the DOM order once sent it), and Escape closes it and gives the focus back.
func TestSessionsMenuKeyboard(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	seedSession(t, srv, "first", 1) // a session never prompted is blank, and not listed
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(375, 700), chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelectorAll('.sessions a').length == 1`))

	evalBool(t, ctx, `document.querySelector('.menu-toggle').focus(), true`)
	do(t, ctx, 5*time.Second, pressEnter(0), waitJS(`document.querySelector('#sidebar').classList.contains('open')`))
	do(t, ctx, 5*time.Second, rawKey("Tab", 9, 0))
	require.True(t, evalBool(t, ctx, `!!document.activeElement.closest('#sidebar')`),
		"Tab after opening the menu moves into it; focus is on %s", evalString(t, ctx, `document.activeElement.outerHTML.slice(0, 80)`))

	do(t, ctx, 5*time.Second, rawKey("Escape", 27, 0))
	waitShowing(t, ctx, 10*time.Second, `!document.querySelector('#sidebar').classList.contains('open') && document.activeElement === document.querySelector('.menu-toggle')`,
		`document.querySelector('#sidebar').className + ' / focus on ' + document.activeElement.outerHTML.slice(0, 80)`)
	require.False(t, evalBool(t, ctx, `document.querySelector('#sidebar').classList.contains('open')`), "Escape closes the menu")
	require.True(t, evalBool(t, ctx, `document.activeElement === document.querySelector('.menu-toggle')`), "and gives the focus back to the toggle")
}

// TestNewSessionClosesMenu: on a narrow screen, on the hero, "New session" in the open menu
// closes the overlay. OnNav is not called for the current path, so nothing else closes it,
// and a person who tapped it would see nothing happen.
func TestNewSessionClosesMenu(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(375, 700), chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)),
		waitJS(`document.querySelector('#sidebar').classList.contains('open')`))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.new-session`)))
	waitShowing(t, ctx, 10*time.Second, `!document.querySelector('#sidebar').classList.contains('open')`, `document.querySelector('#sidebar').className`)
	require.False(t, evalBool(t, ctx, `document.querySelector('#sidebar').classList.contains('open')`),
		"the menu closes after New session")
}

// noComposer holds on a page with no composer that takes prompts.
const noComposer = `(() => { const ta = document.querySelector('#composer-input'); return !ta || ta.disabled || ta.readOnly })()`

// TestUnknownSessionIsExplained: /s/<unknown id> says "Session not found" in its header, and
// offers no composer that takes prompts, rather than a live one whose prompt ends in "Not
// sent: no such session".
func TestUnknownSessionIsExplained(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := openPage(t, srv, "/s/doesnotexist")
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('.session-header h1') && document.querySelector('.session-header h1').innerText === 'Session not found'`))
	require.NotEmpty(t, strings.TrimSpace(evalString(t, ctx, `(document.querySelector('.session-header h1') || {}).innerText || ''`)),
		"the header says what this page is (e.g. \"Session not found\")")
	require.True(t, evalBool(t, ctx, noComposer),
		"the composer does not take prompts for a session that does not exist")
	require.Equal(t, "No session here to write to: start a new session above",
		evalString(t, ctx, `document.querySelector('#composer-input').placeholder`), "the composer says why it takes nothing")
	require.True(t, evalBool(t, ctx, `!!document.querySelector('#composer-input').closest('.composer-closed')`), "and looks closed")

	// What a person types there anyway (a click on the box, words, Enter) is not held for
	// the next page: Start a new session opens a blank one with an empty box, and sends
	// nothing (it sent "ghost message" as the new session's first prompt).
	do(t, ctx, 10*time.Second, chromedp.Click(composer), chromedp.KeyEvent("ghost message"), pressEnter(0),
		chromedp.Click(chromedp.CSS(`.gate .new-session`)),
		waitJS(`location.pathname === '/' && document.documentElement.hasAttribute('data-composer-live') && !document.querySelector('#composer-input').disabled`))
	time.Sleep(time.Second) // a held send goes out as the bar goes live: give it the time to
	require.Equal(t, "/", evalString(t, ctx, `location.pathname`), "nothing was sent")
	require.Empty(t, evalString(t, ctx, `document.querySelector('#composer-input').value`), "the new session's box is empty")
	list, err := apiClient(srv).ListSessions(context.Background())
	require.NoError(t, err)
	for _, s := range list {
		require.True(t, s.Blank, "no session holds a prompt: %+v", s)
	}
}

// openWithoutLink opens path of a new server in a browser that never opened its token link,
// and returns once the document is there (not ready: such a page may never be).
func openWithoutLink(t *testing.T, path string) context.Context {
	t.Helper()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+path))
	return ctx
}

// TestWithoutTokenIsExplained: a person who opens the address without the token link (a
// bookmark in another browser, a cleared cookie) gets a page written for a person, not the
// script's "send Authorization: Bearer <token>", and no composer that cannot send.
func TestWithoutTokenIsExplained(t *testing.T) {
	t.Parallel()
	ctx := openWithoutLink(t, "/")
	do(t, ctx, 60*time.Second, waitJS(`document.documentElement.hasAttribute('data-ready')`))
	// The page learns it has no access from its first request's 401, and says so.
	waitShowing(t, ctx, 20*time.Second, `!!document.querySelector('.gate')`, `document.body.innerText.slice(0, 300)`)
	text := evalString(t, ctx, `document.body.innerText`)
	require.NotContains(t, text, "Bearer", "the page speaks to a person, not a script")
	require.True(t, evalBool(t, ctx, noComposer),
		"no composer that cannot send")
}

// TestWrongTokenLinkIsAPage: a link with a wrong token (an old printout, a typo) shows a
// page, not the raw JSON error body.
func TestWrongTokenLinkIsAPage(t *testing.T) {
	t.Parallel()
	ctx := openWithoutLink(t, "/?token=wrong")
	require.Equal(t, "text/html", evalString(t, ctx, `document.contentType`), "a person gets a page, not %q",
		evalString(t, ctx, `document.body.innerText.slice(0, 120)`))
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
	require.LessOrEqual(t, copies, 1, "Tab stops at one Copy at most")
	require.Equal(t, 1, messages, "one message holds the thread's tab stop")
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

// longPrompt is a prompt of about 100 KB on many lines, each line its own number.
func longPrompt() string {
	var b strings.Builder
	for i := 0; b.Len() < 100<<10; i++ {
		fmt.Fprintf(&b, "line %d of a long paste, words to fill the line and then some more words\n", i)
	}
	return strings.TrimSpace(b.String())
}

// TestALongPromptIsFolded (QA round 12 #15): a 100 KB prompt's bubble shows its first lines
// and a "Show all" toggle (a button, reached by Tab, aria-expanded), not the whole text; the
// toggle shows it all and folds it again; Copy still copies the whole prompt.
func TestALongPromptIsFolded(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "Long", 1)
	text := longPrompt()
	_, err := apiClient(srv).SendPrompt(context.Background(), id, protocol.SendPromptRequest{Text: text, AttemptID: api.NewAttemptID()})
	require.NoError(t, err)
	ctx := openPage(t, srv, "/s/"+id)
	waitMessages(t, ctx, 4)
	do(t, ctx, 20*time.Second, waitCaughtUp())

	bubble := `[...document.querySelectorAll('.thread .msg-user')].pop()`
	shown := func() (n int, height float64, label, expanded string) {
		var got struct {
			N        int
			H        float64
			Label    string
			Expanded string
		}
		require.NoError(t, json.Unmarshal([]byte(evalString(t, ctx, `(() => { const m = `+bubble+`, b = m.querySelector('button.msg-toggle');
			return JSON.stringify({n: m.querySelector('.msg-text').textContent.length, h: m.querySelector('.msg-text').getBoundingClientRect().height,
				label: b ? b.innerText : '', expanded: b ? b.getAttribute('aria-expanded') : ''}) })()`)), &got))
		return got.N, got.H, got.Label, got.Expanded
	}
	n, h, label, expanded := shown()
	require.Less(t, n, 2000, "the folded bubble holds the first lines, not 100 KB")
	require.Less(t, h, 400.0, "the folded bubble is a few lines high")
	require.Equal(t, "Show all", label)
	require.Equal(t, "false", expanded)
	require.True(t, strings.HasPrefix(evalString(t, ctx, bubble+`.querySelector('.msg-text').textContent`), "line 0 of a long paste"))
	require.Equal(t, 0, get(t, ctx, chromedp.Evaluate[int](bubble+`.querySelector('button.msg-toggle').tabIndex`)), "in the Tab order")

	// By the keyboard: Enter on the focused toggle shows it all, and again folds it.
	evalBool(t, ctx, `(`+bubble+`.querySelector('button.msg-toggle').focus(), true)`)
	do(t, ctx, 10*time.Second, pressEnter(0),
		waitJS(bubble+`.querySelector('button.msg-toggle').getAttribute('aria-expanded') === 'true'`))
	n, _, label, _ = shown()
	require.GreaterOrEqual(t, n, len(text)-len("Show less"), "the whole prompt")
	require.Equal(t, "Show less", label)
	require.Equal(t, "true", evalString(t, ctx, `String(document.activeElement.classList.contains('msg-toggle'))`), "the toggle keeps the focus")
	do(t, ctx, 10*time.Second, pressEnter(0),
		waitJS(bubble+`.querySelector('button.msg-toggle').getAttribute('aria-expanded') === 'false'`))
	n, _, _, _ = shown()
	require.Less(t, n, 2000)

	// A short prompt has no toggle.
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.thread .msg-user').querySelector('button.msg-toggle')`))
}

// TestAnotherPortCannotActAsTheUser: every port of 127.0.0.1 is the same site, so a page a
// dev server serves on another port gets Parley's cookie sent along with its requests. A
// no-cors fetch from it, the kind a browser sends without asking Parley first, must not run
// anything; the same request from Parley's own page does.
func TestAnotherPortCannotActAsTheUser(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t) // the browser has the cookie now
	require.Zero(t, runsStarted(t, srv))

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><title>another app on this machine</title><p>hello`)
	}))
	defer other.Close()
	do(t, ctx, 20*time.Second, chromedp.Navigate(other.URL))
	forged := `fetch(` + strconv.Quote(srv.base()+"/api/functions/greet/run") + `, {method: "POST", mode: "no-cors",
		credentials: "include", headers: {"Content-Type": "text/plain"}, body: JSON.stringify({args: {name: "Eve"}})})
		.then(r => r.type, e => "failed: " + e)`
	require.Equal(t, "opaque", get(t, ctx, chromedp.Evaluate[string](forged, chromedp.EvalAwaitPromise)), "the request was sent")
	require.Never(t, func() bool { return runsStarted(t, srv) > 0 }, time.Second, 50*time.Millisecond,
		"a page of another origin ran a function as the user")

	// The check can fail: from Parley's own page, with the cookie, the function runs.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/"), waitReady())
	own := `fetch("/api/functions/greet/run", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({args: {name: "Ada"}})}).then(r => r.status)`
	require.Equal(t, http.StatusAccepted, get(t, ctx, chromedp.Evaluate[int](own, chromedp.EvalAwaitPromise)))
	require.Eventually(t, func() bool { return runsStarted(t, srv) == 1 }, 10*time.Second, 50*time.Millisecond)
}

// runsStarted counts run.started events in every session, read over the API.
func runsStarted(t *testing.T, srv *server) int {
	t.Helper()
	var list protocol.SessionList
	apiGet(t, srv, "/api/sessions", &list)
	n := 0
	for _, s := range list.Sessions {
		var page protocol.EventPage
		apiGet(t, srv, "/api/sessions/"+s.ID+"/events?limit="+strconv.Itoa(protocol.MaxEventPage), &page)
		for _, ev := range page.Events {
			if ev.Type == protocol.EventRunStarted {
				n++
			}
		}
	}
	return n
}

// apiGet reads an API answer with the bearer token.
func apiGet(t *testing.T, srv *server, path string, out any) {
	t.Helper()
	resp, data := httpAPI(t, srv).Get(path)
	require.Equal(t, http.StatusOK, resp.StatusCode, path)
	require.NoError(t, json.Unmarshal(data, out))
}

// startEdge runs a second parley process as an edge of upstream: its own data folder (its
// own token), the runtime's token in PARLEY_UPSTREAM_TOKEN.
func startEdge(t testing.TB, upstream *server) *server {
	t.Helper()
	data := t.TempDir()
	return launchEnv(t, repoRoot, data, "127.0.0.1:0", []string{data}, []string{"PARLEY_UPSTREAM_TOKEN=" + upstream.token},
		"-upstream", upstream.base())
}

// TestChatThroughAnEdge: the page served by an edge (`-upstream`) in front of a runtime,
// two real processes. A prompt and its reply, a reload, then the runtime killed and started
// again: the page says it is reconnecting, in the edge's words, and catches up with what
// happened meanwhile, with no gap and no duplicate.
func TestChatThroughAnEdge(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	rt := startServer(t, data, "127.0.0.1:0")
	edge := startEdge(t, rt)
	require.NotEqual(t, rt.token, edge.token, "the edge has a token of its own")
	ctx := browser(t)

	do(t, ctx, 60*time.Second, chromedp.Navigate(edge.link), waitReady())
	do(t, ctx, 10*time.Second, typeText("hello through the edge"), pressEnter(0))
	msgs := waitMessages(t, ctx, 2)
	require.Len(t, msgs, 2)
	require.Equal(t, "hello through the edge", msgs[0].Text)
	require.Contains(t, msgs[1].Text, "No model is configured")
	loc := get(t, ctx, chromedp.Location())
	require.Contains(t, loc, "/s/")
	session := loc[strings.LastIndex(loc, "/s/")+3:]

	// The page never holds the runtime's token: not in its cookies, not in its markup.
	cookies := evalString(t, ctx, `document.cookie + document.documentElement.outerHTML`)
	require.NotContains(t, cookies, rt.token)

	assertReloadShows(t, ctx, msgs)

	// The runtime dies hard; the edge stays up and the page says what is wrong.
	rt.kill()
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.link-reconnecting') &&
		document.querySelector('.link-reconnecting').innerText.includes('runtime behind this server is not reachable')`))
	require.Contains(t, get(t, ctx, chromedp.Text(chromedp.CSS(`.link-reconnecting`))), "Reconnecting")

	// It comes back on its address with its data; a prompt arrives from a script before the
	// page is back, and the page catches up on it.
	rt = startServer(t, data, rt.addr)
	c := apiClient(rt)
	_, err := c.SendPrompt(context.Background(), session, protocol.SendPromptRequest{Text: "while the page was away", AttemptID: api.NewAttemptID()})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, retryNow(), waitJS(`!document.querySelector('.link-reconnecting')`))
	all := waitMessages(t, ctx, 4)
	require.Len(t, all, 4)
	require.Equal(t, msgs, all[:2])
	require.Equal(t, "while the page was away", all[2].Text)
	require.Equal(t, "agent", all[3].Role)
	do(t, ctx, 10*time.Second, typeText("after the restart"), pressEnter(0))
	all = waitMessages(t, ctx, 6)
	require.Len(t, all, 6)
	require.Equal(t, "after the restart", all[4].Text)
	assertOnce(t, all)

	// A fresh load through the edge replays every event once.
	assertReloadShows(t, ctx, all)
}

// TestSendingShowsTheNewestEnd: a prompt sent while the person reads further up brings the
// thread to its newest end, where the prompt lands (QA round 20 #2: it landed out of sight);
// while scrolled up, a button takes them there.
func TestSendingShowsTheNewestEnd(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, `/script [send("message %d" % i) for i in range(30)]`)
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.entry-run.status-done')`))
	const top = `document.querySelector('.thread').scrollTop`
	const button = `document.querySelector('.thread .jump-newest')`
	scrollUp := func() {
		t.Helper()
		do(t, ctx, 10*time.Second, waitJS(`(document.querySelector('.thread').scrollTop = -900, true)`),
			waitJS(button+`.checkVisibility()`))
	}
	require.False(t, evalBool(t, ctx, button+`.checkVisibility()`), "at the newest end, no button")

	scrollUp()
	do(t, ctx, 20*time.Second, chromedp.Focus(composer), typeText("are you there?"), pressEnter(0),
		waitJS(top+` > -2 && !`+button+`.checkVisibility()`))

	scrollUp()
	do(t, ctx, 10*time.Second, chromedp.Click(`.thread .jump-newest`, chromedp.NodeVisible), waitJS(top+` > -2`))
	require.Equal(t, "composer-input", evalString(t, ctx, `document.activeElement.id`), "a click keeps the focus in the box")

	// A letter typed while the thread holds the focus (a click on it, then PageUp and ↓)
	// goes to the box (QA round 20's re-test: it went nowhere).
	do(t, ctx, 10*time.Second, js(`document.querySelector('.thread').focus()`), waitJS(`document.activeElement.classList.contains('thread')`),
		chromedp.KeyEvent("abc"), waitDraft("abc"))
	// So does one typed on a message's Copy, which its click leaves focused (QA round 21).
	do(t, ctx, 10*time.Second, js(`document.querySelector('.thread .msg-copy').focus()`), waitJS(`document.activeElement.classList.contains('msg-copy')`),
		chromedp.KeyEvent("d"), waitDraft("abcd"))
}
