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
)

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

			sendAPI(t, srv, session, ratedForm)
			do(t, ctx, 20*time.Second, waitJS(modeShown), waitJS(focusIn), chromedp.KeyEvent("9"), pressEnter(0),
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
