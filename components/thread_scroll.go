package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/i18n"
)

// The thread's newest end (QA round 20 #2): a prompt sent while the person read further up
// landed out of sight, with the reply under it, and nothing on screen said so. Sending now
// brings the thread to its newest end, and while the person is scrolled up a button takes
// them there, as the chat apps people know do.
//
// The thread is laid out bottom up (column-reverse): its scrollTop is 0 at the newest end
// and negative above. Whether the person is away from it is kept on the element
// (data-away), not in the component: a scroll then renders nothing, and the stylesheet shows
// the button.

// awayFromNewest is how far up, in CSS pixels, the thread counts as scrolled away from its
// newest end: a little more than a line or two of slack.
const awayFromNewest = 160

// jumpSlot is the button's seat: first in the thread, so at its bottom, and sticky there;
// it takes no height, so showing the button moves nothing.
func (t *Thread) jumpSlot() app.UI {
	return app.Div().Class("jump-slot").Body(
		app.Button().Type("button").Class("jump-newest").
			Aria("label", tr(i18n.JumpNewest)).Title(tr(i18n.JumpNewest)).
			// A click keeps the focus where it was (the composer, most often).
			OnMouseDown(func(ctx app.Context, e app.Event) { e.PreventDefault(); ctx.PreventUpdate() }).
			OnClick(func(ctx app.Context, e app.Event) {
				ctx.PreventUpdate()
				el := threadElement()
				if !el.Truthy() {
					return
				}
				if app.Window().Get("document").Get("activeElement").Equal(e.Get("currentTarget")) {
					// From the keyboard: the button goes as the thread arrives, and the
					// focus would fall to the page; the thread takes it.
					el.Call("focus", map[string]any{"preventScroll": true})
				}
				app.Window().Call("parleyJumpNewest", el) // web/early.js: it lands at the end of a growing answer
			}).
			Body(app.Span().Aria("hidden", "true").Text("↓")),
	)
}

// followAway marks the thread away from its newest end, or back at it.
func followAway(el app.Value) {
	away := el.Get("scrollTop").Float() < -awayFromNewest
	if away != el.Call("hasAttribute", "data-away").Bool() {
		el.Call("toggleAttribute", "data-away", away)
	}
}

// onSent brings the thread to its newest end when the person sends a prompt there.
func (t *Thread) onSent(ctx app.Context, a app.Action) {
	if el := threadElement(); el.Truthy() {
		scrollToNewest(el)
	}
}

// scrollToNewest puts el at its newest end at once.
func scrollToNewest(el app.Value) {
	el.Call("scrollTo", map[string]any{"top": 0, "behavior": "instant"})
}

// threadElement is the page's thread (one at a time).
func threadElement() app.Value {
	return app.Window().Get("document").Call("querySelector", ".thread")
}
