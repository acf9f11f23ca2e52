package e2e

// Findings of a review that used the walking skeleton as a person would. Each test reproduced
// one bug or gap before its fix, and now keeps it fixed.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/protocol"
)

// --- helpers ---------------------------------------------------------------------------

func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[string](js))
}

func evalBool(t *testing.T, ctx context.Context, js string) bool {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[bool](js))
}

// setDraftJS puts text in the composer the way a paste does: value, then an input event.
func setDraftJS(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	b, _ := json.Marshal(text)
	evalBool(t, ctx, `(() => { const ta = document.querySelector('#composer-input');
		ta.value = `+string(b)+`; ta.dispatchEvent(new Event('input', {bubbles: true})); return true })()`)
}

func noticeText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalString(t, ctx, `document.querySelector('.notice-slot').innerText`)
}

func apiClient(srv *server) *api.Client {
	return &api.Client{Base: srv.base(), Header: http.Header{"Authorization": {"Bearer " + srv.token}}}
}

// seedSession makes a session through the API with n prompts (each gets the offline reply).
func seedSession(t *testing.T, srv *server, title string, n int) string {
	t.Helper()
	c := apiClient(srv)
	info, err := c.CreateSession(context.Background(), protocol.CreateSessionRequest{Title: title})
	require.NoError(t, err)
	for i := range n {
		_, err := c.SendPrompt(context.Background(), info.ID, protocol.SendPromptRequest{
			Text: fmt.Sprintf("%s prompt %d", title, i), AttemptID: api.NewAttemptID()})
		require.NoError(t, err)
	}
	return info.ID
}

func rawKey(k string, code int64, mods int64) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: k, Code: k, WindowsVirtualKeyCode: code, NativeVirtualKeyCode: code, Modifiers: mods}),
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: k, Code: k, WindowsVirtualKeyCode: code, NativeVirtualKeyCode: code, Modifiers: mods}),
	)
}

// startServerIn is startServer with another working directory, so a test can serve its own
// copy of web/ (go-app serves /web from the working directory).
func startServerIn(t *testing.T, dir, data, addr string) *server {
	t.Helper()
	cmd := exec.Command(binary, "-addr", addr, "-data", data, "-workspace", dir)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PARLEY_TOKEN=")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = &testLogWriter{t: t, prefix: "server: "}
	require.NoError(t, cmd.Start())
	s := &server{t: t, cmd: cmd, data: data}
	t.Cleanup(s.kill)
	sc := bufio.NewScanner(stdout)
	for s.link == "" && sc.Scan() {
		s.link = linkPattern.FindString(sc.Text())
	}
	require.NotEmpty(t, s.link, "server printed no address")
	go func() {
		for sc.Scan() {
		}
	}()
	u, err := url.Parse(s.link)
	require.NoError(t, err)
	s.addr, s.token = u.Host, u.Query().Get("token")
	return s
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

// --- findings -------------------------------------------------------------------------

// TestReviewEmojiFirstPromptStartsSession: a first prompt whose first line is 61+ emoji
// cannot start a session. titleFrom cuts the title at 60 runes, but the server limits titles
// to 200 bytes: 60 four-byte runes plus "…" is 243 bytes, so creating the session is refused
// with "Not sent: invalid request: title: longer than 200 bytes".
func TestReviewEmojiFirstPromptStartsSession(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	prompt := strings.Repeat("😀", 70)
	setDraftJS(t, ctx, prompt)
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), pressEnter(0),
		waitJS(`!!document.querySelector('.notice') || document.querySelectorAll('.thread .msg[data-offset]').length >= 2`))
	require.Empty(t, noticeText(t, ctx), "the first prompt starts a session")
	msgs := waitMessages(t, ctx, 2)
	assert.Equal(t, prompt, msgs[0].Text)
}

