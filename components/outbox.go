package components

// This file is the page's side of the outbox (docs/pwa.md, "Sending while the server is
// away"): a prompt the server has not stored yet shows at once at the end of its thread as
// the person's message, with its state in words, and leaves when the log has it.

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/outbox"
	"parley/app/slots"
	"parley/components/composer"
	"parley/components/inputbar"
	"parley/i18n"
	mo "parley/machine/outbox"
	"parley/protocol"
)

// startOutbox makes the page's outbox with the conversation's context (the root: it outlives
// every other component) and loads what a previous page kept.
func (c *Conversation) startOutbox(ctx app.Context) {
	box := outbox.Page(ctx)
	box.Changed = func() {
		ctx.Dispatch(func(ctx app.Context) { c.outboxChanged(ctx) })
	}
	box.Restore = func(session, text string) {
		ctx.NewActionWithValue(inputbar.ActionRestoreDraft, text)
	}
	c.outboxChanged(ctx)
}

// outboxChanged follows the outbox: a prompt the hero's blank session holds takes the page to
// its session, as its first stored prompt would.
func (c *Conversation) outboxChanged(ctx app.Context) {
	box := outbox.Current()
	if box == nil || c.session == "" {
		c.unsent = nil
		return
	}
	c.unsent = box.Of(c.session)
	if c.blank && len(c.unsent) > 0 {
		c.engagedBy(ctx, c.unsent[0].Text, 0)
	}
}

// seenPrompt tells the outbox that the log holds a prompt.
func seenPrompt(ev protocol.Event) {
	if ev.Type != protocol.EventUserMessage {
		return
	}
	if box := outbox.Current(); box != nil {
		if m, err := ev.DecodeMessage(); err == nil && m.AttemptID != "" {
			box.Seen(m.AttemptID)
		}
	}
}

// reach tells the outbox whether the server answers.
func reach(online bool) {
	if box := outbox.Current(); box != nil {
		box.Reach(online)
	}
}

// A prompt sent while prompts wait in the composer's dock for the running turn runs after
// them: it is listed after them, in the dock's seat, not at the thread's end above the dock
// (QA round 16 #10).
func init() {
	if _, err := composer.Slots.Register(composer.SlotDock, "", slots.Entry[*composer.Composer]{Order: 1, Render: func(c *composer.Composer) app.UI {
		return &Unsent{Entries: c.Unsent, RetryAbove: c.RetryAbove}
	}}); err != nil {
		panic(err)
	}
}

// unsentIn splits the open session's unsent prompts between the thread's end and the
// composer's dock: after the prompts queued there when there are some, since they run after
// those.
func (c *Conversation) unsentIn() (thread, dock []mo.Entry) {
	if len(c.thread.Queued) > 0 {
		return nil, c.unsent
	}
	return c.unsent, nil
}

// Unsent draws the prompts of a thread the server has not stored yet, after its messages (or
// after the prompts waiting in the dock).
type Unsent struct {
	app.Compo
	Entries []mo.Entry
	// RetryAbove says the page's strip about reaching the server offers Retry now: the
	// page shows one, not one more per waiting prompt (QA round 12 #11).
	RetryAbove bool
}

// Render draws each as the person's message, with what happens to it in words.
func (u *Unsent) Render() app.UI {
	return app.Div().Class("unsent-list").Body(
		app.Range(u.Entries).Slice(func(i int) app.UI {
			e := u.Entries[i]
			return app.Div().Class("msg msg-user msg-unsent").
				DataSet("attempt", e.ID).DataSet("state", unsentState(e.State)).
				Body(
					app.Span().Class("sr-only").Text(tr(i18n.SaidYou)),
					app.Div().Class("msg-text").Text(e.Text),
					app.If(e.State == mo.Waiting || e.State == mo.Refused, func() app.UI {
						return renderUnsentState(e, !u.RetryAbove)
					}),
				)
		}),
	)
}

func unsentState(s mo.State) string {
	switch s {
	case mo.Waiting:
		return "waiting"
	case mo.Sending:
		return "sending"
	case mo.Stored:
		return "stored"
	}
	return "refused"
}

// renderUnsentState is the line under a prompt that waits: why, and what the person can do
// (Retry now, when the page offers it nowhere else).
func renderUnsentState(e mo.Entry, retry bool) app.UI {
	id := e.ID
	why := tr(i18n.UnsentWaiting)
	if e.State == mo.Refused {
		why = tr(i18n.UnsentRefused, e.Err)
	}
	return app.Div().Class("unsent-state").Role("status").Body(
		app.Span().Class("unsent-why").Text(why),
		app.If(e.State == mo.Waiting && retry, func() app.UI {
			return app.Button().Type("button").Class("msg-action unsent-retry").Text(tr(i18n.RetryNow)).
				OnClick(func(ctx app.Context, ev app.Event) {
					ctx.NewAction(actionRetryNow)
				}, app.EventScope(id))
		}),
		app.Button().Type("button").Class("msg-action unsent-cancel").Text(tr(i18n.UnsentCancel)).
			Title(tr(i18n.UnsentCancelTitle)).
			OnClick(func(ctx app.Context, ev app.Event) {
				if box := outbox.Current(); box != nil {
					box.Cancel(id)
				}
			}, app.EventScope(id)),
	)
}

// actionRetryNow asks the conversation to retry everything that waits for the server.
const actionRetryNow = "parley.retry.now"
