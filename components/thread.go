package components

import (
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/components/inputbar"
	"parley/i18n"
	mo "parley/machine/outbox"
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
	// Older says the log holds entries before Messages: "Show earlier messages", or scrolling
	// to the top, pages them in (older.go).
	Older bool
	// Unsent are the prompts the server has not stored yet, shown after the log (outbox.go).
	Unsent []mo.Entry
	// RetryAbove says the strip above the thread offers Retry now (renderReach).
	RetryAbove bool
	// Aside is the open decision the person set aside to chat (the composer says which):
	// its card says so, since the composer below does not show it.
	Aside string
	// Kept says the thread is the browser's kept copy (kept.go), shown until the replay
	// comes: the composer holds none of its decisions, so no card points below.
	Kept bool

	earlier int // how many windowSteps of older messages the person asked for
	asked   int // how many messages were held when the last older window was asked for

	// stop is the offset of the message that holds the log's one tab stop (roving, see
	// docs/look.md "Messages"); one not shown means the last message.
	stop uint64
	// reveal says "Show earlier messages" was pressed: the first message it reveals (one
	// before offset below) takes the focus once it is drawn.
	reveal  bool
	below   uint64
	ctx     app.Context
	mounted bool
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
	stop := t.stopIn(shown, start)
	// The thread scrolls: it takes the focus (Tab), so the keyboard can scroll it too (axe:
	// scrollable-region-focusable).
	return app.Div().Class("thread").TabIndex(0).Role("region").Aria("label", tr(i18n.ThreadLabel)).OnScroll(t.onScroll).Body(
		t.jumpSlot(),
		app.Div().Class("thread-body").Body(
			// Always there, so the log after it keeps its index and is not rebuilt.
			app.Div().Class("earlier-slot").Body(
				app.If(start > 0 || t.Older, func() app.UI {
					label := tr(i18n.ShowEarlier)
					if start > 0 {
						label = tr(i18n.ShowEarlierMore, start)
					}
					return app.Button().Type("button").Class("link-button earlier").
						Text(label).
						OnClick(func(ctx app.Context, e app.Event) {
							t.asked = -1 // a click asks again, after a failed read too
							// Read now, not from the render that made this handler: go-app keeps
							// the first one.
							if st := windowStart(len(t.Messages), t.earlier); st < len(t.Messages) {
								t.reveal, t.below = true, t.Messages[st].Offset
							}
							t.showEarlier(ctx)
							t.later(t.focusRevealed)
						})
				}),
			),
			app.Div().Class("thread-inner").
				Aria("live", "polite").
				Role("log").
				Aria("label", tr(i18n.ConversationLabel)).
				OnKeyDown(t.onKey).
				On("focusin", t.onFocusIn).
				Body(
					app.Range(shown).Slice(func(i int) app.UI {
						switch m := shown[i]; m.Role {
						case store.RoleAgent:
							if shownInRun(t.Messages, start+i) {
								// Its run's card shows it already: the same item, hidden,
								// keeps the indexes after it.
								return &MessageItem{Message: m, Folded: true}
							}
						case store.RoleRun:
							return renderRun(m, runWaitsOnYou(shown, i))
						case store.RoleDecision:
							return &DecisionCard{Message: m, Aside: m.ID == t.Aside, Kept: t.Kept}
						case store.RoleTool:
							on, waiting := waitingOn(shown, i)
							return &ToolReceipt{Message: m, Waiting: waiting, Aside: waiting && (t.Kept || t.Aside != "" && on == t.Aside)}
						}
						return &MessageItem{Message: shown[i], Stop: shown[i].Offset == stop}
					}),
					// Last, hidden: the place the next streamed message takes (adoptStream).
					&MessageItem{Pending: true, Message: store.Message{Role: store.RoleAgent, Status: store.StatusStreaming}},
				),
			// After the log, so the log keeps its indexes: what waits to be sent.
			&Unsent{Entries: t.Unsent, RetryAbove: t.RetryAbove},
			// After the log, not in it: the status has its own live region, and a screen
			// reader should not announce "Stop" with every message. Waiting prompts are in
			// the composer's dock.
			app.If(t.Working, func() app.UI {
				return app.Div().Class("working-row").Body(
					app.Div().Class("msg msg-agent working").Role("status").Body(
						app.Span().Class("sr-only").Text(tr(i18n.AgentWorking)),
						app.Span().Class("dot"), app.Span().Class("dot"), app.Span().Class("dot"),
					),
					app.Button().Type("button").Class("stop").Text(tr(i18n.Stop)).
						Aria("label", tr(i18n.StopTitle)).
						OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionStop) }),
				)
			}),
		),
	)
}

