package components

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/app/store"
	"parley/components/composer"
	"parley/i18n"
	"parley/machine/batch"
	"parley/protocol"
)

// actionDecide carries a DecideIntent from a decision card to the conversation, which sends
// it; actionStop asks to stop the running turn.
const (
	actionDecide     = "parley.decide"
	actionStop       = "parley.stop"
	actionCloseMenu  = "parley.close-menu"  // the session list was used: close it
	actionEscapeMenu = "parley.escape-menu" // Escape in the session list: close it, focus its toggle
)

// DecideIntent is a reply a person gave on a decision card. Session is set where the card
// is not in the open session's thread (the approvals screen).
type DecideIntent struct {
	Session  string
	Decision string
	Reply    protocol.ReplyRequest
}

// maxDetailShown keeps a card readable: longer details show their head and tail, and expand.
const maxDetailShown = 2000

// renderRun draws a run: what runs, its output as text, and how it settled.
func renderRun(m store.Message, waiting bool) app.UI {
	status := statusText(runStatusText, m.Status)
	if waiting {
		status = tr(i18n.RunWaiting)
	}
	// One article in the log, named by its title and status ("Script, Failed"), as a
	// message is one: its parts were loose text to a screen reader.
	id := "run-" + m.ID
	return app.Div().
		Class("entry entry-run status-"+string(m.Status)).
		Role("article").
		Aria("labelledby", id+"-title "+id+"-status").
		DataSet("offset", strconv.FormatUint(m.Offset, 10)).
		DataSet("run", m.ID).
		Body(
			app.Div().Class("entry-head").Body(
				app.Span().Class("entry-title").ID(id+"-title").Text(runTitle(m.Title)),
				app.Span().Class("entry-status").ID(id+"-status").Text(status),
			),
			app.If(m.Detail != "", func() app.UI {
				return app.Elem("pre").Class("entry-output").Text(runDetail(m))
			}),
			app.If(m.Result != "", func() app.UI {
				return app.Div().Class("entry-result").Text(runResult(m))
			}),
		)
}

// runDetail is a run's output with the gate's lines about earlier grants in the page's words.
func runDetail(m store.Message) string {
	detail := m.Detail
	for _, g := range m.Granted {
		detail = strings.Replace(detail, g.Text, tr(i18n.RunGranted, scopeWords(g.Scope), g.Call)+"\n", 1)
	}
	return detail
}

// runResult is a run's result: its own output once done, else the store's words for how it
// ended, in the page's locale.
func runResult(m store.Message) string {
	if m.Status == store.StatusDone {
		return m.Result
	}
	if m.ResultPhrase != nil {
		return locale.Current().Say(m.ResultPhrase, m.Result)
	}
	return outcomeText(m.Result)
}

var runStatusText = map[store.Status]i18n.Msg{
	store.StatusRunning:     i18n.RunRunning,
	store.StatusDone:        i18n.RunDone,
	store.StatusFailed:      i18n.RunFailed,
	store.StatusStopped:     i18n.RunStopped,
	store.StatusInterrupted: i18n.RunInterrupted,
}

// statusText words a status from table, or nothing for a status it has no word for.
func statusText(table map[store.Status]i18n.Msg, s store.Status) string {
	if m, ok := table[s]; ok {
		return tr(m)
	}
	return ""
}

// DecisionCard is a question or an approval. In its thread, while it is open, the composer
// holds it, so the card is one line that says so and takes the focus there; a batch shows
// every request with an answer each, and the approvals screen's cards (Session set) are
// answered where they are. Once it ends, the card states the outcome in words. Details are
// text, never markup.
type DecisionCard struct {
	app.Compo
	Message store.Message
	// Session is the card's session when it is shown outside its thread ("" in it).
	Session string
	// Aside says the person set this open decision aside to chat: the composer shows the
	// input, not it, and a click or Enter brings it back.
	Aside bool
	// Kept says the card is of the browser's kept thread: the composer does not hold its
	// decision (offline, or before the replay), so it waits on the server, not below.
	Kept     bool
	expanded bool
	// typed and problem belong to a single text or number question answered on the card.
	typed   string
	problem string
	// reason is a rejection's reason; items are a batch's answers, request by request
	// (batch.go); retried says Request retry was sent.
	reason  string
	items   []string
	retried string
	shown   string    // the decision the state above belongs to
	drawnAt time.Time // when the card drew it: a click on its answers sooner is a stray
}

