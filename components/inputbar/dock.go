package inputbar

import (
	"strconv"

	"parley/app/locale"
	"parley/i18n"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
)

// QueueDock lists the prompts waiting for the running turn, above the input
// (conversation.input.dock). Until its turn starts, a prompt can be edited (taken back into
// the input) or removed; either withdraws it on the server, which records it in the log, so
// it never runs.
type QueueDock struct {
	app.Compo
	Queued []store.Message
}

// ActionWithdraw asks the conversation to withdraw a waiting prompt; value: Withdraw.
const ActionWithdraw = "parley.queue.withdraw"

// Withdraw names a waiting prompt to take back; Edit puts its text back in the input.
type Withdraw struct {
	Offset uint64
	Text   string
	Edit   bool
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
			if m.Steer {
				when = locale.T(i18n.QueuedSteer)
			}
			key := strconv.FormatUint(m.Offset, 10)
			withdraw := func(edit bool) app.EventHandler {
				return func(ctx app.Context, e app.Event) {
					ctx.NewActionWithValue(ActionWithdraw, Withdraw{Offset: m.Offset, Text: m.Text, Edit: edit})
				}
			}
			return app.Div().Class("queue-item").Role("listitem").
				DataSet("queued", key).
				Body(
					app.Span().Class("queue-text").Text(m.Text),
					app.Div().Class("queue-side").Body(
						app.Span().Class("queue-when").Text(when),
						app.Button().Type("button").Class("queue-op queue-edit").Text(locale.T(i18n.QueueEdit)).
							Aria("label", locale.T(i18n.QueueEditLabel)).OnClick(withdraw(true), app.EventScope(key)),
						app.Button().Type("button").Class("queue-op queue-remove").Text(locale.T(i18n.QueueRemove)).
							Aria("label", locale.T(i18n.QueueRemoveLabel)).OnClick(withdraw(false), app.EventScope(key)),
					),
				)
		}),
	)
}
