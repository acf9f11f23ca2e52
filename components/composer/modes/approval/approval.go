// Package approval is the composer's approval mode, a derivative of the question mode: the
// same one-click choice buttons (widget.ChoiceButton), plus what is being approved, shown as
// text. An option is answered by its own click; text typed here goes through the send button
// as a rejection with an instruction, which the tool receives as its error text.
package approval

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/hub"
	"parley/app/locale"
	"parley/components/composer/modes"
	"parley/components/composer/modes/widget"
	"parley/components/inputbar"
	"parley/components/internal/tabstore"
	"parley/i18n"
	"parley/machine/batch"
	"parley/machine/composer"
	"parley/machine/keymap"
	"parley/protocol"
)

// maxDetailShown keeps the panel readable: longer details show their head and tail, and the
// person can expand them.
const maxDetailShown = 1200

// maxReachShown bounds an option's description (an "always" option repeats the command).
const maxReachShown = 160

// Mode is the approval mode.
type Mode struct {
	host        modes.Host
	key         string
	d           composer.Decision
	expanded    bool
	instruction string
	initial     string // the words kept from before a reload, the field's first value
	kept        string // the sessionStorage key the words are kept under; "" keeps none
	reply       widget.Replier
	sent        bool     // an answer went from this tab
	items       []string // a batch's answers, request by request ("allow", "deny", "" for none yet)
	placed      bool     // the decision put the focus in the field itself (FocusFirst): no scroll
}

// New makes the approval mode for a decision.
func New(h modes.Host, in modes.Input) modes.Mode {
	m := &Mode{host: h, key: in.Key, d: in.Decision, reply: widget.Replier{Host: h, Decision: in.Decision}}
	m.reply.Failed = m.unsent
	if !in.Decision.Local {
		// A server decision outlives the page: the words typed for it come back after a
		// reload, as the composer's draft and a question's answers do.
		m.kept = "parley.instead." + in.Decision.ID
		m.instruction = tabstore.Get(m.kept)
		m.initial = m.instruction
		// A batch's picks too, kept where its card keeps them: either shows the other's.
	}
	return m
}

// keep keeps the words typed (none: forgets them).
func (m *Mode) keep() {
	if m.kept != "" {
		tabstore.Set(m.kept, m.instruction)
	}
}

// forget drops the kept words: the answer was taken.
func (m *Mode) forget() {
	if m.kept != "" {
		tabstore.Set(m.kept, "")
	}
}

// Label implements modes.Mode.
func (m *Mode) Label() string {
	return locale.T(i18n.ApprovalOf, locale.Current().Say(m.d.Request.Phrase, m.d.Request.Message))
}

// Header shows the badge; what is asked opens the body, where it can wrap on a narrow screen.
func (m *Mode) Header() app.UI {
	return app.Div().Class("morph-title").Body(
		app.Span().Class("badge badge-approval").Text(locale.T(i18n.Approval)),
	)
}

