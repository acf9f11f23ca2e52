package e2e

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// shownNotifications reads what the service worker shows (registration.getNotifications)
// into window.__notes on each poll: [{title, body, tag, url}].
const shownNotifications = `(navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => {
	window.__notes = ns.map(n => ({title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url}))
}), window.__notes || [])`

// notifyState is what a failed wait for a notification needs told: the permission, whether
// the page's stream is open and a worker controls it, what the stream brought (heardStream)
// and what the worker shows.
const notifyState = `JSON.stringify({permission: Notification.permission, live: document.documentElement.hasAttribute('data-notify-live'),
	controlled: !!navigator.serviceWorker.controller, heard: window.__heard || null, notes: window.__notes || null, path: location.pathname})`

// heardStream records, in every page the browser opens from now on, what the page's
// notification stream brings (window.__heard: its opens, errors and events, in order, with
// the time), so a notification that never shows says whether the server sent it.
func heardStream(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `(() => {
			const ES = window.EventSource;
			if (!ES) return;
			window.__heard = [];
			window.EventSource = function (url, opts) {
				const es = new ES(url, opts);
				for (const type of ['open', 'error', 'notification', 'withdrawn']) {
					es.addEventListener(type, (e) => window.__heard.push(type + '@' + (Date.now() % 1e6) + (e.data ? ' ' + e.data.slice(0, 60) : '')));
				}
				return es;
			};
			window.EventSource.prototype = ES.prototype;
		})()`})
		return err
	}))
}

// grantNotifications grants the server's origin the notifications permission, as a person's
// "Allow" would, in the test's own browser context (a grant without one goes to the
// browser's default context, which no test's tab is in).
func grantNotifications(t *testing.T, ctx context.Context, srv *server) {
	t.Helper()
	_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: srv.base(),
		BrowserContextID: chromedp.FromContext(ctx).BrowserContextID})
	require.NoError(t, err)
}

// notifyLive: the notifications switch is on and the page's subscription live.
const notifyLive = `!!document.querySelector('.notify-off') && document.documentElement.hasAttribute('data-notify-live')`

// openGranted opens the session id's page in a browser granted notifications, once the service
// worker runs, and waits until the page is live and its switch on: granted already, it is on
// without a prompt.
func openGranted(t *testing.T, srv *server, id string) context.Context {
	t.Helper()
	ctx := browser(t)
	heardStream(t, ctx)
	grantNotifications(t, ctx, srv)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), waitWorker(),
		chromedp.Navigate(srv.base()+"/s/"+id), waitReady(), waitJS(`!!document.querySelector('.link-live')`), waitJS(notifyLive))
	return ctx
}

