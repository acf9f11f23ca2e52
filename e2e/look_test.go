package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The look of the thread and the page (docs/look.md), and what axe-core finds in it (below).

// TestEmptyPageOffersStarters: the empty page has no picker for its one workspace, and
// offers examples, /help and functions (no prompts: no model is configured); a starter sends.
func TestEmptyPageOffersStarters(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 20*time.Second, waitJS(`document.querySelectorAll('.starters .starter').length >= 3`))
	require.Equal(t, "0", evalString(t, ctx, `String(document.querySelectorAll('.workspaces [role=radio]').length)`))
	starters := evalString(t, ctx, `[...document.querySelectorAll('.starters .starter-label')].map(e => e.textContent).join('|')`)
	for _, want := range []string{"/example", "/help", "Run Greet someone"} {
		require.Contains(t, starters, want)
	}
	require.NotContains(t, starters, "What is in this workspace?", "no prompt starters without a model")
	require.NotEmpty(t, evalString(t, ctx, `document.querySelector('.hero-tag').textContent`))

	do(t, ctx, 20*time.Second, js(`document.querySelector('.starter[data-starter="/help"]').click()`),
		waitJS(`location.pathname.startsWith('/s/')`))
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "/help", msgs[0].Text)
	require.Contains(t, msgs[1].Text, "Commands:")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.starters')`), "starters belong to the empty page")
}

// TestDecisionCardWaitsThenStatesItsOutcome: while the composer holds a decision, its card is
// one line with no answers of its own, and Enter on it goes to the composer; answered, the
// card says the outcome in words, a form's as Title: value pairs.
func TestDecisionCardWaitsThenStatesItsOutcome(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, `/script ok = confirm('Ship it?'); v = ask('Deploy', {'type': 'object', 'properties': {'env': {'type': 'string', 'title': 'Environment', 'oneOf': [{'const': 'staging', 'title': 'Staging'}, {'const': 'prod', 'title': 'Production'}]}, 'replicas': {'type': 'integer', 'title': 'Replicas'}}}); send('done')`)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending') && !!document.querySelector('#composer-mode')`))
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread .entry-decision').length`))))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.entry-decision').textContent`), "Waiting for your answer below")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-decision button, .thread-inner .choice')`), "the card repeats none of the composer's answers")

	do(t, ctx, 10*time.Second, js(`document.querySelector('.entry-decision').focus()`), pressEnter(0),
		waitJS(`document.activeElement && document.activeElement.id === 'composer-mode'`))
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)),
		waitJS(`document.querySelectorAll('.thread .entry-decision').length === 2`))
	require.Equal(t, "Yes", evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`))

	// The form, answered over the API as another client would: the card says it in words.
	id := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending').dataset.decision`)
	_, err := apiClient(srv).Reply(context.Background(), sessionOf(t, ctx), id,
		protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`{"env":"staging","replicas":3}`)})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(`!document.querySelector('.entry-decision.status-pending')`))
	require.Equal(t, "Environment: Staging · Replicas: 3",
		evalString(t, ctx, `document.querySelectorAll('.entry-decision .entry-outcome')[1].textContent`))
}