// Body shows the details and the options, then the instruction field.
func (m *Mode) Body() app.UI {
	req := locale.Current().Request(m.d.Request) // the gate's words in the page's locale
	detail := details(req)
	truncated := false
	// Cut only what is worth a "Show all": a cut that hides a few bytes shows more than it
	// saves.
	if !m.expanded && len(detail) > maxDetailShown+maxDetailShown/4 {
		detail, truncated = HeadAndTail(detail, maxDetailShown), true
	}
	return app.Div().Class("approval").Body(
		app.Elem("p").Class("question-message approval-message").Text(req.Message),
		app.If(detail != "" && len(req.Items) < 2, func() app.UI {
			return app.Elem("pre").Class("approval-details").Aria("label", locale.T(i18n.WhatWouldRun)).Text(detail)
		}),
		app.If(len(req.Items) > 1, m.batch),
		app.If(truncated && len(req.Items) < 2, func() app.UI {
			return app.Button().Type("button").Class("link-button").Text(locale.T(i18n.ShowAll)).
				OnClick(func(ctx app.Context, e app.Event) { m.expanded = true }, app.EventScope(m.key))
		}),
		app.Div().Class("choices").Role("group").Aria("label", locale.T(i18n.Answers)).OnKeyDown(widget.ArrowKeys).Body(
			app.Range(req.Options).Slice(func(i int) app.UI {
				o := req.Options[i]
				keys := ""
				switch {
				case i == m.approveIndex() && !m.hasWords():
					keys = approveKeys // with words typed, mod+Enter sends them (Primary)
				case i == m.denyIndex():
					keys = rejectKeys
				}
				button := widget.ChoiceButtonKeys
				if i == m.approveIndex() {
					button = widget.PrimaryChoiceButtonKeys // the answer most given carries the weight
				}
				label := o.Label
				if p, ok := m.marked(i); ok {
					label = p.Label(locale.Current()) // "Approve 1, reject 1": never what is marked Reject
				}
				return button(m.key+"-opt-"+strconv.Itoa(i), label, reach(o), o.Tone, false, keys, func(ctx app.Context) {
					m.pick(ctx, i)
				})
			}),
		),
		app.Textarea().ID("approval-instruction").Class("field-input approval-instruction").Rows(2).
			Aria("label", locale.T(i18n.InsteadLabel)).
			Placeholder(locale.T(i18n.InsteadPlaceholder)).Text(m.initial).
			OnFocus(func(ctx app.Context, e app.Event) {
				if !m.placed {
					showWithSend(ctx.JSSrc()) // the person moved in: to type, and send
				}
				m.placed = false
				ctx.PreventUpdate()
			}, app.EventScope(m.key)).
			OnInput(func(ctx app.Context, e app.Event) {
				m.instruction = ctx.JSSrc().Get("value").String()
				m.keep()
			}, app.EventScope(m.key)).
			OnKeyDown(func(ctx app.Context, e app.Event) {
				k := keymap.Key{Key: e.Get("key").String(), Shift: e.Get("shiftKey").Bool(), Ctrl: e.Get("ctrlKey").Bool(),
					Alt: e.Get("altKey").Bool(), Meta: e.Get("metaKey").Bool(), Composing: e.Get("isComposing").Bool(), KeyCode: e.Get("keyCode").Int()}
				if _, ok := instructionKeys.Match(k); !ok {
					return // the chords are the container's; Shift+Enter breaks the line
				}
				e.PreventDefault()
				if strings.TrimSpace(m.instruction) != "" {
					m.reject(ctx)
				}
			}, app.EventScope(m.key)),
	)
}

// showWithSend scrolls the composer's body so that the focused words field and the Send
// under it are both in view: a batch's requests can fill the card, and the focus alone
// would leave Send below its edge (QA round 12 #18). Send first, then the field, so a card
// too short for both shows the field.
func showWithSend(field app.Value) {
	if !field.Truthy() {
		return
	}
	nearest := map[string]any{"block": "nearest"}
	if body := field.Call("closest", ".morph-body"); body.Truthy() {
		if actions := body.Call("querySelector", ".morph-actions"); actions.Truthy() {
			actions.Call("scrollIntoView", nearest)
		}
	}
	field.Call("scrollIntoView", nearest)
}

// details is what is approved: the request's details and its batch's items.
func details(req protocol.DecisionRequest) string {
	var b strings.Builder
	b.WriteString(req.Details)
	for _, it := range req.Items {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(it.Tool)
		if it.Details != "" {
			b.WriteString(": " + it.Details)
		}
	}
	return b.String()
}

// reach is the description drawn under an option: the request's own words, and for an
// "always" option the reach it grants when the request did not say it.
func reach(o protocol.ApprovalOption) string {
	if o.Description != "" || o.Grant == nil {
		// The details above show a long command whole (on request); under a button it is
		// cut, so the button keeps a button's size.
		if len(o.Description) > maxReachShown {
			return HeadAndTail(o.Description, maxReachShown)
		}
		return o.Description
	}
	switch o.Grant.Kind {
	case protocol.GrantTool:
		return locale.T(i18n.AlwaysFor, o.Grant.Tool)
	case protocol.GrantPrefix:
		return locale.T(i18n.AlwaysForWords, strings.Join(o.Grant.Words, " "))
	}
	return locale.T(i18n.AlwaysExactly)
}