// TestNotifications: the permission is asked only on a click; a decision asked in a thread
// this tab is not showing is notified through the service worker, saying what is asked,
// tagged by thread so a second ask replaces the first; one asked in the thread on screen is
// claimed as seen and never notified; a click on the notification opens its thread with the
// decision in the composer.
func TestNotifications(t *testing.T) {
	t.Parallel()
	fullChromium(t) // the headless shell neither asks for the permission nor shows a notification as Chromium does
	// A grace window longer than the default, so a loaded machine still claims in time.
	srv := startServerFlags(t, t.TempDir(), "-notify-grace", "3s")
	here := seedSession(t, srv, "Here", 1)
	there := seedSession(t, srv, "There", 1)
	ctx := browser(t)
	heardStream(t, ctx)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/?token="+srv.token), waitReady(), waitWorker(),
		chromedp.Navigate(srv.base()+"/s/"+here), waitReady(), waitJS(`!!document.querySelector('.link-live')`))
	require.Equal(t, "default", evalString(t, ctx, `Notification.permission`), "nothing asks for the permission on load")
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('.notify-on')`))

	// The person's click asks; the browser (through CDP, as a person's "Allow") grants.
	grantNotifications(t, ctx, srv)
	// The grant reaches the open page a moment later. A click before that asks, and a
	// headless browser never answers the prompt, so requestPermission never settles (seen
	// with Chromium 156.0.8078.114: the switch stayed off with the permission granted).
	do(t, ctx, 10*time.Second, waitJS(`Notification.permission === 'granted'`))
	_, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, chromedp.Click(chromedp.CSS(`.notify-on`)),
		waitJS(notifyLive))
	require.True(t, evalBool(t, ctx, `document.hasFocus() && document.visibilityState === 'visible'`))
	// The button pressed went with the render: the focus is on the one that took its place,
	// not on the page's body (QA round 24).
	do(t, ctx, 5*time.Second, waitJS(`document.activeElement === document.querySelector('.notify-off')`))

	// Asked in the thread on screen: claimed, never notified.
	sendAPI(t, srv, here, `/script confirm('Seen right here?')`)
	do(t, ctx, 20*time.Second, waitJS(`document.querySelector('.composer').innerText.includes('Seen right here?')`))
	// Asked in another thread: notified, twice, the second replacing the first.
	sendAPI(t, srv, there, `/script confirm('Deploy now?')`)
	waitShowing(t, ctx, 60*time.Second, shownNotifications+`.some(n => n.title.includes('Deploy now?'))`, notifyState)
	notes := get(t, ctx, chromedp.Evaluate[[]map[string]string](`window.__notes`))
	require.Len(t, notes, 1, "the decision seen here was dropped: %v", notes)
	require.Equal(t, "Confirm: Deploy now?", notes[0]["title"])
	require.Equal(t, "In There", notes[0]["body"])
	require.Equal(t, "parley-"+there, notes[0]["tag"])
	require.Equal(t, "/s/"+there, notes[0]["url"])

	// The claimed decision's window (3 s) is long over when a second ask in the other
	// thread is notified; it replaces the first, and the claimed one never showed.
	// (The first is answered first: the thread's next script waits for its turn.)
	declineOnly(t, srv, there)
	sendAPI(t, srv, there, `/script confirm('And the database?')`)
	waitShowing(t, ctx, 60*time.Second, shownNotifications+`.some(n => n.title.includes('And the database?'))`, notifyState)
	notes = get(t, ctx, chromedp.Evaluate[[]map[string]string](`window.__notes`))
	require.Len(t, notes, 1, "one notification per thread: %v", notes)
	require.Equal(t, "parley-"+there, notes[0]["tag"])

	// A click (acted out by the worker's own click handler) opens the thread, its decision
	// in the composer.
	do(t, ctx, 30*time.Second,
		js(`navigator.serviceWorker.controller.postMessage({type: 'parley:open', tag: 'parley-`+there+`'})`),
		waitJS(`location.pathname === '/s/`+there+`'`),
		waitJS(`document.querySelector('.composer').innerText.includes('And the database?')`),
		waitJS(shownNotifications+`.length === 0`))

	// Turned off on this device: the stream closes and the switch offers to turn it on.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.notify-off`)),
		waitJS(`!!document.querySelector('.notify-on') && !(document.documentElement.hasAttribute('data-notify-live'))`),
		waitJS(`document.activeElement === document.querySelector('.notify-on')`))
	require.Equal(t, "off", evalString(t, ctx, `localStorage.getItem('parley.notify')`))
}

// TestNotificationInAHiddenTab: the tab shows the very thread the decision is asked in, but
// another tab is in front: nobody is looking, so nothing claims it and it is notified.
func TestNotificationInAHiddenTab(t *testing.T) {
	t.Parallel()
	fullChromium(t) // the headless shell neither asks for the permission nor shows a notification as Chromium does
	srv := startServerFlags(t, t.TempDir(), "-notify-grace", "3s")
	id := seedSession(t, srv, "Behind", 1)
	ctx := openGranted(t, srv, id)

	// The window goes to the background (minimized): its page is hidden.
	win, err := chromedp.CallBrowser(ctx, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{TargetID: chromedp.FromContext(ctx).Target.TargetID})
	require.NoError(t, err)
	_, err = chromedp.CallBrowser(ctx, cdpbrowser.SetWindowBounds, cdpbrowser.SetWindowBoundsParams{WindowID: win.WindowID,
		Bounds: &cdpbrowser.Bounds{WindowState: cdpbrowser.WindowStateMinimized}})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(`document.visibilityState === 'hidden'`))

	sendAPI(t, srv, id, `/script confirm('Still there?')`)
	do(t, ctx, 60*time.Second, waitJS(shownNotifications+`.some(n => n.title === 'Confirm: Still there?' && n.tag === 'parley-`+id+`')`))
}

// TestNotificationWithdrawnWhenAnsweredElsewhere: a decision notified on this device and
// then answered on another (here: through the API) has its notification closed, by the page's
// event stream; the same withdrawal arriving by Web Push closes it through the worker's push
// handler, and a withdrawal that overtakes its ask keeps the ask from showing at all.
func TestNotificationWithdrawnWhenAnsweredElsewhere(t *testing.T) {
	t.Parallel()
	fullChromium(t) // the headless shell neither asks for the permission nor shows a notification as Chromium does
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	here := seedSession(t, srv, "Here", 1)
	there := seedSession(t, srv, "There", 1)
	ctx := openGranted(t, srv, here)

	// Notified here, answered elsewhere: the notification goes without anything done here.
	sendAPI(t, srv, there, `/script confirm('Deploy now?')`)
	waitShowing(t, ctx, 60*time.Second, shownNotifications+`.some(n => n.title === 'Confirm: Deploy now?')`, notifyState)
	declineOnly(t, srv, there)
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
