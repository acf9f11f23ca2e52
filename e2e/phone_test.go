package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// phone emulates a 390×844 touch phone (CSS pixels), with the given safe-area insets.
func phone(t *testing.T, ctx context.Context, height int64) {
	t.Helper()
	_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 390, Height: height, DeviceScaleFactor: 3, Mobile: true})
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, touchScreen(true))
	require.NoError(t, err)
}

// smallTargets lists the visible controls of the page smaller than 44×44 CSS pixels.
const smallTargets = `[...document.querySelectorAll('.layout button, .layout a[href], .layout select, .layout [role=button], .layout [role=radio], .layout [role=tab], .layout [role=option]')]
	.filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden' })
	.filter(e => { const r = e.getBoundingClientRect(); return r.width < 44 || r.height < 44 })
	.map(e => { const r = e.getBoundingClientRect(); return e.tagName + '.' + e.className + ' "' + (e.innerText || e.getAttribute('aria-label') || '').slice(0, 30) + '" ' + Math.round(r.width) + 'x' + Math.round(r.height) })`

// composerFits says the composer's input is inside the viewport, whole.
const composerFits = `(() => { const r = document.querySelector('.composer').getBoundingClientRect();
	return r.top >= 0 && r.bottom <= innerHeight + 0.5 })()`

// composerAboveKeyboard says the composer's bottom, where its input and Send are, is above
// the keyboard: a mode taller than the space left scrolls under the header, never under the
// keyboard.
const composerAboveKeyboard = `(() => { const r = document.querySelector('.composer').getBoundingClientRect();
	return r.bottom <= innerHeight + 0.5 && r.bottom > 0 })()`

// TestPhoneLayout: at 390×844 with touch, the thread and the composer in its idle, question
// and approval modes fit the width, every control is at least 44 px, the composer stays
// above the on-screen keyboard (the page shrinks to the space left) and clear of the
// safe-area insets.
func TestPhoneLayout(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "Phone", 2)
	ctx := browser(t)
	phone(t, ctx, 844)
	bottom, top := int64(34), int64(47)
	_, err := chromedp.Call(ctx, emulation.SetSafeAreaInsetsOverride, emulation.SetSafeAreaInsetsOverrideParams{
		Insets: &emulation.SafeAreaInsets{Top: &top, Bottom: &bottom}})
	require.NoError(t, err)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/s/"+id), waitReady(), waitJS(`!!document.querySelector('.link-live')`))

	check := func(mode string) {
		t.Helper()
		assert.LessOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)), 390.0, "%s: no sideways scrolling", mode)
		assert.Empty(t, get(t, ctx, chromedp.Evaluate[[]string](smallTargets)), "%s: targets under 44 px", mode)
		assert.True(t, evalBool(t, ctx, composerFits), "%s: the composer is on screen", mode)
	}
	check("idle")
	assert.GreaterOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](`parseFloat(getComputedStyle(document.querySelector('.composer')).paddingBottom)`)), 34.0, "clear of the bottom inset")
	assert.GreaterOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](`document.querySelector('.menu-toggle').getBoundingClientRect().top`)), 47.0, "the Sessions toggle is clear of the top inset")

	// The session list opens over the thread with thumb-sized entries.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)), waitJS(`document.querySelector('.sidebar.open') !== null`))
	check("session list")
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)), waitJS(`document.querySelector('.sidebar.open') === null`))

	// The on-screen keyboard: with interactive-widget=resizes-content the page is resized
	// to the space above it, and the composer follows.
	do(t, ctx, 10*time.Second, chromedp.Click(composer), typeText("typing on a phone"))
	phone(t, ctx, 480)
	do(t, ctx, 10*time.Second, waitJS(`innerHeight === 480`), waitJS(composerFits))
	assert.Equal(t, "typing on a phone", evalString(t, ctx, `document.querySelector('#composer-input').value`))
	phone(t, ctx, 844)

	// The question mode.
	sendAPI(t, srv, id, `/script confirm('Fine on a phone?')`)
	do(t, ctx, 20*time.Second, waitJS(`document.querySelector('.composer').innerText.includes('Fine on a phone?')`))
	check("question")
	declineOnly(t, srv, id)

	// The approval mode.
	sendAPI(t, srv, id, `/script run(['echo', 'from a phone'])`)
	do(t, ctx, 20*time.Second, waitJS(`document.querySelector('.composer').innerText.includes('echo')`))
	check("approval")
	phone(t, ctx, 480)
	do(t, ctx, 10*time.Second, waitJS(`innerHeight === 480`), waitJS(composerAboveKeyboard))
}
