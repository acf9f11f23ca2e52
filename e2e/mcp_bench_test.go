package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/app/api"
	"parley/internal/testkit"
	"parley/internal/testkit/mcpserver"
	"parley/protocol"
)

// questionProbe records when the composer's question mode is painted: a mutation that shows
// it schedules a requestAnimationFrame (before the paint) whose MessageChannel message is
// delivered after it. Wall-clock milliseconds, comparable with the MCP server's clock.
const questionProbe = `(() => {
	window.parleyQuestion = 0;
	const ch = new MessageChannel();
	ch.port1.onmessage = () => { window.parleyQuestion = performance.timeOrigin + performance.now(); };
	let armed = true;
	window.parleyArm = () => { armed = true; window.parleyQuestion = 0; };
	new MutationObserver(() => {
		if (armed && document.querySelector('#composer-mode.mode-question input[type=text]')) {
			armed = false;
			requestAnimationFrame(() => ch.port2.postMessage(0));
		}
	}).observe(document.body, {subtree: true, childList: true, attributes: true});
	return true;
})()`

// BenchmarkMCPElicitation measures an MCP server's question over loopback stdio: from the
// server's return of its request (elicitation as a multi-round-trip input request) to the
// painted question in the composer, and from the click on Send to the server's receipt of
// the answer (p50, p99). The server is this test binary, started by Parley from the
// workspace's mcp.json. Run with -benchtime 1x; `make bench` does.
func BenchmarkMCPElicitation(b *testing.B) {
	const rounds = 30
	var replies []testkit.Reply
	for i := range rounds {
		replies = append(replies,
			testkit.Calls(testkit.Call{ID: "call_" + strconv.Itoa(i), Name: "mcp__test__ask_timed", Args: map[string]any{}}),
			testkit.Text(fmt.Sprintf("ok %d", i)))
	}
	fake, srv, ctx := openMCP(b, map[string]any{"test": mcpserver.Self(b, "stdio")}, replies...)
	c := apiClient(srv)
	bg := context.Background()
	info, err := c.CreateSession(bg, protocol.CreateSessionRequest{Title: "mcp"})
	if err != nil {
		b.Fatal(err)
	}
	do(b, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+info.ID), waitReady())
	get(b, ctx, chromedp.Evaluate[bool](questionProbe))

	var shown, answered []float64
	b.ResetTimer()
	for range b.N {
		for i := range rounds {
			get(b, ctx, chromedp.Evaluate[bool](`window.parleyArm(), true`))
			if _, err := c.SendPrompt(bg, info.ID, protocol.SendPromptRequest{Text: fmt.Sprintf("ask %d", i), AttemptID: api.NewAttemptID()}); err != nil {
				b.Fatal(err)
			}
			if i == 0 { // approved once, always: the rest ask no approval
				do(b, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval')`))
				time.Sleep(guardPause)
				do(b, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode .choice')][1].click(), true`))
			}
			do(b, ctx, 30*time.Second, waitJS(`window.parleyQuestion > 0`))
			painted := get(b, ctx, chromedp.Evaluate[float64](`window.parleyQuestion`))
			time.Sleep(guardPause)
			do(b, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#composer-mode input[type=text]`), "w"+strconv.Itoa(i)),
				waitJS(`!document.querySelector('#composer-mode .send').disabled`))
			clicked := get(b, ctx, chromedp.Evaluate[float64](`(() => { const t = performance.timeOrigin + performance.now(); document.querySelector('#composer-mode .send').click(); return t })()`))
			want := fmt.Sprintf("ok %d", i)
			do(b, ctx, 30*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg-agent .msg-text')].some(e => e.textContent === `+quote(want)+`) && !document.querySelector('.thread .stop')`))
			reqs := fake.Requests()
			texts := testkit.ToolTexts(reqs[2*i+1])
			if len(texts) == 0 {
				b.Fatalf("round %d: no tool result reached the model", i)
			}
			var sent, received int64
			if _, err := fmt.Sscanf(texts[len(texts)-1][strings.Index(texts[len(texts)-1], "sent="):], "sent=%d received=%d", &sent, &received); err != nil {
				b.Fatalf("round %d: %q: %v", i, texts[len(texts)-1], err)
			}
			if !strings.Contains(texts[len(texts)-1], `"word":"w`+strconv.Itoa(i)+`"`) {
				b.Fatalf("round %d: the server received %q", i, texts[len(texts)-1])
			}
			shown = append(shown, painted-float64(sent)/1e6)
			answered = append(answered, float64(received)/1e6-clicked)
		}
		break // the script holds one run's replies
	}
	b.StopTimer()
	slices.Sort(shown)
	slices.Sort(answered)
	pct := func(xs []float64, p float64) float64 { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
	b.ReportMetric(pct(shown, 0.50), "shown-p50-ms")
	b.ReportMetric(pct(shown, 0.99), "shown-p99-ms")
	b.ReportMetric(pct(answered, 0.50), "answered-p50-ms")
	b.ReportMetric(pct(answered, 0.99), "answered-p99-ms")
	b.Logf("%d MCP questions over loopback stdio: server's request → painted in the composer p50 %.1f ms, p99 %.1f ms; Send clicked → answer received by the server p50 %.1f ms, p99 %.1f ms",
		rounds, pct(shown, 0.50), pct(shown, 0.99), pct(answered, 0.50), pct(answered, 0.99))
}
