// Package notify tells a person that a decision waits for them, unless they are looking at
// it (docs/pwa.md, "Notifications"). Every decision asked waits a short grace window; a page
// that shows it to someone looking sends a seen claim, stored in a JetStream KV bucket with a
// TTL, and a decision claimed by then is dropped. The rest go to open pages and, by Web Push,
// to subscribed devices.
//
// Grace is the pure core: events in (asked, ended, claimed), what is due out, time passed in.
package notify

import (
	"slices"
	"time"

	"parley/protocol"
)

// Ask is a decision waiting out its grace window.
type Ask struct {
	Notification protocol.Notification
	Due          time.Time
}

// Grace holds the asks inside their grace window, soonest due first, and the decisions
// notified since, so that an end after the window can take the notification back.
type Grace struct {
	window time.Duration
	asks   []Ask
	sent   []protocol.Notification // oldest first, at most MaxSent
}

// MaxSent bounds the notified decisions remembered for a withdrawal. Decisions end (they time
// out at the latest), so this is reached only by a flood; the oldest are forgotten first,
// and their notifications then stay until the person opens them.
const MaxSent = 4096

// NewGrace waits window after each ask.
func NewGrace(window time.Duration) *Grace { return &Grace{window: window} }

// Asked starts n's grace window at now. A decision asked again (a replay) keeps its window.
func (g *Grace) Asked(n protocol.Notification, now time.Time) {
	if g.find(n.Session, n.Decision) >= 0 {
		return
	}
	a := Ask{Notification: n, Due: now.Add(g.window)}
	i, _ := slices.BinarySearchFunc(g.asks, a.Due, func(x Ask, due time.Time) int { return x.Due.Compare(due) })
	for i < len(g.asks) && !g.asks[i].Due.After(a.Due) {
		i++ // after the asks due at the same time: first asked, first due
	}
	g.asks = slices.Insert(g.asks, i, a)
}

// Ended drops a decision that was answered or ended: nobody needs to hear of it any more.
// A seen claim that reaches this process drops it the same way.
func (g *Grace) Ended(session, decision string) {
	if i := g.find(session, decision); i >= 0 {
		g.asks = slices.Delete(g.asks, i, i+1)
	}
}

// Next is when the soonest ask is due; false when none waits.
func (g *Grace) Next() (time.Time, bool) {
	if len(g.asks) == 0 {
		return time.Time{}, false
	}
	return g.asks[0].Due, true
}

// Due removes and returns the asks whose window is over at now, in the order they are due.
// Each still has to be checked against the claims stored by other processes.
func (g *Grace) Due(now time.Time) []Ask {
	n := 0
	for n < len(g.asks) && !g.asks[n].Due.After(now) {
		n++
	}
	due := slices.Clone(g.asks[:n])
	g.asks = slices.Delete(g.asks, 0, n)
	return due
}

// Sent records that n was notified: its decision's end withdraws it.
func (g *Grace) Sent(n protocol.Notification) {
	if g.sentAt(n.Session, n.Decision) >= 0 {
		return
	}
	if len(g.sent) >= MaxSent {
		g.sent = slices.Delete(g.sent, 0, len(g.sent)-MaxSent+1)
	}
	g.sent = append(g.sent, n)
}

// Withdraw forgets a notified decision that ended and returns its notification; false when
// it was never notified (it ended inside its window, was claimed, or is unknown here).
func (g *Grace) Withdraw(session, decision string) (protocol.Notification, bool) {
	i := g.sentAt(session, decision)
	if i < 0 {
		return protocol.Notification{}, false
	}
	n := g.sent[i]
	g.sent = slices.Delete(g.sent, i, i+1)
	return n, true
}

func (g *Grace) sentAt(session, decision string) int {
	return slices.IndexFunc(g.sent, func(n protocol.Notification) bool {
		return n.Session == session && n.Decision == decision
	})
}

// Len is how many asks wait.
func (g *Grace) Len() int { return len(g.asks) }

func (g *Grace) find(session, decision string) int {
	return slices.IndexFunc(g.asks, func(a Ask) bool {
		return a.Notification.Session == session && a.Notification.Decision == decision
	})
}
