package e2e

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The seed (docs/seed.md): a session's page carries its newest window, pre-rendered, so it
// shows before the wasm runs; the wasm folds the same events and follows after them.

// holdWasm holds every request of the page for app.wasm until the returned release is
// called (and at the end of the test), so a test reads the page as the server sent it.
func holdWasm(t *testing.T, ctx context.Context) (release func()) {
	t.Helper()
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	intercept(t, ctx, func(string) bool {
		select {
		case <-gate:
			return true
		case <-ctx.Done():
			return false
		}
	}, "*/web/app.wasm*")
	return release
}

// navigateNoWait starts loading url and returns once the new document is there, with
// app.wasm possibly held: chromedp.Navigate would wait for the load event, which a held
// wasm does not keep back, but the new document is what the test reads.
func navigateNoWait(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	startLoading(t, ctx, url)
	do(t, ctx, 60*time.Second, waitJS(`!window.parleyOldPage && document.readyState !== 'loading'`))
}

// flashProbe, run on every new document, records the fewest messages the thread showed
// from the parsed page on: fewer than the page had means the wasm drew something else (the
// hero, an empty thread) over the pre-rendered one before it filled again.
const flashProbe = `(() => {
	window.__fewest = -1;
	const count = () => document.querySelectorAll('.thread .msg[data-offset]').length;
	document.addEventListener('DOMContentLoaded', () => {
		window.__fewest = count();
		new MutationObserver(() => { window.__fewest = Math.min(window.__fewest, count()); }).observe(document, {childList: true, subtree: true});
	});
})()`

// windowOf checks that shown is the newest part of seedLog's session of n prompts, in order,
// each once, ending with the newest reply, and returns how many prompts it holds.
func windowOf(t *testing.T, shown []shownMessage, n int) int {
	t.Helper()
	require.NotEmpty(t, shown)
	require.Zero(t, len(shown)%2, "prompts and their replies: %+v", shown)
	k := len(shown) / 2
	for i, m := range shown {
		p := n - k + i/2
		want := fmt.Sprintf("long prompt %d", p)
		if i%2 == 1 {
			want = fmt.Sprintf("reply %d", p)
		}
		require.Equal(t, want, m.Text, "message %d: in order, no gap, no duplicate", i)
	}
	assertOnce(t, shown)
	return k
}

// TestASessionOpensPainted: a reload of a long session's page shows its newest reply before
// the wasm has run (app.wasm held back); once it runs, the thread is the same, was never
// emptied, shows every message of the window once, and what is sent now arrives live. Without
// the token the page shows nothing of the session. No cache of the service worker holds a
// seeded page.
func TestASessionOpensPainted(t *testing.T) {
	t.Parallel()
	const n = 60
	srv, id := startOnLog(t, n)
	ctx := browser(t)
	addOnNewDocument(t, ctx, flashProbe)
	release := holdWasm(t, ctx)

	// No token yet: the page is the layout alone.
	navigateNoWait(t, ctx, srv.base()+"/s/"+id)
	require.Empty(t, thread(t, ctx), "no message of the session without the token")
	require.False(t, evalBool(t, ctx, `!!document.getElementById('parley-seed')`))
	require.NotContains(t, evalString(t, ctx, `document.documentElement.outerHTML`), "long prompt")

	// The printed link's cookie, then the session's page: painted by the server.
	navigateNoWait(t, ctx, srv.base()+"/s/"+id+"?token="+srv.token)
	do(t, ctx, 30*time.Second, waitJS(`location.search === '' && document.querySelectorAll('.thread .msg[data-offset]').length > 0`))
	require.False(t, evalBool(t, ctx, `document.documentElement.hasAttribute('data-ready')`), "the wasm has not run")
	before := thread(t, ctx)
	k := windowOf(t, before, n)
	require.Less(t, k, n, "the page holds a window, not the whole log")
	require.Equal(t, "reply "+strconv.Itoa(n-1), before[len(before)-1].Text, "the newest reply is in the page")
	require.True(t, evalBool(t, ctx, `(() => { const r = [...document.querySelectorAll('.thread .msg[data-offset]')].pop().getBoundingClientRect();
		return r.height > 0 && r.bottom > 0 && r.top < innerHeight })()`), "and on the screen")

	release()
	do(t, ctx, 60*time.Second, waitReady(), waitCaughtUp())
	after := thread(t, ctx)
	require.Equal(t, before, after, "the wasm shows the thread the page showed")
	require.Equal(t, float64(len(before)), get(t, ctx, chromedp.Evaluate[float64](`window.__fewest`)), "the thread was never emptied or redrawn shorter")
	require.False(t, evalBool(t, ctx, `!!document.getElementById('parley-seed')`), "the seed is read once")

	// New events arrive live, after the seed's, once.
	do(t, ctx, 10*time.Second, typeText("after the seed"), pressEnter(0))
	more := waitMessages(t, ctx, len(after)+2)
	require.Len(t, more, len(after)+2)
	require.Equal(t, after, more[:len(after)])
	require.Equal(t, "after the seed", more[len(after)].Text)
	assertOnce(t, more)

	// Scrolling up pages in the window before the seed's, each message once.
	get(t, ctx, chromedp.Evaluate[bool](scrollTop))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.thread .msg[data-offset]').length > `+strconv.Itoa(len(more))))
	older := thread(t, ctx)
	windowOf(t, older[:len(older)-2], n)

	// The service worker keeps no seeded page.
	require.True(t, evalAwait(t, ctx, `navigator.serviceWorker.ready.then(async () => {
		for (const name of await caches.keys()) {
			const cache = await caches.open(name);
			for (const req of await cache.keys()) {
				const text = await (await cache.match(req)).clone().text();
				if (text.includes('long prompt 5')) return false;
			}
		}
		return true;
	})`), "no cached answer holds a session's messages")
}

