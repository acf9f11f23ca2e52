package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The approvals list holds still under a person's pointer and keyboard (docs/approvals.md,
// "A list that holds still"), Alt+R keeps one reason field an entry, and the pages other
// than the chat have the chat's frame (docs/look.md).

// answerAPI answers a confirm through the API, as another tab or device would.
func answerAPI(t *testing.T, srv *server, e protocol.QueueEntry) {
	t.Helper()
	_, err := apiClient(srv).Reply(context.Background(), e.Session, e.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("true")})
	require.NoError(t, err)
}

// mouseTo moves the mouse to a point of the page.
func mouseTo(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y)(ctx, t)
		return err
	})
}

func entrySel(session string) string { return `.queue-entry[data-session="` + session + `"]` }

// TestApprovalsListHoldsStillUnderThePointer: while the pointer rests on an entry and the
// focus is on another, an entry answered elsewhere keeps its place (hidden under a note), a new one goes at
// the end, and the focused entry that ends hands the focus to the next one; once the pointer
// leaves, the ended ones go; a key then answers the entry it was pressed on.
func TestApprovalsListHoldsStillUnderThePointer(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	names := []string{"a", "b", "c"}
	for i, n := range names {
		sessionWith(t, srv, "Session "+n, `/script send(str(confirm('Deploy `+n+`?')))`)
		waitQueue(t, srv, i+1)
	}
	q := waitQueue(t, srv, 3)
	a, b, c := q[0], q[1], q[2]

	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry').length === 3`))
	top := func(session string) float64 {
		return get(t, ctx, chromedp.Evaluate[float64](`document.querySelector('[data-session="`+session+`"]').getBoundingClientRect().top`))
	}
	// The person has the keyboard on B and points at C's title line.
	get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('`+entrySel(b.Session)+`').focus(); true`))
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.dataset.session === '`+b.Session+`'`))
	point := get(t, ctx, chromedp.Evaluate[[]float64](`(r => [r.x + r.width / 2, r.y + 8])(document.querySelector('`+entrySel(c.Session)+` .entry-title').getBoundingClientRect())`))
	do(t, ctx, 10*time.Second, mouseTo(point[0], point[1]), waitJS(`document.querySelector('.queue-list').matches(':hover')`))
	cTop := top(c.Session)
	underPointer := `document.elementFromPoint(` + strconv.FormatFloat(point[0], 'f', 1, 64) + `, ` + strconv.FormatFloat(point[1], 'f', 1, 64) + `)?.closest('.queue-entry')?.dataset.session`

	// A ends in another tab: it stays in its place, hidden under a note, and nothing moves.
	answerAPI(t, srv, a)
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.queue-gone[data-session="`+a.Session+`"]')`))
	assert.Equal(t, c.Session, evalString(t, ctx, underPointer), "the entry under the pointer")
	assert.InDelta(t, cTop, top(c.Session), 0.5, "C did not move")
	assert.Equal(t, b.Session, evalString(t, ctx, `document.activeElement.dataset.session`), "the focus stayed on B")
	assert.True(t, evalBool(t, ctx, `(g => getComputedStyle(g.querySelector('.entry-decision')).visibility === 'hidden' && !g.hasAttribute('tabindex'))(document.querySelector('.queue-gone'))`), "nothing in it answers")

	// A new decision goes at the end.
	d := sessionWith(t, srv, "Session d", `/script send(str(confirm('Deploy d?')))`)
	order := `[...document.querySelectorAll('.queue-entry')].map(e => e.dataset.session).join()`
	do(t, ctx, 30*time.Second, waitJS(order+` === '`+b.Session+`,`+c.Session+`,`+d+`'`))
	assert.Equal(t, c.Session, evalString(t, ctx, underPointer))
	assert.InDelta(t, cTop, top(c.Session), 0.5)

	// B, which has the focus, ends elsewhere: the focus goes to the next entry, C.
	answerAPI(t, srv, b)
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.queue-gone[data-session="`+b.Session+`"]')`),
		waitJS(`document.activeElement?.classList.contains('queue-entry') && document.activeElement.dataset.session === '`+c.Session+`'`))
	assert.Equal(t, c.Session, evalString(t, ctx, underPointer))
	assert.InDelta(t, cTop, top(c.Session), 0.5)

	// The pointer leaves the list: the ended entries go; the focus stays on C.
	do(t, ctx, 30*time.Second, mouseTo(2, 2),
		waitJS(`!document.querySelector('.queue-gone') && `+order+` === '`+c.Session+`,`+d+`'`),
		waitJS(`document.activeElement?.dataset.session === '`+c.Session+`'`))

	// Alt+A on C confirms C, and answers C only.
	do(t, ctx, 10*time.Second, altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.confirm').textContent`), "Deploy c”?")
	do(t, ctx, 10*time.Second, pressEnter(0))
	left := waitQueue(t, srv, 1)
	assert.Equal(t, d, left[0].Session, "D still waits")
	do(t, ctx, 30*time.Second, waitJS(order+` === '`+d+`'`))
}