// TestReviewTypingBeforeWasmIsKept: the pre-rendered page shows an autofocused composer, so
// a person starts typing at once. On a cold load (first visit, no service worker yet) the
// wasm takes about a second to take over; it then replaces the pre-rendered textarea, which
// silently drops whatever was typed and leaves the focus on <body>.
func TestReviewTypingBeforeWasmIsKept(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	// Hold app.wasm until the person has typed, so the race is decided, not hoped for.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	do(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/web/app.wasm*"}}})
		return err
	}))
	held := make(chan fetch.RequestID, 1)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			held <- ev.RequestID
			return
		}
	}()
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitJS(`!!document.querySelector('#composer-input')`))
	var id fetch.RequestID
	select {
	case id = <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the page never asked for app.wasm")
	}
	require.False(t, evalBool(t, ctx, `document.documentElement.hasAttribute('data-ready')`), "the wasm is held")
	do(t, ctx, 10*time.Second, chromedp.SendKeys(composer, "early bird"))
	do(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
		return err
	}))
	do(t, ctx, 30*time.Second, waitReady())
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, "early bird", draft(t, ctx), "text typed into the pre-rendered composer is kept")
	assert.Equal(t, "composer-input", evalString(t, ctx, `document.activeElement.id`), "the composer keeps the focus")
}

// TestReviewRebuildIsPickedUpOnReload: after a rebuild and restart, one reload still runs the
// old wasm, indefinitely. The service worker is cache-first for "/", app.js and app.wasm, and
// nothing reacts when the new worker activates (no app.AppUpdater), so only a second reload
// gets the new build. The issue asks that "a rebuild is never served stale".
func TestReviewRebuildIsPickedUpOnReload(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "web"), 0o755))
	for _, f := range []string{"app.wasm", "icon-192.png", "icon-512.png", "icon.svg", "parley.css"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, "web", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "web", f), b, 0o644))
	}
	data := t.TempDir()
	srv := startServerIn(t, dir, data, "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), waitJS(`!!navigator.serviceWorker.controller`))

	// "Rebuild": the same program with one more custom section, so a new build id.
	srv.kill()
	wasm := filepath.Join(dir, "web", "app.wasm")
	f, err := os.OpenFile(wasm, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte{0x00, 0x08, 0x06, 'r', 'e', 'v', 'i', 'e', 'w', 'x'})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	b, err := os.ReadFile(wasm)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	rebuilt := hex.EncodeToString(sum[:])[:16]
	srv = startServerIn(t, dir, data, srv.addr)

	// One reload, as a person does after a rebuild; the page may reload itself once more.
	do(t, ctx, 30*time.Second, chromedp.Reload())
	tctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	err = chromedp.Do(tctx, waitJS(`typeof goappEnv !== 'undefined' && goappEnv.GOAPP_VERSION === '`+rebuilt+`' && document.documentElement.hasAttribute('data-ready')`))
	assert.NoError(t, err, "still running build %s after a reload; the rebuild is %s",
		evalString(t, ctx, `typeof goappEnv === 'undefined' ? '?' : goappEnv.GOAPP_VERSION`), rebuilt)
}

// TestReviewBannersReadableInLightTheme: in the light theme (the default when the system is
// light, and headless Chromium's default) --warn and --danger keep their dark-theme values:
// the "Reconnecting…" banner is pale yellow on near-white (about 1.4:1) and the "Not sent"
// notice pale red on pink (about 2:1). WCAG AA needs 4.5:1 for this text.
func TestReviewBannersReadableInLightTheme(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data, "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}})
		return err
	}))
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 10*time.Second, typeText("hello"), pressEnter(0))
	waitMessages(t, ctx, 2)

	srv.kill()
	do(t, ctx, 15*time.Second, waitJS(`!!document.querySelector('.link-reconnecting')`))
	do(t, ctx, 10*time.Second, typeText("while down"), pressEnter(0))
	do(t, ctx, 15*time.Second, waitJS(`!!document.querySelector('.notice')`))

	for _, sel := range []string{".link-reconnecting span", ".link-retry", ".notice"} {
		ratio := get(t, ctx, chromedp.Evaluate[float64](contrastJS+`(`+fmt.Sprintf("%q", sel)+`)`))
		assert.GreaterOrEqual(t, ratio, 4.5, "contrast of %s in the light theme is %.2f:1", sel, ratio)
	}
}