// Render draws the card.
func (d *DecisionCard) Render() app.UI {
	m := worded(d.Message)
	if m.ID != d.shown {
		if d.shown != "" {
			// go-app reuses a component by its place: a card that now shows another decision
			// (the approvals screen's queue moved up) must not keep what was typed for the
			// last, nor take a click meant for it.
			d.expanded, d.typed, d.problem, d.reason, d.items, d.retried = false, "", "", "", nil, ""
		}
		d.drawnAt = time.Now()
	}
	d.shown = m.ID
	if m.Status == store.StatusPending && d.Session == "" && !d.isBatch() {
		return d.renderWaiting()
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
		ID("decision-"+m.ID).
		Role("group").
		Aria("label", kindWord(m.Request)+": "+m.Title).
		Body(
			app.Div().Class("entry-head").Body(
				app.Span().Class("entry-kind").Text(kindWord(m.Request)),
				app.Span().Class("entry-title").Text(m.Title),
			),
			app.If(detail != "" && !d.isBatch(), func() app.UI {
				return app.Elem("pre").Class("entry-output").Text(detail)
			}),
			app.If(truncated && !d.isBatch(), func() app.UI {
				return app.Button().Type("button").Class("link-button").Text(tr(i18n.ShowAll)).
					OnClick(func(ctx app.Context, e app.Event) { d.expanded = true })
			}),
			app.If(d.isBatch(), d.renderBatch),
			app.If(m.Status == store.StatusPending && m.Request != nil, func() app.UI {
				return app.Div().Class("entry-actions").Body(d.answers()...)
			}),
			app.If(m.Status == store.StatusPending && m.Request != nil && m.Request.Kind == protocol.KindApproval, d.renderReason),
			// How it ended, under what was asked: a long outcome wraps, never squeezes the title.
			app.If(m.Status != store.StatusPending, func() app.UI {
				return app.Div().Class("entry-outcome").Text(resultText(m))
			}),
			app.If(m.Retry, d.renderRetry),
		)
}

// renderWaiting is an open decision's card in its thread: one line that leads to the composer.
func (d *DecisionCard) renderWaiting() app.UI {
	m := worded(d.Message)
	label, wide, narrow := i18n.WaitingBelowLabel, i18n.WaitingBelow, i18n.AnswerBelow
	below := !d.Aside && !d.Kept
	if d.Aside {
		label, wide, narrow = i18n.SetAsideLabel, i18n.SetAsideBelow, i18n.SetAsideShort
	} else if d.Kept {
		label, wide, narrow = i18n.WaitingServerLabel, i18n.WaitingServer, i18n.WaitingServerShort
	}
	return app.Div().
		Class("entry entry-decision entry-waiting status-pending").
		DataSet("offset", strconv.FormatUint(m.Offset, 10)).
		DataSet("decision", m.ID).
		ID("decision-"+m.ID).
		Role("button").
		TabIndex(0).
		Aria("label", tr(label, kindWord(m.Request), m.Title)).
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
				app.Span().Class("when-wide").Text(tr(wide)),
				app.Span().Class("when-narrow").Text(tr(narrow)),
				app.If(below, func() app.UI { return app.Text(" ↓") }),
			),
		)
}

