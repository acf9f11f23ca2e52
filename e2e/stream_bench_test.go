package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"parley/app/api"
	"parley/app/socket"
	"parley/internal/testkit"
	"parley/protocol"
)

// paintProbe records, per streamed message, when its first token was painted: a mutation of
// the thread that shows a streaming message starting "m<i> " schedules a requestAnimationFrame
// (before the paint) whose MessageChannel message is delivered after the paint. Times are
// wall-clock milliseconds (timeOrigin + now), comparable with the test process's clock.
const paintProbe = `(() => {
	window.parleyPaint = {};
	window.parleyWrite = {};
	const ch = new MessageChannel();
	ch.port1.onmessage = e => { window.parleyPaint[e.data] = performance.timeOrigin + performance.now(); };
	new MutationObserver(() => {
		const el = document.querySelector('.thread .msg-streaming .msg-text');
		const m = el && /^m(\d+) /.exec(el.textContent);
		if (m && !(m[1] in window.parleyPaint)) {
			window.parleyPaint[m[1]] = 0;
			window.parleyWrite[m[1]] = performance.timeOrigin + performance.now();
			requestAnimationFrame(() => ch.port2.postMessage(m[1]));
		}
	}).observe(document.querySelector('.thread'), {subtree: true, childList: true, characterData: true});
	return true;
})()`

// frameProbe, installed before the page loads, records when each message's first delta
// frame reached the page, to split the path at the socket.
const frameProbe = `(() => {
	window.parleyFrame = {};
	const WS = window.WebSocket;
	window.WebSocket = function(...args) {
		const ws = new WS(...args);
		ws.addEventListener('message', e => {
			const m = typeof e.data === 'string' && /"type":"delta".*"text":"m(\d+) /.exec(e.data);
			if (m && !(m[1] in window.parleyFrame)) window.parleyFrame[m[1]] = performance.timeOrigin + performance.now();
		});
		return ws;
	};
	window.WebSocket.prototype = WS.prototype;
	Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})()`

