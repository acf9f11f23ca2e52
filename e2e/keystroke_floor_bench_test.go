package e2e

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// floorSetup puts the floor on the page: a bare <textarea> with no listener of its own,
// holding the same draft in the same font, size and box as the composer's, in the same place
// (the composer's bar hidden while it is typed into). Everything else, the thread of 1,000
// messages included, is the same page.
const floorSetup = `(() => {
	const src = document.querySelector('#composer-input');
	const cs = getComputedStyle(src);
	const f = document.createElement('textarea');
	f.id = 'floor-input';
	f.value = src.value;
	for (const p of ['font-family', 'font-size', 'font-weight', 'line-height', 'letter-spacing', 'white-space', 'overflow-wrap', 'tab-size', 'padding', 'border', 'box-sizing'])
		f.style.setProperty(p, cs.getPropertyValue(p));
	const r = src.getBoundingClientRect();
	f.style.width = r.width + 'px'; f.style.height = r.height + 'px';
	f.style.display = 'none';
	document.querySelector('.composer-frame').appendChild(f);
	return true;
})()`

// floorRound shows the floor or the composer, focuses it with the caret at the end, and
// clears the probe's counters.
func floorRound(floor bool) string {
	return fmt.Sprintf(`(floor => {
	const f = document.querySelector('#floor-input'), bar = document.querySelector('.composer-bar');
	f.style.display = floor ? 'block' : 'none';
	bar.style.display = floor ? 'none' : '';
	const t = floor ? f : document.querySelector('#composer-input');
	t.focus(); t.setSelectionRange(t.value.length, t.value.length);
	parleyLat.length = 0; parleyWork.length = 0; parleyThreadMutations = 0; parleyHandlerKeys();
	return true;
})(%v)`, floor)
}

// roundResult is what one round of typing measured.
type roundResult struct {
	lat, work         []float64
	own               []float64 // the bar's handlers' own work per key (none for the floor)
	layouts, recalcs  float64   // per key
	scriptMs, styleMs float64   // per key
	heapKB            float64   // Go heap allocated per key
	mutations         int
}