// Primary sends the typed instruction as a rejection: with words typed, it is what mod+Enter
// does, and it shows the hint. Its label says so ("Reject with note"), and it is drawn quiet:
// the approving option carries the panel's weight.
func (m *Mode) Primary() modes.Action {
	empty := !m.hasWords() || m.rejectsNone()
	a := modes.Action{Label: locale.T(i18n.RejectWithNote), Title: locale.T(i18n.RejectWithWords), Disabled: empty || m.reply.Sending(), Run: m.reject, Quiet: true}
	if empty {
		a.Title = locale.T(i18n.PickOrType)
	} else {
		a.Keys = approveKeys
	}
	return a
}

// rejectsNone says the words would reject no request: every request of the batch is
// marked Allow. The button then looks as it acts: not at all (QA round 27).
func (m *Mode) rejectsNone() bool {
	n := len(m.d.Request.Items)
	if n < 2 {
		return false
	}
	p, ok := batch.Rejecting(m.picks(), n)
	return ok && p.Reject == 0
}

// hasWords says words are typed in the field for what to do instead.
func (m *Mode) hasWords() bool { return strings.TrimSpace(m.instruction) != "" }

// Unsent implements modes.Unsent: the words typed, unless an answer went from here (the
// words went with a rejection, or to the box with an approval).
func (m *Mode) Unsent() string {
	if m.sent {
		return ""
	}
	return strings.TrimSpace(m.instruction)
}

// Secondary rejects the request as a whole, without words; mod+Shift+Enter too. Escape
// does not: it sets the approval aside. A request with a rejecting option of its own has no
// secondary: that option is the one way to say no (with the words typed, if any).
func (m *Mode) Secondary() (modes.Action, bool) {
	if m.denyIndex() >= 0 {
		return modes.Action{}, false
	}
	return modes.Action{Label: locale.T(i18n.Reject), Title: locale.T(i18n.RejectTitle), Keys: rejectKeys, Run: func(ctx app.Context) {
		m.send(ctx, protocol.ReplyRequest{Action: protocol.ActionDecline})
	}}, true
}

// instructionKeys are the field for words' own: Enter sends the words as the rejection.
var instructionKeys = keymap.Map[bool]{{Keys: []string{"Enter"}, Action: true, Help: keymap.Help{Key: "enter", Desc: "reject with these words"}}}

// The approval's chords (machine/composer's keymap).
const (
	approveKeys = "mod+enter"
	rejectKeys  = "mod+shift+enter"
)

// denyIndex is the request's own rejecting option, or -1.
func (m *Mode) denyIndex() int {
	for i, o := range m.d.Request.Options {
		if o.Tone == protocol.ToneDeny {
			return i
		}
	}
	return -1
}

// approveIndex is the option mod+Enter picks: the first that affirms, else the first.
func (m *Mode) approveIndex() int {
	for i, o := range m.d.Request.Options {
		if o.Tone == protocol.ToneAffirm {
			return i
		}
	}
	return 0
}

// Shortcut implements modes.Approver: mod+Enter picks the approving option; mod+Shift+Enter
// rejects, with the words typed if there are any. With words typed, mod+Enter sends them
// too (the chord that sends in most chat boxes): approving would run what the words said
// not to, and drop them.
func (m *Mode) Shortcut(ctx app.Context, approve bool) {
	switch {
	case m.hasWords():
		m.reject(ctx)
	case approve && len(m.d.Request.Options) > 0:
		m.pick(ctx, m.approveIndex())
	case !approve:
		m.send(ctx, protocol.ReplyRequest{Action: protocol.ActionDecline})
	}
}