// BenchmarkStreamFirstTokenToPaint streams 40 model messages of 50 tokens (about 2 KB each)
// from the scripted endpoint into one session's page and reports the time from the
// endpoint's flush of each message's first token to the frame that paints it (p50, p99: the
// overhead Parley adds on loopback, model client, live path, socket, wasm and render
// included), and the Go heap the page holds per streamed message after a collection. Run
// with -benchtime 1x; `make bench` does. Each first token waits until the page has shown
// the prompt and settled, so what is measured is the token's path, not the prompt's render.
func BenchmarkStreamFirstTokenToPaint(b *testing.B) {
	const turns, tokens = 40, 50
	var mu sync.Mutex
	sent := map[int]time.Time{}
	holds, starts := make([]chan struct{}, turns), make([]chan struct{}, turns)
	var replies []testkit.Reply
	for i := range turns {
		holds[i], starts[i] = make(chan struct{}), make(chan struct{})
		// The first token waits until the page has shown the prompt and is idle, as it is
		// during a real model's time to first token.
		first := testkit.TextChunk(fmt.Sprintf("m%d ", i))
		first.Sent = func(at time.Time) { mu.Lock(); sent[i] = at; mu.Unlock() }
		steps := []testkit.Step{{Hold: starts[i]}, first, {Hold: holds[i]}}
		for k := range tokens - 1 {
			steps = append(steps, testkit.TextChunk(fmt.Sprintf("token%02d and some words ", k)))
		}
		replies = append(replies, testkit.Reply{Steps: append(steps, testkit.Finish("stop"))})
	}
	srv, c, info := benchSession(b, testkit.NewModel(b, replies...).Base(), "stream")
	bg := context.Background()
	ctx := benchBrowser(b, srv)
	do(b, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: frameProbe})
		return err
	}))
	do(b, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+info.ID+"?bench=1"), waitReady())
	get(b, ctx, chromedp.Evaluate[bool](paintProbe))
	heap0 := get(b, ctx, chromedp.Evaluate[float64](`parleyHeapLive()`))

	var lat, wire, write, frame []float64
	b.ResetTimer()
	for range b.N {
		for i := range turns {
			if _, err := c.SendPrompt(bg, info.ID, protocol.SendPromptRequest{Text: fmt.Sprintf("go %d", i), AttemptID: api.NewAttemptID()}); err != nil {
				b.Fatal(err)
			}
			do(b, ctx, 20*time.Second, waitJS(fmt.Sprintf(`[...document.querySelectorAll('.thread .msg-user .msg-text')].some(e => e.textContent === 'go %d')`, i)))
			time.Sleep(200 * time.Millisecond)
			close(starts[i])
			do(b, ctx, 20*time.Second, waitJS(fmt.Sprintf(`window.parleyPaint[%d] > 0`, i)))
			painted := get(b, ctx, chromedp.Evaluate[float64](fmt.Sprintf(`window.parleyPaint[%d]`, i)))
			mu.Lock()
			at := sent[i]
			mu.Unlock()
			lat = append(lat, painted-float64(at.UnixNano())/1e6)
			framed := get(b, ctx, chromedp.Evaluate[float64](fmt.Sprintf(`window.parleyFrame[%d] || 0`, i)))
			wire = append(wire, framed-float64(at.UnixNano())/1e6)
			written := get(b, ctx, chromedp.Evaluate[float64](fmt.Sprintf(`window.parleyWrite[%d] || 0`, i)))
			write = append(write, written-framed)
			frame = append(frame, painted-written)
			close(holds[i])
			do(b, ctx, 20*time.Second, waitJS(fmt.Sprintf(`document.querySelectorAll('.thread .msg-agent').length === %d && !document.querySelector('.thread .msg-streaming') && !document.querySelector('.thread .stop')`, i+1)))
		}
		break // the script holds one run's replies
	}
	b.StopTimer()
	heap1 := get(b, ctx, chromedp.Evaluate[float64](`parleyHeapLive()`))
	text := evalStringB(b, ctx, `[...document.querySelectorAll('.thread-inner .msg-agent .msg-text')].pop().textContent`)
	// The rendered Markdown trims the message's trailing space.
	if !strings.HasPrefix(text, fmt.Sprintf("m%d token00", turns-1)) || !strings.HasSuffix(strings.TrimSpace(text), fmt.Sprintf("token%02d and some words", tokens-2)) {
		b.Fatalf("the last message is %q", text)
	}
	slices.Sort(lat)
	slices.Sort(wire)
	pct := func(p float64) float64 { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	slices.Sort(write)
	slices.Sort(frame)
	mid := func(xs []float64) (float64, float64) { return xs[len(xs)/2], xs[min(len(xs)-1, len(xs)*99/100)] }
	w50, w99 := mid(wire)
	g50, g99 := mid(write)
	f50, f99 := mid(frame)
	b.Logf("of which: the endpoint's flush → the delta frame in the page (model client, live path, socket) p50 %.1f ms, p99 %.1f ms; the frame → its text written in the thread (wasm) p50 %.1f ms, p99 %.1f ms; written → painted p50 %.1f ms, p99 %.1f ms",
		w50, w99, g50, g99, f50, f99)
	perMsg := (heap1 - heap0) / turns / 1024
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(perMsg, "heap-KB/msg")
	b.Logf("%d streamed messages of %d tokens (%d bytes): first token flushed by the endpoint → painted: p50 %.1f ms, p99 %.1f ms, max %.1f ms; Go heap held %.1f KB per streamed message (with its prompt)",
		turns, tokens, len(text), pct(0.50), pct(0.99), lat[len(lat)-1], perMsg)
}

func evalStringB(b *testing.B, ctx context.Context, js string) string {
	b.Helper()
	return get(b, ctx, chromedp.Evaluate[string](js))
}

