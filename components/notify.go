package components

// Notifications, the page's side (docs/pwa.md, "Notifications"): the switch that asks for
// the permission after a click, never on load; this device's listener, which hands what the
// server sends to the service worker; and the seen claims a page sends for the decisions it
// shows to someone looking.

import (
	"encoding/json"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/locale"
	"parley/i18n"
	"parley/protocol"
)

const (
	keyNotify = "parley.notify" // "off": this device wants no notifications
	keyDevice = "parley.device" // this device's id, for its push subscription
)

// Notification states of this device.
const (
	notifyUnsupported = "unsupported"
	notifyAsk         = "ask"    // never asked: the button asks
	notifyOn          = "on"     // granted and wanted
	notifyOff         = "off"    // granted, turned off here
	notifyDenied      = "denied" // refused in the browser's settings
)

// NotifySwitch is "Notify me when an agent needs me" and, while on, the listener.
type NotifySwitch struct {
	app.Compo
	state  string
	source app.Value // the EventSource while listening
	onNote app.Func
	onGone app.Func // a notified decision was answered, here or elsewhere
	onLink app.Func // marks the page while the stream is open (what a test waits on)
	// ctx is the switch's own, from OnMount: a button's goes with the button, and what it
	// defers with it (keepFocus).
	ctx app.Context
}

// OnMount reads the permission; it never asks for it.
func (n *NotifySwitch) OnMount(ctx app.Context) {
	n.ctx = ctx
	relabel(ctx)
	n.refresh(ctx)
}

// OnDismount stops listening.
func (n *NotifySwitch) OnDismount() { n.stopListening() }

func notificationPermission() string {
	nt := app.Window().Get("Notification")
	if !nt.Truthy() || !app.Window().Get("navigator").Get("serviceWorker").Truthy() {
		return ""
	}
	return nt.Get("permission").String()
}

func (n *NotifySwitch) refresh(ctx app.Context) {
	switch perm := notificationPermission(); {
	case perm == "":
		n.state = notifyUnsupported
	case perm == "denied":
		n.state = notifyDenied
	case perm == "granted" && storageGet(keyNotify) != "off":
		n.state = notifyOn
	case perm == "granted":
		n.state = notifyOff
	default:
		n.state = notifyAsk
	}
	if n.state == notifyOn {
		n.listen(ctx)
	} else {
		n.stopListening()
	}
}

// turnOn runs on the person's click: the permission prompt, then the push subscription.
func (n *NotifySwitch) turnOn(ctx app.Context, e app.Event) {
	storageSet(keyNotify, "")
	var done app.Func
	done = app.FuncOf(func(this app.Value, args []app.Value) any {
		done.Release()
		ctx.Dispatch(func(ctx app.Context) {
			n.refresh(ctx)
			n.keepFocus()
			if n.state == notifyOn {
				subscribePush(ctx)
			}
		})
		return nil
	})
	app.Window().Get("Notification").Call("requestPermission").Call("then", done, done)
}

// turnOff silences this device: no listener, no push subscription.
func (n *NotifySwitch) turnOff(ctx app.Context, e app.Event) {
	storageSet(keyNotify, "off")
	n.refresh(ctx)
	n.keepFocus()
	unsubscribePush(ctx)
}

// keepFocus gives the focus to what takes the place of the button the person pressed (the
// other button, or the words that say notifications are blocked): the button goes with the
// next render, and the focus fell to the page's body with it (QA round 24). It waits for
// that render a few frames at most; a person who moved the focus elsewhere keeps it there.
func (n *NotifySwitch) keepFocus() {
	doc := app.Window().Get("document")
	pressed := doc.Get("activeElement")
	if !pressed.Truthy() || !pressed.Call("closest", ".notify-switch").Truthy() {
		return
	}
	var look func(ctx app.Context, left int)
	look = func(ctx app.Context, left int) {
		if pressed.Get("isConnected").Bool() {
			if left > 0 { // not drawn again yet
				ctx.After(35*time.Millisecond, func(ctx app.Context) { look(ctx, left-1) }) // a frame at 30 fps
			}
			return
		}
		if active := doc.Get("activeElement"); active.Truthy() && !active.Equal(doc.Get("body")) {
			return
		}
		for _, sel := range []string{".notify-switch button", ".notify-switch .notify-state"} {
			if el := doc.Call("querySelector", sel); el.Truthy() {
				el.Call("focus")
				return
			}
		}
	}
	n.ctx.Defer(func(ctx app.Context) { look(ctx, 10) })
}