// TestRunOutputIsShownOnce: what a script prints and then sends is shown once, in its run's
// card; the same words are not repeated as a message.
func TestRunOutputIsShownOnce(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, `/script print('Hello, Ada.'); send('Hello, Ada.')`)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('.entry-run.status-done') && !document.querySelector('.thread .working')`))
	shown := evalString(t, ctx, `[...document.querySelectorAll('.thread-inner .msg-agent, .thread-inner .entry-run')].map(e => e.innerText).join('\n')`)
	require.Equal(t, 1, strings.Count(shown, "Hello, Ada."), shown)
	require.Contains(t, evalString(t, ctx, `document.querySelector('.entry-run .entry-output').textContent`), "Hello, Ada.")
}

// TestScreenshots saves the look for review under bin/screenshots (make screenshots): the
// empty page, a thread with each kind of card, each composer mode, in light, dark and on a
// 390×844 phone. It runs only when PARLEY_SCREENSHOTS is set.
func TestScreenshots(t *testing.T) {
	t.Parallel()
	if os.Getenv("PARLEY_SCREENSHOTS") == "" {
		t.Skip("set PARLEY_SCREENSHOTS=1 (make screenshots)")
	}
	dir := filepath.Join(repoRoot, "bin", "screenshots")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, v := range []struct {
		name   string
		w, h   int64
		scheme string
	}{{"light", 1280, 860, "light"}, {"dark", 1280, 860, "dark"}, {"phone-light", 390, 844, "light"}, {"phone-dark", 390, 844, "dark"}} {
		t.Run(v.name, func(t *testing.T) {
			srv, ctx := openHome(t)
			shot := func(name string) {
				do(t, ctx, 5*time.Second, chromedp.Sleep(400*time.Millisecond)) // the morph's fade
				buf := get(t, ctx, chromedp.FullScreenshot(100))                // PNG
				require.NoError(t, os.WriteFile(filepath.Join(dir, v.name+"-"+name+".png"), buf, 0o644))
			}
			do(t, ctx, 20*time.Second, chromedp.EmulateViewport(v.w, v.h),
				colorScheme(v.scheme),
				waitJS(`document.querySelectorAll('.starters .starter').length >= 3`))
			shot("hero")
			// fn-form, from its starter.
			do(t, ctx, 20*time.Second, js(`document.querySelector('.starter[data-starter^="fn:"]').click()`), waitJS(`!!document.querySelector('#composer-mode')`))
			shot("mode-fnform")
			do(t, ctx, 10*time.Second, js(`document.querySelector('#composer-mode .close') && document.querySelector('#composer-mode .close').click()`),
				waitJS(`!document.querySelector('#composer-mode')`))
			do(t, ctx, 20*time.Second, typeText(`/script print('Hello, Ada.'); send('Hello, Ada.')`), pressEnter(0),
				waitJS(`location.pathname.startsWith('/s/') && !!document.querySelector('.entry-run.status-done')`))
			do(t, ctx, 20*time.Second, typeText(`/script ok = confirm('Deploy to staging now?')`), pressEnter(0),
				waitJS(`!!document.querySelector('#composer-mode')`))
			shot("mode-confirm")
			do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(`!document.querySelector('.entry-decision.status-pending')`))
			do(t, ctx, 20*time.Second, typeText(`/script r = run(['echo', 'hello']); send(r.error or r.stdout.strip())`), pressEnter(0),
				waitJS(`!!document.querySelector('#composer-mode .badge-approval')`))
			shot("mode-approval")
			do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), "use printf instead"),
				waitJS(`!document.querySelector('#composer-mode .send').disabled`), pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .send`)),
				waitJS(`!document.querySelector('.entry-decision.status-pending') && !document.querySelector('.thread .working')`))
			do(t, ctx, 20*time.Second, typeText(`/script v = ask('Every kind of field', {'type': 'object', 'properties': {'env': {'type': 'string', 'title': 'Environment', 'oneOf': [{'const': 'staging', 'title': 'Staging'}, {'const': 'prod', 'title': 'Production'}]}, 'replicas': {'type': 'integer', 'title': 'Replicas'}, 'note': {'type': 'string', 'title': 'Note'}}})`), pressEnter(0),
				waitJS(`!!document.querySelector('#composer-mode')`))
			shot("mode-form")
			shot2 := "thread"
			do(t, ctx, 10*time.Second, js(`document.querySelector('#composer-mode .chat-about').click()`), waitJS(`!document.querySelector('#composer-mode')`))
			shot(shot2)
			if v.w < 500 {
				do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)), waitJS(`document.querySelector('#sidebar').classList.contains('open')`))
				shot("drawer")
			}
			// The screens besides the chat: the queue (the form waits), its history, /mcp.
			do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
				waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry').length === 1`))
			shot("approvals")
			do(t, ctx, 10*time.Second, js(`document.querySelector('.tab-history').click()`), waitJS(`document.querySelectorAll('.history-entry').length >= 2`))
			shot("approvals-history")
			do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/mcp"), waitJS(`!!document.querySelector('.mcp-empty')`))
			shot("mcp")
		})
	}
}

