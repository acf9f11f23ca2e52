package e2e

// The app as the browser gets and runs it: the bundle (the service worker that caches it,
// the PWA manifest, the static files under /web, the wasm's size), the page while the wasm
// loads, and the page when its program ends.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/internal/wasmsize"
)

// cdpCall runs one CDP command on the page's target.
func cdpCall[P, R any](t *testing.T, ctx context.Context, cmd cdp.Command[P, R], params P) R {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	r, err := chromedp.Call(tctx, cmd, params)
	require.NoError(t, err)
	return r
}

// waitWorker waits until the service worker controls the page and has cached the shell.
func waitWorker() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](`navigator.serviceWorker.ready.then(() => caches.keys()).then(k => { window.__parleyCached = k.length > 0 }), true`)(ctx, t)
			return err
		}),
		waitJS(`!!navigator.serviceWorker.controller && window.__parleyCached === true`),
	)
}

// webCopy is a working directory for startServerIn whose web/ is a copy of the build's,
// without the precompressed twins (the server would send those, not a rebuilt app.wasm), so
// a test can rebuild the wasm under a page that runs it.
func webCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "web"), 0o755))
	entries, err := os.ReadDir(filepath.Join(repoRoot, "web"))
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".br") || strings.HasSuffix(e.Name(), ".gz") || strings.HasSuffix(e.Name(), ".new") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, "web", e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "web", e.Name()), b, 0o644))
	}
	return dir
}

// rebuildWasm "rebuilds" dir's app.wasm: the same program with one more custom section
// named name, so a new build id, which it returns as the page's goappEnv.GOAPP_VERSION says it.
func rebuildWasm(t *testing.T, dir, name string) string {
	t.Helper()
	wasm := filepath.Join(dir, "web", "app.wasm")
	f, err := os.OpenFile(wasm, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	section := append([]byte{0x00, byte(len(name) + 2), byte(len(name))}, name+"x"...)
	_, err = f.Write(section)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	b, err := os.ReadFile(wasm)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// TestPWAInstallable: Chromium finds nothing that keeps Parley from being installed, and the
// manifest it read has an id, local icons of 192 and 512 pixels and a maskable one,
// standalone display and a theme colour for each colour scheme; the service worker registers.
func TestPWAInstallable(t *testing.T) {
	t.Parallel()
	// A Chromium of its own: a browser context is off the record, and Chromium installs no
	// app from one ("in-incognito").
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := ownBrowser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 30*time.Second, waitWorker())

	errs := cdpCall(t, ctx, page.GetInstallabilityErrors, cdp.Empty{})
	for _, e := range errs.InstallabilityErrors {
		t.Errorf("installability error %q %v", e.ErrorID, e.ErrorArguments)
	}

	m := cdpCall(t, ctx, page.GetAppManifest, page.GetAppManifestParams{})
	require.Empty(t, m.Errors, "manifest errors")
	require.NotNil(t, m.Manifest)
	require.Equal(t, srv.base()+"/manifest.webmanifest", m.URL)
	require.Equal(t, srv.base()+"/", m.Manifest.ID, "the manifest's id")
	require.Contains(t, []string{"standalone", "kStandalone"}, m.Manifest.Display)
	require.NotEmpty(t, m.Manifest.ThemeColor)
	sizes := map[string]string{}
	for _, ic := range m.Manifest.Icons {
		require.Contains(t, ic.URL, srv.base()+"/web/", "a local icon")
		sizes[ic.URL] = ic.Sizes
	}
	require.Equal(t, "192x192", sizes[srv.base()+"/web/icon-192.png"])
	require.Equal(t, "512x512", sizes[srv.base()+"/web/icon-512.png"])

	// What the processed manifest does not carry: the icon's purpose, the dark scheme's colour.
	var raw struct {
		ThemeColor string `json:"theme_color"`
		Icons      []struct {
			Src, Purpose string
		}
		UserPreferences struct {
			Dark struct {
				ThemeColor string `json:"theme_color"`
			} `json:"color_scheme_dark"`
		} `json:"user_preferences"`
	}
	require.NoError(t, json.Unmarshal([]byte(m.Data), &raw))
	maskable := false
	for _, ic := range raw.Icons {
		maskable = maskable || ic.Purpose == "maskable" && ic.Src == "/web/icon-maskable-512.png"
	}
	require.True(t, maskable, "a maskable icon")
	require.NotEmpty(t, raw.UserPreferences.Dark.ThemeColor, "the dark scheme's theme colour")
	require.NotEqual(t, raw.ThemeColor, raw.UserPreferences.Dark.ThemeColor)
	// The page's own theme colours, one per scheme.
	require.Equal(t, 2, get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('meta[name=theme-color][media]').length`)))
}

// TestOfflineShell: with the server stopped, a session's page reloads from the cache and
// says it is offline; the composer takes a draft, which is saved; when the server returns
// the page recovers by itself and the draft is still there to send.
func TestOfflineShell(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx, id := openSeeded(t, data, "Offline", waitWorker())
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.link-live')`))

	srv.kill()
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(),
		waitJS(`!!document.querySelector('.offline') && document.querySelector('.offline').innerText.includes('Offline')`))
	require.Equal(t, "/s/"+id, evalString(t, ctx, `location.pathname`))
	require.NotContains(t, evalString(t, ctx, `document.querySelector('.offline').innerText`), "not reachable",
		"the strip says the server cannot be reached once, not again as its reason")
	require.True(t, evalBool(t, ctx, `[...document.querySelectorAll('.offline button, .notice button')].some(b => b.innerText === 'Retry now')`), "Retry now")
	do(t, ctx, 20*time.Second, chromedp.Click(composer), typeText("written offline"),
		waitJS(`localStorage.getItem('parley.draft.s.`+id+`') === 'written offline'`))
	require.Equal(t, "written offline", evalString(t, ctx, `document.querySelector('#composer-input').value`))

	// The hero and any other route of the app load from the cache too.
	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/"), waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.offline')`))
	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/s/"+id), waitReady(), waitJS(`!!document.querySelector('.offline')`),
		waitJS(`document.querySelector('#composer-input').value === 'written offline'`))

	srv = startServer(t, data, srv.addr)
	do(t, ctx, 60*time.Second, waitJS(`!document.querySelector('.offline') && !!document.querySelector('.link-live')`),
		waitJS(`[...document.querySelectorAll('#sidebar a')].some(a => a.innerText.split('\n')[0].trim() === 'Offline')`))
	require.Equal(t, "written offline", evalString(t, ctx, `document.querySelector('#composer-input').value`))
	do(t, ctx, 20*time.Second, chromedp.Click(composer), pressEnter(0),
		waitJS(`document.querySelector('.thread').innerText.includes('written offline')`))
}