// answers are the one-click answers a card offers: an approval's options, a confirm's two
// choices, a lone single choice's options, and Decline where the kind has no "no" of its own.
func (d *DecisionCard) answers() []app.UI {
	req := worded(d.Message).Request
	var out []app.UI
	button := func(label, description string, tone protocol.Tone, reply protocol.ReplyRequest) app.UI {
		return app.Button().Type("button").Class("choice tone-"+string(tone)).
			Title(description).
			Body(
				app.Span().Class("choice-label").Text(label),
				app.If(description != "", func() app.UI {
					return app.Span().Class("choice-description").Text(description)
				}),
			).
			OnClick(func(ctx app.Context, e app.Event) {
				if composer.Stray(e.Value, d.drawnAt) {
					return
				}
				if tone == protocol.ToneDeny && strings.TrimSpace(d.reason) != "" {
					// A rejection with its reason: what the asker reads.
					reply = protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: strings.TrimSpace(d.reason)}
				}
				d.decide(ctx, d.asMarked(reply, tone))
			}, d.scope())
	}
	accept := func(v any) protocol.ReplyRequest {
		raw, _ := json.Marshal(v)
		return protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw}
	}
	switch req.Kind {
	case protocol.KindApproval:
		for i, o := range req.Options {
			label := o.Label
			if p, ok := batch.Of(d.items, len(req.Items)); ok && d.isBatch() && o.Value == protocol.OptionAllow {
				label = p.Label(locale.Current()) // what asMarked sends
			}
			out = append(out, button(label, o.Description, o.Tone, accept(protocol.ApprovalAnswer{Option: &i})))
		}
		return out
	case protocol.KindConfirm:
		yes, no := tr(i18n.Yes), tr(i18n.No)
		if req.Schema != nil {
			yes, no = cmpOr(req.Schema.TrueLabel, yes), cmpOr(req.Schema.FalseLabel, no)
		}
		out = append(out, button(yes, "", protocol.ToneAffirm, accept(true)), button(no, "", protocol.ToneNeutral, accept(false)))
	case protocol.KindAsk:
		switch s := req.Schema; {
		case s != nil && s.IsSingleSelect():
			for _, c := range s.Choices() {
				out = append(out, button(c.Label, c.Description, protocol.ToneNeutral, accept(c.Value)))
			}
		case s != nil && s.Type == "boolean":
			out = append(out, button(cmpOr(s.TrueLabel, tr(i18n.Yes)), "", protocol.ToneAffirm, accept(true)),
				button(cmpOr(s.FalseLabel, tr(i18n.No)), "", protocol.ToneNeutral, accept(false)))
		case s != nil && (s.Type == "string" || s.Type == "number" || s.Type == "integer"):
			out = append(out, d.inlineAnswer(s))
		case d.Session != "":
			// On the approvals screen no composer is below: the way to answer is the thread.
			note := i18n.CardSeveralQuestionsElsewhere
			if s != nil && s.IsMultiSelect() {
				note = i18n.CardSeveralChoicesElsewhere
			}
			out = append(out, app.Span().Class("entry-note").Text(tr(note)),
				app.A().Class("choice tone-affirm answer-in-thread").Href("/s/"+d.Session+"#decision-"+d.Message.ID).Text(tr(i18n.AnswerInThread)))
		case s != nil && s.IsMultiSelect():
			out = append(out, app.Span().Class("entry-note").Text(tr(i18n.CardSeveralChoices)))
		default:
			out = append(out, app.Span().Class("entry-note").Text(tr(i18n.CardSeveralQuestions)))
		}
	}
	// One way to say no: an approval's Reject option or a confirm's No is it; a question gets
	// Decline.
	if req.Kind == protocol.KindApproval && slices.ContainsFunc(req.Options, func(o protocol.ApprovalOption) bool { return o.Tone == protocol.ToneDeny }) {
		return out
	}
	if req.Kind == protocol.KindConfirm {
		return out
	}
	return append(out, button(tr(i18n.Decline), "", protocol.ToneDeny, protocol.ReplyRequest{Action: protocol.ActionDecline}))
}

// inlineAnswer is a field and a Send button for a single text or number question. The
// answer is checked with the protocol's validation before it is sent, with the same words
// the server would use.
func (d *DecisionCard) inlineAnswer(s *protocol.Schema) app.UI {
	kind := "text"
	if s.Type != "string" {
		kind = "number"
	}
	label := cmpOr(s.Title, tr(i18n.YourAnswer))
	onInput := func(ctx app.Context, e app.Event) {
		d.typed, d.problem = ctx.JSSrc().Get("value").String(), ""
	}
	var input app.UI
	if s.Multiline {
		input = app.Textarea().Class("entry-input").Aria("label", label).Placeholder(s.Placeholder).OnInput(onInput)
	} else {
		input = app.Input().Type(kind).Class("entry-input").Aria("label", label).Placeholder(s.Placeholder).
			OnInput(onInput).
			OnKeyDown(func(ctx app.Context, e app.Event) {
				// IME-safe: the Enter that ends a composition never sends.
				if e.Get("key").String() == "Enter" && !e.Get("isComposing").Bool() && e.Get("keyCode").Int() != 229 {
					e.PreventDefault()
					d.sendTyped(ctx, s)
				}
			}, d.scope())
	}
	return app.Div().Class("entry-answer").Body(
		input,
		app.Button().Type("button").Class("choice tone-affirm").Text(tr(i18n.Send)).
			OnClick(func(ctx app.Context, e app.Event) {
				if !composer.Stray(e.Value, d.drawnAt) {
					d.sendTyped(ctx, s)
				}
			}, d.scope()),
		app.If(d.problem != "", func() app.UI {
			return app.Div().Class("entry-problem").Role("alert").Text(d.problem)
		}),
	)
}