func (n *NotifySwitch) listen(ctx app.Context) {
	if n.source != nil && n.source.Truthy() {
		return
	}
	n.onNote = app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) == 0 {
			return nil
		}
		data := args[0].Get("data").String()
		var note protocol.Notification
		if json.Unmarshal([]byte(data), &note) != nil || lookingAt(note.URL) {
			return nil // this tab shows it to someone looking: its claim is on its way
		}
		toWorker(map[string]any{"type": "parley:notify", "notification": app.Window().Get("JSON").Call("parse", data)})
		return nil
	})
	n.onGone = app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) == 0 {
			return nil
		}
		var note protocol.Notification
		if json.Unmarshal([]byte(args[0].Get("data").String()), &note) != nil || note.Decision == "" {
			return nil
		}
		toWorker(map[string]any{"type": "parley:close", "withdrawn": true, "decision": note.Decision, "tag": note.Tag})
		return nil
	})
	// EventSource reconnects by itself when the server comes back.
	n.source = app.Window().Get("EventSource").New("/api/notifications?lang=" + locale.Current().Tag())
	n.source.Call("addEventListener", "notification", n.onNote)
	n.source.Call("addEventListener", "withdrawn", n.onGone)
	n.onLink = app.FuncOf(func(this app.Value, args []app.Value) any {
		root := app.Window().Get("document").Get("documentElement")
		if len(args) > 0 && args[0].Get("type").String() == "open" {
			root.Call("setAttribute", "data-notify-live", "")
		} else {
			root.Call("removeAttribute", "data-notify-live")
		}
		return nil
	})
	n.source.Call("addEventListener", "open", n.onLink)
	n.source.Call("addEventListener", "error", n.onLink)
}

func (n *NotifySwitch) stopListening() {
	if n.source != nil && n.source.Truthy() {
		n.source.Call("close")
		n.onNote.Release()
		n.onGone.Release()
		n.onLink.Release()
		app.Window().Get("document").Get("documentElement").Call("removeAttribute", "data-notify-live")
	}
	n.source = nil
}

// Render draws the switch for this device's state.
func (n *NotifySwitch) Render() app.UI {
	box := app.Div().Class("notify-switch")
	switch n.state {
	case notifyAsk, notifyOff:
		return box.Body(app.Button().Class("notify-on").Text(tr(i18n.NotifyOn)).OnClick(n.turnOn))
	case notifyOn:
		return box.Body(
			app.Span().Class("notify-state").Text(tr(i18n.NotifyIsOn)),
			app.Button().Class("notify-off link-retry").Text(tr(i18n.NotifyOff)).OnClick(n.turnOff),
		)
	case notifyDenied:
		return box.Body(app.Span().Class("notify-state").TabIndex(-1).Text(tr(i18n.NotifyBlocked)))
	}
	return box
}

// lookingAt says a person is looking at path in this tab: it is shown, visible and focused.
func lookingAt(path string) bool {
	doc := app.Window().Get("document")
	return app.Window().Get("location").Get("pathname").String() == path &&
		doc.Get("visibilityState").String() == "visible" && doc.Call("hasFocus").Bool()
}

// toWorker posts msg to the active service worker.
func toWorker(msg map[string]any) {
	withRegistration(func(reg app.Value) {
		if active := reg.Get("active"); active.Truthy() {
			active.Call("postMessage", msg)
		}
	})
}

