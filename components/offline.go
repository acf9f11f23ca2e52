package components

// This file is the page's side of being offline (docs/pwa.md, "Offline"): the service worker
// serves every route from its cache, and the page says that the server cannot be reached,
// keeps the composer typeable, retries what failed with a backoff (or at once: "Retry now")
// and recovers by itself when the server is back.

import (
	"errors"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/outbox"
	"parley/app/socket"
	"parley/components/controls"
	"parley/i18n"
	"parley/protocol"
)

// retry is one request retried with a backoff until it succeeds: the session list, the
// hero's connection.
type retry struct {
	attempt int
	gen     int       // bumped by every schedule and success: a stale timer does nothing
	at      time.Time // when the next try runs; zero when none is scheduled
}

// retryBackoff is the wait after n failures in a row: 1 s doubling to at most 30 s.
func retryBackoff(n int) time.Duration {
	d := time.Second
	for i := 1; i < n && d < 30*time.Second; i++ {
		d *= 2
	}
	return min(d, 30*time.Second)
}

// schedule runs try after the backoff of one more failure.
func (r *retry) schedule(ctx app.Context, try func(app.Context)) {
	r.attempt++
	r.gen++
	gen, wait := r.gen, retryBackoff(r.attempt)
	r.at = time.Now().Add(wait)
	ctx.After(wait, func(ctx app.Context) {
		if r.gen == gen {
			r.at = time.Time{}
			try(ctx)
		}
	})
}

// succeeded ends the retries.
func (r *retry) succeeded() { r.attempt, r.at = 0, time.Time{}; r.gen++ }

// pending says a try is scheduled.
func (r *retry) pending() bool { return !r.at.IsZero() }

// noteReach records how a request to the server went: an unreachable server makes the page
// offline; any answer makes it online again.
func (c *Conversation) noteReach(err error) {
	var apiErr *api.Error
	switch {
	case err == nil, errors.As(err, &apiErr):
		c.unreachable = false
	case errors.Is(err, api.ErrUnreachable):
		c.unreachable = true
	}
}

// offline says the server cannot be reached: a request got no answer, or the socket failed
// twice in a row.
func (c *Conversation) offline() bool {
	if c.link.Status == socket.Live {
		return false
	}
	return c.unreachable || c.link.Status == socket.Reconnecting && c.link.Attempt >= 2
}

// onLinkState follows the socket: back live, whatever failed while the server was away is
// asked again at once.
func (c *Conversation) onLinkState(ctx app.Context, s socket.State) {
	wasLive := c.link.Status == socket.Live
	c.link = s
	switch s.Status {
	case socket.Live:
		reach(true)
	case socket.Reconnecting:
		reach(false)
	case socket.Failed:
		dropHeldKeys()
	}
	if s.Status == socket.Live && !wasLive {
		c.unreachable = false
		ctx.NewAction(controls.ActionReconnected)
		if c.listRetry.pending() || c.listRetry.attempt > 0 {
			c.refreshSessions(ctx)
		}
	}
}

// retryNow retries everything that waits for the server: the socket, the session list and
// the hero's connection.
func (c *Conversation) retryNow(ctx app.Context) {
	if c.follower != nil {
		c.follower.RetryNow()
	}
	if box := outbox.Current(); box != nil {
		box.RetryNow()
	}
	if c.listRetry.pending() || c.listRetry.attempt > 0 {
		c.listRetry.gen++ // the scheduled try is superseded by this one
		c.refreshSessions(ctx)
	}
	if c.connectRetry.pending() {
		c.connectRetry.gen++
		c.connect(ctx, "")
	}
}

// noticeShown says the notice is drawn. A failed read of the session list is not while the
// page is offline: the offline strip says the server cannot be reached, with the page's one
// Retry now (QA round 12 #11: a reload offline showed three).
func (c *Conversation) noticeShown() bool {
	return c.notice != "" && !(c.offline() && c.listFailed())
}

// reachShown says a session's page draws its strip about reaching the server, which holds
// Retry now: the prompts waiting to be sent then do not each repeat it.
func (c *Conversation) reachShown() bool {
	return c.offline() || c.link.Status == socket.Reconnecting
}