// TestReviewSessionsMenuKeyboard: on a narrow screen the Sessions toggle opens the list over
// the thread, but the list comes before the toggle in the DOM, so Tab from the toggle goes to
// the composer hidden behind the overlay; and Escape does not close the overlay.
func TestReviewSessionsMenuKeyboard(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	seedSession(t, srv, "first", 1) // a session never prompted is blank, and not listed
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(375, 700), chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.querySelectorAll('.sessions a').length == 1`))

	evalBool(t, ctx, `document.querySelector('.menu-toggle').focus(), true`)
	do(t, ctx, 5*time.Second, pressEnter(0), waitJS(`document.querySelector('#sidebar').classList.contains('open')`))
	do(t, ctx, 5*time.Second, rawKey("Tab", 9, 0))
	assert.True(t, evalBool(t, ctx, `!!document.activeElement.closest('#sidebar')`),
		"Tab after opening the menu moves into it; focus is on %s", evalString(t, ctx, `document.activeElement.outerHTML.slice(0, 80)`))

	do(t, ctx, 5*time.Second, rawKey("Escape", 27, 0))
	time.Sleep(300 * time.Millisecond)
	assert.False(t, evalBool(t, ctx, `document.querySelector('#sidebar').classList.contains('open')`), "Escape closes the menu")
	assert.True(t, evalBool(t, ctx, `document.activeElement === document.querySelector('.menu-toggle')`), "and gives the focus back to the toggle")
}

// TestReviewNewSessionClosesMenu: on a narrow screen, on the hero, "New session" in the open
// menu leaves the overlay open over the page (OnNav is not called for the current path, and
// nothing else closes it). A person who tapped it sees nothing happen.
func TestReviewNewSessionClosesMenu(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(375, 700), chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)),
		waitJS(`document.querySelector('#sidebar').classList.contains('open')`))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.new-session`)))
	time.Sleep(500 * time.Millisecond)
	assert.False(t, evalBool(t, ctx, `document.querySelector('#sidebar').classList.contains('open')`),
		"the menu closes after New session")
}

// TestReviewDraftStaysWithItsSession: the composer's draft follows the person across
// sessions. Text typed in one session is still in the composer after switching to another
// from the sidebar, and Enter sends it there; going back, the first session's draft is gone.
func TestReviewDraftStaysWithItsSession(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := seedSession(t, srv, "alpha", 1)
	b := seedSession(t, srv, "beta", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Navigate(srv.base()+"/s/"+a), waitReady())
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, typeText("half a thought for alpha"))

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.sessions a[href="/s/`+b+`"]`)),
		waitJS(`location.pathname == '/s/`+b+`' && document.querySelector('.thread .msg-user') && document.querySelector('.thread .msg-user .msg-text').innerText.startsWith('beta')`))
	assert.Empty(t, draft(t, ctx), "beta's composer does not carry alpha's draft")

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.sessions a[href="/s/`+a+`"]`)),
		waitJS(`location.pathname == '/s/`+a+`' && document.querySelector('.thread .msg-user') && document.querySelector('.thread .msg-user .msg-text').innerText.startsWith('alpha')`))
	assert.Equal(t, "half a thought for alpha", draft(t, ctx), "alpha's draft is back")
}

// TestReviewMessagesNameTheirAuthor: a screen reader reads the thread (role=log) as bare
// text: who wrote a message is only a CSS class and a bubble colour. The working indicator's
// aria-label sits on a plain div, where screen readers ignore it.
func TestReviewMessagesNameTheirAuthor(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
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
	assert.NotEmpty(t, names[0], "the user's message names its author")
	assert.NotEmpty(t, names[1], "the agent's message names its author")
	assert.NotEqual(t, names[0], names[1])

	seen := evalString(t, ctx, `JSON.stringify(window.workingSeen)`)
	if seen != "null" {
		var w struct{ Role, Text string }
		require.NoError(t, json.Unmarshal([]byte(seen), &w))
		assert.True(t, w.Role != "" || w.Text != "", "the working indicator is announced (a role or text), got %s", seen)
	}
}

