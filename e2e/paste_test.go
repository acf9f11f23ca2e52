package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
)

// refsPaste is n references to the files of the workspace refsTree makes, each in a line's
// words: "see @r0/src/f1.go and ". The same paths recur, as in a pasted log or review.
func refsPaste(tree, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "see @r%d/src/f%d.go and ", tree, i%2)
	}
	return b.String()
}

// refsTree is a workspace with two files under each of trees folders (r0/src/f0.go…), so
// each paste can name files the page has never seen.
func refsTree(t testing.TB, trees int) *server {
	data := t.TempDir()
	files := map[string]string{}
	for k := range trees {
		for j := range 2 {
			files[fmt.Sprintf("r%d/src/f%d.go", k, j)] = "package src"
		}
	}
	testkit.WriteTree(t, data+"-workspace", files)
	return startServer(t, data, "127.0.0.1:0")
}

// pasteJS fires a paste of text into the composer (over its whole value) and returns how
// long the page's handler took, in ms.
func pasteJS(text string) string {
	return `(() => { const ta = document.querySelector('#composer-input'); ta.focus(); ta.select();
		const dt = new DataTransfer(); dt.setData('text/plain', ` + quote(text) + `);
		const t0 = performance.now();
		ta.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
		return performance.now() - t0 })()`
}

const chipCount = `document.querySelectorAll('#composer-backdrop .ib-chip').length`

// TestAPasteOfManyReferencesBecomesChips: 300 references to files the page has not seen
// become chips once the server has named them, every chip with its glyph in the textarea,
// and Ctrl+Z takes them back in one step, then the paste in one more. Before, each
// reference was a transaction of its own, each drawn: the tab froze, quadratically in the
// references (QA: 2,000 took minutes), and the undo ring's 100 steps held only the last
// upgrades, so no number of Ctrl+Z got back to before the paste.
func TestAPasteOfManyReferencesBecomesChips(t *testing.T) {
	t.Parallel()
	srv := refsTree(t, 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Focus(composer))
	text := refsPaste(0, 300)
	get(t, ctx, chromedp.Evaluate[float64](pasteJS(text)))
	do(t, ctx, 20*time.Second, waitJS(chipCount+` === 300`))
	withChips := strings.ReplaceAll(strings.ReplaceAll(text, "@r0/src/f0.go", chip), "@r0/src/f1.go", chip)
	do(t, ctx, 10*time.Second, waitDraft(withChips))
	require.False(t, evalBool(t, ctx, `document.querySelector('#composer-input').value.includes('\uFFFC')`), "every chip has its glyph in the textarea")
	require.Equal(t, "@r0/src/f1.go", chips(t, ctx)[299])

	do(t, ctx, 10*time.Second, undoKey, waitDraft(text))
	require.Empty(t, chips(t, ctx))
	do(t, ctx, 10*time.Second, undoKey, waitDraft(""))
}

// TestALongPasteShowsTheCaret: after a paste of many lines the box shows its end, where the
// caret is, as a browser's own paste does (QA round 21: it stayed at its top).
func TestALongPasteShowsTheCaret(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "")
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("line %d of the log", i))
	}
	get(t, ctx, chromedp.Evaluate[float64](pasteJS(strings.Join(lines, "\n"))))
	const ta = `document.querySelector('#composer-input')`
	waitShowing(t, ctx, 10*time.Second, ta+`.scrollHeight > `+ta+`.clientHeight && `+ta+`.scrollTop + `+ta+`.clientHeight >= `+ta+`.scrollHeight - 2`,
		`JSON.stringify({top: `+ta+`.scrollTop, client: `+ta+`.clientHeight, height: `+ta+`.scrollHeight, caret: `+ta+`.selectionEnd, length: `+ta+`.value.length})`)
}

// BenchmarkPasteReferences pastes n references into the composer, first as files the page
// has never seen (cold: the server names them, and the chips come in one transaction
// after), then the same text again (hot: the chips come with the paste). It reports how
// long the page was busy at most at once (the longest task), and the time until every
// chip is drawn. It asserts nothing about time. Run with -benchtime 1x:
//
//	make build && go test -run '^$' -bench PasteReferences -benchtime 1x ./e2e/
func BenchmarkPasteReferences(b *testing.B) {
	ns := []int{200, 1000, 2000}
	srv := refsTree(b, len(ns))
	ctx := browser(b)
	do(b, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Focus(composer))
	get(b, ctx, chromedp.Evaluate[bool](`(() => { window.parleyLong = [];
		new PerformanceObserver(l => { for (const e of l.getEntries()) window.parleyLong.push(e.duration) }).observe({type: 'longtask'});
		return true })()`))
	for k, n := range ns {
		text := refsPaste(k, n)
		for _, pass := range []string{"cold", "hot"} {
			get(b, ctx, chromedp.Evaluate[bool](`(window.parleyLong.length = 0, true)`))
			t0 := time.Now()
			handler := get(b, ctx, chromedp.Evaluate[float64](pasteJS(text)))
			do(b, ctx, 10*time.Minute, waitJS(chipCount+` === `+strconv.Itoa(n)))
			all := time.Since(t0)
			time.Sleep(300 * time.Millisecond) // the last task's entry
			longest := get(b, ctx, chromedp.Evaluate[float64](`Math.max(0, ...window.parleyLong)`))
			b.Logf("%d references, %s: the paste's handler %.0f ms, the longest task %.0f ms, every chip drawn after %v",
				n, pass, handler, longest, all.Round(time.Millisecond))
		}
	}
}
