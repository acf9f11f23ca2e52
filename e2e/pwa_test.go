package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
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

// TestUpdateWhileTypingOffersReload: a new build arrives while a draft is being typed: the
// page does not reload under it, it offers the reload, and the reload keeps the draft.
func TestUpdateWhileTypingOffersReload(t *testing.T) {
	t.Parallel()
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
	data := t.TempDir()
	srv := startServerIn(t, dir, data, "127.0.0.1:0")
	id := seedSession(t, srv, "Update", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), waitWorker(),
		chromedp.Navigate(srv.base()+"/s/"+id), waitReady(), waitJS(`!!document.querySelector('.link-live')`),
		chromedp.Click(composer), typeText("half a thought"))

	// A rebuild (one more custom section: a new build id) and a restart.
	srv.kill()
	f, err := os.OpenFile(filepath.Join(dir, "web", "app.wasm"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte{0x00, 0x08, 0x06, 'u', 'p', 'd', 'a', 't', 'e', 'x'})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	srv = startServerIn(t, dir, data, srv.addr)

	// The page looks for a new worker (as it does on its own when navigating).
	do(t, ctx, 90*time.Second, js(`goappTryUpdate()`),
		waitJS(`!!document.querySelector('.update') && document.querySelector('.update').innerText.includes('Reload')`))
	require.Equal(t, "half a thought", evalString(t, ctx, `document.querySelector('#composer-input').value`), "nothing reloaded under the draft")
	do(t, ctx, 60*time.Second, chromedp.Click(chromedp.CSS(`.update button`)), waitReady(),
		waitJS(`document.querySelector('#composer-input').value === 'half a thought'`))
}
