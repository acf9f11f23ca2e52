package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"parley/internal/testkit"
)

// paintedProbe, added to every document before its scripts, records when a frame first holds
// a message containing the wanted text: window.__painted, in ms since navigation start.
const paintedProbe = `(() => {
	const want = sessionStorage.getItem('parley-bench-want');
	if (!want) return;
	const check = () => {
		const els = document.querySelectorAll('.thread .msg[data-offset]');
		const last = els[els.length - 1];
		if (last && last.innerText.includes(want)) { window.__painted = performance.now(); return; }
		requestAnimationFrame(check);
	};
	requestAnimationFrame(check);
})()`

// BenchmarkLongSessionOpen reports, for sessions of 100, 1,000 and 10,000 prompts (each
// answered: 4 events a prompt), the time from a reload to the newest reply painted, against
// the empty page's first render (the hero, the floor), warm (the service worker holds the
// bundle), median of 3; and the time from the app being ready to that paint (the resume: the
// socket, the replay of the window, its render). The first open after the server started is
// reported apart: the runtime indexes the session's log then (runtime/window.go).
// PARLEY_BENCH_OPEN lists other sizes.
func BenchmarkLongSessionOpen(b *testing.B) {
	sizes := []int{100, 250, 1000, 10000}
	if v := envList("PARLEY_BENCH_OPEN"); len(v) > 0 {
		sizes = v
	}
	for range b.N {
		for _, n := range sizes {
			data := b.TempDir()
			seeded := time.Now()
			id := seedLog(b, data, n)
			benchOpen(b, n, time.Since(seeded), startServer(b, data, "127.0.0.1:0"), id, "")
		}
	}
}

// BenchmarkLongSessionOpenCluster is BenchmarkLongSessionOpen with the server's log on a
// 3-node JetStream cluster in the process (testkit.StartCluster, three copies of every
// event), for a session of 250 prompts (1,001 events) by default: what replication adds to a
// reload's resume, on loopback. PARLEY_BENCH_OPEN lists other sizes.
func BenchmarkLongSessionOpenCluster(b *testing.B) {
	sizes := []int{250}
	if v := envList("PARLEY_BENCH_OPEN"); len(v) > 0 {
		sizes = v
	}
	for range b.N {
		for _, n := range sizes {
			cluster := testkit.StartCluster(b)
			data := b.TempDir()
			seeded := time.Now()
			conn := cluster.Connect("seed")
			id := seedLogOn(b, conn, data, n)
			conn.Close()
			benchOpen(b, n, time.Since(seeded), startServerFlags(b, data, "-nats", cluster.URLs()), id, " on the 3-node cluster")
			cluster.Shutdown()
		}
	}
}

// benchOpen measures srv's session id of n prompts (seeded in seedTime), and stops srv.
func benchOpen(b *testing.B, n int, seedTime time.Duration, srv *server, id, where string) {
	b.Helper()
	defer srv.kill()
	ctx, cancel := newBrowser(b.TempDir())
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		b.Fatal(err)
	}
	want := fmt.Sprintf("reply %d", n-1)
	do(b, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	get(b, ctx, chromedp.Evaluate[bool](`sessionStorage.setItem('parley-bench-want', `+quote(want)+`), true`))
	get(b, ctx, chromedp.Evaluate[bool](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	do(b, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: paintedProbe})
		return err
	}))
	var floor, open, resume []float64
	for i := range 3 {
		do(b, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/?r="+strconv.Itoa(i)), waitReady())
		floor = append(floor, get(b, ctx, chromedp.Evaluate[float64](readyAt)))
		do(b, ctx, 120*time.Second, chromedp.Navigate(srv.base()+"/s/"+id+"?r="+strconv.Itoa(i)), waitJS(`!!window.__painted`))
		painted := get(b, ctx, chromedp.Evaluate[float64](`window.__painted`))
		open = append(open, painted)
		do(b, ctx, 60*time.Second, waitReady()) // with the seed, the reply paints before the app is ready
		resume = append(resume, painted-get(b, ctx, chromedp.Evaluate[float64](readyAt)))
	}
	f, o, r := median(floor), median(open), median(resume)
	b.ReportMetric(o, "open-"+strconv.Itoa(n)+"-ms")
	fmt.Printf("open_bench%s: %6d prompts (%d events, seeded in %v): reload → newest reply painted %.0f ms; empty page %.0f ms; ratio %.2f (target ≤ 1.30); ready → painted (resume; negative: painted before the app was ready, from the seed) %.0f ms; the first open after the server started (it indexes the log) %.0f ms\n",
		where, n, 4*n+1, seedTime.Round(time.Millisecond), o, f, o/f, r, open[0])
}

func envList(name string) []int {
	var out []int
	for _, f := range strings.Split(os.Getenv(name), ",") {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}
