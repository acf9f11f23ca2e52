package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/app/api"
	"parley/internal/testkit"
	"parley/protocol"
)

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