// shownInRun reports whether the message at i is a script's send() whose words its run's
// card shows already, as the run's result or in its output: the output is shown once, in
// the card that holds it.
func shownInRun(msgs []store.Message, i int) bool {
	m := msgs[i]
	if m.From != protocol.FromScript || strings.TrimSpace(m.Text) == "" {
		return false
	}
	// The run is the latest one before it; a script's messages come between its start and
	// the end of its turn, so a few entries back is far enough.
	for j := i - 1; j >= 0 && j >= i-50; j-- {
		if r := msgs[j]; r.Role == store.RoleRun {
			// Whole lines only: "ok" is inside "looking", and a send("ok") was hidden by an
			// output line that merely held the letters (QA round 21).
			text := strings.TrimSpace(m.Text)
			return strings.TrimSpace(r.Result) == text || strings.Contains("\n"+trimLines(r.Detail)+"\n", "\n"+trimLines(text)+"\n")
		}
	}
	return false
}

// trimLines is s with each line's surrounding white space cut.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

// messageClass is a message's class list; adoptStream writes the same for a streaming one.
func messageClass(m store.Message) string {
	class := "msg msg-" + string(m.Role)
	switch {
	case m.From == protocol.FromParley:
		class += " msg-notice" // Parley's own words: why a turn could not go on
	case m.Status == store.StatusStreaming:
		class += " msg-streaming"
	case m.Status == store.StatusInterrupted:
		class += " msg-interrupted"
	}
	return class
}

// MessageItem is one message.
type MessageItem struct {
	app.Compo
	Message store.Message
	// Folded hides a message shown elsewhere (shownInRun).
	Folded bool
	// Stop says the message holds the log's one tab stop: it and its Copy are in the Tab
	// order; the others are reached with the arrows.
	Stop bool
	// Pending makes this the hidden, empty streaming message kept after the log, so that
	// the next message's first token is written into the page at once (adoptStream) rather
	// than waiting for go-app's next frame and a mount. Its class and data-stream are none a
	// real message has (and without the class "msg" it is in no list of messages), so
	// go-app's next render of the same node, comparing against what it drew here, sets both.
	Pending bool

	showCode bool // a command's whole text, not only its first line
	showAll  bool // a long prompt's whole text, not only its first lines (longText)
}

// Render draws the message's text as a text node, its time (on hover) and a copy button.
func (m *MessageItem) Render() app.UI {
	if m.Folded {
		return app.Div().Class("msg-folded").Hidden(true)
	}
	class, stream := messageClass(m.Message), m.Message.Stream
	if m.Pending {
		class, stream = pendingClass, pendingStream
	}
	cmd, isCmd := protocol.Command{}, false
	if m.Message.Role == store.RoleUser {
		cmd, isCmd = protocol.ResolveCommand(m.Message.Text)
	}
	var text app.UI
	if isCmd {
		class += " msg-command"
		text = m.commandText(cmd)
	} else {
		text = m.text()
	}
	tab := -1
	if m.Stop {
		tab = 0
	}
	return app.Div().
		Class(class).
		Hidden(m.Pending).
		Role("article").
		TabIndex(tab).
		DataSet("stream", stream).
		DataSet("offset", strconv.FormatUint(m.Message.Offset, 10)).
		Body(
			// Who wrote it, for a screen reader: the side and the tint say it to the eye.
			app.Span().Class("sr-only").Text(authorOf(m.Message)),
			app.If(m.Message.From != "", func() app.UI {
				return app.Div().Class("msg-from").Text(fromLabel(m.Message.From))
			}),
			text,
			app.If(m.Message.Status == store.StatusInterrupted, func() app.UI {
				return app.Div().Class("msg-note").Text(tr(i18n.InterruptedMessage))
			}),
			app.If(m.Message.Status == store.StatusStopped, func() app.UI {
				return app.Div().Class("msg-note").Text(tr(i18n.OutcomeStopped))
			}),
			app.If(m.Message.Status != store.StatusStreaming, func() app.UI {
				return app.Div().Class("msg-meta").Body(
					app.If(m.Message.At > 0, func() app.UI {
						at := time.UnixMilli(m.Message.At)
						return app.Elem("time").Class("msg-time").Attr("datetime", at.Format(time.RFC3339)).
							Title(at.Format(tr(i18n.LayoutTime))).Text(clockTime(at))
					}),
					&CopyButton{Text: shownText(m.Message), Reachable: m.Stop},
				)
			}),
		)
}

