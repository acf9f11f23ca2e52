package components

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/socket"
	"parley/i18n"
	"parley/protocol"
)

// The live updates hold no HTTP request. The sidebar (on every page) follows the session list
// and the approvals queue (its count; on the approvals screen, the screen's queue): the page's
// watch socket (a socket.Follower of no session, on /ws) hears the session index's version and
// the approvals queue's as they move, anywhere (another tab or device, the API, another
// replica), and followServer reads the list or the queue with a plain GET when its version
// moved. Each page held two long polls before (GET ?wait=, still served for scripts): a
// browser keeps six connections to a server over HTTP/1.1 and each held request took one, so
// three windows in view took them all and a fourth's requests, a prompt's send among them,
// waited up to 25 s; a socket takes none. A GET reads the server's truth, so a wake-up missed
// while the socket was down costs nothing: a new link says the versions as they are, and after
// a lost link both are read again. Failed reads back off from 1 s to 30 s.

const (
	readRetryFirst = time.Second
	readRetryMax   = 30 * time.Second
)

// followServer calls list and queue with the session list and the approvals queue at once,
// then each again when its version moved, until stop ends. fail is told of a failed read or a
// lost watch, with the wait before the next try; the next answers clear it.
func followServer(stop context.Context, client *api.Client, list func(protocol.SessionList), queue func(protocol.ApprovalQueue), fail func(error, time.Duration)) {
	heard := make(chan protocol.Versions, 1) // the newest the watch said
	lost := make(chan struct{}, 1)           // the watch's link failed since the last versions
	go watchInView(stop, newPageView(stop), &socket.Follower{
		URL: "ws" + strings.TrimPrefix(client.Base, "http") + "/ws",
		OnVersions: func(v protocol.Versions) {
			select {
			case <-heard:
			default:
			}
			heard <- v
		},
		OnState: func(s socket.State) {
			if s.Status == socket.Reconnecting {
				select {
				case lost <- struct{}{}:
				default:
				}
				fail(errors.New(s.Error), s.Retry)
			}
		},
	})
	var at, v protocol.Versions // what the last reads answered; what the watch said
	all, retry := true, readRetryFirst
	for {
		err := func() error {
			if all || v.Sessions != at.Sessions {
				l, err := client.SessionList(stop, nil)
				if err != nil {
					return err
				}
				list(l)
				at.Sessions = l.Version
			}
			if all || v.Approvals != at.Approvals {
				q, err := client.ApprovalQueue(stop, nil)
				if err != nil {
					return err
				}
				queue(q)
				at.Approvals = q.Version
			}
			return nil
		}()
		if stop.Err() != nil {
			return
		}
		all = err != nil
		if err != nil {
			fail(err, retry)
			select {
			case <-stop.Done():
				return
			case <-time.After(retry):
			}
			retry = min(retry*2, readRetryMax)
			continue
		}
		retry = readRetryFirst
		select {
		case <-stop.Done():
			return
		case v = <-heard:
			select {
			case <-lost:
				all = true
			default:
			}
		}
	}
}

// watchInView runs the watch w while the page is in view, until stop ends. A hidden tab holds
// no socket for it: the link is let go when the tab is hidden, and made again once it is
// shown, when the server says the versions as they are, so whatever changed meanwhile is read.
func watchInView(stop context.Context, view *tabView, w *socket.Follower) {
	for stop.Err() == nil {
		held, done := view.inView(stop)
		w.Run(held)
		done()
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
