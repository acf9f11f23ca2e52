package e2e

// QA round 12's open findings in the thread and the page (docs/qa-round12.md): #11, #15,
// #19 and the re-test's model list.

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

	"parley/app/api"
	"parley/protocol"
)

// visibleRetriesJS counts the "Retry now" buttons a person sees on the page.
const visibleRetriesJS = `[...document.querySelectorAll('button')].filter(b => b.innerText.trim() === 'Retry now' && b.getClientRects().length > 0).length`

// TestAReloadOfflineShowsOneRetryNow (QA round 12 #11): a session's page reloaded while the
// server is away, with a prompt waiting to be sent, shows one offline strip with one "Retry
// now", reached by Tab, and what the page kept (the waiting prompt); not the strip's, the
// session list's and each waiting prompt's Retry now. The empty page shows its banner's alone.
func TestAReloadOfflineShowsOneRetryNow(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx, id := openSeeded(t, data, "Away", waitWorker())
	do(t, ctx, 20*time.Second, waitCaughtUp())
	waitMessages(t, ctx, 2)

	srv.kill()
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.link-reconnecting')`),
		chromedp.Click(composer), typeText("sent while away"), pressEnter(0), waitUnsent("sent while away"))

	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitUnsent("sent while away"),
		// Every request the page makes at its start has failed by then: the models' and the
		// session list's go out together.
		waitJS(`!!document.querySelector('.link-reconnecting.offline') && !!document.querySelector('.model-controls .control-problem')`))
	shows := `document.querySelector('main').innerText`
	// Not a time to wait for a thing: a second in which no second Retry now shows.
	for range 10 {
		require.Equal(t, 1, get(t, ctx, chromedp.Evaluate[int](visibleRetriesJS)), "one Retry now; the page shows %s", evalString(t, ctx, shows))
		time.Sleep(100 * time.Millisecond)
	}
	assert.Equal(t, "status", evalString(t, ctx, `document.querySelector('.link-retry').closest('[role]').getAttribute('role')`),
		"the strip that holds it is a status")
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.link-retry').closest('.offline').innerText`), "Offline")
	assert.NotContains(t, evalString(t, ctx, shows), "Could not list sessions", "the strip says it once")

	// Reached by the keyboard: Tab from the top of the page comes to it.
	evalBool(t, ctx, `(document.activeElement && document.activeElement.blur(), true)`)
	reached := false
	for range 40 {
		do(t, ctx, 5*time.Second, tab)
		if evalBool(t, ctx, `document.activeElement.innerText === 'Retry now'`) {
			reached = true
			break
		}
	}
	assert.True(t, reached, "Tab reaches Retry now")

	// The empty page, reloaded offline too: its banner, alone.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/"), waitJS(`document.documentElement.hasAttribute('data-ready')`),
		waitJS(`!!document.querySelector('.offline') && !!document.querySelector('.model-controls .control-problem')`))
	for range 10 {
		require.Equal(t, 1, get(t, ctx, chromedp.Evaluate[int](visibleRetriesJS)), "one Retry now on the empty page; it shows %s", evalString(t, ctx, shows))
		time.Sleep(100 * time.Millisecond)
	}
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+id), waitReady(), waitUnsent("sent while away"))

	srv = startServer(t, data, srv.addr)
	do(t, ctx, 90*time.Second, waitJS(`!!document.querySelector('.link-live')`),
		waitJS(`document.querySelectorAll('.thread .msg-unsent').length === 0`))
	assert.Equal(t, 0, get(t, ctx, chromedp.Evaluate[int](visibleRetriesJS)))
}

