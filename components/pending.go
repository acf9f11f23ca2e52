package components

import (
	"context"
	"strconv"
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
	longPoll(stop, func(wait *uint64) (uint64, error) {
		q, err := client.ApprovalQueue(stop, wait)
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
func longPoll(stop context.Context, read func(wait *uint64) (uint64, error), fail func(error, time.Duration)) {
	var wait *uint64
	retry := pollRetryFirst
	for stop.Err() == nil {
		v, err := read(wait)
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
		wait = &v
	}
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
