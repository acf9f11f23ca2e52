package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err := chromedp.Do(tctx, waitJS(`document.querySelectorAll('.thread .msg[data-offset]').length >= `+strconv.Itoa(n)))
	if err != nil {
		t.Fatalf("waiting for %d messages: %v (shown: %+v)", n, err, thread(t, ctx))
	}
	return thread(t, ctx)
}

func assertOnce(t *testing.T, msgs []shownMessage) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range msgs {
		assert.False(t, seen[m.Offset], "offset %s shown twice", m.Offset)
		seen[m.Offset] = true
	}
}

func draft(t *testing.T, ctx context.Context) string {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[string](`document.querySelector('#composer-input').value`))
}

// TestChatSurvivesReloadAndServerRestart is the walking skeleton's acceptance path: a prompt
// and its reply through the socket, a reload, a kill -9 and restart of the server.
func TestChatSurvivesReloadAndServerRestart(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data, "127.0.0.1:0")
	ctx := browser(t)

	// The printed link sets the cookie and drops the token from the address.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	assert.NotContains(t, get(t, ctx, chromedp.Location()), "token=")

	// Shift+Enter breaks the line; Enter sends.
	get(t, ctx, chromedp.Evaluate[bool](`window.heroTextarea = document.querySelector('#composer-input'); true`))
	do(t, ctx, 10*time.Second, typeText("hello parley"), pressEnter(modShift), typeText("second line"))
	assert.Equal(t, "hello parley\nsecond line", draft(t, ctx))
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 2)
	require.Len(t, msgs, 2)
	assert.Equal(t, "user", msgs[0].Role)
	assert.Equal(t, "hello parley\nsecond line", msgs[0].Text)
	assert.Equal(t, "agent", msgs[1].Role)
	assert.Contains(t, msgs[1].Text, "No model is configured")
	assert.Contains(t, get(t, ctx, chromedp.Location()), "/s/", "the hero's first send opens its session")
	assert.True(t, get(t, ctx, chromedp.Evaluate[bool](`window.heroTextarea === document.querySelector('#composer-input')`)),
		"hero → session keeps the same textarea node")
	assert.Empty(t, draft(t, ctx), "a sent draft is cleared, with no stray newline")

	// A reload shows the same thread once.
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady())
	waitMessages(t, ctx, 2)
	time.Sleep(300 * time.Millisecond) // a duplicate would have arrived by now
	assert.Equal(t, msgs, thread(t, ctx))

	// The server dies hard; the page says it is reconnecting.
	srv.kill()
	do(t, ctx, 15*time.Second, waitJS(`!!document.querySelector('.link-reconnecting')`))
	assert.Contains(t, get(t, ctx, chromedp.Text(chromedp.CSS(`.link-reconnecting`))), "Reconnecting")

	// It comes back on the same address with the same data; the page catches up.
	srv = startServer(t, data, srv.addr)
	do(t, ctx, 30*time.Second, chromedp.Click(chromedp.CSS(`.link-retry`)), waitJS(`!document.querySelector('.link-reconnecting')`))
	do(t, ctx, 10*time.Second, typeText("after restart"), pressEnter(0))
	all := waitMessages(t, ctx, 4)
	require.Len(t, all, 4)
	assert.Equal(t, msgs, all[:2])
	assert.Equal(t, "after restart", all[2].Text)
	assert.Equal(t, "agent", all[3].Role)
	assertOnce(t, all)

	// A fresh load after the restart replays every event exactly once.
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady())
	waitMessages(t, ctx, 4)
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, all, thread(t, ctx))
}

// TestCompositionNeverSends: an Enter that belongs to an IME composition sends nothing.
func TestCompositionNeverSends(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 10*time.Second, typeText("start"), pressEnter(0))
	waitMessages(t, ctx, 2)

	// Chromium's IME path: a composition is open, and the Enter that commits it arrives as
	// keyCode 229 while composing.
	ime := func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, input.ImeSetComposition, input.ImeSetCompositionParams{Text: "にほん", SelectionStart: 3, SelectionEnd: 3}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 229, NativeVirtualKeyCode: 229}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: "日本"})
		return err
	}
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), chromedp.Func(ime))
	assert.Equal(t, "日本", draft(t, ctx), "the composition committed into the draft")
	time.Sleep(500 * time.Millisecond)
	assert.Len(t, thread(t, ctx), 2, "nothing was sent during the composition")

	// After the composition, Enter sends the committed text.
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	assert.Equal(t, "日本", msgs[2].Text)
}

// TestTokenGuardsTheAPI: without the token /api and /ws answer 401, from a script and from a
// browser that never opened the printed link.
func TestTokenGuardsTheAPI(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	for _, path := range []string{"/api/sessions", "/ws"} {
		resp, err := http.Get(srv.base() + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.base()+"/api/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+srv.token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a bearer token is accepted")

	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/"))
	status := get(t, ctx, chromedp.Evaluate[int](`fetch('/api/sessions').then(r => r.status)`, chromedp.EvalAwaitPromise))
	assert.Equal(t, http.StatusUnauthorized, status)
}

// TestOversizedPromptIsRefusedAndKept: a prompt over the limit gets a message that says
// what to do, and the text stays in the composer.
func TestOversizedPromptIsRefusedAndKept(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)

	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
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
	assert.Contains(t, notice, "Not sent")
	assert.Contains(t, notice, "limit is 128 KiB")
	assert.Len(t, draft(t, ctx), 129*1024, "the text is back in the composer")
	assert.Len(t, thread(t, ctx), 2, "nothing was stored")
	assert.True(t, get(t, ctx, chromedp.Evaluate[bool](`window.sessionTextarea === document.querySelector('#composer-input')`)),
		"the notice does not rebuild the composer")
}