func (d *DecisionCard) sendTyped(ctx app.Context, s *protocol.Schema) {
	var content json.RawMessage
	if s.Type == "string" {
		content, _ = json.Marshal(d.typed)
	} else {
		content = json.RawMessage(strings.TrimSpace(d.typed))
		if len(content) == 0 || !json.Valid(content) {
			d.problem = tr(i18n.TypeANumber)
			return
		}
	}
	if err := s.ValidateContent(content); err != nil {
		d.problem = fieldProblem(err)
		return
	}
	d.decide(ctx, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: content})
}

// kindWord names what a decision card is.
func kindWord(req *protocol.DecisionRequest) string {
	switch {
	case req != nil && req.Kind == protocol.KindApproval:
		return tr(i18n.KindApproval)
	case req != nil && req.Kind == protocol.KindConfirm:
		return tr(i18n.Confirm) // as the composer's badge calls it
	}
	return tr(i18n.KindQuestion)
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

// fieldProblem words a validation error for one field.
func fieldProblem(err error) string {
	var verr *protocol.ValidationError
	if errors.As(err, &verr) {
		for _, msg := range locale.Current().FieldsIn(verr.Fields, verr.Phrases) {
			if msg != "" && msg[0] >= 'a' && msg[0] <= 'z' { // English: a sentence of it
				return strings.ToUpper(msg[:1]) + msg[1:] + "."
			}
			return msg
		}
	}
	return err.Error()
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
	return head + "\n" + tr(i18n.BytesNotShown, len(s)-len(head)-len(tail)) + "\n" + tail
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// maxToolShown keeps a receipt compact: longer arguments and results show head and tail.
const maxToolShown = 600

// ToolReceipt is one tool call of the model: the tool, its arguments and what came back,
// all as text (a model's arguments and a tool's output are never markup).
type ToolReceipt struct {
	app.Compo
	Message store.Message
	// Waiting says the call has not run: its turn waits on the decision drawn after it (its
	// approval, or ask_user's question), so it says so rather than "running…".
	Waiting bool
	// Aside says that decision is set aside: its answer is not "below" now.
	Aside    bool
	expanded bool
}

// runWaitsOnYou says the running run at i waits on a decision it asked: one of the decisions
// drawn after it (before the next prompt or run) is open. It says "waiting for you", not
// "running…", while nothing runs but the person's answer is awaited.
func runWaitsOnYou(shown []store.Message, i int) bool {
	if shown[i].Status != store.StatusRunning {
		return false
	}
	for _, m := range shown[i+1:] {
		switch {
		case m.Role == store.RoleUser || m.Role == store.RoleRun:
			return false
		case m.Role == store.RoleDecision && m.Status == store.StatusPending:
			return true
		}
	}
	return false
}

// waitsOnYou says the running call at i waits on a decision: the next entry after it (and
// after its batch's other calls) is a pending decision, and it has written nothing yet.
func waitsOnYou(shown []store.Message, i int) bool {
	_, ok := waitingOn(shown, i)
	return ok
}

// waitingOn is the open decision the tool call shown[i] waits on, if it waits on one
// (waitsOnYou).
func waitingOn(shown []store.Message, i int) (string, bool) {
	if m := shown[i]; m.Status != store.StatusRunning || m.Output != "" || m.Progress != nil {
		return "", false
	}
	for _, m := range shown[i+1:] {
		if m.Role != store.RoleTool {
			return m.ID, m.Role == store.RoleDecision && m.Status == store.StatusPending
		}
	}
	return "", false
}

// OnMount relabels the receipt when the locale switches.
func (r *ToolReceipt) OnMount(ctx app.Context) { relabel(ctx) }

// Render draws the receipt.
func (r *ToolReceipt) Render() app.UI {
	m := r.Message
	args, result := m.Detail, m.Result
	if m.Status != store.StatusDone {
		result = outcomeText(result) // the store's own words (stopped, interrupted), not the tool's
	}
	// What the call wrote while it ran; once its result is in, the result says it (the
	// output is part of it), unless the call never got one (stopped, interrupted): then the
	// output stays above the words that say so (QA round 21: Stop erased the output the
	// person was watching).
	showOutput := m.Output != "" && (result == "" || m.Status != store.StatusDone)
	long := len(args) > maxToolShown || len(result) > maxToolShown || (showOutput && len(m.Output) > maxOutputShown)
	if m.Title == askUserTool && !r.expanded && (args != "" || result != "") {
		// The question's card beside it says it in words (the choice's title, not its
		// value): the call's JSON stays folded (QA round 26: the schema, and "the user
		// answered: "r"" over the card's "Red").
		args, result, long = "", "", true
	}
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
		Aria("label", tr(i18n.ToolCall, m.Title)).
		Body(
			app.Div().Class("entry-head").Body(
				app.Span().Class("entry-title").Text(m.Title),
				app.Span().Class("entry-status").Text(toolStatus(m.Status, r.Waiting, r.Aside)),
			),
			app.If(args != "", func() app.UI {
				return app.Elem("pre").Class("entry-output tool-args").Text(args)
			}),
			// An earlier "always" let it run without asking: said, so nothing runs unseen.
			app.Range(m.Granted).Slice(func(i int) app.UI {
				return app.Div().Class("tool-granted").Text(strings.TrimSpace(tr(i18n.RunGranted, scopeWords(m.Granted[i].Scope), m.Granted[i].Call)))
			}),
			app.If(m.Progress != nil, func() app.UI { return progressBar(*m.Progress) }),
			app.If(showOutput, func() app.UI {
				return app.Elem("pre").Class("entry-output tool-output").Role("log").Aria("label", tr(i18n.OutputSoFar)).
					Text(outputShown(m.Output, m.OutputCut, r.expanded))
			}),
			app.If(result != "", func() app.UI {
				return app.Elem("pre").Class("entry-output tool-result").Text(result)
			}),
			app.If(long && !r.expanded, func() app.UI {
				return app.Button().Type("button").Class("link-button").Text(tr(i18n.ShowAll)).
					OnClick(func(ctx app.Context, e app.Event) { r.expanded = true })
			}),
		)
}

// askUserTool is the model's tool for a question to the person (runtime/agent/toolbox).
const askUserTool = "ask_user"

// maxOutputShown keeps a running call's receipt compact: its latest output is what matters.
const maxOutputShown = 4 << 10

// outputShown is a running call's output as its receipt shows it: the tail, unless expanded.
func outputShown(out string, cut, expanded bool) string {
	if !expanded && len(out) > maxOutputShown {
		start := len(out) - maxOutputShown
		for start < len(out) && !utf8RuneStart(out[start]) {
			start++
		}
		out = tr(i18n.BytesAbove, start) + "\n" + out[start:]
	}
	if cut {
		out += "\n" + tr(i18n.MoreOutput)
	}
	return out
}

// progressBar draws a tool's progress notification: a bar (indeterminate without a total)
// and the server's message, as text.
func progressBar(p protocol.ToolProgress) app.UI {
	bar := app.Elem("progress").Class("tool-progress-bar").Aria("label", tr(i18n.ProgressLabel))
	label := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		bar = bar.Attr("max", p.Total).Attr("value", min(p.Progress, p.Total))
		label = tr(i18n.ProgressOf, label, strconv.FormatFloat(p.Total, 'f', -1, 64))
	}
	return app.Div().Class("tool-progress").Body(
		bar,
		app.Span().Class("tool-progress-text").Text(label+cmpMessage(p.Message)),
	)
}

func cmpMessage(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

func toolStatus(s store.Status, waiting, aside bool) string {
	switch {
	case waiting && aside:
		return tr(i18n.RunWaiting) // set aside: the composer below holds the input, not it
	case waiting:
		return tr(i18n.WaitingBelow)
	}
	return statusText(toolStatusText, s)
}

var toolStatusText = map[store.Status]i18n.Msg{
	store.StatusRunning:     i18n.RunRunning,
	store.StatusDone:        i18n.RunDone,
	store.StatusFailed:      i18n.ToolErrorWord,
	store.StatusInterrupted: i18n.RunInterrupted,
}
