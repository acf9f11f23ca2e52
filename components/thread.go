package components

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/protocol"
)

// Thread shows a session's messages. Messages only ever append, so go-app's by-index diff
// touches just the new ones.
//
// It mounts the most recent ones only (a window of windowStep to 2×windowStep) and the person
// asks for earlier ones: every mounted message costs DOM creation at first render and layout
// on every change of the page around it, keystrokes included.
type Thread struct {
	app.Compo
	Messages []store.Message
	// Rev changes whenever an entry changes in place (a streaming message grows): Messages
	// alone would compare equal, being the same array. The children compare their own
	// entries, so only the changed one renders again.
	Rev     uint64
	Working bool // the agent owes a reply

	earlier int // how many windowSteps of older messages the person asked for
}

// windowStep is how many messages the thread mounts beyond the newest ones, and how many more
// "Show earlier messages" adds.
const windowStep = 100

// windowStart is the index of the first mounted message. It moves in whole steps, so the
// window does not slide with each new message: go-app diffs children by index, and a sliding
// start would re-render every mounted message each time one arrives.
func windowStart(n, earlier int) int {
	start := (n - windowStep) / windowStep * windowStep
	start -= earlier * windowStep
	return max(start, 0)
}

// Render draws the log as a feed; agent and tool text is text, never markup.
func (t *Thread) Render() app.UI {
	start := windowStart(len(t.Messages), t.earlier)
	shown := t.Messages[start:]
	// The thread scrolls: it takes the focus (Tab), so the keyboard can scroll it too (axe:
	// scrollable-region-focusable).
	return app.Div().Class("thread").TabIndex(0).Role("region").Aria("label", "Thread").Body(
		app.Div().Class("thread-body").Body(
			// Always there, so the log after it keeps its index and is not rebuilt.
			app.Div().Class("earlier-slot").Body(
				app.If(start > 0, func() app.UI {
					return app.Button().Type("button").Class("link-button earlier").
						Text("Show earlier messages (" + strconv.Itoa(start) + " more)").
						OnClick(func(ctx app.Context, e app.Event) { t.earlier++ })
				}),
			),
			app.Div().Class("thread-inner").
				Aria("live", "polite").
				Role("log").
				Aria("label", "Conversation").
				Body(
					app.Range(shown).Slice(func(i int) app.UI {
						switch m := shown[i]; m.Role {
						case store.RoleRun:
							return renderRun(m)
						case store.RoleDecision:
							return &DecisionCard{Message: m}
						case store.RoleTool:
							return &ToolReceipt{Message: m}
						}
						return &MessageItem{Message: shown[i]}
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
	class := "msg msg-" + string(m.Message.Role)
	switch {
	case m.Message.From == protocol.FromParley:
		class += " msg-notice" // Parley's own words: why a turn could not go on
	case m.Message.Status == store.StatusStreaming:
		class += " msg-streaming"
	case m.Message.Status == store.StatusInterrupted:
		class += " msg-interrupted"
	}
	return app.Div().
		Class(class).
		DataSet("stream", m.Message.Stream).
		DataSet("offset", strconv.FormatUint(m.Message.Offset, 10)).
		Body(
			// Who wrote it, for a screen reader: the bubble's side and colour say it to the eye.
			app.Span().Class("sr-only").Text(authorOf(m.Message)),
			app.If(m.Message.From != "", func() app.UI {
				return app.Div().Class("msg-from").Text(fromLabel[m.Message.From])
			}),
			messageText(m.Message),
			app.If(m.Message.Status == store.StatusInterrupted, func() app.UI {
				return app.Div().Class("msg-note").Text("Interrupted: the server stopped before this message ended")
			}),
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
