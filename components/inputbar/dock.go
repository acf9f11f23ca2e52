package inputbar

import (
	"strconv"

	"parley/app/locale"
	"parley/i18n"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
)

// QueueDock lists the prompts waiting for the running turn, above the input
// (conversation.input.dock). It is read-only: each prompt joins the thread when its turn
// starts.
type QueueDock struct {
	app.Compo
	Queued []store.Message
}

// Render draws the list; with nothing queued it is an empty strip, so the bar after it keeps
// its place among its parent's children.
func (d *QueueDock) Render() app.UI {
	if len(d.Queued) == 0 {
		return app.Div().Class("queue-dock empty")
	}
	// It scrolls past a few prompts, so a long queue never pushes the input off the screen;
	// a scroll region takes the focus, so the keyboard can scroll it too.
	return app.Div().Class("queue-dock").Role("list").Aria("label", locale.T(i18n.QueuedPrompts)).TabIndex(0).Body(
		app.Range(d.Queued).Slice(func(i int) app.UI {
			m := d.Queued[i]
			when := locale.T(i18n.QueuedLater)
			switch {
			case m.Steer:
				when = locale.T(i18n.QueuedSteer)
			case i == 0:
				when = locale.T(i18n.QueuedNext)
			}
			return app.Div().Class("queue-item").Role("listitem").
				DataSet("queued", strconv.FormatUint(m.Offset, 10)).
				Body(
					app.Span().Class("queue-text").Text(m.Text),
					app.Span().Class("queue-when").Text(when),
				)
		}),
	)
}