// TestAnOpenApprovalInTheSeedIsAnswerable: a session waiting on an approval opens with the
// approval's card in the pre-rendered thread; once the wasm runs, the approval is in the
// composer as after any reload, and approving it runs the command.
func TestAnOpenApprovalInTheSeedIsAnswerable(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := alphaAsks(t, srv)
	ctx := browser(t)
	release := holdWasm(t, ctx)
	navigateNoWait(t, ctx, srv.base()+"/s/"+id+"?token="+srv.token)
	do(t, ctx, 30*time.Second, waitJS(`location.search === '' && !!document.querySelector('.thread .entry-decision.status-pending')`))
	require.False(t, evalBool(t, ctx, `document.documentElement.hasAttribute('data-ready')`), "the wasm has not run")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.thread').innerText`), "hello from alpha")

	release()
	do(t, ctx, 60*time.Second, waitReady(), waitCaughtUp())
	approve(t, ctx, "Approve")
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.thread').innerText.includes('alpha ran') && !!document.querySelector('.thread .entry-run.status-done')`))
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread .entry-decision').length`))), "one card: the seeded one, answered")
	require.Empty(t, waitQueue(t, srv, 0))
}

// TestASeedsTextStaysText: a message that holds a closing script tag and a script shows as
// text in the page the server sent, adds no script element, and shows the same once the wasm
// runs.
func TestASeedsTextStaysText(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	const evil = `</script><script>window.__pwned = 1</script>`
	id := answeredSession(t, srv, "", evil)
	ctx := browser(t)
	release := holdWasm(t, ctx)
	navigateNoWait(t, ctx, srv.base()+"/s/"+id+"?token="+srv.token)
	do(t, ctx, 30*time.Second, waitJS(`location.search === '' && document.querySelectorAll('.thread .msg[data-offset]').length > 0`))
	require.Equal(t, evil, thread(t, ctx)[0].Text, "the prompt shows as it was typed")
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('script:not([src])').length`))),
		"one inline script element: the seed's")
	require.True(t, evalBool(t, ctx, `document.getElementById('parley-seed').type === 'application/json'`))
	require.False(t, evalBool(t, ctx, `!!window.__pwned`))
	release()
	do(t, ctx, 60*time.Second, waitReady(), waitCaughtUp())
	require.Equal(t, evil, thread(t, ctx)[0].Text)
	require.False(t, evalBool(t, ctx, `!!window.__pwned`))
}