// BenchmarkStreamKeystroke types into the composer under a 1,000-message thread, first with
// no stream, then while the model streams 50 tokens a second into the same thread, on the
// same page, and reports keydown-to-painted-frame p50 and p95 of both (the budget:
// the stream may slow typing by at most 10 % at p95). Run with -benchtime 1x.
func BenchmarkStreamKeystroke(b *testing.B) {
	const seed, keys = 500, 200
	start := make(chan struct{})
	long := testkit.Reply{Steps: []testkit.Step{{Hold: start}}}
	for k := range 2000 { // 40 s at 50 tokens/s: longer than the typing
		long.Steps = append(long.Steps, testkit.Step{Chunk: testkit.TextChunk(fmt.Sprintf("tok%d ", k)).Chunk, Pause: 20 * time.Millisecond})
	}
	long.Steps = append(long.Steps, testkit.Finish("stop"))
	srv, info, ctx := openLongThread(b, seed, long)
	c := apiClient(srv)
	bg := context.Background()
	if css := os.Getenv("PARLEY_BENCH_CSS"); css != "" {
		// An experiment: extra CSS for the page, to see what costs what.
		get(b, ctx, chromedp.Evaluate[bool](`(s => { s.textContent = `+quote(css)+`; document.head.appendChild(s); return true })(document.createElement('style'))`))
	}
	get(b, ctx, chromedp.Evaluate[bool](keystrokeProbe))
	do(b, ctx, 10*time.Second, chromedp.Focus(composer))

	typeKeys := func(from, keys int) []float64 {
		typed := strings.Repeat("the quick brown fox jumps ", keys/26+1)[:keys]
		for i, r := range typed {
			s := string(r)
			pressKey(b, ctx, s)
			get(b, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`parleyWait(%d).then(() => true)`, from+i+1), chromedp.EvalAwaitPromise))
			time.Sleep(20*time.Millisecond + rand.N(17*time.Millisecond))
		}
		lat := get(b, ctx, chromedp.Evaluate[[]float64](`parleyLat`))
		return slices.Clone(lat[from:])
	}
	b.ResetTimer()
	quiet := typeKeys(0, keys)
	// Typing while the stream runs: the prompt goes over the API, so the draft stays.
	if _, err := c.SendPrompt(bg, info.ID, protocol.SendPromptRequest{Text: "stream", AttemptID: api.NewAttemptID()}); err != nil {
		b.Fatal(err)
	}
	close(start)
	do(b, ctx, 20*time.Second, waitJS(`!!document.querySelector('.thread .msg-streaming')`))
	streaming := typeKeys(keys, keys)
	b.StopTimer()
	if os.Getenv("PARLEY_BENCH_TRACE") != "" {
		// Where the time goes while the stream runs: 40 more keys under Chromium's tracing
		// (BenchmarkKeystrokeTrace's reading of it), outside the figures above.
		const traced = 40
		evs := traceKeys(b, ctx, func() { typeKeys(2*keys, traced) })
		b.Logf("while streaming: %s", explainTrace(evs, traced))
	}
	if !evalBoolB(b, ctx, `!!document.querySelector('.thread .msg-streaming')`) {
		b.Fatal("the stream ended before the typing did")
	}
	p := func(xs []float64, q float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[min(len(s)-1, int(q*float64(len(s))))]
	}
	b.ReportMetric(p(quiet, 0.95), "quiet-p95-ms")
	b.ReportMetric(p(streaming, 0.95), "stream-p95-ms")
	b.Logf("keydown → painted frame, 1,000-message thread, %d keys each: no stream p50 %.1f ms p95 %.1f ms; while streaming 50 tokens/s p50 %.1f ms p95 %.1f ms (%+.0f %% at p95)",
		keys, p(quiet, 0.5), p(quiet, 0.95), p(streaming, 0.5), p(streaming, 0.95), 100*(p(streaming, 0.95)/p(quiet, 0.95)-1))
}

func evalBoolB(b *testing.B, ctx context.Context, js string) bool {
	b.Helper()
	return get(b, ctx, chromedp.Evaluate[bool](js))
}

// readLogB reads a session's stored events through the socket, as readLog does.
func readLogB(b *testing.B, srv *server, session string) []protocol.Event {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var evs []protocol.Event
	f := &socket.Follower{URL: "ws://" + srv.addr + "/ws", Session: session,
		Header:  http.Header{"Authorization": {"Bearer " + srv.token}},
		OnEvent: func(ev protocol.Event) { evs = append(evs, ev) },
		OnState: func(s socket.State) {
			if s.CaughtUp {
				cancel()
			}
		}}
	f.Run(ctx)
	return evs
}

