package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stretchr/testify/require"
)

// markdownAnswer is what the scripted model streams: Markdown of each kind, and attacks.
const markdownAnswer = "Here is **the plan**:\n\n1. Open `main.go`.\n2. Run it.\n\n```go\nfmt.Println(\"<b>hi</b>\")\n```\n\n" +
	"See [the docs](https://go.dev/doc/) and [this](javascript:alert(1)).\n\n<img src=x onerror=\"window.__xss=1\">\n\n| a | b |\n|---|---|\n| 1 | 2 |"

// markdownModel is an OpenAI-compatible endpoint that streams text in small chunks.
func markdownModel(t *testing.T, text string) *httptest.Server {
	return heldModel(t, nil, text)
}

// heldModel streams the parts as markdownModel streams a text, and between two parts waits
// until hold has a value (or is closed): a test sees the answer as it stands mid-stream.
func heldModel(t *testing.T, hold <-chan struct{}, parts ...string) *httptest.Server {
	return pacedModel(t, 2*time.Millisecond, hold, parts...)
}

// pacedModel is heldModel with a pause of its own between two small chunks: pace.
func pacedModel(t *testing.T, pace time.Duration, hold <-chan struct{}, parts ...string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta map[string]any, finish any) {
			b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		chunk(map[string]any{"role": "assistant", "content": ""}, nil)
		for k, text := range parts {
			if k > 0 {
				select {
				case <-hold:
				case <-r.Context().Done():
					return
				}
			}
			for i := 0; i < len(text); i += 9 {
				chunk(map[string]any{"content": text[i:min(i+9, len(text))]}, nil)
				select {
				case <-time.After(pace):
				case <-r.Context().Done():
					return
				}
			}
		}
		chunk(map[string]any{}, "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAgentMarkdownInTheBrowser streams a Markdown answer from a scripted model and checks
// the real page: elements, no script ran, safe links, and the copy button through a stubbed
// Clipboard API (headless Chromium's clipboard needs permissions a test should not depend on).
func TestAgentMarkdownInTheBrowser(t *testing.T) {
	t.Parallel()
	model := markdownModel(t, markdownAnswer)
	srv := startServerModel(t, t.TempDir(), model.URL+"/v1") // flags, not the environment: the tests run in parallel
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		typeText("plan please"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.msg-agent .md table td') && document.querySelectorAll('.msg-agent .md td').length == 2`))

	require.Equal(t, "the plan", evalString(t, ctx, `document.querySelector('.msg-agent .md strong').textContent`))
	require.Equal(t, "2", evalString(t, ctx, `String(document.querySelectorAll('.msg-agent .md ol li').length)`))
	require.Equal(t, "language-go", evalString(t, ctx, `document.querySelector('.msg-agent .md pre code').className`))
	require.Equal(t, "https://go.dev/doc/|_blank|noopener noreferrer", evalString(t, ctx,
		`[...document.querySelectorAll('.msg-agent .md a')].map(a => a.getAttribute('href')+'|'+a.target+'|'+a.rel).join(',')`), "one link: the javascript: one is text")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.msg-agent img') || window.__xss === 1`), "the <img onerror> is text")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.msg-agent .md').textContent`), `<img src=x onerror="window.__xss=1">`)

	do(t, ctx, 10*time.Second,
		js(`navigator.clipboard.writeText = t => { window.__copied = t; return Promise.resolve(); }`),
		js(`document.querySelector('.msg-agent .md-copy').click()`),
		waitJS(`document.querySelector('.msg-agent .md-copy').getAttribute('aria-label') == 'Copied'`))
	require.Equal(t, `fmt.Println("<b>hi</b>")`, evalString(t, ctx, `window.__copied`))
	require.Equal(t, "Copied", evalString(t, ctx, `document.querySelector('.msg-agent .md-copy').textContent`))
}

// TestACodeBlockStreamsAsCode: a code block is drawn as one while its lines arrive, under its
// language, with no fence shown as text, and its Copy copies what it shows; when it ends it
// is the finished block.
// Before, the block showed as raw text, backticks and all, until its closing fence came.
func TestACodeBlockStreamsAsCode(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := heldModel(t, hold, "Here is the code:\n\n```go\nfunc main() {\n", "\tfmt.Println(1)\n}\n```\n\nDone.")
	srv := startServerModel(t, t.TempDir(), model.URL+"/v1")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		typeText("some code"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	streaming := `document.querySelector('.msg-agent.msg-streaming .md-code code.msg-tail.language-go')`
	waitShowing(t, ctx, 30*time.Second, `!!`+streaming+` && `+streaming+`.textContent === 'func main() {\n'`,
		`(document.querySelector('.msg-agent') || {}).outerHTML`)
	require.Equal(t, "go", evalString(t, ctx, `document.querySelector('.msg-agent .md-code-lang').textContent`))
	require.NotContains(t, evalString(t, ctx, `document.querySelector('.msg-agent .msg-text').textContent`), "```", "no fence shown as text")
	require.Equal(t, "Here is the code:", evalString(t, ctx, `document.querySelector('.msg-agent .md p').textContent`))
	// Copy works before the block ends: it copies the lines shown so far (QA round 27).
	do(t, ctx, 10*time.Second,
		js(`navigator.clipboard.writeText = t => { window.__copied = t; return Promise.resolve(); }`),
		js(`document.querySelector('.msg-streaming .md-code .md-copy').click()`),
		waitJS(`window.__copied === 'func main() {\n'`))

	close(hold)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('.msg-streaming') && !!document.querySelector('.msg-agent .md-code .md-copy')`))
	require.Equal(t, "func main() {\n\tfmt.Println(1)\n}", evalString(t, ctx, `document.querySelector('.msg-agent .md-code pre code').textContent`))
	require.Equal(t, "Done.", evalString(t, ctx, `[...document.querySelectorAll('.msg-agent .md p')].pop().textContent`))
	require.NotContains(t, evalString(t, ctx, `document.querySelector('.msg-agent .msg-text').textContent`), "```")
}

// TestAListAndATableStreamLineByLine: a list or a table that is still streaming is drawn as
// one, a line at a time: its whole lines are Markdown and only the line arriving is text (a
// table's row arriving is held back). They showed as source until they ended (QA round 27).
func TestAListAndATableStreamLineByLine(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := heldModel(t, hold, "Steps:\n\n1. Open the file.\n2. Change the *handler*.\n3. Ru",
		"n it.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4", " |\n\nDone.")
	srv := startServerModel(t, t.TempDir(), model.URL+"/v1")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		typeText("steps"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	const msg = `document.querySelector('.msg-agent.msg-streaming')`
	waitShowing(t, ctx, 30*time.Second, `!!`+msg+` && `+msg+`.querySelectorAll('.md ol li').length === 2 && `+msg+`.querySelector('.msg-tail')?.textContent === '3. Ru'`,
		`(document.querySelector('.msg-agent') || {}).outerHTML`)
	require.Equal(t, "handler", evalString(t, ctx, msg+`.querySelector('.md ol li em').textContent`))
	require.NotContains(t, evalString(t, ctx, msg+`.textContent`), "*handler*", "no source shown")

	hold <- struct{}{}
	waitShowing(t, ctx, 30*time.Second, `!!`+msg+` && `+msg+`.querySelectorAll('.md table tbody tr').length === 1`,
		`(document.querySelector('.msg-agent') || {}).outerHTML`)
	require.NotContains(t, evalString(t, ctx, msg+`.textContent`), "|", "no row shown as pipes")
	require.Equal(t, 3, int(get(t, ctx, chromedp.Evaluate[float64](msg+`.querySelectorAll('.md ol li').length`))))

	close(hold)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('.msg-streaming') && document.querySelectorAll('.msg-agent .md table tbody tr').length === 2`))
	require.Equal(t, "Done.", evalString(t, ctx, `[...document.querySelectorAll('.msg-agent .md p')].pop().textContent`))
}

// TestATableKeepsItsWordsWhole: on a phone, a table beside one long unbroken word keeps its
// other column's words whole; the table scrolls in its box instead (docs/qa-round7.md #8: the
// message's overflow-wrap let the column fall to one letter a line).
func TestATableKeepsItsWordsWhole(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("averyveryverylongidentifier", 24)
	model := markdownModel(t, "| column | value |\n|---|---|\n| col | "+long+" |")
	srv := startServerModel(t, t.TempDir(), model.URL+"/v1")
	ctx := browser(t)
	phone(t, ctx, 844)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		typeText("a table"), tapSend(), waitJS(`location.pathname.startsWith('/s/')`))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.msg-agent .md td').length == 2 && document.querySelectorAll('.msg-agent .md td')[1].textContent === `+quote(long)+``))
	// A cell holding one word is one line high: the word is not broken.
	lines := get(t, ctx, chromedp.Evaluate[int](`(() => { const r = document.createRange();
		r.selectNodeContents(document.querySelector('.msg-agent .md td'));
		return new Set([...r.getClientRects()].map(c => Math.round(c.top))).size; })()`))
	require.Equal(t, 1, lines, "the cell holding \"col\" is one line")
	require.LessOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)), 390.0, "the page does not scroll sideways: the table scrolls in its box")
}

