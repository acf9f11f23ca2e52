package components

import (
	"context"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
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
	var wait *uint64
	retry := pollRetryFirst
	for stop.Err() == nil {
		q, err := client.ApprovalQueue(stop, wait)
		if stop.Err() != nil {
			return
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
		v := q.Version
		wait = &v
		on(q)
	}
}

func clientOf(ctx app.Context) *api.Client {
	u := ctx.Page().URL()
	return &api.Client{Base: u.Scheme + "://" + u.Host}
}

// PendingLink is the sidebar's link to the approvals screen, with the number of decisions
// waiting in every session.
type PendingLink struct {
	app.Compo
	Current bool // the approvals screen is open

	count int
	stop  context.CancelFunc
}

// OnMount follows the queue (only in the browser: the pre-render waits for async work).
func (p *PendingLink) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	stop, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	client := clientOf(ctx)
	ctx.Async(func() {
		followQueue(stop, client, func(q protocol.ApprovalQueue) {
			ctx.Dispatch(func(ctx app.Context) { p.count = len(q.Entries) })
		}, func(error, time.Duration) {})
	})
}

// OnDismount stops following.
func (p *PendingLink) OnDismount() {
	if p.stop != nil {
		p.stop()
	}
}

// Render draws the link and its count.
func (p *PendingLink) Render() app.UI {
	label := "Approvals"
	if p.count > 0 {
		label += ": " + strconv.Itoa(p.count) + " waiting"
	}
	a := app.A().Class("approvals-link").Href("/approvals").Aria("label", label).OnClick(closeMenu).Body(
		app.Span().Text("Approvals"),
		app.If(p.count > 0, func() app.UI {
			return app.Span().Class("pending-count").Text(strconv.Itoa(p.count))
		}),
	)
	if p.Current {
		a = a.Aria("current", "page")
	}
	return a
}
