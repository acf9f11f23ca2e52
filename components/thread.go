package components

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/protocol"
)

// Thread shows a session's messages. Messages only ever append, so go-app's by-index diff
// touches just the new ones.
type Thread struct {
	app.Compo
	Messages []store.Message
	Working  bool // the agent owes a reply
}

// Render draws the log as a feed; agent and tool text is text, never markup.
func (t *Thread) Render() app.UI {
	return app.Div().Class("thread").Body(
		app.Div().Class("thread-body").Body(
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
						return &MessageItem{Message: t.Messages[i]}
					}),
				),
			// After the log, not in it: the status has its own live region, and a screen
			// reader should not announce "Stop" with every message. Waiting prompts are in
			// the composer's dock.
			app.If(t.Working, func() app.UI {
				return app.Div().Class("working-row").Body(
					app.Div().Class("msg msg-agent working").Role("status").Body(
						app.Span().Class("sr-only").Text("The agent is working…"),
						app.Span().Class("dot"), app.Span().Class("dot"), app.Span().Class("dot"),
					),
					app.Button().Type("button").Class("stop").Text("Stop").
						Aria("label", "Stop the running turn").
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
}

// Render draws the message's text as a text node.
func (m *MessageItem) Render() app.UI {
	return app.Div().
		Class("msg msg-"+string(m.Message.Role)).
		DataSet("offset", strconv.FormatUint(m.Message.Offset, 10)).
		Body(
			// Who wrote it, for a screen reader: the bubble's side and colour say it to the eye.
			app.Span().Class("sr-only").Text(authorOf(m.Message)),
			app.If(m.Message.From != "", func() app.UI {
				return app.Div().Class("msg-from").Text(fromLabel[m.Message.From])
			}),
			app.Div().Class("msg-text").Text(m.Message.Text),
		)
}

// authorOf says who wrote a message, for a screen reader: the bubble's side and colour say it
// to the eye.
func authorOf(m store.Message) string {
	switch {
	case m.Role == store.RoleUser:
		return "You said:"
	case m.From == protocol.FromParley:
		return "Parley said:"
	case m.From == protocol.FromScript:
		return "The script said:"
	}
	return "The agent said:"
}

// fromLabel names, visibly, a message that is not the agent's own.
var fromLabel = map[string]string{protocol.FromParley: "Parley", protocol.FromScript: "Script"}
