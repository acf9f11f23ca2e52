package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// BenchmarkKeystrokeTrace records a Chromium trace (the devtools timeline) of keys typed into
// the floor (a bare textarea) and into the composer, on the keystroke benches' page, and says
// where each layout and style recalc of a key runs: inside which event of the key (keydown,
// beforeinput, the browser's edit, input) or in the frame after it. It is the instrument
// behind docs/composer.md's "The keystroke budget against the floor": it asserts nothing.
// Run with -benchtime 1x.
func BenchmarkKeystrokeTrace(b *testing.B) {
	ctx, _, _ := openKeystrokePage(b)
	if css := os.Getenv("PARLEY_BENCH_CSS"); css != "" {
		// An experiment: extra CSS for the page while typing, to see what costs what.
		get(b, ctx, chromedp.Evaluate[bool](`(s => { s.textContent = `+quote(css)+`; document.head.appendChild(s); return true })(document.createElement('style'))`))
	}
	if js := os.Getenv("PARLEY_BENCH_JS"); js != "" {
		get(b, ctx, chromedp.Evaluate[bool](`(() => { `+js+`; return true })()`)) // an experiment, as the CSS
	}
	get(b, ctx, chromedp.Evaluate[bool](floorSetup))
	time.Sleep(time.Second) // the paste's draft save
	const keys = 40
	typed := "the quick brown fox jumps over the lazy dog "
	for round, floor := range []bool{true, false} {
		get(b, ctx, chromedp.Evaluate[bool](floorRound(floor)))
		time.Sleep(300 * time.Millisecond)
		evs := traceKeys(b, ctx, func() {
			for i := range keys {
				pressKey(b, ctx, string(typed[(round*keys+i)%len(typed)]))
				get(b, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`parleyWait(%d).then(() => true)`, i+1), chromedp.EvalAwaitPromise))
				time.Sleep(20*time.Millisecond + rand.N(17*time.Millisecond))
			}
		})
		name := "Parley's composer"
		if floor {
			name = "bare textarea (floor)"
		}
		b.Logf("%s: %s", name, explainTrace(evs, keys))
	}
}

// traceEvent is one event of Chromium's JSON trace format.
type traceEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// traceKeys records the devtools timeline while typing runs.
func traceKeys(b *testing.B, ctx context.Context, typing func()) []traceEvent {
	var evs []traceEvent
	done := make(chan struct{})
	collected := chromedp.Events(ctx, tracing.DataCollected)
	complete := chromedp.Events(ctx, tracing.TracingComplete)
	go func() {
		for ev, err := range collected {
			if err != nil {
				return
			}
			for _, v := range ev.Value {
				var te traceEvent
				if json.Unmarshal([]byte(v), &te) == nil {
					evs = append(evs, te)
				}
			}
		}
	}()
	go func() {
		for _, err := range complete {
			if err == nil {
				close(done)
			}
			return
		}
	}()
	do(b, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, tracing.Start, tracing.StartParams{
			TransferMode: tracing.StartTransferModeReportEvents,
			TraceConfig: &tracing.TraceConfig{IncludedCategories: []string{
				"devtools.timeline", "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.stack", "blink", "v8.execute", "toplevel",
			}},
		})
		return err
	}))
	typing()
	do(b, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, tracing.End, cdp.Empty{})
		return err
	}))
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		b.Fatal("the trace did not complete")
	}
	time.Sleep(500 * time.Millisecond) // the last dataCollected's goroutine
	return evs
}

// span is a complete event on the renderer's main thread, with its nesting.
type span struct {
	name, detail string
	ts, end      float64
	parent       *span
}

func (s *span) path() string {
	var p []string
	for a := s.parent; a != nil; a = a.parent {
		if n := a.label(); n != "" {
			p = append(p, n)
		}
	}
	slices.Reverse(p)
	return strings.Join(p, " > ")
}

// label names the ancestors worth naming: the key's events, the frame's phases, JS.
func (s *span) label() string {
	switch s.name {
	case "EventDispatch":
		return s.detail
	case "FunctionCall", "v8.callFunction":
		return "js"
	case "BeginMainThreadFrame", "PageAnimator::serviceScriptedAnimations", "FireAnimationFrame", "UpdateLayoutTree", "Layout",
		"ResizeObserver::BroadcastObservations", "IntersectionObserverController::computeIntersections", "ScrollIntoView":
		return s.name
	case "ProxyMain::BeginMainFrame", "ThreadProxy::BeginMainFrame", "LocalFrameView::UpdateLifecyclePhases", "PaintController::CommitNewDisplayItems":
		return "frame"
	}
	return ""
}