// BenchmarkKeystrokeFloor measures the keystroke budget against the floor, side by side in one
// process: rounds typed into a bare textarea (the floor) alternate with rounds typed into
// Parley's composer, on the same page, thread and 10 KB draft. It reports, for both, p50 and
// p95 keydown-to-painted-frame, the share within one 60 Hz frame, layouts, style recalcs and
// script per key, Go heap per key, keydown to input handled (the browser's edit and every
// listener), the bar's handlers' own work per key (the time inside its listeners, from
// parleyHandlerKeys) and the thread's mutations per key, then Parley's ratios to the floor. Timings are reported, never
// asserted; only a re-rendered thread fails it. Run with -benchtime 1x.
func BenchmarkKeystrokeFloor(b *testing.B) {
	ctx, _, _ := openKeystrokePage(b)
	get(b, ctx, chromedp.Evaluate[bool](floorSetup))
	time.Sleep(time.Second) // the paste's draft save

	const rounds, keys = 6, 120 // floor, Parley, floor, Parley…
	typed := "the quick brown fox jumps over the lazy dog "
	metrics := func() map[string]float64 { return browserMetrics(b, ctx) }
	var floor, parley []roundResult
	b.ResetTimer()
	for round := range rounds {
		isFloor := round%2 == 0
		get(b, ctx, chromedp.Evaluate[bool](floorRound(isFloor)))
		time.Sleep(300 * time.Millisecond)
		m0 := metrics()
		heap0 := get(b, ctx, chromedp.Evaluate[float64](`parleyHeapAlloc()`))
		for i := range keys {
			s := string(typed[(round*keys+i)%len(typed)])
			pressKey(b, ctx, s)
			get(b, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`parleyWait(%d).then(() => true)`, i+1), chromedp.EvalAwaitPromise))
			time.Sleep(20*time.Millisecond + rand.N(17*time.Millisecond)) // no fixed phase of the frame
		}
		m1 := metrics()
		heap1 := get(b, ctx, chromedp.Evaluate[float64](`parleyHeapAlloc()`))
		r := roundResult{
			lat:       get(b, ctx, chromedp.Evaluate[[]float64](`parleyLat`)),
			work:      get(b, ctx, chromedp.Evaluate[[]float64](`parleyWork`)),
			own:       get(b, ctx, chromedp.Evaluate[[]float64](`parleyHandlerKeys()`)),
			layouts:   (m1["LayoutCount"] - m0["LayoutCount"]) / keys,
			recalcs:   (m1["RecalcStyleCount"] - m0["RecalcStyleCount"]) / keys,
			scriptMs:  (m1["ScriptDuration"] - m0["ScriptDuration"]) * 1000 / keys,
			styleMs:   (m1["RecalcStyleDuration"] - m0["RecalcStyleDuration"]) * 1000 / keys,
			heapKB:    (heap1 - heap0) / keys / 1024,
			mutations: get(b, ctx, chromedp.Evaluate[int](`parleyThreadMutations`)),
		}
		if isFloor {
			floor = append(floor, r)
		} else {
			parley = append(parley, r)
		}
	}
	b.StopTimer()

	type summary struct {
		p50, p95, share, layouts, recalcs, script, style, heap, workP95, ownP50, ownP95, mutations float64
	}
	sum := func(rs []roundResult) summary {
		var lat, work, own []float64
		var s summary
		for _, r := range rs {
			lat, work, own = append(lat, r.lat...), append(work, r.work...), append(own, r.own...)
			s.layouts += r.layouts / float64(len(rs))
			s.recalcs += r.recalcs / float64(len(rs))
			s.script += r.scriptMs / float64(len(rs))
			s.style += r.styleMs / float64(len(rs))
			s.heap += r.heapKB / float64(len(rs))
			s.mutations += float64(r.mutations) / float64(len(rs)*keys)
		}
		slices.Sort(lat)
		slices.Sort(work)
		slices.Sort(own)
		pct := func(v []float64, p float64) float64 {
			if len(v) == 0 {
				return 0
			}
			return v[min(len(v)-1, int(p*float64(len(v))))]
		}
		within := 0
		for _, v := range lat {
			if v <= 16.7 {
				within++
			}
		}
		s.p50, s.p95 = pct(lat, 0.5), pct(lat, 0.95)
		s.share = 100 * float64(within) / float64(max(len(lat), 1))
		s.workP95 = pct(work, 0.95)
		s.ownP50, s.ownP95 = pct(own, 0.5), pct(own, 0.95)
		return s
	}
	f, p := sum(floor), sum(parley)
	row := func(name string, s summary) {
		b.Logf("%-22s p50 %5.1f ms  p95 %5.1f ms  within a frame %5.1f %%  layouts/key %.2f  style recalcs/key %.2f (%.2f ms)  script/key %.2f ms  keydown to input p95 %.2f ms  handlers' own p50 %.2f ms p95 %.2f ms  Go heap/key %.2f KB  thread mutations/key %.2f",
			name, s.p50, s.p95, s.share, s.layouts, s.recalcs, s.style, s.script, s.workP95, s.ownP50, s.ownP95, s.heap, s.mutations)
	}
	b.Logf("%d rounds of %d keys, alternating, one page: a thread of 1,000 messages, a 10 KB draft with 50 chips", rounds, keys)
	row("bare textarea (floor)", f)
	row("Parley's composer", p)
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	b.Logf("ratios (Parley / floor): p50 %.2f× (target ≤ 1.10), p95 %.2f×, share within a frame %.2f× (target ≥ 0.90), layouts per key %.2f (target 1), handlers' own work p95 %.2f ms (target ≤ 1), thread mutations per key %.2f (target 0)",
		ratio(p.p50, f.p50), ratio(p.p95, f.p95), ratio(p.share, f.share), p.layouts, p.ownP95, p.mutations)
	b.ReportMetric(ratio(p.p50, f.p50), "p50-ratio")
	b.ReportMetric(ratio(p.p95, f.p95), "p95-ratio")
	b.ReportMetric(ratio(p.share, f.share), "frame-share-ratio")
	b.ReportMetric(p.layouts, "layouts/key")
	b.ReportMetric(p.heap, "heap-KB/key")
	b.ReportMetric(p.ownP95, "handlers-p95-ms")
	if p.mutations != 0 {
		b.Fatalf("the thread changed %.2f times per key while typing: it must never re-render on a keystroke", p.mutations)
	}
}