// TestJumpingToTheNewestFollowsAStream: scrolled up while an answer streams, the person
// clicks ↓: the thread lands at the newest end and stays there as the answer grows. It
// landed short (the answer grew under the smooth scroll), then stayed with the text while
// the end ran off below the box, with no ↓ to say so (QA round 27).
func TestJumpingToTheNewestFollowsAStream(t *testing.T) {
	t.Parallel()
	var long strings.Builder
	for i := range 400 {
		fmt.Fprintf(&long, "Line %d of a long answer that keeps coming.\n\n", i)
	}
	model := pacedModel(t, 15*time.Millisecond, nil, long.String())
	srv := startServerModel(t, t.TempDir(), model.URL+"/v1")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		typeText("a long one"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	const top = `document.querySelector('.thread').scrollTop`
	const button = `document.querySelector('.thread .jump-newest')`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.msg-streaming')?.textContent.includes('Line 60 ')`),
		waitJS(`(document.querySelector('.thread').scrollTop = -1200, true)`), waitJS(button+`.checkVisibility()`))
	do(t, ctx, 10*time.Second, chromedp.Click(`.thread .jump-newest`, chromedp.NodeVisible))
	// Still streaming a few seconds on, the thread shows its newest end.
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.msg-streaming')?.textContent.includes('Line 150 ')`))
	waitShowing(t, ctx, 5*time.Second, `!!document.querySelector('.msg-streaming') && `+top+` > -2`, top+` + ' away=' + document.querySelector('.thread').hasAttribute('data-away')`)
}
