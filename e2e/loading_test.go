package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestThePageShowsWhileTheWasmLoads: while app.wasm is still on its way, the pre-rendered
// page is what a person sees and uses: go-app's loader is a note in a corner, not a curtain
// over the composer, and what is typed into the box shows in it. (The loader covered the
// whole page until the wasm ran, so the box that takes early keys could not be seen.)
func TestThePageShowsWhileTheWasmLoads(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	h := hold(t, ctx)
	h.set(10*time.Minute, 0) // the wasm never arrives while the test looks
	startLoading(t, ctx, srv.base()+"/")
	do(t, ctx, 30*time.Second, waitJS(`!window.parleyOldPage && !!document.querySelector('#composer-input') && !!document.getElementById('app-wasm-loader')`))

	// What is at the composer's centre, and at the New session link's, is the page's own.
	uncovered := `(() => {
		const hit = sel => { const r = document.querySelector(sel).getBoundingClientRect();
			const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			return !!at && !at.closest('#app-wasm-loader') && !!at.closest(sel); };
		return hit('#composer-input') && hit('.new-session');
	})()`
	if !evalBool(t, ctx, uncovered) {
		t.Fatalf("while the wasm loads, the page is covered: %s", get(t, ctx, chromedp.Evaluate[string](
			`(() => { const r = document.querySelector('#composer-input').getBoundingClientRect();
				const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
				return at ? at.outerHTML.slice(0, 200) : 'nothing'; })()`)))
	}
	if evalBool(t, ctx, `document.documentElement.hasAttribute('data-ready')`) {
		t.Fatal("the wasm ran although it was held: the test saw nothing of the load")
	}
	// The loader still says it is loading, where it takes no click.
	if !evalBool(t, ctx, `(() => { const l = document.getElementById('app-wasm-loader');
		return getComputedStyle(l).pointerEvents === 'none' && l.innerText.includes('Loading'); })()`) {
		t.Fatal("the loader no longer says the page is loading, or it takes clicks")
	}
	do(t, ctx, 10*time.Second, chromedp.Click(`#composer-input`), chromedp.SendKeys(`#composer-input`, "early"))
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('#composer-input').value === 'early'`))
}

// TestASessionPageNeverShowsTheHero: a session's address is its page from the first byte to
// the live thread. The pre-render lays it out as the session, and the wasm's first render
// does too (it used to draw the empty page's hero until it had read the address), so the
// page never says "What should we do?" over a session a person opened.
func TestASessionPageNeverShowsTheHero(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "a session with a thread", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	addOnNewDocument(t, ctx, `
			window.parleyHeroSeen = 0;
			new MutationObserver(() => { if (document.querySelector('.main-hero')) window.parleyHeroSeen++; })
				.observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});`)
	for i := range 3 { // a few loads: the wasm's first frames fall where they may
		do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+id+"?load="+strconv.Itoa(i)), waitReady(), waitCaughtUp())
		if n := get(t, ctx, chromedp.Evaluate[int](`window.parleyHeroSeen`)); n != 0 {
			t.Fatalf("load %d: the empty page's hero was on the session's page %d times while it loaded", i, n)
		}
	}
}
