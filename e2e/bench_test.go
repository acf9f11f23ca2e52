package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"parley/app/api"
	"parley/protocol"
)

// readyAt is when the app became interactive, in ms since its navigation started.
const readyAt = `(performance.getEntriesByName('parley-ready')[0] || {}).startTime || 0`

// BenchmarkFirstRender reports the median of 5 cold first renders (a new browser profile:
// nothing cached, the token link, the wasm over the wire) and of 5 warm ones (the same
// profile again, served by the service worker). Run it with -benchtime 1x; `make bench` does.
func BenchmarkFirstRender(b *testing.B) {
	srv := startServer(b, b.TempDir(), "127.0.0.1:0")
	const runs = 5
	var cold, warm []float64
	for range b.N {
		cold, warm = cold[:0], warm[:0]
		var last context.Context
		for range runs {
			ctx, cancel := newBrowser(b.TempDir())
			if err := chromedp.Do(ctx); err != nil { // start it outside any deadline
				b.Fatal(err)
			}
			do(b, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
			cold = append(cold, get(b, ctx, chromedp.Evaluate[float64](readyAt)))
			if last != nil {
				cancel()
				continue
			}
			last = ctx
			defer cancel()
		}
		// Warm: the service worker of the first profile now holds the bundle.
		get(b, last, chromedp.Evaluate[bool](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
		do(b, last, 30*time.Second, chromedp.Navigate(srv.base()+"/"), waitReady()) // the first controlled load
		for range runs {
			do(b, last, 30*time.Second, chromedp.Navigate(srv.base()+"/?r="+time.Now().Format("150405.000000")), waitReady())
			warm = append(warm, get(b, last, chromedp.Evaluate[float64](readyAt)))
		}
	}
	b.ReportMetric(median(cold), "cold-ms")
	b.ReportMetric(median(warm), "warm-ms")
	b.Logf("cold ms: %.0f", cold)
	b.Logf("warm ms: %.0f", warm)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkFirstRenderFloor measures Parley's first render against the floor: go-app's hello
// world (tools/hellowasm) built with the same toolchain and served by the same server binary
// from a copy of web/ that holds it in place of Parley's bundle. Both are loaded cold (a
// fresh profile, so nothing cached) and warm (the service worker holds the bundle), median of
// 5; Parley opens a session of 1,000 answered prompts, and its time is the newest reply
// painted. Target (issue 17): cold and warm ≤ 1.3 × the floor.
func BenchmarkFirstRenderFloor(b *testing.B) {
	floorDir := helloBundle(b)
	floorSrv := startServerIn(b, floorDir, b.TempDir(), "127.0.0.1:0")
	data := b.TempDir()
	const prompts = 1000
	id := seedLog(b, data, prompts)
	parley := startServer(b, data, "127.0.0.1:0")
	want := fmt.Sprintf("reply %d", prompts-1)
	floorReady := func(ctx context.Context, url string) float64 {
		do(b, ctx, 60*time.Second, chromedp.Navigate(url), waitJS(`document.documentElement.hasAttribute('data-ready')`))
		return get(b, ctx, chromedp.Evaluate[float64](readyAt))
	}
	parleyPainted := func(ctx context.Context, url string) float64 {
		do(b, ctx, 120*time.Second, chromedp.Navigate(url), waitJS(`!!window.__painted`))
		return get(b, ctx, chromedp.Evaluate[float64](`window.__painted`))
	}
	withProbe := func(ctx context.Context) {
		do(b, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
				Source: `sessionStorage.setItem('parley-bench-want', ` + quote(want) + `);` + paintedProbe})
			return err
		}))
	}
	const runs = 5
	for range b.N {
		var floorCold, floorWarm, parleyCold, parleyWarm []float64
		var floorCtx, parleyCtx context.Context
		for i := range runs { // cold, alternating: each on a fresh profile
			ctx, cancel := newBrowser(b.TempDir())
			if err := chromedp.Do(ctx); err != nil {
				b.Fatal(err)
			}
			floorCold = append(floorCold, floorReady(ctx, floorSrv.link))
			if i == 0 {
				floorCtx = ctx
				defer cancel()
			} else {
				cancel()
			}
			ctx, cancel = newBrowser(b.TempDir())
			if err := chromedp.Do(ctx); err != nil {
				b.Fatal(err)
			}
			withProbe(ctx)
			parleyCold = append(parleyCold, parleyPainted(ctx, parley.base()+"/s/"+id+"?token="+parley.token))
			if i == 0 {
				parleyCtx = ctx
				defer cancel()
			} else {
				cancel()
			}
		}
		for _, ctx := range []context.Context{floorCtx, parleyCtx} {
			get(b, ctx, chromedp.Evaluate[bool](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
		}
		floorReady(floorCtx, floorSrv.base()+"/?first") // the first load the worker controls
		parleyPainted(parleyCtx, parley.base()+"/s/"+id+"?first")
		for i := range runs { // warm, alternating
			floorWarm = append(floorWarm, floorReady(floorCtx, fmt.Sprintf("%s/?r=%d", floorSrv.base(), i)))
			parleyWarm = append(parleyWarm, parleyPainted(parleyCtx, fmt.Sprintf("%s/s/%s?r=%d", parley.base(), id, i)))
		}
		fc, fw, pc, pw := median(floorCold), median(floorWarm), median(parleyCold), median(parleyWarm)
		b.ReportMetric(pc/fc, "cold-ratio")
		b.ReportMetric(pw/fw, "warm-ratio")
		fmt.Printf("floor_bench: cold: hello world %.0f ms, Parley with %d prompts open %.0f ms, ratio %.2f (target ≤ 1.30)\n", fc, prompts, pc, pc/fc)
		fmt.Printf("floor_bench: warm: hello world %.0f ms, Parley with %d prompts open %.0f ms, ratio %.2f (target ≤ 1.30)\n", fw, prompts, pw, pw/fw)
		fmt.Printf("floor_bench: runs (ms): floor cold %.0f, warm %.0f; Parley cold %.0f, warm %.0f\n", floorCold, floorWarm, parleyCold, parleyWarm)
	}
}

// helloBundle builds tools/hellowasm as the wasm make build builds Parley's (the patched
// go-app module file, the same flags), into a copy of web/ in a folder of its own, and
// precompresses it.
func helloBundle(b *testing.B) string {
	dir := b.TempDir()
	web := filepath.Join(dir, "web")
	if err := os.MkdirAll(web, 0o755); err != nil {
		b.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(repoRoot, "web"))
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), "app.wasm") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repoRoot, "web", e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(web, e.Name()), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	wasm := filepath.Join(web, "app.wasm")
	build := exec.Command("go", "build", "-modfile=bin/wasm-deps/go.mod", "-trimpath", "-ldflags=-s -w", "-o", wasm, "./tools/hellowasm")
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the floor's wasm (make build first: it writes bin/wasm-deps): %v\n%s", err, out)
	}
	pre := exec.Command("go", "run", "./tools/precompress", wasm)
	pre.Dir = repoRoot
	if out, err := pre.CombinedOutput(); err != nil {
		b.Fatalf("precompressing the floor's wasm: %v\n%s", err, out)
	}
	return dir
}

// benchBrowser starts a Chromium of its own for the benchmark, with a fresh profile (nothing
// cached), outside any deadline, closed when the benchmark ends; srv's token link is open in it.
func benchBrowser(b *testing.B, srv *server) context.Context {
	b.Helper()
	ctx, cancel := newBrowser(b.TempDir())
	b.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		b.Fatal(err)
	}
	do(b, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	return ctx
}

// benchSession starts a server whose model is the endpoint at modelURL, and makes a session
// titled title on it through the client it returns.
func benchSession(b *testing.B, modelURL, title string) (*server, *api.Client, protocol.SessionInfo) {
	b.Helper()
	srv := startServerModel(b, b.TempDir(), modelURL)
	c := apiClient(srv)
	info, err := c.CreateSession(context.Background(), protocol.CreateSessionRequest{Title: title})
	if err != nil {
		b.Fatal(err)
	}
	return srv, c, info
}