// FocusFirst implements modes.Focuser: the field for words, where a person who has
// something to say types it, and from where the chords approve or reject. On a touch
// screen the decision itself (its dialog) takes the focus, and its keys stay the
// composer's: a field would raise the on-screen keyboard over the buttons (QA round 14
// #10); a tap in the field brings it up.
//
// Either way the body stays at its top: the decision took the focus on its own, and the
// person has yet to read it. The field is the body's last part, and the browser's scroll to
// it (and showWithSend's) opened an approval 138 px down at 200 % zoom, its question, its
// command and Approve above the fold and the broader "always" the first answer in view. A
// person who moves into the field (Tab, a click) still gets it with Send in view.
func (m *Mode) FocusFirst() bool {
	id := "approval-instruction"
	if app.Window().Call("matchMedia", "(pointer: coarse)").Get("matches").Bool() {
		id = "composer-mode"
	}
	el := app.Window().GetElementByID(id)
	if !el.Truthy() {
		return false
	}
	m.placed = id == "approval-instruction" // the container asks only while the field has no focus
	el.Call("focus", map[string]any{"preventScroll": true})
	return true
}

// Exit implements modes.Mode.
func (m *Mode) Exit() {}

func (m *Mode) pick(ctx app.Context, i int) {
	req := m.d.Request
	if u := req.URL; u != "" && i < len(req.Options) && req.Options[i].Value == protocol.OptionOpenURL && OpensInTab(u) && app.IsClient {
		// Opened here, in the click's own handler: only a person's gesture may open a tab,
		// and only after their consent.
		app.Window().Call("open", u, "_blank", "noopener,noreferrer")
	}
	if i == m.denyIndex() && m.hasWords() {
		m.reject(ctx) // Reject with words typed: the words go with it
		return
	}
	answer := protocol.ApprovalAnswer{Option: &i}
	if p, ok := m.marked(i); ok {
		answer = protocol.ApprovalAnswer{Items: p.Items}
		if text := strings.TrimSpace(m.instruction); text != "" {
			// Approving some and rejecting the marked ones: the words typed are the reason of
			// those rejected (QA round 20 #5: they went back to the box under "Approved.").
			if len(text) > protocol.MaxReasonBytes {
				m.host.SetProblem(locale.T(i18n.InstructionTooLong, len(text), protocol.MaxReasonBytes/1024))
				return
			}
			answer.Instruction = text
		}
	} else if m.hasWords() && !m.reply.Sending() {
		m.keepForNext(ctx)
	}
	raw, _ := json.Marshal(answer)
	m.send(ctx, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw})
}

// marked plans option i of a batch whose requests are marked (machine/batch): ok when it
// approves and a request is marked Reject, which it then rejects while approving the rest.
func (m *Mode) marked(i int) (batch.Plan, bool) {
	n := len(m.d.Request.Items)
	if n < 2 || m.d.Request.Options[i].Value != protocol.OptionAllow {
		return batch.Plan{}, false
	}
	return batch.Of(m.picks(), n)
}

// picks are a batch's answers: kept in the page, so its card in the thread picks the same.
func (m *Mode) picks() []string {
	if !m.d.Local {
		m.items = widget.KeptPicks(m.d.ID, len(m.d.Request.Items))
	}
	return m.items
}

// keepForNext moves the words typed to the composer's box as the option clicked (Approve,
// Always) is sent: the person clicked the button that approves, and the words they had
// typed are never dropped; a notice says where they are (docs/composer.md).
func (m *Mode) keepForNext(ctx app.Context) {
	text := strings.TrimSpace(m.instruction)
	m.instruction = ""
	if app.IsClient {
		if el := app.Window().GetElementByID("approval-instruction"); el.Truthy() {
			el.Set("value", "")
		}
	}
	ctx.NewActionWithValue(inputbar.ActionRestoreDraft, text)
	ctx.NewActionWithValue(inputbar.ActionNotice, hub.Notice{Info: true, Text: locale.T(i18n.ApprovedWordsKept), Say: func() string { return locale.T(i18n.ApprovedWordsKept) }})
}

