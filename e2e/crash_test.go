package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestAStoppedProgramSaysSoAndReloads: when the page's Go program ends (a panic in a handler
// ends it; here the test ends it as the runtime's exit does), the page stops pretending to
// be alive: an alert says what happened and its Reload, which has the focus, brings the app
// back.
func TestAStoppedProgramSaysSoAndReloads(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	require.False(t, evalBool(t, ctx, `!!document.getElementById('crash-banner')`), "no alert while the program runs")
	require.True(t, evalBool(t, ctx, `!!window.parleyGo && !window.parleyGo.exited`), "the running program is watched")

	// What wasm_exec.js does when the program exits: resolve run's promise.
	evalBool(t, ctx, `window.parleyGo.exited = true, window.parleyGo._resolveExitPromise(), true`)
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#crash-banner[role=alert] button')`))
	require.Contains(t, evalString(t, ctx, `document.getElementById('crash-banner').textContent`), "stopped responding")
	require.True(t, evalBool(t, ctx, `document.activeElement === document.querySelector('#crash-banner button')`), "Reload has the focus")

	do(t, ctx, 60*time.Second,
		chromedp.Click(chromedp.CSS(`#crash-banner button`)),
		waitJS(`!document.getElementById('crash-banner')`),
		waitReady())
	require.True(t, evalBool(t, ctx, `!!window.parleyGo && !window.parleyGo.exited`), "a new program runs")
}
