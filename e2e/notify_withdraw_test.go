package e2e

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// TestNotificationWithdrawnWhenAnsweredElsewhere: a decision notified on this device and
// then answered on another (here: through the API) has its notification closed, by the page's
// event stream; the same withdrawal arriving by Web Push closes it through the worker's push
// handler, and a withdrawal that overtakes its ask keeps the ask from showing at all.
func TestNotificationWithdrawnWhenAnsweredElsewhere(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	here := seedSession(t, srv, "Here", 1)
	there := seedSession(t, srv, "There", 1)
	ctx := browser(t)
	grantNotifications(t, ctx, srv)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), waitWorker(),
		chromedp.Navigate(srv.base()+"/s/"+here), waitReady(), waitJS(`!!document.querySelector('.link-live')`),
		waitJS(`!!document.querySelector('.notify-off') && document.documentElement.hasAttribute('data-notify-live')`))

	// Notified here, answered elsewhere: the notification goes without anything done here.
	sendAPI(t, srv, there, `/script confirm('Deploy now?')`)
	do(t, ctx, 60*time.Second, waitJS(shownNotifications+`.some(n => n.title === 'Confirm: Deploy now?')`))
	pending, err := apiClient(srv).PendingDecisions(t.Context(), there)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	_, err = apiClient(srv).Reply(t.Context(), there, pending[0].ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(shownNotifications+`.length === 0`))
	require.Equal(t, "/s/"+here, evalString(t, ctx, `location.pathname`), "nothing was opened or claimed here")

	// The same by Web Push: CDP hands the worker push messages as a push service would.
	reg := registrationID(t, ctx)
	push := func(n protocol.Notification) {
		t.Helper()
		b, _ := json.Marshal(n)
		_, err := chromedp.Call(ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: srv.base(), RegistrationID: reg, Data: string(b)})
		require.NoError(t, err)
	}
	ask := protocol.Notification{Session: "s-push", Decision: "d-push", Title: "Confirm: From a push", Tag: "parley-s-push", URL: "/s/s-push"}
	push(ask)
	do(t, ctx, 30*time.Second, waitJS(shownNotifications+`.some(n => n.title === 'Confirm: From a push')`))
	// A newer ask of another thread stays when the first is withdrawn.
	other := protocol.Notification{Session: "s-other", Decision: "d-other", Title: "Confirm: Still open", Tag: "parley-s-other", URL: "/s/s-other"}
	push(other)
	do(t, ctx, 30*time.Second, waitJS(shownNotifications+`.length === 2`))
	push(ask.Withdrawal())
	waitShowing(t, ctx, 30*time.Second, shownNotifications+`.length === 1 && window.__notes[0].title === 'Confirm: Still open'`, `JSON.stringify(window.__notes)`)

	// A withdrawal that overtakes its ask: the ask never shows.
	late := protocol.Notification{Session: "s-late", Decision: "d-late", Title: "Confirm: Late", Tag: "parley-s-late", URL: "/s/s-late"}
	push(late.Withdrawal())
	push(late)
	marker := protocol.Notification{Session: "s-mark", Decision: "d-mark", Title: "Confirm: Marker", Tag: "parley-s-mark", URL: "/s/s-mark"}
	push(marker)
	do(t, ctx, 30*time.Second, waitJS(shownNotifications+`.some(n => n.title === 'Confirm: Marker')`))
	require.False(t, evalBool(t, ctx, `window.__notes.some(n => n.title === 'Confirm: Late')`), "a withdrawn decision is not shown afterwards")
}

// registrationID is the page's service worker registration, as the ServiceWorker domain
// reports it.
func registrationID(t *testing.T, ctx context.Context) serviceworker.RegistrationID {
	t.Helper()
	var mu sync.Mutex
	var id serviceworker.RegistrationID
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	require.NoError(t, chromedp.Listen(lctx, func(ev any) {
		if e, ok := ev.(*serviceworker.EventWorkerRegistrationUpdated); ok {
			for _, r := range e.Registrations {
				if !r.IsDeleted {
					mu.Lock()
					id = r.RegistrationID
					mu.Unlock()
				}
			}
		}
	}))
	_, err := chromedp.Call(ctx, serviceworker.Enable, cdp.Empty{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return id != "" }, 20*time.Second, 20*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	return id
}
