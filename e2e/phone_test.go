package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/internal/testkit/mcpserver"
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
		require.LessOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)), 390.0, "%s: no sideways scrolling", mode)
		require.Empty(t, get(t, ctx, chromedp.Evaluate[[]string](smallTargets)), "%s: targets under 44 px", mode)
		require.True(t, evalBool(t, ctx, composerFits), "%s: the composer is on screen", mode)
	}
	check("idle")
	require.GreaterOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](`parseFloat(getComputedStyle(document.querySelector('.composer')).paddingBottom)`)), 34.0, "clear of the bottom inset")
	require.GreaterOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](`document.querySelector('.menu-toggle').getBoundingClientRect().top`)), 47.0, "the Sessions toggle is clear of the top inset")

	// The session list opens over the thread with thumb-sized entries.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)), waitJS(`document.querySelector('.sidebar.open') !== null`))
	check("session list")
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)), waitJS(`document.querySelector('.sidebar.open') === null`))

	// The on-screen keyboard: with interactive-widget=resizes-content the page is resized
	// to the space above it, and the composer follows.
	do(t, ctx, 10*time.Second, chromedp.Click(composer), typeText("typing on a phone"))
	phone(t, ctx, 480)
	do(t, ctx, 10*time.Second, waitJS(`innerHeight === 480`), waitJS(composerFits))
	require.Equal(t, "typing on a phone", evalString(t, ctx, `document.querySelector('#composer-input').value`))
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

// The layout pass of QA round 12 (docs/qa-round12.md, "Fixed by the layout pass").

// TestKeyHintsReadableAndPickedRejectInDanger (#16, #18): the key hints on an approval's
// buttons read at 4.5:1 or more in both themes, a hint sits on its label's line (a button
// that gives its hint away keeps no empty band), and a batch's picked Reject is ringed in
// the danger colour, not the accent; the focused words field and Send are in the card's view.
func TestKeyHintsReadableAndPickedRejectInDanger(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, echoScript, waitJS(`!!document.querySelector('#composer-mode.mode-approval .key-hint')`))
	id := sessionOf(t, ctx)
	hints := `[...document.querySelectorAll('#composer-mode .key-hint')].filter(k => k.checkVisibility())`
	for _, scheme := range []string{"light", "dark"} {
		do(t, ctx, 10*time.Second, colorScheme(scheme), chromedp.Sleep(100*time.Millisecond))
		// contrastJS (chat_test.go) measures an element its selector names.
		low := evalString(t, ctx, `(() => { const ratio = `+contrastJS+`;
			return `+hints+`.map((k, i) => { k.dataset.hintCheck = i; return k.textContent + ' ' + ratio('[data-hint-check="' + i + '"]').toFixed(2) })
				.filter(s => parseFloat(s.split(' ').pop()) < 4.5).join('|') })()`)
		require.Empty(t, low, "%s: hints under 4.5:1", scheme)
		// Each hint on its label's line.
		off := evalString(t, ctx, hints+`.filter(k => { const l = k.parentElement.firstElementChild.getBoundingClientRect(), r = k.getBoundingClientRect();
			return r.top >= l.bottom || r.bottom <= l.top }).map(k => k.textContent).join('|')`)
		require.Empty(t, off, "%s: a hint on a line of its own", scheme)
	}
	do(t, ctx, 10*time.Second, colorScheme("light"), clickJS(`#composer-mode .choice.tone-affirm`), waitJS(`!document.querySelector('#composer-mode')`))

	sendAPI(t, srv, id, `/script rs = run_batch([['echo', 'one'], ['echo', 'two'], ['echo', 'three']]); send('done')`)
	do(t, ctx, 20*time.Second, waitJS(`document.querySelectorAll('#composer-mode .batch-item').length === 3`),
		waitJS(`document.activeElement.id === 'approval-instruction'`))
	inView := `(() => { const body = document.querySelector('#composer-mode .morph-body').getBoundingClientRect();
		return [document.querySelector('#approval-instruction'), document.querySelector('#composer-mode .morph-actions .send')]
			.every(e => { const r = e.getBoundingClientRect(); return r.top >= body.top - 0.5 && r.bottom <= body.bottom + 0.5 }) })()`
	do(t, ctx, 10*time.Second, waitJS(inView))
	do(t, ctx, 10*time.Second, clickJS(`#composer-mode .batch-item[data-item="1"] .tone-deny`),
		waitJS(`document.querySelector('#composer-mode .batch-item[data-item="1"] .tone-deny').getAttribute('aria-pressed') === 'true'`))
	border := evalString(t, ctx, `getComputedStyle(document.querySelector('#composer-mode .batch-item[data-item="1"] .tone-deny')).borderTopColor`)
	danger := evalString(t, ctx, `(() => { const s = document.createElement('span'); s.style.color = 'var(--danger)'; document.body.append(s); const c = getComputedStyle(s).color; s.remove(); return c })()`)
	require.Equal(t, danger, border, "a picked Reject is drawn in the danger colour")
	// Focused again after the scroll moved: both back in view.
	do(t, ctx, 10*time.Second, js(`document.querySelector('#composer-mode .morph-body').scrollTop = 0, document.querySelector('#approval-instruction').blur(), document.querySelector('#approval-instruction').focus()`),
		waitJS(inView))
}

