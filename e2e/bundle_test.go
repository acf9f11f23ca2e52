package e2e

// The bundle as the browser gets it: the service worker that caches it, the PWA manifest,
// and the static files under /web.

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
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestRebuildIsPickedUpOnReload: after a rebuild and restart, one reload runs the new wasm.
// The service worker is cache-first for "/", app.js and app.wasm, so without reacting to the
// new worker only a second reload would get the new build: a rebuild must never be served
// stale.
func TestRebuildIsPickedUpOnReload(t *testing.T) {
	t.Parallel()
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
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second) // generous: the new worker caches the new build before it takes over
	defer cancel()
	err = chromedp.Do(tctx, waitJS(`typeof goappEnv !== 'undefined' && goappEnv.GOAPP_VERSION === '`+rebuilt+`' && document.documentElement.hasAttribute('data-ready')`))
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