// TestAnOfflineReloadShowsTheKeptThread: a session's page reloaded while the server is away
// shows the thread and the session list as the browser kept them, not an empty page; when the
// server is back, the socket's replay takes the thread's place, and nothing shows twice.
func TestAnOfflineReloadShowsTheKeptThread(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx, id := openSeeded(t, data, "Kept", waitWorker())
	waitMessages(t, ctx, 2)
	do(t, ctx, 30*time.Second, chromedp.Click(composer), typeText("a prompt to keep"), pressEnter(0))
	waitMessages(t, ctx, 4)
	// The kept copy is written a moment after what it keeps: waited for until it holds the
	// reply too (its second offline-agent answer), not only the prompt (CI, three at a time:
	// a copy saved between the prompt and its reply showed three messages offline).
	do(t, ctx, 20*time.Second,
		waitJS(`((localStorage.getItem('parley.kept.`+id+`') || '').match(/No model is configured/g) || []).length >= 2`),
		waitJS(`(localStorage.getItem('parley.kept.`+id+`') || '').includes('a prompt to keep')`),
		waitJS(`(localStorage.getItem('parley.sessions') || '').includes('Kept')`))
	before := thread(t, ctx)

	srv.kill()
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitJS(`!!document.querySelector('.offline')`))
	require.Equal(t, before, waitMessages(t, ctx, len(before)), "offline, the kept thread")
	require.True(t, evalBool(t, ctx, `[...document.querySelectorAll('#sidebar a')].some(a => a.innerText.split('\n')[0].trim() === 'Kept')`),
		"offline, the kept session list")

	startServer(t, data, srv.addr)
	do(t, ctx, 60*time.Second, waitJS(`!document.querySelector('.offline') && !!document.querySelector('.link-live')`))
	time.Sleep(500 * time.Millisecond) // the replay's frames, had any come twice
	require.Equal(t, before, thread(t, ctx), "the socket's replay in the kept thread's place")
}

