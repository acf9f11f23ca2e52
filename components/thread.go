package components

import (
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
)

// Thread shows a session's messages. Messages only ever append, so go-app's by-index diff
// touches just the new ones.
type Thread struct {
	app.Compo
	Messages []store.Message
	Working  bool     // the agent owes a reply
	Queue    []uint64 // prompts waiting for the running turn
}

// Render draws the log as a feed; agent and tool text is text, never markup.
func (t *Thread) Render() app.UI {
	return app.Div().Class("thread").Body(
		app.Div().Class("thread-inner").
			Aria("live", "polite").
			Role("log").
			Aria("label", "Conversation").
			Body(
				app.Range(t.Messages).Slice(func(i int) app.UI {
					switch m := t.Messages[i]; m.Role {
					case store.RoleRun:
						return renderRun(m)
					case store.RoleDecision:
						return &DecisionCard{Message: m}
					}
					return &MessageItem{Message: t.Messages[i], Queued: slices.Contains(t.Queue, t.Messages[i].Offset)}
				}),
				app.If(t.Working, func() app.UI {
					return app.Div().Class("msg msg-agent working").Role("status").Body(
						app.Span().Class("sr-only").Text("The agent is working…"),
						app.Span().Class("dot"), app.Span().Class("dot"), app.Span().Class("dot"),
						app.Button().Type("button").Class("stop").Text("Stop").
							OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionStop) }),
					)
				}),
			),
	)
}

// MessageItem is one message.
type MessageItem struct {
	app.Compo
	Message store.Message
	Queued  bool // waits for the running turn
}

// Render draws the message's text as a text node.
func (m *MessageItem) Render() app.UI {
	return app.Div().
		Class("msg msg-"+string(m.Message.Role)).
		DataSet("offset", strconv.FormatUint(m.Message.Offset, 10)).
		Body(
			// Who wrote it, for a screen reader: the bubble's side and colour say it to the eye.
			app.Span().Class("sr-only").Text(authorOf[m.Message.Role]),
			app.Div().Class("msg-text").Text(m.Message.Text),
			app.If(m.Queued, func() app.UI {
				return app.Div().Class("msg-queued").Text("Queued: runs when the current turn ends")
			}),
		)
}

var authorOf = map[store.Role]string{store.RoleUser: "You said:", store.RoleAgent: "The agent said:"}
