package components

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/protocol"
)

// actionStop asks to stop the running turn.
const (
	actionStop       = "parley.stop"
	actionCloseMenu  = "parley.close-menu"  // the session list was used: close it
	actionEscapeMenu = "parley.escape-menu" // Escape in the session list: close it, focus its toggle
)

// maxDetailShown keeps a card readable: longer details show their head and tail, and expand.
const maxDetailShown = 2000

// renderRun draws a run: what runs, its output as text, and how it settled.
func renderRun(m store.Message) app.UI {
	return app.Div().
		Class("entry entry-run status-"+string(m.Status)).
		DataSet("offset", strconv.FormatUint(m.Offset, 10)).
		DataSet("run", m.ID).
		Body(
			app.Div().Class("entry-head").Body(
				app.Span().Class("entry-title").Text(m.Title),
				app.Span().Class("entry-status").Text(runStatusText[m.Status]),
			),
			app.If(m.Detail != "", func() app.UI {
				return app.Pre().Class("entry-output").Text(m.Detail)
			}),
			app.If(m.Result != "", func() app.UI {
				return app.Div().Class("entry-result").Text(m.Result)
			}),
		)
}

var runStatusText = map[store.Status]string{
	store.StatusRunning:     "running…",
	store.StatusDone:        "done",
	store.StatusFailed:      "failed",
	store.StatusStopped:     "stopped",
	store.StatusInterrupted: "interrupted",
}

// DecisionCard is a question or an approval where it was asked. While it is open the
// composer holds it, so the card is one line that says so and takes the focus there; once it
// ends, the card states the outcome in words. Details are text, never markup.
type DecisionCard struct {
	app.Compo
	Message  store.Message
	expanded bool
}

// waitingText is what an open decision's card says: its answers are in the composer.
const waitingText = "Waiting for your answer below"

// Render draws the card.
func (d *DecisionCard) Render() app.UI {
	m := d.Message
	if m.Status == store.StatusPending {
		return app.Div().
			Class("entry entry-decision entry-waiting status-pending").
			DataSet("offset", strconv.FormatUint(m.Offset, 10)).
			DataSet("decision", m.ID).
			Role("button").
			TabIndex(0).
			Aria("label", kindWord(m.Request)+": "+m.Title+". "+waitingText+": press Enter to go there.").
			Title(m.Title).
			OnClick(focusComposer).
			OnKeyDown(func(ctx app.Context, e app.Event) {
				if k := e.Get("key").String(); k == "Enter" || k == " " {
					e.PreventDefault()
					focusComposer(ctx, e)
				}
			}).
			Body(
				app.Span().Class("entry-kind").Text(kindWord(m.Request)),
				app.Span().Class("entry-title").Text(m.Title),
				// A phone has room for the short words only; the label says it all.
				app.Span().Class("entry-status").Aria("hidden", "true").Body(
					app.Span().Class("when-wide").Text(waitingText),
					app.Span().Class("when-narrow").Text("Answer below"),
					app.Text(" ↓"),
				),
			)
	}
	detail := m.Detail
	truncated := false
	if !d.expanded && len(detail) > maxDetailShown {
		detail, truncated = headAndTail(detail, maxDetailShown), true
	}
	return app.Div().
		Class("entry entry-decision status-"+string(m.Status)).
		DataSet("offset", strconv.FormatUint(m.Offset, 10)).
		DataSet("decision", m.ID).
		Role("group").
		Aria("label", kindWord(m.Request)+": "+m.Title).
		Body(
			app.Div().Class("entry-head").Body(
				app.Span().Class("entry-kind").Text(kindWord(m.Request)),
				app.Span().Class("entry-title").Text(m.Title),
			),
			// What was asked, then how it ended.
			app.If(detail != "", func() app.UI {
				return app.Pre().Class("entry-output").Text(detail)
			}),
			app.If(truncated, func() app.UI {
				return app.Button().Type("button").Class("link-button").Text("Show all").
					OnClick(func(ctx app.Context, e app.Event) { d.expanded = true })
			}),
			app.Div().Class("entry-outcome").Text(m.Result),
		)
}

// kindWord names what a decision card is.
func kindWord(req *protocol.DecisionRequest) string {
	if req != nil && req.Kind == protocol.KindApproval {
		return "Approval"
	}
	return "Question"
}

// focusComposer moves the focus to the decision the composer shows, or, when the person set
// it aside to chat, to the chip that brings it back.
func focusComposer(ctx app.Context, e app.Event) {
	doc := app.Window().Get("document")
	if el := doc.Call("getElementById", "composer-mode"); el.Truthy() {
		el.Call("focus")
		return
	}
	if chip := doc.Call("querySelector", ".composer-env .env-chip"); chip.Truthy() {
		chip.Call("click")
	}
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// headAndTail keeps the start and the end of a long text, where commands and their last
// arguments are.
func headAndTail(s string, n int) string {
	half := n / 2
	head, tail := s[:half], s[len(s)-half:]
	for len(head) > 0 && !utf8RuneStart(head[len(head)-1]) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return head + "\n… " + strconv.Itoa(len(s)-len(head)-len(tail)) + " bytes not shown …\n" + tail
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// maxToolShown keeps a receipt compact: longer arguments and results show head and tail.
const maxToolShown = 600

// ToolReceipt is one tool call of the model: the tool, its arguments and what came back,
// all as text (a model's arguments and a tool's output are never markup).
type ToolReceipt struct {
	app.Compo
	Message  store.Message
	expanded bool
}

// Render draws the receipt.
func (r *ToolReceipt) Render() app.UI {
	m := r.Message
	args, result := m.Detail, m.Result
	long := len(args) > maxToolShown || len(result) > maxToolShown
	if !r.expanded {
		if len(args) > maxToolShown {
			args = headAndTail(args, maxToolShown)
		}
		if len(result) > maxToolShown {
			result = headAndTail(result, maxToolShown)
		}
	}
	return app.Div().
		Class("entry entry-tool status-"+string(m.Status)).
		DataSet("offset", strconv.FormatUint(m.Offset, 10)).
		DataSet("call", m.ID).
		Role("group").
		Aria("label", "Tool call: "+m.Title).
		Body(
			app.Div().Class("entry-head").Body(
				app.Span().Class("entry-title").Text(m.Title),
				app.Span().Class("entry-status").Text(toolStatusText[m.Status]),
			),
			app.If(args != "", func() app.UI {
				return app.Pre().Class("entry-output tool-args").Text(args)
			}),
			app.If(result != "", func() app.UI {
				return app.Pre().Class("entry-output tool-result").Text(result)
			}),
			app.If(long && !r.expanded, func() app.UI {
				return app.Button().Type("button").Class("link-button").Text("Show all").
					OnClick(func(ctx app.Context, e app.Event) { r.expanded = true })
			}),
		)
}

var toolStatusText = map[store.Status]string{
	store.StatusRunning:     "running…",
	store.StatusDone:        "done",
	store.StatusFailed:      "error",
	store.StatusInterrupted: "interrupted",
}