// TestAKeptQuestionDoesNotPointBelow: a question waits; the server goes, and the page is
// reloaded offline. The kept thread shows its card, but the composer does not hold it (no
// replay, no decisions): the card said "Waiting for your answer below ↓" over an idle
// composer (QA round 15 P3-5). It says it waits for the server.
func TestAKeptQuestionDoesNotPointBelow(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx, id := openSeeded(t, data, "Kept question", waitWorker())
	sendTo(t, srv, id, `/script send(str(confirm('Deploy kept?')))`)
	card := `(document.querySelector('.entry-waiting')?.innerText || '')`
	waitShowing(t, ctx, 30*time.Second, card+`.includes('below ↓')`, card)
	do(t, ctx, 20*time.Second, waitJS(`(localStorage.getItem('parley.kept.`+id+`') || '').includes('Deploy kept?')`))

	srv.kill()
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitJS(`!!document.querySelector('.offline')`))
	waitShowing(t, ctx, 30*time.Second, `!!document.querySelector('.entry-waiting')`, `document.querySelector('.thread-inner')?.innerText`)
	shown := evalString(t, ctx, card+` + ' | ' + document.querySelector('.entry-waiting').getAttribute('aria-label')`)
	require.NotContains(t, shown, "below", "the kept card")
	require.NotContains(t, shown, "↓", "the kept card")
	require.Contains(t, shown, "server", "the kept card")
}

// TestUpdateWhileTypingOffersReload: a new build arrives while a draft is being typed: the
// page does not reload under it, it offers the reload, and the reload keeps the draft.
func TestUpdateWhileTypingOffersReload(t *testing.T) {
	t.Parallel()
	dir := webCopy(t)
	data := t.TempDir()
	srv := startServerIn(t, dir, data, "127.0.0.1:0")
	id := seedSession(t, srv, "Update", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), waitWorker(),
		chromedp.Navigate(srv.base()+"/s/"+id), waitReady(), waitJS(`!!document.querySelector('.link-live')`),
		chromedp.Click(composer), typeText("half a thought"))

	// A rebuild (one more custom section: a new build id) and a restart.
	srv.kill()
	rebuildWasm(t, dir, "update")
	srv = startServerIn(t, dir, data, srv.addr)

	// The page looks for a new worker (as it does on its own when navigating).
	do(t, ctx, 90*time.Second, js(`goappTryUpdate()`),
		waitJS(`!!document.querySelector('.update') && document.querySelector('.update').innerText.includes('Reload')`))
	require.Equal(t, "half a thought", evalString(t, ctx, `document.querySelector('#composer-input').value`), "nothing reloaded under the draft")
	do(t, ctx, 60*time.Second, chromedp.Click(chromedp.CSS(`.update button`)), waitReady(),
		waitJS(`document.querySelector('#composer-input').value === 'half a thought'`))
}

// TestRebuildIsPickedUpOnReload: after a rebuild and restart, one reload runs the new wasm.
// The service worker is cache-first for "/", app.js and app.wasm, so without reacting to the
// new worker only a second reload would get the new build: a rebuild must never be served
// stale.
func TestRebuildIsPickedUpOnReload(t *testing.T) {
	t.Parallel()
	dir := webCopy(t)
	data := t.TempDir()
	srv := startServerIn(t, dir, data, "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), waitJS(`!!navigator.serviceWorker.controller`))

	// "Rebuild": the same program with one more custom section, so a new build id.
	srv.kill()
	rebuilt := rebuildWasm(t, dir, "review")
	srv = startServerIn(t, dir, data, srv.addr)

	// One reload, as a person does after a rebuild; the page may reload itself once more.
	do(t, ctx, 30*time.Second, chromedp.Reload())
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second) // generous: the new worker caches the new build before it takes over
	defer cancel()
	err := chromedp.Do(tctx, waitJS(`typeof goappEnv !== 'undefined' && goappEnv.GOAPP_VERSION === '`+rebuilt+`' && document.documentElement.hasAttribute('data-ready')`))
	require.NoError(t, err, "still running build %s after a reload; the rebuild is %s",
		evalString(t, ctx, `typeof goappEnv === 'undefined' ? '?' : goappEnv.GOAPP_VERSION`), rebuilt)
}