// openLongThread seeds a session with seed answered prompts (500 model turns, one after
// another), then opens its page with the whole history mounted, in a Chromium of its own; the
// fake model answers the next prompt with next.
func openLongThread(b *testing.B, seed int, next testkit.Reply) (*server, protocol.SessionInfo, context.Context) {
	b.Helper()
	var replies []testkit.Reply
	for i := range seed {
		replies = append(replies, testkit.Text(fmt.Sprintf("answer %d: %s", i, strings.Repeat("words ", 10))))
	}
	srv, c, info := benchSession(b, testkit.NewModel(b, append(replies, next)...).Base(), "long")
	bg := context.Background()
	for i := range seed {
		if _, err := c.SendPrompt(bg, info.ID, protocol.SendPromptRequest{Text: fmt.Sprintf("prompt %d: %s", i, strings.Repeat("words ", 10)), AttemptID: api.NewAttemptID()}); err != nil {
			b.Fatal(err)
		}
	}
	for t0 := time.Now(); ; time.Sleep(2 * time.Second) {
		l := readLogB(b, srv, info.ID)
		if testkit.Count(l, protocol.EventTurnEnded) >= seed {
			break
		}
		if time.Since(t0) > 5*time.Minute {
			b.Fatalf("after 5 minutes %d of %d seeding turns ended", testkit.Count(l, protocol.EventTurnEnded), seed)
		}
	}
	ctx := benchBrowser(b, srv)
	do(b, ctx, 180*time.Second, chromedp.Navigate(srv.base()+"/s/"+info.ID+"?bench=1&history=all"), waitReady(),
		waitJS(`(document.querySelector('.thread .earlier')?.textContent || '').includes('(900 more)') && !document.querySelector('.thread .stop')`))
	return srv, info, ctx
}

// BenchmarkStreamDeltaLayout measures, on BenchmarkStreamKeystroke's page (a 1,000-message
// thread, 100 mounted) with a message streaming, what one streamed token costs the page's
// layout and what a keystroke's edit costs it: the layout forced right after a token is
// appended to the streaming entry's text node, and right after the composer's value
// changes, 3 rounds of 60 each. It is the part of BenchmarkStreamKeystroke's figures the
// machine's load does not blur (a layout runs on the page's one thread, before the frame
// that shows the key). Run with -benchtime 1x.
func BenchmarkStreamDeltaLayout(b *testing.B) {
	const seed = 500
	hold := make(chan struct{})
	defer close(hold)
	srv, info, ctx := openLongThread(b, seed, testkit.Reply{Steps: []testkit.Step{testkit.TextChunk("first "), {Hold: hold}, testkit.Finish("stop")}})
	c := apiClient(srv)
	bg := context.Background()
	if _, err := c.SendPrompt(bg, info.ID, protocol.SendPromptRequest{Text: "stream", AttemptID: api.NewAttemptID()}); err != nil {
		b.Fatal(err)
	}
	do(b, ctx, 20*time.Second, waitJS(`(document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent === 'first '`))
	time.Sleep(time.Second) // the render after the first token
	b.ResetTimer()
	var delta, key []float64
	for range 3 {
		r := get(b, ctx, chromedp.Evaluate[[][]float64](`(() => {
			const ta = document.getElementById('composer-input');
			const node = document.querySelector('.thread .msg-streaming .msg-tail').firstChild;
			ta.offsetHeight;
			const d = [], k = [];
			for (let i = 0; i < 60; i++) {
				node.appendData('tok' + i + ' ');
				let t0 = performance.now();
				ta.offsetHeight;
				d.push(performance.now() - t0);
				ta.value += 'k';
				t0 = performance.now();
				ta.offsetHeight;
				k.push(performance.now() - t0);
			}
			return [d, k];
		})()`))
		delta, key = append(delta, r[0]...), append(key, r[1]...)
		time.Sleep(300 * time.Millisecond)
	}
	b.StopTimer()
	p := func(xs []float64, q float64) float64 {
		s := append([]float64(nil), xs...)
		slices.Sort(s)
		return s[min(len(s)-1, int(q*float64(len(s))))]
	}
	b.ReportMetric(p(delta, 0.5), "token-layout-p50-ms")
	b.ReportMetric(p(key, 0.5), "key-layout-p50-ms")
	b.Logf("layout forced after a streamed token: p50 %.2f ms, p90 %.2f ms; after a keystroke's edit of the composer: p50 %.2f ms, p90 %.2f ms (%d each, 1,000-message thread, 100 mounted)",
		p(delta, 0.5), p(delta, 0.9), p(key, 0.5), p(key, 0.9), len(delta))
}