// renderOffline is the banner shown while the server cannot be reached.
func (c *Conversation) renderOffline() app.UI {
	next := ""
	for _, r := range []*retry{&c.listRetry, &c.connectRetry} {
		if r.pending() {
			if d := time.Until(r.at).Round(time.Second); d > 0 {
				next = tr(i18n.NextTryIn, duration(d))
			}
			break
		}
	}
	return app.Div().Class("offline").Role("status").Body(
		app.Elem("strong").Text(tr(i18n.Offline)),
		app.Span().Text(tr(i18n.OfflineText)+next),
		app.Button().Class("link-retry").Text(tr(i18n.RetryNow)).OnClick(func(ctx app.Context, e app.Event) { c.retryNow(ctx) }),
	)
}

// adoptRememberedBlank lets the hero type offline: the blank session remembered for the last
// workspace becomes the one typed into, its draft saved as any session's; the socket
// connects it when the server is back. Without one, the hero waits for the server.
func (c *Conversation) adoptRememberedBlank(ctx app.Context) bool {
	ws := storageGet(keyWorkspace)
	id := storageGet(keyBlankOfPre + ws)
	if ws == "" || id == "" || sessionOfPath(ctx.Page().URL().Path) != "" {
		return false
	}
	c.workspace = ws
	if c.session != id {
		c.open(ctx, id)
	}
	c.blank = true
	return true
}

// prefetchBlank makes the next blank session for workspace ws once the hero's one got its
// first prompt, so the hero has one to type into even if the server is away next time.
func (c *Conversation) prefetchBlank(ctx app.Context, ws string) {
	if ws == "" {
		return
	}
	client := clientOf(ctx)
	ctx.Async(func() {
		info, err := client.CreateSession(ctx, protocol.CreateSessionRequest{Workspace: ws})
		if err != nil {
			return // the hero makes one when it needs it
		}
		ctx.Dispatch(func(ctx app.Context) {
			if storageGet(keyBlankOfPre+ws) == "" {
				storageSet(keyBlankOfPre+ws, info.ID)
			}
		})
	})
}

// sessionShown says the session's own page is drawn, with its link strip.
func (c *Conversation) sessionShown(notFound bool) bool {
	return !c.unauthorized && c.session != "" && !c.blank && !notFound
}

// renderReach is the session page's one strip while the socket reconnects or the server
// cannot be reached. It keeps the link's classes (link-reconnecting), and offline once the
// page counts the server as away.
func (c *Conversation) renderReach() app.UI {
	why := linkError(c.link.Error)
	if why == "" {
		why = tr(i18n.ErrUnreachable)
	}
	retryBtn := app.Button().Class("link-retry").Text(tr(i18n.RetryNow)).
		OnClick(func(ctx app.Context, e app.Event) { c.retryNow(ctx) })
	if !c.offline() {
		return app.Div().Class("link link-reconnecting").Role("status").Title(why).Body(
			app.Span().Text(tr(i18n.Reconnecting, why, duration(c.link.Retry.Round(100*time.Millisecond)))),
			retryBtn,
		)
	}
	next := tr(i18n.ReconnectingNow)
	if c.link.Status == socket.Reconnecting && c.link.Retry > 0 {
		next = tr(i18n.ReconnectingIn, duration(c.link.Retry.Round(100*time.Millisecond)))
	} else {
		for _, r := range []*retry{&c.listRetry, &c.connectRetry} {
			if d := time.Until(r.at).Round(time.Second); r.pending() && d > 0 {
				next = tr(i18n.ReconnectingIn, duration(d))
				break
			}
		}
	}
	// The reason only when there is one: "cannot be reached: the server is not reachable"
	// says the same thing twice.
	words := tr(i18n.OfflineNoWhy)
	if reason := linkError(c.link.Error); reason != "" {
		words = tr(i18n.OfflineWhy, reason)
	}
	return app.Div().Class("link link-reconnecting offline").Role("status").Title(why).Body(
		app.Elem("strong").Text(tr(i18n.Offline)),
		app.Span().Text(words+next),
		retryBtn,
	)
}