// TestPhoneLayoutRound12 (#12): on a 390×844 touch phone the approval's header is one row,
// the history's Session filter fits the screen, a queue entry's meta line keeps its text's
// line height, and a drawer row is one row with its Rename and Archive, each 44 px.
func TestPhoneLayoutRound12(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	long := seedSession(t, srv, "A rather long session title about the garden plan and its watering schedule for the summer", 1)
	seedSession(t, srv, "short one", 1)
	ctx := browser(t)
	phone(t, ctx, 844)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Navigate(srv.base()+"/s/"+long), waitReady())
	sendAPI(t, srv, long, echoScript)
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval .chat-about')`))
	require.True(t, evalBool(t, ctx, `(() => { const b = document.querySelector('#composer-mode .badge').getBoundingClientRect(), c = document.querySelector('#composer-mode .chat-about').getBoundingClientRect();
		return c.top < b.bottom && c.bottom > b.top })()`), "Chat about this beside the badge")

	// The drawer: a row is as tall as its link, its actions beside it.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)), waitJS(`document.querySelector('#sidebar').classList.contains('open') && document.querySelectorAll('.sessions .session-item').length === 2`))
	rows := evalString(t, ctx, `[...document.querySelectorAll('.sessions .session-item')].map(li => {
		const l = li.querySelector('.session-link').getBoundingClientRect(), ops = [...li.querySelectorAll('.session-op')].map(b => b.getBoundingClientRect());
		return Math.round(li.getBoundingClientRect().height - l.height) + ':' + ops.map(o => (o.width >= 44 && o.height >= 44 && o.top >= l.top - 1 && o.bottom <= l.bottom + 1) ? 'ok' : 'bad').join(',') }).join(' ')`)
	require.Equal(t, "0:ok,ok 0:ok,ok", rows, "each row: no second line, both actions 44 px on it")
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.menu-toggle`)), waitJS(`!document.querySelector('#sidebar').classList.contains('open')`))

	// /approvals: the queue entry's meta line, then the history's filter.
	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry').length === 1`))
	lines := evalString(t, ctx, `(() => { const w = document.querySelector('.queue-entry .queue-where'), r = document.createRange(); r.selectNodeContents(w);
		const tops = [...new Set([...r.getClientRects()].map(x => Math.round(x.top)))].sort((a, b) => a - b);
		return JSON.stringify({lines: tops.length, gap: tops.length > 1 ? tops[tops.length - 1] - tops[tops.length - 2] : 0, lh: parseFloat(getComputedStyle(w).fontSize) * 1.7}) })()`)
	t.Logf("the meta line: %s", lines)
	require.True(t, evalBool(t, ctx, `(() => { const w = document.querySelector('.queue-entry .queue-where'), r = document.createRange(); r.selectNodeContents(w);
		const tops = [...new Set([...r.getClientRects()].map(x => Math.round(x.top)))].sort((a, b) => a - b);
		return tops.every((t, i) => i === 0 || t - tops[i - 1] <= parseFloat(getComputedStyle(w).fontSize) * 1.7) })()`), "the meta line's lines a text line apart: %s", lines)
	declineOnly(t, srv, long)
	do(t, ctx, 20*time.Second, js(`document.querySelector('.tab-history').click()`), waitJS(`document.querySelectorAll('.history-entry').length >= 1`),
		waitJS(`document.querySelectorAll('.filter-session option').length >= 2`))
	right := get(t, ctx, chromedp.Evaluate[float64](`Math.max(...[...document.querySelectorAll('.history-filters select')].map(s => s.getBoundingClientRect().right))`))
	require.Positive(t, right)
	require.LessOrEqual(t, right, 390.0-8, "the filters fit the screen: right edge at "+strconv.FormatFloat(right, 'f', 0, 64))
	require.LessOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`)), 390.0, "no sideways scrolling")
}

// TestPhoneHeaderIsOpaque: on a phone the header row has a background of its own, so the
// thread never shows through it.
func TestPhoneHeaderIsOpaque(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "long", 12)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(390, 844), chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/s/"+id), waitReady())
	waitMessages(t, ctx, 24)
	bg := evalString(t, ctx, `getComputedStyle(document.querySelector('.session-header')).backgroundColor`)
	require.NotEqual(t, "rgba(0, 0, 0, 0)", bg, "the header is transparent")
	// Whatever sits under the header's middle is the header (or the toggle), not a message.
	require.True(t, evalBool(t, ctx, `(h => { const r = h.getBoundingClientRect(); const e = document.elementFromPoint(r.x + r.width - 20, r.y + r.height / 2); return h.contains(e) || !!e.closest('.mobile-bar') })(document.querySelector('.session-header'))`))
}

// TestPhoneStartersAndApprovalsHeader: on a 390 px touch phone, a starter's label wraps
// between its words, never inside a slug at its hyphen ("/example ask-" over "deploy"); the
// approvals screen shows its whole title beside the language pick ("Appro…") and no keyboard
// help a touch screen cannot use (QA round 6).
func TestPhoneStartersAndApprovalsHeader(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), chromedp.Navigate(srv.link), waitReady(),
		waitJS(`[...document.querySelectorAll('.starter-word')].some(w => w.textContent.includes('-'))`))
	require.Equal(t, "", evalString(t, ctx, `[...document.querySelectorAll('.starter-word')].filter(w => w.getClientRects().length > 1).map(w => w.textContent).join('|')`),
		"no word of a starter is broken over two lines")

	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page h1')`))
	require.True(t, evalBool(t, ctx, `(h => h.scrollWidth <= h.clientWidth)(document.querySelector('.approvals-page h1'))`), "the title is whole")
	require.True(t, evalBool(t, ctx, `[...document.querySelectorAll('.keys-help')].every(p => !p.checkVisibility())`), "no keyboard help on a touch screen")
}