func (m *Mode) reject(ctx app.Context) {
	text := strings.TrimSpace(m.instruction)
	if text == "" {
		return
	}
	if len(text) > protocol.MaxReasonBytes {
		m.host.SetProblem(locale.T(i18n.InstructionTooLong, len(text), protocol.MaxReasonBytes/1024))
		return
	}
	answer := protocol.ApprovalAnswer{Instruction: text}
	if n := len(m.d.Request.Items); n > 1 {
		// A request the person marked Allow stays approved: the words reject the others.
		if p, ok := batch.Rejecting(m.picks(), n); ok {
			if p.Reject == 0 {
				m.host.SetProblem(locale.T(i18n.AllMarkedAllow))
				return
			}
			answer.Items = p.Items
		}
	}
	raw, _ := json.Marshal(answer)
	m.send(ctx, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw})
}

func (m *Mode) send(ctx app.Context, reply protocol.ReplyRequest) {
	if m.reply.Sending() {
		return
	}
	m.sent = true
	// Forgotten as the answer goes (the taken callback did not run in the browser test).
	m.forget()
	m.reply.Send(ctx, reply, nil)
}

// unsent undoes send's marks when the answer was not taken: the words are still in the
// field, kept again, and come back into the box if the decision then ends (QA round 17 #1:
// a rejection tried while the server was down was lost at its restart).
func (m *Mode) unsent() {
	m.sent = false
	m.keep()
}

// HeadAndTail keeps the start and the end of a long text, where commands and their last
// arguments are.
func HeadAndTail(s string, n int) string {
	half := n / 2
	head, tail := s[:half], s[len(s)-half:]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return head + "\n" + locale.T(i18n.BytesNotShown, len(s)-len(head)-len(tail)) + "\n" + tail
}

// batch lists a batch's requests, each with its own Allow and Reject; Approve all then sends
// them as marked ("Approve 1, reject 1": marked), the one button that does (docs/approvals.md).
func (m *Mode) batch() app.UI {
	req := m.d.Request
	if m.picks(); len(m.items) != len(req.Items) {
		m.items = make([]string, len(req.Items))
	}
	button := func(i int, value, label string, tone protocol.Tone) app.UI {
		return app.Button().Type("button").Class("choice choice-small tone-"+string(tone)).
			Aria("pressed", strconv.FormatBool(m.items[i] == value)).Body(app.Span().Class("choice-label").Text(label)).
			OnClick(func(ctx app.Context, e app.Event) { m.answerItem(i, value) }, app.EventScope(m.key+"-"+strconv.Itoa(i)+value))
	}
	return app.Div().Class("batch approval-batch").Body(
		app.Elem("ol").Class("batch-items").Aria("label", locale.T(i18n.BatchRequests, len(req.Items))).Body(
			app.Range(req.Items).Slice(func(i int) app.UI {
				it := req.Items[i]
				details := it.Details
				if len(details) > maxDetailShown+maxDetailShown/4 {
					details = HeadAndTail(details, maxDetailShown)
				}
				return app.Elem("li").Class("batch-item").DataSet("item", strconv.Itoa(i)).Body(
					app.Div().Class("batch-item-head").Body(
						app.Span().Class("batch-tool").Text(it.Tool),
						app.Div().Class("batch-item-answer").Role("group").Aria("label", locale.T(i18n.AnswerRequest, i+1, widget.RequestWords(it.Details))).Body(
							button(i, protocol.OptionAllow, locale.T(i18n.Allow), protocol.ToneAffirm),
							button(i, protocol.OptionDeny, locale.T(i18n.RejectWord), protocol.ToneDeny),
						),
					),
					app.Elem("pre").Class("batch-details").Text(details),
				)
			}),
		),
	)
}

// answerItem picks the answer of request i of a batch.
func (m *Mode) answerItem(i int, value string) {
	if m.picks(); len(m.items) != len(m.d.Request.Items) {
		m.items = make([]string, len(m.d.Request.Items))
	}
	items := append([]string(nil), m.items...)
	items[i] = value
	m.items = items
	if !m.d.Local {
		widget.KeepPicks(m.d.ID, items)
	}
}

// OpensInTab reports whether a URL an MCP server asked to open may be opened: http or
// https only, never javascript: or data:.
func OpensInTab(u string) bool {
	lower := strings.ToLower(strings.TrimSpace(u))
	return strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://")
}