// TestManifestIconSizes: every PNG icon of the manifest declares its real size (go-app gives
// the maskable entry the large icon's size).
func TestManifestIconSizes(t *testing.T) {
	t.Parallel()
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
		require.Equal(t, fmt.Sprintf("%dx%d", cfg.Width, cfg.Height), ic.Sizes, "%s (purpose %q)", ic.Src, ic.Purpose)
	}
}

// TestNoWebDirectoryListing: /web/ does not list the bundle folder.
func TestNoWebDirectoryListing(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	resp, err := http.Get(srv.base() + "/web/")
	require.NoError(t, err)
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	require.NotContains(t, buf.String(), `<a href="app.wasm">`, "no directory listing")
}

// TestWasmFitsItsBudget: the bundle the browser downloads, brotli as the server sends it,
// stays within 1.6 MB (issue 13's budget). Over it, the failure lists the packages that
// weigh most, from a build that keeps their names; docs/wasm-size.md says what was kept out
// of the browser and how.
func TestWasmFitsItsBudget(t *testing.T) {
	t.Parallel()
	s, err := wasmsize.Stat(filepath.Join(repoRoot, "web"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Over() <= 0 {
		t.Log(s)
		return
	}
	b, err := wasmsize.Measure(repoRoot, t.TempDir())
	if err != nil {
		t.Fatalf("%s\n(and what it is made of could not be measured: %v)", s, err)
	}
	t.Fatalf("%s\nSee docs/wasm-size.md for what is kept out of the browser and how. The packages with the most code (go run ./tools/wasmsize):\n%s", s, b.Table(30))
}

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
	// A click at the box's centre and keys to whatever has the focus, as a person's: no DOM
	// node is held between the look and the click (CI once saw the node replaced between
	// chromedp's query and its click: "Could not find node with given id").
	at := get(t, ctx, chromedp.Evaluate[[]float64](`(r => [r.left + r.width / 2, r.top + r.height / 2])(document.querySelector('#composer-input').getBoundingClientRect())`))
	do(t, ctx, 10*time.Second, chromedp.MouseClickXY(at[0], at[1]), chromedp.KeyEvent("early"))
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

// TestAStoppedProgramSaysSoAndReloads: when the page's Go program ends (a panic in a handler
// ends it; here the test ends it as the runtime's exit does), the page stops pretending to
// be alive: an alert says what happened and its Reload, which has the focus, brings the app
// back.
func TestAStoppedProgramSaysSoAndReloads(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	require.False(t, evalBool(t, ctx, `!!document.getElementById('crash-banner')`), "no alert while the program runs")
	require.True(t, evalBool(t, ctx, `!!window.parleyGo && !window.parleyGo.exited`), "the running program is watched")

	// What wasm_exec.js does when the program exits: resolve run's promise.
	evalBool(t, ctx, `window.parleyGo.exited = true, window.parleyGo._resolveExitPromise(), true`)
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#crash-banner[role=alert] button')`))
	require.Contains(t, evalString(t, ctx, `document.getElementById('crash-banner').textContent`), "stopped responding")
	require.True(t, evalBool(t, ctx, `document.activeElement === document.querySelector('#crash-banner button')`), "Reload has the focus")

	do(t, ctx, 60*time.Second,
		chromedp.Click(chromedp.CSS(`#crash-banner button`)),
		waitJS(`!document.getElementById('crash-banner')`),
		waitReady())
	require.True(t, evalBool(t, ctx, `!!window.parleyGo && !window.parleyGo.exited`), "a new program runs")
}