// TestPhoneApprovalsAndMCPTargets: on a 390×844 touch phone, the approvals screen (a
// confirm's Yes and No, an approval's options, the session's link, the Language picker) and
// the MCP screen (Back, Reconnect) are 44 px targets, as the composer's are (QA round 7).
func TestPhoneApprovalsAndMCPTargets(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"test": mcpserver.Self(t, "stdio")}})
	require.NoError(t, err)
	testkit.WriteTree(t, dataWorkspace(t, data), map[string]string{".parley/mcp.json": string(b)})
	srv := startServer(t, data, "127.0.0.1:0")
	a, c := newSession(t, srv, "Alpha", ""), newSession(t, srv, "Beta", "")
	sendTo(t, srv, a, `/script confirm('Ship it?')`)
	sendTo(t, srv, c, `/script run(['ls', '-la'])`)
	waitQueue(t, srv, 2)
	ctx := browser(t)
	phone(t, ctx, 844)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"), waitJS(`document.querySelectorAll('.queue-entry .choice').length >= 4`))
	require.Empty(t, get(t, ctx, chromedp.Evaluate[[]string](smallTargets)), "/approvals: targets under 44 px")
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/mcp"), waitJS(`!!document.querySelector('.mcp-server .mcp-reconnect')`))
	require.Empty(t, get(t, ctx, chromedp.Evaluate[[]string](smallTargets)), "/mcp: targets under 44 px")
}

// TestPhoneApprovalsHeaderHasRoom: on a 390×844 phone, /approvals' header holds the Sessions
// toggle, the title and the language picker in one row, none touching another, and the picker
// clear of the screen's edge (QA round 7).
func TestPhoneApprovalsHeaderHasRoom(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	phone(t, ctx, 844)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"), waitJS(`!!document.querySelector('.approvals-page .session-header .locale-pick') && !!document.querySelector('.queue-empty')`))
	type headerBoxes struct {
		Toggle, Title, Picker, Header [4]float64 // left, top, right, bottom
		Width                         float64
	}
	r := get(t, ctx, chromedp.Evaluate[headerBoxes](`(() => {
		const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom] };
		const h = document.querySelector('.approvals-page > .session-header');
		return {Toggle: box(document.querySelector('.mobile-bar button, .mobile-bar a')), Title: box(h.querySelector('h1')),
			Picker: box(h.querySelector('.locale-field')), Header: box(h), Width: document.documentElement.clientWidth} })()`))
	t.Logf("boxes: %+v", r)
	const gap = 8
	require.GreaterOrEqual(t, r.Title[0]-r.Toggle[2], float64(gap), "the title clear of the Sessions toggle: %+v", r)
	require.GreaterOrEqual(t, r.Picker[0]-r.Title[2], float64(2*gap), "the picker clear of the title: %+v", r)
	require.GreaterOrEqual(t, r.Width-r.Picker[2], float64(gap), "the picker clear of the screen's edge: %+v", r)
	require.LessOrEqual(t, r.Picker[3]-r.Picker[1], r.Header[3]-r.Header[1], "one row: %+v", r)
	require.Equal(t, "Approvals", evalString(t, ctx, `document.querySelector('.approvals-page > .session-header h1').textContent`))
	require.False(t, evalBool(t, ctx, `(h => h.scrollWidth > h.clientWidth)(document.querySelector('.approvals-page > .session-header h1'))`), "the title whole")
}