// TestExampleArgumentCompletion: "/example " lists the examples' slugs with their
// descriptions; typing narrows the list, Tab puts the slug in place, and Enter runs it.
func TestExampleArgumentCompletion(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 20*time.Second, waitJS(`document.documentElement.hasAttribute('data-composer-live')`),
		typeText("/example "), menuOpen("git-status"), menuOpen("hello"))
	options := evalString(t, ctx, `[...document.querySelectorAll('#composer-menu [role=option]')].map(o => o.textContent).join('|')`)
	require.Contains(t, options, "Say hello", "each slug with its description")
	require.Equal(t, "Examples", evalString(t, ctx, `document.querySelector('#composer-menu .ib-group-name').textContent`))
	// A slug is read whole on one line ("ask-deploy", never "ask-" over "deploy"); its
	// description gives way.
	require.Equal(t, "", evalString(t, ctx, `[...document.querySelectorAll('#composer-menu .ib-option-label')].filter(l => l.getBoundingClientRect().height > parseFloat(getComputedStyle(l).fontSize) * 1.8 || l.scrollWidth > l.clientWidth).map(l => l.textContent).join('|')`))

	do(t, ctx, 10*time.Second, typeText("hel"),
		waitJS(`document.querySelectorAll('#composer-menu [role=option]').length === 1`), tab, waitDraft("/example hello "))
	do(t, ctx, 20*time.Second, pressEnter(0), waitJS(`!!document.querySelector('.entry-run.status-done')`))
	require.Equal(t, "Example hello", evalString(t, ctx, `document.querySelector('.entry-run .entry-title').textContent`))
}

// TestAnExampleTypedWholeRunsOnOneEnter: "/example hello" typed whole at a person's pace
// and one Enter runs it, as "/help" and Enter do (the Enter only completed the slug, and a
// second one sent it).
func TestAnExampleTypedWholeRunsOnOneEnter(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 20*time.Second, waitJS(`document.documentElement.hasAttribute('data-composer-live')`))
	typeAt(t, ctx, newRand(), "/example hello", typistsPace)
	do(t, ctx, 10*time.Second, menuOpen("hello"), pressEnter(0), waitJS(`!!document.querySelector('.entry-run.status-done')`))
	require.Equal(t, "Example hello", evalString(t, ctx, `document.querySelector('.entry-run .entry-title').textContent`))
	require.Equal(t, "", draft(t, ctx), "the draft went with it")
}

// TestRightToLeftTextIsLaidOutRightToLeft (QA round 12 #13): Arabic typed into the composer
// is laid out right to left, in the textarea and in the backdrop that draws it, and so is the
// message it becomes and the session's title; an English message beside it stays left to
// right. dir="auto" leaves the computed direction alone, so the test asks :dir().
func TestRightToLeftTextIsLaidOutRightToLeft(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	const arabic = "مرحبا بالعالم، كيف حالك؟ test 123"

	typeAt(t, ctx, newRand(), arabic, typingPaces[0])
	do(t, ctx, 10*time.Second, waitDraft(arabic))
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-input').matches(':dir(rtl)')`), "the textarea")
	require.True(t, evalBool(t, ctx, `document.querySelector('.ib-backdrop').matches(':dir(rtl)')`), "the backdrop, which draws the same text")
	// The two layers still line up: the drawn text ends at the textarea's right edge, where
	// its caret started.
	gap := evalString(t, ctx, `(() => {
		const ta = document.querySelector('#composer-input'), bd = document.querySelector('.ib-backdrop');
		const r = document.createRange(); r.selectNodeContents(bd.firstChild);
		const text = r.getBoundingClientRect(), box = ta.getBoundingClientRect();
		return String(Math.round(box.left + ta.clientLeft + ta.clientWidth - text.right));
	})()`)
	require.Contains(t, []string{"0", "1", "-1"}, gap, "the backdrop's text ends at the textarea's right edge")

	do(t, ctx, 10*time.Second, pressEnter(0))
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('.session-header h1').textContent.startsWith('مرحبا')`))
	require.True(t, evalBool(t, ctx, `document.querySelector('.thread .msg-user .msg-text').matches(':dir(rtl)')`), "the message")
	require.True(t, evalBool(t, ctx, `document.querySelector('.session-header h1').matches(':dir(rtl)')`), "the session's title")
	require.True(t, evalBool(t, ctx, `document.querySelector('.session-link[aria-current="page"] .session-title').matches(':dir(rtl)')`), "its title in the list")
	require.True(t, evalBool(t, ctx, `document.querySelector('.session-header').matches(':dir(ltr)')`), "the page's chrome stays left to right")
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-input').matches(':dir(ltr)')`), "the emptied textarea is left to right again")

	typeAt(t, ctx, newRand(), "hello there", typingPaces[0])
	do(t, ctx, 10*time.Second, waitDraft("hello there"))
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-input').matches(':dir(ltr)')`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "hello there", msgs[2].Text)
	dirs := evalString(t, ctx, `[...document.querySelectorAll('.thread .msg-user .msg-text')].map(e => e.matches(':dir(rtl)') ? 'rtl' : 'ltr').join(' ')`)
	require.Equal(t, "rtl ltr", dirs, "each message by its own words")
}

