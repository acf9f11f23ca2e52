package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
