package components

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/i18n"
	"parley/protocol"
)

// The queue's live updates are a long poll: GET /api/approvals?wait=<version> answers once a
// decision was asked or ended, or a grant made or revoked, anywhere (the runtime's tap sees
// every event of every session), or after 25 s. A socket subscription would need a second
// kind of follower across every session; the long poll is one request the server holds,
// costs nothing while nothing changes, and reads the registry's truth each time, so a missed
// wake-up costs at most one hold. Failures back off from 1 s to 30 s.

const (
	pollRetryFirst = time.Second
	pollRetryMax   = 30 * time.Second
)

// followQueue calls on with the queue at once and after every change, until stop ends.
// fail is told of a failure (with the wait before the next try) and of recovery ("").
func followQueue(stop context.Context, client *api.Client, on func(protocol.ApprovalQueue), fail func(error, time.Duration)) {
	longPoll(stop, newPageView(stop), func(ctx context.Context, wait *uint64) (uint64, error) {
		q, err := client.ApprovalQueue(ctx, wait)
		if err == nil && stop.Err() == nil {
			on(q)
		}
		return q.Version, err
	}, fail)
}

// longPoll calls read until stop ends: first without a version, then each time with the
// version of its last answer, which the server holds until something changed. A failure
// is told to fail, and the next read waits (1 s, doubling up to 30 s) and starts again
// without a version.
//
// A hidden tab holds no read: the one it holds is let go when the tab is hidden (its context
// ends), and the next waits until the tab is shown, when it asks with the version it had, so
// whatever changed meanwhile comes at once. A browser opens at most six connections to a
// server over HTTP/1.1, and each held read is one of them: every page holds two (the session
// list and the approvals count), so three tabs held them all and a fourth tab's requests,
// a prompt's send among them, waited up to 25 s. view may be nil (always in view).
func longPoll(stop context.Context, view *tabView, read func(held context.Context, wait *uint64) (uint64, error), fail func(error, time.Duration)) {
	var wait *uint64
	retry := pollRetryFirst
	for stop.Err() == nil {
		held, done := view.inView(stop)
		v, err := read(held, wait)
		letGo := held.Err() != nil
		done()
		if stop.Err() != nil {
			return
		}
		if letGo {
			continue // hidden: no failure, and the same version is asked again once shown
		}
		if err != nil {
			fail(err, retry)
			select {
			case <-stop.Done():
				return
			case <-time.After(retry):
			}
			retry = min(retry*2, pollRetryMax)
			wait = nil
			continue
		}
		retry = pollRetryFirst
		wait = &v
	}
}

// tabView is whether the page is in view: the page's document.hidden, set by its
// visibilitychange events (newPageView).
type tabView struct {
	mu     sync.Mutex
	hidden bool
	shown  chan struct{}   // closed when the tab is shown
	leave  context.Context // ends when the tab is hidden
	gone   context.CancelFunc
}

func newTabView(hidden bool) *tabView {
	v := &tabView{shown: make(chan struct{})}
	v.leave, v.gone = context.WithCancel(context.Background())
	v.setHidden(hidden)
	return v
}

// setHidden says the tab was hidden or shown.
func (v *tabView) setHidden(hidden bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case hidden && !v.hidden:
		v.gone()
		v.shown = make(chan struct{})
	case !hidden && (v.hidden || v.leave.Err() != nil):
		v.leave, v.gone = context.WithCancel(context.Background())
		close(v.shown)
	}
	v.hidden = hidden
}

// inView returns, once the tab is in view (at once if it is, or with a nil view), a context
// that ends when the tab is hidden or stop ends, and the func that releases it.
func (v *tabView) inView(stop context.Context) (context.Context, func()) {
	if v == nil {
		return context.WithCancel(stop)
	}
	for {
		v.mu.Lock()
		hidden, shown, leave := v.hidden, v.shown, v.leave
		v.mu.Unlock()
		if !hidden {
			held, cancel := context.WithCancel(stop)
			unhook := context.AfterFunc(leave, cancel)
			return held, func() { unhook(); cancel() }
		}
		select {
		case <-stop.Done():
			return context.WithCancel(stop)
		case <-shown:
		}
	}
}

// newPageView follows the page's visibility until stop ends; nil outside a browser.
func newPageView(stop context.Context) *tabView {
	if !app.IsClient {
		return nil
	}
	doc := app.Window().Get("document")
	v := newTabView(doc.Get("hidden").Bool())
	on := app.FuncOf(func(app.Value, []app.Value) any {
		v.setHidden(doc.Get("hidden").Bool())
		return nil
	})
	doc.Call("addEventListener", "visibilitychange", on)
	context.AfterFunc(stop, func() {
		doc.Call("removeEventListener", "visibilitychange", on)
		on.Release()
	})
	return v
}

// clientOf is the API client of the server that served the page.
func clientOf(ctx app.Context) *api.Client { return &api.Client{Base: pageOrigin(ctx)} }

// pendingCounts is what the sidebar shows of the queue: every open decision, anywhere (the
// number the approvals screen lists), and how many of them wait in each session.
type pendingCounts struct {
	total     int
	bySession map[string]int
}

func countPending(q protocol.ApprovalQueue) pendingCounts {
	c := pendingCounts{total: len(q.Entries), bySession: map[string]int{}}
	for _, e := range q.Entries {
		c.bySession[e.Session]++
	}
	return c
}

// waitingWords says how many decisions wait, for a screen reader and a tooltip.
func waitingWords(n int) string {
	return tr(i18n.WaitsForYou, n)
}

// pendingLink is the sidebar's link to the approvals screen, with the number of decisions
// waiting in every session: approvals, confirms, questions and forms alike, since each one
// holds its agent until a person answers, and the screen it opens lists them all.
func pendingLink(current bool, n int) app.UI {
	label := tr(i18n.ApprovalsWord)
	if n > 0 {
		label = tr(i18n.ApprovalsWaits, waitingWords(n))
	}
	a := app.A().Class("approvals-link").Href("/approvals").Aria("label", label).OnClick(closeMenu).Body(
		app.Span().Text(tr(i18n.ApprovalsWord)),
		app.If(n > 0, func() app.UI {
			return app.Span().Class("pending-count").Title(waitingWords(n)).Text(strconv.Itoa(n))
		}),
	)
	if current {
		a = a.Aria("current", "page")
	}
	return a
}

// mcpLink is the sidebar's link to the MCP servers screen.
func mcpLink(current bool) app.UI {
	a := app.A().Class("approvals-link mcp-link").Href("/mcp").OnClick(closeMenu).Text(tr(i18n.MCPServers))
	if current {
		a = a.Aria("current", "page")
	}
	return a
}