// TestPagesLookLikeTheApp: /approvals and /mcp use the app's controls, not the browser's:
// selects drawn by the stylesheet, links without underlines until pointed at, "Back to the
// chat" above the page's title; and the controls row names each control. axe finds nothing.
func TestPagesLookLikeTheApp(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, `/script confirm('Ship it?')`)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('#composer-mode .choice')`), clickJS(`#composer-mode .choice`),
		waitJS(`!document.querySelector('.entry-decision.status-pending')`))
	row := evalString(t, ctx, `document.querySelector('.composer-controls-row').innerText.replace(/\s+/g, ' ')`)
	for _, want := range []string{"Permission mode", "Model", "offline", "Language"} {
		require.Contains(t, row, want)
	}
	require.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('#permission-mode')).appearance`))
	noViolations(t, ctx, "a thread with the controls row")

	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.queue-empty')`),
		clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 1`))
	require.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('.filter-session')).appearance`))
	require.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('.history-entry .queue-thread')).textDecorationLine`))
	require.NotEqual(t, "rgba(0, 0, 0, 0)", evalString(t, ctx, `getComputedStyle(document.querySelector('.history-entry')).backgroundColor`))
	noViolations(t, ctx, "the approvals history")
	for _, scheme := range []string{"light", "dark"} {
		do(t, ctx, 10*time.Second, colorScheme(scheme))
		noViolations(t, ctx, "the approvals history, "+scheme)
	}

	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/mcp"), waitJS(`!!document.querySelector('.mcp-empty')`))
	// One page header (docs/look.md): /mcp opens with the bar /approvals opens with, at the same
	// place, in the same title size; Back to the chat is the row under it.
	header := func(path string) string {
		do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+path), waitJS(`!!document.querySelector('main .page-header h1')`))
		return evalString(t, ctx, `(h => { const r = h.getBoundingClientRect(), t = getComputedStyle(h.querySelector('h1'));
			return [Math.round(r.top), Math.round(r.height), Math.round(h.querySelector('h1').getBoundingClientRect().left), t.fontSize, t.fontWeight, getComputedStyle(h).borderBottomWidth].join() })(document.querySelector('main .page-header'))`)
	}
	require.Equal(t, header("/approvals"), header("/mcp"), "the two pages' headers: top, height, title's left, size, weight, line")
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.mcp-empty')`))
	require.True(t, evalBool(t, ctx, `(b => b.getBoundingClientRect().top >= document.querySelector('.page-header').getBoundingClientRect().bottom)(document.querySelector('.back-link'))`),
		"Back to the chat sits under the header")
	require.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('.back-link')).textDecorationLine`))
	noViolations(t, ctx, "/mcp")
}

// TestOneFocusRingAndOneLanguagePick: the fn-form's function picker shows its whole focus
// ring (its scrolling header clipped it to two brackets), and the language pick on /approvals
// and /mcp is the styled one of the other pages, not the browser's own (QA round 6).
func TestOneFocusRingAndOneLanguagePick(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "")
	do(t, ctx, 20*time.Second, waitJS(`document.documentElement.hasAttribute('data-composer-live') && !!document.querySelector('.starter')`))
	do(t, ctx, 10*time.Second, js(`document.querySelector('.control-button:not(.model-button)').click()`),
		waitJS(`document.activeElement?.id === 'fn-pick'`))
	// The ring is 2 px wide, 2 px out: all of it lies inside the box that clips the header.
	ring := `(p => { const r = p.getBoundingClientRect(), c = p.closest('.morph-header-main').getBoundingClientRect();
		return [r.top - 4 - c.top, c.bottom - r.bottom - 4, r.left - 4 - c.left].every(d => d >= -0.5) })(document.querySelector('#fn-pick'))`
	require.True(t, evalBool(t, ctx, ring), "the picker's ring is not clipped: %s",
		evalString(t, ctx, `JSON.stringify([document.querySelector('#fn-pick').getBoundingClientRect(), document.querySelector('.morph-header-main').getBoundingClientRect()])`))
	styled := `(s => s.appearance + ' ' + s.backgroundColor)(getComputedStyle(document.querySelector('.locale-pick')))`
	want := evalString(t, ctx, styled)
	require.Contains(t, want, "none", "the chat's language pick is the styled one")
	for _, page := range []string{"/approvals", "/mcp"} {
		do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+page),
			waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.locale-pick')`))
		require.Equal(t, want, evalString(t, ctx, styled), page)
	}
}