// withRegistration calls f with the service worker's registration once it is ready.
func withRegistration(f func(reg app.Value)) {
	sw := app.Window().Get("navigator").Get("serviceWorker")
	if !sw.Truthy() {
		return
	}
	sw.Get("ready").Then(func(reg app.Value) {
		if reg != nil && reg.Truthy() {
			f(reg)
		}
	})
}

// deviceID is this browser's id for its push subscription, made once.
func deviceID() string {
	id := storageGet(keyDevice)
	if id == "" {
		id = api.NewAttemptID()
		storageSet(keyDevice, id)
	}
	return id
}

// subscribePush subscribes this browser to Web Push with the server's key and stores the
// subscription. A browser without a push service (or offline) keeps the page's listener.
func subscribePush(ctx app.Context) {
	client := clientOf(ctx)
	device := deviceID()
	ctx.Async(func() {
		key, err := client.PushKey(ctx)
		if err != nil {
			return
		}
		ctx.Dispatch(func(ctx app.Context) {
			var got, failed app.Func
			release := func() { got.Release(); failed.Release() }
			got = app.FuncOf(func(this app.Value, args []app.Value) any {
				defer release()
				raw := app.Window().Get("JSON").Call("stringify", args[0]).String()
				var sub protocol.PushSubscription
				if json.Unmarshal([]byte(raw), &sub) == nil {
					sub.Locale = locale.Current().Tag() // its notifications' words
					ctx.Async(func() { _ = client.SubscribePush(ctx, device, sub) })
				}
				return nil
			})
			failed = app.FuncOf(func(this app.Value, args []app.Value) any {
				defer release()
				app.Log("no Web Push on this browser; notifications reach it while a page is open:", args[0].Call("toString").String())
				return nil
			})
			withRegistration(func(reg app.Value) {
				opts := map[string]any{"userVisibleOnly": true, "applicationServerKey": key.PublicKey}
				reg.Get("pushManager").Call("subscribe", opts).Call("then", got, failed)
			})
		})
	})
}

// unsubscribePush ends this browser's push subscription and tells the server.
func unsubscribePush(ctx app.Context) {
	client := clientOf(ctx)
	device := deviceID()
	withRegistration(func(reg app.Value) {
		reg.Get("pushManager").Call("getSubscription").Then(func(sub app.Value) {
			if sub != nil && sub.Truthy() {
				sub.Call("unsubscribe")
			}
		})
	})
	ctx.Async(func() { _ = client.UnsubscribePush(ctx, device) })
}

func pageOrigin(ctx app.Context) string {
	u := ctx.Page().URL()
	return u.Scheme + "://" + u.Host
}

// claimSeen tells the server which of the open session's decisions this tab shows to
// someone looking, once each, so nobody is notified of them; a notification already shown
// for one goes.
func (c *Conversation) claimSeen(ctx app.Context) {
	if c.session == "" || len(c.thread.Pending) == 0 || !lookingAt("/s/"+c.session) {
		return
	}
	if c.claimed == nil {
		c.claimed = map[string]bool{}
	}
	client, session := clientOf(ctx), c.session
	for _, d := range c.thread.Pending {
		if c.claimed[d.ID] {
			continue
		}
		c.claimed[d.ID] = true
		id := d.ID
		toWorker(map[string]any{"type": "parley:close", "decision": id})
		ctx.Async(func() { _ = client.ClaimSeen(ctx, session, id) })
	}
}

// watchLooking claims again when the person comes back to the tab.
func (c *Conversation) watchLooking(ctx app.Context) {
	again := app.FuncOf(func(this app.Value, args []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) {
			c.claimSeen(ctx)
			c.listAgainOnReturn(ctx)
			ctx.PreventUpdate()
		})
		return nil
	})
	app.Window().Call("addEventListener", "focus", again)
	app.Window().Get("document").Call("addEventListener", "visibilitychange", again)
}