// TestReviewUnknownSessionIsExplained: /s/<unknown id> shows an empty header, a
// lower-case "no such session <id>: …" strip, and a live composer that says "Message the
// agent"; a prompt typed there ends in "Not sent: no such session".
func TestReviewUnknownSessionIsExplained(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/s/doesnotexist"), waitReady(),
		waitJS(`!!document.querySelector('.session-header h2') && document.querySelector('.session-header h2').innerText === 'Session not found'`))
	assert.NotEmpty(t, strings.TrimSpace(evalString(t, ctx, `(document.querySelector('.session-header h2') || {}).innerText || ''`)),
		"the header says what this page is (e.g. \"Session not found\")")
	assert.True(t, evalBool(t, ctx, `(() => { const ta = document.querySelector('#composer-input'); return !ta || ta.disabled || ta.readOnly })()`),
		"the composer does not take prompts for a session that does not exist")
}

// TestReviewWithoutTokenIsExplained: a person who opens the address without the token link
// (a bookmark in another browser, a cleared cookie) gets the full app, a composer that
// cannot send, and an error written for scripts ("send Authorization: Bearer <token>").
func TestReviewWithoutTokenIsExplained(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/"),
		waitJS(`document.documentElement.hasAttribute('data-ready')`))
	time.Sleep(time.Second)
	text := evalString(t, ctx, `document.body.innerText`)
	assert.NotContains(t, text, "Bearer", "the page speaks to a person, not a script")
	assert.True(t, evalBool(t, ctx, `(() => { const ta = document.querySelector('#composer-input'); return !ta || ta.disabled || ta.readOnly })()`),
		"no composer that cannot send")
}

// TestReviewWrongTokenLinkIsAPage: a link with a wrong token (an old printout, a typo)
// shows the raw JSON error body in the browser.
func TestReviewWrongTokenLinkIsAPage(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/?token=wrong"))
	assert.Equal(t, "text/html", evalString(t, ctx, `document.contentType`), "a person gets a page, not %q",
		evalString(t, ctx, `document.body.innerText.slice(0, 120)`))
}

// TestReviewFailedSendNoticeIsHuman: a send while the server is down ends in "Not sent:
// cannot reach the server: TypeError: Failed to fetch" (a JavaScript error name), and that
// notice stays after the server is back and the link is live again.
func TestReviewFailedSendNoticeIsHuman(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data, "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 10*time.Second, typeText("first"), pressEnter(0))
	waitMessages(t, ctx, 2)

	srv.kill()
	do(t, ctx, 10*time.Second, typeText("while down"), pressEnter(0))
	do(t, ctx, 15*time.Second, waitJS(`!!document.querySelector('.notice')`))
	assert.NotContains(t, noticeText(t, ctx), "TypeError")
	assert.Equal(t, "while down", draft(t, ctx))

	srv = startServer(t, data, srv.addr)
	do(t, ctx, 30*time.Second, chromedp.Click(chromedp.CSS(`.link-retry`)),
		waitJS(`!!document.querySelector('.link-live')`))
	time.Sleep(500 * time.Millisecond)
	assert.NotContains(t, noticeText(t, ctx), "cannot reach the server", "the server is reachable again")
}

// TestReviewManifestIconSizes: the manifest's maskable entry points at icon-192.png but
// declares it 512x512 (go-app gives Maskable the large icon's size).
func TestReviewManifestIconSizes(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	resp, err := http.Get(srv.base() + "/manifest.webmanifest")
	require.NoError(t, err)
	defer resp.Body.Close()
	var m struct {
		Icons []struct{ Src, Type, Sizes, Purpose string }
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	for _, ic := range m.Icons {
		if ic.Type != "image/png" {
			continue
		}
		r, err := http.Get(srv.base() + ic.Src)
		require.NoError(t, err)
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(r.Body)
		r.Body.Close()
		cfg, err := png.DecodeConfig(&buf)
		require.NoError(t, err, ic.Src)
		assert.Equal(t, fmt.Sprintf("%dx%d", cfg.Width, cfg.Height), ic.Sizes, "%s (purpose %q)", ic.Src, ic.Purpose)
	}
}

// TestReviewNoWebDirectoryListing: /web/ answers with an HTML listing of the bundle folder.
func TestReviewNoWebDirectoryListing(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	resp, err := http.Get(srv.base() + "/web/")
	require.NoError(t, err)
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	assert.NotContains(t, buf.String(), `<a href="app.wasm">`, "no directory listing")
}