// clockTime is a message's time as the hover shows it.
func clockTime(at time.Time) string { return at.Format("15:04") }

// commandText shows a slash command by its name and the first line of what follows it; the
// whole code is behind a toggle, so a script does not fill the thread.
func (m *MessageItem) commandText(cmd protocol.Command) app.UI {
	first, _, multi := strings.Cut(strings.TrimSpace(cmd.Args), "\n")
	long := multi || len(first) > 80
	lines := strings.Count(strings.TrimSpace(cmd.Args), "\n") + 1
	label := tr(i18n.ShowCode)
	if lines > 1 {
		label = tr(i18n.ShowCodeLines, lines)
	}
	if m.showCode {
		label = tr(i18n.HideCode)
	}
	return app.Div().Class("msg-text cmd").Body(
		// Inline, with a space: the line reads (and copies) as it was typed.
		app.Div().Class("cmd-line").Body(
			app.Span().Class("cmd-name").Text("/"+cmd.Name),
			app.If(first != "" && !m.showCode, func() app.UI {
				return app.Span().Class("cmd-first").Text(" " + first)
			}),
		),
		app.If(m.showCode, func() app.UI {
			return app.Elem("pre").Class("cmd-code").Text(cmd.Args)
		}),
		app.If(long, func() app.UI { return foldToggle("cmd-toggle", label, &m.showCode) }),
	)
}

// authorOf says who wrote a message, for a screen reader: the bubble's side and colour say it
// to the eye.
func authorOf(m store.Message) string {
	switch {
	case m.Role == store.RoleUser:
		return tr(i18n.SaidYou)
	case m.From == protocol.FromParley:
		return tr(i18n.SaidParley)
	case m.From == protocol.FromScript:
		return tr(i18n.SaidScript)
	}
	return tr(i18n.SaidAgent)
}

// fromLabel names, visibly, a message that is not the agent's own.
func fromLabel(from string) string {
	switch from {
	case protocol.FromParley:
		return tr(i18n.FromParley)
	case protocol.FromScript:
		return tr(i18n.FromScript)
	}
	return ""
}

// showEarlier mounts a step more of the messages held, and asks for the window before them
// when they are all mounted.
func (t *Thread) showEarlier(ctx app.Context) {
	switch {
	case windowStart(len(t.Messages), t.earlier) > 0:
		t.earlier++
	case t.Older && t.asked != len(t.Messages):
		// Once per window: the step it will fill is mounted when it comes.
		t.asked = len(t.Messages)
		t.earlier++
		ctx.NewAction(actionLoadEarlier)
	default:
		ctx.PreventUpdate()
	}
}

// onScroll shows earlier messages once the person scrolls near the top. The thread is laid
// out bottom up (column-reverse), so its scrollTop is 0 at the bottom and negative above.
func (t *Thread) onScroll(ctx app.Context, e app.Event) {
	el := e.Get("currentTarget")
	followAway(el)
	fromTop := el.Get("scrollHeight").Int() - el.Get("clientHeight").Int() + el.Get("scrollTop").Int()
	if fromTop > 200 {
		ctx.PreventUpdate() // a scroll renders nothing
		return
	}
	t.showEarlier(ctx)
}

// OnMount relabels the thread when the locale switches, and brings it to its newest end
// when the person sends a prompt (thread_scroll.go).
func (t *Thread) OnMount(ctx app.Context) {
	t.ctx, t.mounted = ctx, true
	relabel(ctx)
	ctx.Handle(inputbar.ActionSent, t.onSent)
}

// OnMount relabels the message when the locale switches.
func (m *MessageItem) OnMount(ctx app.Context) { relabel(ctx) }