// TestTheModelListComesBackWithTheServer (the re-test of QA round 12): "Models: the server is
// not reachable", from a reload while the server was away, goes once the socket is live again,
// without a reload: the list is read again.
func TestTheModelListComesBackWithTheServer(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx, _ := openSeeded(t, data, "Models", waitWorker())
	do(t, ctx, 20*time.Second, waitCaughtUp(), waitJS(`!!document.querySelector('.model-offline')`))

	srv.kill()
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(),
		waitJS(`(document.querySelector('.model-controls .control-problem') || {innerText: ''}).innerText.startsWith('Models:')`))

	srv = startServer(t, data, srv.addr)
	do(t, ctx, 90*time.Second, retryNow(), waitJS(`!!document.querySelector('.link-live')`))
	waitShowing(t, ctx, 20*time.Second, `!document.querySelector('.model-controls .control-problem') && !!document.querySelector('.model-offline')`,
		`document.querySelector('.model-controls').outerHTML`)
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
	assert.Less(t, n, 2000, "the folded bubble holds the first lines, not 100 KB")
	assert.Less(t, h, 400.0, "the folded bubble is a few lines high")
	assert.Equal(t, "Show all", label)
	assert.Equal(t, "false", expanded)
	assert.True(t, strings.HasPrefix(evalString(t, ctx, bubble+`.querySelector('.msg-text').textContent`), "line 0 of a long paste"))
	assert.Equal(t, 0, get(t, ctx, chromedp.Evaluate[int](bubble+`.querySelector('button.msg-toggle').tabIndex`)), "in the Tab order")

	// By the keyboard: Enter on the focused toggle shows it all, and again folds it.
	evalBool(t, ctx, `(`+bubble+`.querySelector('button.msg-toggle').focus(), true)`)
	do(t, ctx, 10*time.Second, pressEnter(0),
		waitJS(bubble+`.querySelector('button.msg-toggle').getAttribute('aria-expanded') === 'true'`))
	n, _, label, _ = shown()
	assert.GreaterOrEqual(t, n, len(text)-len("Show less"), "the whole prompt")
	assert.Equal(t, "Show less", label)
	assert.Equal(t, "true", evalString(t, ctx, `String(document.activeElement.classList.contains('msg-toggle'))`), "the toggle keeps the focus")
	do(t, ctx, 10*time.Second, pressEnter(0),
		waitJS(bubble+`.querySelector('button.msg-toggle').getAttribute('aria-expanded') === 'false'`))
	n, _, _, _ = shown()
	assert.Less(t, n, 2000)

	// A short prompt has no toggle.
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('.thread .msg-user').querySelector('button.msg-toggle')`))
}

// TestSameNamedSessionsDifferInTheMenu (QA round 12 #19): two sessions both titled "hello"
// each say, in the `@` menu, something that tells them apart.
func TestSameNamedSessionsDifferInTheMenu(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	first := seedSession(t, srv, "hello", 1)
	second := seedSession(t, srv, "hello", 1)
	home := seedSession(t, srv, "home", 1)
	ctx := openPage(t, srv, "/s/"+home)
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("@hel"),
		waitJS(`[...document.querySelectorAll('#composer-menu [role=option]')].filter(o => o.textContent.includes('@hello')).length === 2`))
	var details []string
	require.NoError(t, json.Unmarshal([]byte(evalString(t, ctx, `JSON.stringify([...document.querySelectorAll('#composer-menu [role=option]')].
		filter(o => o.textContent.includes('@hello')).map(o => o.querySelector('.ib-option-detail').textContent))`)), &details))
	require.Len(t, details, 2)
	assert.NotEqual(t, details[0], details[1], "each says what tells it apart")
	for _, d := range details {
		assert.Contains(t, d, "just now", "when it was last used, as the sidebar says it")
	}
	// The one detail that differs here is the session's id, which typing after @ finds too.
	assert.True(t, strings.Contains(details[0], second[:6]) || strings.Contains(details[0], first[:6]), details[0])
}

// ringTrackContrastJS is the contrast of the context ring's track against what is behind it.
const ringTrackContrastJS = `(() => {
	const el = document.querySelector('.context-ring .ring-track');
	const cv = document.createElement('canvas'); cv.width = cv.height = 1;
	const g = cv.getContext('2d', {willReadFrequently: true});
	const paint = (...colors) => { g.clearRect(0, 0, 1, 1); for (const c of colors) { g.fillStyle = c; g.fillRect(0, 0, 1, 1); } return g.getImageData(0, 0, 1, 1).data; };
	const bgs = []; for (let e = el.closest('.context-ring'); e; e = e.parentElement) bgs.unshift(getComputedStyle(e).backgroundColor);
	const bg = paint('#fff', ...bgs);
	const fg = paint('rgb(' + bg[0] + ',' + bg[1] + ',' + bg[2] + ')', getComputedStyle(el).stroke);
	const lum = p => { const c = [0, 1, 2].map(i => { const v = p[i] / 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
	const a = lum(fg), b = lum(bg);
	return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
})()`

// TestTheContextRingReadsAsAGauge (QA round 12 #19): at 3% of the window the ring is a whole
// circle one can see (its track at 3:1, WCAG 1.4.11) with the used arc on it and the share
// written beside it, not a short arc alone that reads as a spinner; its name says the share.
func TestTheContextRingReadsAsAGauge(t *testing.T) {
	t.Parallel()
	_, ctx := openModelSession(t, "ring")
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('#model-button')?.textContent || '').startsWith('test')`),
		chromedp.Focus(composer), typeText("hello"), pressEnter(0))
	// 1,000 tokens of the flag's default window, 32,768: 3%.
	waitShowing(t, ctx, 30*time.Second, `(document.querySelector('.context-ring')?.getAttribute('aria-label') || '').startsWith('1,000 of 32,768 tokens')`,
		`document.querySelector('.model-controls').outerHTML`)
	for _, scheme := range []string{"light", "dark"} {
		do(t, ctx, 10*time.Second, colorScheme(scheme))
		ratio := get(t, ctx, chromedp.Evaluate[float64](ringTrackContrastJS))
		assert.GreaterOrEqual(t, ratio, 3.0, "the ring's track in the %s theme is %.2f:1", scheme, ratio)
	}
	assert.Equal(t, "1,000 of 32,768 tokens (3%)", evalString(t, ctx, `document.querySelector('.context-ring').getAttribute('aria-label')`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.context-ring').getAttribute('title')`), "(3%)")
	assert.Equal(t, "3%", evalString(t, ctx, `document.querySelector('.context-ring .ring-share').innerText`), "the share is written beside the ring")
}