// TestMCPPageHasTheFrame: /mcp shows the sidebar with the sessions and the count of waiting
// decisions, and on a phone its drawer opens over a dimmed backdrop that closes it, as
// /approvals does.
func TestMCPPageHasTheFrame(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Waits", `/script confirm('Ship it?')`)
	waitQueue(t, srv, 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Navigate(srv.base()+"/mcp"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.mcp-page')`),
		waitJS(`!!document.querySelector('#sidebar .session-item[data-session="`+s+`"]') && document.querySelector('#sidebar .pending-count')?.textContent === '1'`))
	require.True(t, evalBool(t, ctx, `document.querySelector('#sidebar').getBoundingClientRect().right <= document.querySelector('.mcp-page').getBoundingClientRect().left + 0.5`), "the sidebar is beside the page")

	for _, page := range []string{"/mcp", "/approvals"} {
		phone := browser(t)
		do(t, phone, 60*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), chromedp.Navigate(srv.link), waitReady(),
			chromedp.Navigate(srv.base()+page), waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('main')`))
		require.False(t, evalBool(t, phone, `(r => r.width > 0)(document.querySelector('#sidebar').getBoundingClientRect())`), page+": the drawer starts closed")
		do(t, phone, 20*time.Second, clickJS(`.menu-toggle`))
		waitShowing(t, phone, 20*time.Second, `document.querySelector('#sidebar').classList.contains('open') && !!document.querySelector('#sidebar .session-item[data-session="`+s+`"]')`,
			`'`+page+` ' + document.querySelector('#sidebar').outerHTML.slice(0, 1500)`)
		do(t, phone, 20*time.Second,
			waitJS(`document.querySelector('.drawer-backdrop').classList.contains('open') && getComputedStyle(document.querySelector('.drawer-backdrop')).display !== 'none'`))
		// The toggle and the page's title do not overlap.
		require.True(t, evalBool(t, phone, `(a => { const t = document.querySelector('main h1').getBoundingClientRect(); return a.right <= t.left + 0.5 || a.bottom <= t.top + 0.5 })(document.querySelector('.menu-toggle').getBoundingClientRect())`), page+": the toggle covers the title")
		do(t, phone, 20*time.Second, clickJS(`.drawer-backdrop`),
			waitJS(`!document.querySelector('#sidebar').classList.contains('open') && document.activeElement?.classList.contains('menu-toggle')`))
	}
}

// Accessibility: axe-core (npm, pinned in the Makefile's axe target, installed into bin/npm)
// runs on every state a person meets, and each must have no violation at all.

var (
	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

// axeScript is axe.min.js, read once.
func axeScript(t *testing.T) string {
	t.Helper()
	axeOnce.Do(func() {
		var b []byte
		b, axeErr = os.ReadFile(filepath.Join(repoRoot, "bin", "npm", "node_modules", "axe-core", "axe.min.js"))
		axeSource = string(b)
	})
	if axeErr != nil {
		t.Fatalf("axe-core is missing: run `make axe` (make test does it): %v", axeErr)
	}
	return axeSource
}

type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeRun injects axe-core into the page (once per document) and runs every rule on it, once
// no fade runs (animationsDone: a bar fading back in after a decision read 3.9:1 in CI).
func axeRun(t *testing.T, ctx context.Context) []axeViolation {
	t.Helper()
	do(t, ctx, 10*time.Second, animationsDone())
	if !evalBool(t, ctx, `typeof window.axe === 'object'`) {
		do(t, ctx, 20*time.Second, js(axeScript(t)+"; true"))
	}
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	raw, err := chromedp.Run(tctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations.map(v => ({
		id: v.id, impact: v.impact, help: v.help,
		nodes: v.nodes.map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '').replace(/\s+/g, ' '))}))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe.run: %v", err)
	}
	var out []axeViolation
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("axe's answer: %v", err)
	}
	return out
}

// noViolations runs axe on the page and fails for each violation, naming the state.
func noViolations(t *testing.T, ctx context.Context, state string) {
	t.Helper()
	for _, v := range axeRun(t, ctx) {
		t.Errorf("%s: %s (%s): %s\n\t%s", state, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
}

// animationsDone waits for the morph's 160 ms fade: axe reads the colours as drawn, and a
// half-faded element has half its contrast.
func animationsDone() chromedp.Action[chromedp.Void] {
	return waitJS(`document.getAnimations().every(a => a.playState !== 'running' || a.effect.getTiming().iterations === Infinity)`)
}

// TestAccessibility walks the states a person meets, in both themes and on a phone, and axe
// finds nothing in any of them.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name          string
		scheme        string
		width, height int64
	}{
		{"light", "light", 1200, 900},
		{"dark", "dark", 1200, 900},
		{"phone", "light", 390, 844},
		{"phone dark", "dark", 390, 844},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, t.TempDir(), "127.0.0.1:0")
			ctx := browser(t)
			do(t, ctx, 60*time.Second, colorScheme(tt.scheme), chromedp.EmulateViewport(tt.width, tt.height),
				chromedp.Navigate(srv.link), waitReady(), animationsDone())
			noViolations(t, ctx, "the hero")

			do(t, ctx, 20*time.Second, typeText("hello"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
			waitMessages(t, ctx, 2)
			do(t, ctx, 10*time.Second, animationsDone())
			noViolations(t, ctx, "idle")

			// A thread long enough to scroll, in every mode below.
			long := seedSession(t, srv, "long", 20)
			do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+long), waitReady())
			waitMessages(t, ctx, 40)
			do(t, ctx, 10*time.Second, waitJS(`(t => t.scrollHeight > t.clientHeight)(document.querySelector('.thread'))`), animationsDone())
			noViolations(t, ctx, "idle, a long thread")

			do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.composer-controls-row .control-button`)), waitJS(modeShown), animationsDone())
			noViolations(t, ctx, "the fn-form")
			do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .square.close`)), waitJS(modeGone))

			session := sessionOf(t, ctx)
			sendAPI(t, srv, session, `/script confirm('Deploy now?')`)
			do(t, ctx, 20*time.Second, waitJS(modeShown), waitJS(focusIn), animationsDone())
			noViolations(t, ctx, "a question")
			do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))

			sendAPI(t, srv, session, echoScript)
			do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval')`), waitJS(focusIn), animationsDone())
			noViolations(t, ctx, "an approval")
			do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))

			// Landing as the approval is answered, the form takes the focus at once (a chain:
			// docs/composer.md), and its Enter is guarded for its first 400 ms.
			sendAPI(t, srv, session, ratedForm)
			do(t, ctx, 20*time.Second, waitJS(modeShown), waitJS(focusIn), pastGuard(), chromedp.KeyEvent("9"), pressEnter(0),
				waitJS(`!!document.querySelector('#composer-mode .field-error')`), animationsDone())
			noViolations(t, ctx, "a form of several questions, one in error")

			do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .chat-about`)), waitJS(modeGone), animationsDone())
			noViolations(t, ctx, "a decision set aside")
		})
	}
}

// TestPhoneTargets: at 390×844 every target the issue measured is at least 44 px each way,
// the header is one row, "Chat about this" does not wrap, and the hint does not speak of
// Shift+Enter on a touch keyboard.
func TestPhoneTargets(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), chromedp.Navigate(srv.link), waitReady())
	// A touch keyboard's return breaks the line; Send sends.
	do(t, ctx, 20*time.Second, typeText("hello"), pressEnter(0), waitDraft("hello\n"), tapSend(), waitJS(`location.pathname.startsWith('/s/')`))
	waitMessages(t, ctx, 2)
	size := func(sel string) string {
		return evalString(t, ctx, `(e => e ? Math.round(e.getBoundingClientRect().width) + 'x' + Math.round(e.getBoundingClientRect().height) : 'none')(document.querySelector('`+sel+`'))`)
	}
	atLeast44 := func(name, sel string) {
		t.Helper()
		ok := evalBool(t, ctx, `(e => !!e && e.getBoundingClientRect().width >= 44 && e.getBoundingClientRect().height >= 44)(document.querySelector('`+sel+`'))`)
		require.True(t, ok, "%s is %s", name, size(sel))
	}
	atLeast44("Sessions", ".menu-toggle")
	atLeast44("Send", ".inputbar .send")
	atLeast44("ƒ Functions", ".composer-controls-row .control-button")
	require.True(t, evalBool(t, ctx, `(a => { const b = document.querySelector('.session-header').getBoundingClientRect(); return Math.abs(a.top - b.top) < b.height && a.bottom <= b.bottom + 1 })(document.querySelector('.menu-toggle').getBoundingClientRect())`),
		"the Sessions toggle sits in the header's row: %s, header %s", size(".menu-toggle"), size(".session-header"))
	hint := evalString(t, ctx, `document.querySelector('.composer-hint').textContent`)
	require.NotContains(t, hint, "Shift+Enter", "a touch keyboard")

	// The `@` menu's options are finger targets too (they were 31 px tall).
	seedSession(t, srv, "other notes", 1)
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("@oth"), menuOpen("@other notes"))
	require.True(t, evalBool(t, ctx, `[...document.querySelectorAll('#composer-menu [role=option]')].every(o => o.getBoundingClientRect().height >= 44)`),
		"the menu's rows are %s px tall", evalString(t, ctx, `[...document.querySelectorAll('#composer-menu [role=option]')].map(o => o.getBoundingClientRect().height).join()`))
	clearDraft(t, ctx)

	sendAPI(t, srv, sessionOf(t, ctx), threeQuestions)
	do(t, ctx, 20*time.Second, waitJS(modeShown))
	atLeast44("a question chip", "#composer-mode .chip")
	atLeast44("Chat about this", "#composer-mode .chat-about")
	require.True(t, evalBool(t, ctx, `(e => e.getClientRects().length === 1 && e.scrollHeight <= 48)(document.querySelector('#composer-mode .chat-about'))`),
		"Chat about this is one line: %s", size("#composer-mode .chat-about"))
}

// TestTouchHidesKeyboardHints: on a phone (a touch device, 390 px wide) an approval's buttons
// show no keyboard hints such as Ctrl+Enter; the same page with a mouse shows them.
func TestTouchHidesKeyboardHints(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), chromedp.Navigate(srv.link), waitReady(),
		waitJS(`matchMedia('(hover: none) and (pointer: coarse)').matches`))
	do(t, ctx, 20*time.Second, typeText(echoScript), tapSend(), waitJS(`location.pathname.startsWith('/s/')`))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval')`),
		waitJS(`document.querySelectorAll('#composer-mode .key-hint').length > 0`))
	visible := `[...document.querySelectorAll('#composer-mode .key-hint')].filter(k => k.checkVisibility()).map(k => k.textContent)`
	require.Equal(t, "", evalString(t, ctx, visible+`.join(' ')`), "no keyboard hints on a touch device")
	require.True(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode [aria-keyshortcuts]')`), "the chords are still named for a keyboard")
	// A mouse and a keyboard: the hints are back.
	do(t, ctx, 20*time.Second, touchScreen(false), waitJS(`!matchMedia('(pointer: coarse)').matches`),
		waitJS(visible+`.some(s => s.includes('Enter'))`))
}