// explainTrace counts, per key, the layouts and style recalcs on the renderer's main thread,
// by where they ran.
func explainTrace(evs []traceEvent, keys int) string {
	// The renderer's main thread: the one that dispatched the keydowns.
	count := map[[2]int]int{}
	for _, e := range evs {
		if e.Name == "EventDispatch" && strings.Contains(string(e.Args), `"keydown"`) {
			count[[2]int{e.Pid, e.Tid}]++
		}
	}
	var main [2]int
	for k, n := range count {
		if n > count[main] {
			main = k
		}
	}
	var spans []*span
	open := map[string][]*span{}
	for _, e := range evs {
		if e.Pid != main[0] || e.Tid != main[1] {
			continue
		}
		detail := ""
		if e.Name == "FunctionCall" || e.Name == "TimerFire" || e.Name == "FireIdleCallback" {
			var a struct {
				Data struct {
					FunctionName string `json:"functionName"`
					URL          string `json:"url"`
					Line         int    `json:"lineNumber"`
				} `json:"data"`
			}
			_ = json.Unmarshal(e.Args, &a)
			u := a.Data.URL
			if i := strings.LastIndex(u, "/"); i >= 0 {
				u = u[i+1:]
			}
			detail = fmt.Sprintf("%s %s:%d", a.Data.FunctionName, u, a.Data.Line)
		}
		if e.Name == "EventDispatch" {
			var a struct {
				Data struct {
					Type string `json:"type"`
				} `json:"data"`
			}
			_ = json.Unmarshal(e.Args, &a)
			detail = a.Data.Type
		}
		switch e.Ph {
		case "X":
			spans = append(spans, &span{name: e.Name, detail: detail, ts: e.Ts, end: e.Ts + e.Dur})
		case "B":
			s := &span{name: e.Name, detail: detail, ts: e.Ts, end: -1}
			open[e.Name] = append(open[e.Name], s)
			spans = append(spans, s)
		case "E":
			if st := open[e.Name]; len(st) > 0 {
				st[len(st)-1].end = e.Ts
				open[e.Name] = st[:len(st)-1]
			}
		}
	}
	spans = slices.DeleteFunc(spans, func(s *span) bool { return s.end < s.ts })
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].ts != spans[j].ts {
			return spans[i].ts < spans[j].ts
		}
		return spans[i].end > spans[j].end
	})
	var stack []*span
	for _, s := range spans {
		for len(stack) > 0 && stack[len(stack)-1].end <= s.ts {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			s.parent = stack[len(stack)-1]
		}
		stack = append(stack, s)
	}
	// Where each layout and recalc ran; the event of the key just before it, when it ran at
	// top level (in the frame).
	where := map[string]int{}
	last := ""
	var sample []string
	for _, s := range spans {
		if s.name == "EventDispatch" {
			last = s.detail
		}
		if s.name != "Layout" && s.name != "UpdateLayoutTree" {
			continue
		}
		if s.parent != nil && (s.parent.name == "Layout" || s.parent.name == "UpdateLayoutTree") {
			continue
		}
		p := s.path()
		if p == "" {
			p = "(top level)"
		}
		k := fmt.Sprintf("%s in [%s] after %s", s.name, p, last)
		where[k]++
		if len(sample) < 30 {
			sample = append(sample, fmt.Sprintf("%s %.2fms @%s", s.name, (s.end-s.ts)/1000, p))
		}
	}
	// One key in full: the spans under its fifth keypress, nested.
	var detail []string
	kp := 0
	var root *span
	for _, s := range spans {
		if s.name == "EventDispatch" && s.detail == "keydown" {
			kp++
			if kp == 5 {
				root = s
			}
		}
		if root == nil || s.ts < root.ts {
			continue
		}
		if s.ts > root.ts+40000 {
			break
		}
		depth := 0
		for a := s.parent; a != nil; a = a.parent {
			depth++
		}
		detail = append(detail, fmt.Sprintf("%s%s %s %.2fms +%.2f", strings.Repeat("  ", depth), s.name, s.detail, (s.end-s.ts)/1000, (s.ts-root.ts)/1000))
	}
	// Script run by the key's own events (keydown to keyup), per key: the listeners' work.
	var perKey []float64
	for _, s := range spans {
		if s.name == "EventDispatch" && s.detail == "keydown" {
			perKey = append(perKey, 0)
		}
		if len(perKey) == 0 || s.name != "FunctionCall" || s.parent == nil || s.parent.name != "EventDispatch" {
			continue
		}
		switch s.parent.detail {
		case "keydown", "keypress", "beforeinput", "textInput", "input", "keyup":
			perKey[len(perKey)-1] += (s.end - s.ts) / 1000
		}
	}
	// The main thread's busy time per key (keydown to the next keydown), by what ran at top
	// level: the key's own events, the frame, and everything else (timers, messages, GC).
	busy := map[string]float64{}
	nKeys := 0
	for _, s := range spans {
		if s.name == "EventDispatch" && s.detail == "keydown" {
			nKeys++
		}
		if s.parent != nil || nKeys == 0 || s.name != "ThreadControllerImpl::RunTask" && s.name != "RunTask" {
			continue
		}
		kind := "other"
		for _, c := range spans {
			if c.ts < s.ts {
				continue
			}
			if c.ts >= s.end {
				break
			}
			if c.name == "EventDispatch" {
				kind = "key events"
				break
			}
			if c.name == "WebFrameWidgetImpl::BeginMainFrame" || c.name == "WebFrameWidgetImpl::UpdateLifecycle" {
				kind = "frame"
				break
			}
			if c.name == "FunctionCall" || c.name == "TimerFire" {
				kind = "other script: " + c.detail
				break
			}
		}
		busy[kind] += (s.end - s.ts) / 1000
	}
	var busyOut []string
	for _, k := range slices.Sorted(maps.Keys(busy)) {
		if v := busy[k] / float64(max(nKeys, 1)); v >= 0.02 {
			busyOut = append(busyOut, fmt.Sprintf("\n  busy per key %.2f ms  %s", v, k))
		}
	}
	slices.Sort(perKey)
	pct := func(p float64) float64 {
		if len(perKey) == 0 {
			return 0
		}
		return perKey[min(len(perKey)-1, int(p*float64(len(perKey))))]
	}
	var out []string
	out = append(out, fmt.Sprintf("\n  script in the key's events per key: p50 %.2f ms, p95 %.2f ms (%d keys)", pct(0.5), pct(0.95), len(perKey)))
	out = append(out, busyOut...)
	for _, k := range slices.Sorted(maps.Keys(where)) {
		out = append(out, fmt.Sprintf("\n  %.2f/key  %s", float64(where[k])/float64(keys), k))
	}
	return fmt.Sprintf("%d events on the main thread%s\n  first: %s\n  the fifth key:\n%s", len(spans), strings.Join(out, ""), strings.Join(sample, "; "), strings.Join(detail, "\n"))
}