// TestApprovalsRejectKeepsOneReasonField: Alt+R on an approval, whose card has a reason
// field, uses that field (focused), and pressing it again adds none; Enter rejects with it.
func TestApprovalsRejectKeepsOneReasonField(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Runs", `/script r = run(['echo', 'hi']); send(r.stdout.strip() or r.error)`)
	waitQueue(t, srv, 1)
	ctx := openApprovals(t, srv)
	entry := entrySel(s)
	fields := `document.querySelectorAll('` + entry + ` .entry-reason, ` + entry + ` .confirm-reason').length`
	do(t, ctx, 30*time.Second, waitJS(`document.activeElement?.dataset.session === '`+s+`'`))
	do(t, ctx, 10*time.Second, altKey("r", "KeyR", 82))
	waitShowing(t, ctx, 20*time.Second, `!!document.querySelector('`+entry+` .confirm') && document.activeElement?.classList.contains('entry-reason')`,
		`document.activeElement?.outerHTML.slice(0, 200) + ' | ' + document.querySelector('.queue-list').innerHTML.slice(0, 3000)`)
	assert.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](fields))), "one reason field")
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("not now"))
	// Again, from the entry: the same field takes the focus, with what was typed.
	get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('`+entry+`').focus(); true`))
	do(t, ctx, 10*time.Second, altKey("r", "KeyR", 82), waitJS(`document.activeElement?.classList.contains('entry-reason')`))
	assert.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](fields))), "still one reason field")
	assert.Equal(t, "not now", evalString(t, ctx, `document.activeElement.value`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitQueue(t, srv, 0)
	h, err := apiClient(srv).ApprovalHistory(context.Background(), protocol.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.Equal(t, protocol.HistoryRejected, h.Entries[0].Outcome)
	assert.Equal(t, "not now", h.Entries[0].Reason)
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
	assert.True(t, evalBool(t, ctx, `document.querySelector('#sidebar').getBoundingClientRect().right <= document.querySelector('.mcp-page').getBoundingClientRect().left + 0.5`), "the sidebar is beside the page")

	for _, page := range []string{"/mcp", "/approvals"} {
		phone := browser(t)
		do(t, phone, 60*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), chromedp.Navigate(srv.link), waitReady(),
			chromedp.Navigate(srv.base()+page), waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('main')`))
		assert.False(t, evalBool(t, phone, `(r => r.width > 0)(document.querySelector('#sidebar').getBoundingClientRect())`), page+": the drawer starts closed")
		do(t, phone, 20*time.Second, clickJS(`.menu-toggle`))
		waitShowing(t, phone, 20*time.Second, `document.querySelector('#sidebar').classList.contains('open') && !!document.querySelector('#sidebar .session-item[data-session="`+s+`"]')`,
			`'`+page+` ' + document.querySelector('#sidebar').outerHTML.slice(0, 1500)`)
		do(t, phone, 20*time.Second,
			waitJS(`document.querySelector('.drawer-backdrop').classList.contains('open') && getComputedStyle(document.querySelector('.drawer-backdrop')).display !== 'none'`))
		// The toggle and the page's title do not overlap.
		assert.True(t, evalBool(t, phone, `(a => { const t = document.querySelector('main h1').getBoundingClientRect(); return a.right <= t.left + 0.5 || a.bottom <= t.top + 0.5 })(document.querySelector('.menu-toggle').getBoundingClientRect())`), page+": the toggle covers the title")
		do(t, phone, 20*time.Second, clickJS(`.drawer-backdrop`),
			waitJS(`!document.querySelector('#sidebar').classList.contains('open') && document.activeElement?.classList.contains('menu-toggle')`))
	}
}
