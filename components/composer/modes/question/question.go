// Package question is the composer's question mode: an ask or a confirm from the server or
// from browser code, answered with typed fields (docs/elicitation.md). Several questions are
// asked one at a time, with a chip per question as the navigation and the send button
// submitting the lot; a lone single choice is answered by its click. The fields and chips are
// the shared widget.FormView.
package question

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/components/composer/modes"
	"parley/components/composer/modes/widget"
	"parley/i18n"
	"parley/machine/composer"
	"parley/machine/elicit"
	"parley/protocol"
)

// Mode is the question mode.
type Mode struct {
	host  modes.Host
	d     composer.Decision
	view  *widget.FormView
	reply widget.Replier
}

// New makes the question mode for a decision.
func New(h modes.Host, in modes.Input) modes.Mode {
	m := &Mode{host: h, d: in.Decision, reply: widget.Replier{Host: h, Decision: in.Decision}}
	m.view = widget.NewFormView(elicit.New(in.Decision.Request, in.Options), in.Key, in.Fields, h.Later, m.onEffects)
	if !in.Decision.Local {
		// A server decision outlives the page: what was answered so far comes back after a
		// reload. (A local one's id is the page's own, and dies with it.)
		m.view.Keep("parley.answers." + in.Decision.ID)
	}
	return m
}

// Label implements modes.Mode.
func (m *Mode) Label() string {
	if m.d.Request.Message != "" {
		return locale.T(i18n.QuestionOf, m.d.Request.Message)
	}
	return locale.T(i18n.Question)
}

// Header shows the badge and, for several questions, the chips.
func (m *Mode) Header() app.UI {
	badge := locale.T(i18n.Question)
	if m.d.Request.Kind == protocol.KindConfirm {
		badge = locale.T(i18n.Confirm)
	}
	return app.Div().Class("morph-title").Body(
		app.Span().Class("badge").Text(badge),
		m.view.Chips(),
	)
}

// Body shows the message and the fields. A confirm's Yes and No are drawn as a form's
// actions are: at the right, Yes with the primary weight (docs/look.md, "Decisions").
func (m *Mode) Body() app.UI {
	div := app.Div().Class("question")
	if m.d.Request.Kind == protocol.KindConfirm {
		div = div.Class("question-confirm")
	}
	return div.Body(
		app.If(m.d.Request.Message != "", func() app.UI {
			return app.Elem("p").Class("question-message").ID(m.view.MessageID()).Text(m.d.Request.Message)
		}),
		m.view.Fields(),
	)
}

// Primary submits the answers; it is enabled once every required question is answered.
func (m *Mode) Primary() modes.Action {
	ok := m.view.CanProceed() && !m.reply.Sending()
	// Ctrl+Enter sends from any field (machine/composer's mode keys); the button shows it,
	// since in a multi-line field, where Enter breaks the line, it is the only key that does.
	a := modes.Action{Label: locale.T(i18n.Send), Title: locale.T(i18n.SendAnswers), Keys: "mod+enter", Disabled: !ok, Run: func(ctx app.Context) {
		m.onEffects(ctx, m.view.Submit())
	}}
	if f := m.view.Form(); f.Lone() && !f.Answer(0).Other {
		// The choice's own click answers; "Other…" typed would need the button.
		a.Title, a.Disabled = locale.T(i18n.SendLone), true
		a.Hidden = !f.Fields()[0].AllowOther
	} else if !ok {
		a.Title = locale.T(i18n.SendIncomplete)
	}
	return a
}

// FocusFirst implements modes.Focuser: the current question's first input. A confirm takes it
// at its safe answer, No, as the sidebar's Archive question takes it at Keep: it often comes
// right after another answer, and a second Enter or Space meant for the one before must not
// say Yes to a question not yet read.
func (m *Mode) FocusFirst() bool {
	if m.d.Request.Kind == protocol.KindConfirm && app.IsClient {
		no := app.Window().Get("document").Call("querySelector", "#composer-mode .choices .choice.tone-neutral")
		if no.Truthy() {
			no.Call("focus")
			return true
		}
	}
	return m.view.FocusFirst()
}

// Secondary declines: an answer that says no to being asked. Only its own button does:
// Escape sets the question aside instead.
func (m *Mode) Secondary() (modes.Action, bool) {
	if m.d.Request.Kind == protocol.KindConfirm {
		return modes.Action{}, false // Yes or No: No is the way to say no
	}
	return modes.Action{Label: locale.T(i18n.Decline), Title: locale.T(i18n.DeclineTitle), Run: func(ctx app.Context) {
		m.answer(ctx, protocol.ReplyRequest{Action: protocol.ActionDecline})
	}}, true
}

// Exit implements modes.Mode.
func (m *Mode) Exit() {}

// Unsent implements modes.Unsent: the words typed into the form (elicit.Form.Unsent), unless
// an answer is on its way from here. The question ended elsewhere (another client answered
// or declined it, the server restarted), and they go back to the composer's box.
func (m *Mode) Unsent() string {
	if m.reply.Sending() {
		return ""
	}
	return m.view.Form().Unsent()
}

// TabOn implements modes.Tabber: Tab from a field goes to the next question of a stepped
// form, and from the last (or a lone one) to Send once it can send, before Decline; a
// multi-line field, whose Enter breaks the line, is then no dead end. A form that shows all
// its questions at once keeps the browser's Tab, to the next one.
func (m *Mode) TabOn(ctx app.Context) bool {
	if m.view.TabOn(ctx) {
		return true
	}
	if f := m.view.Form(); !f.Stepped() && len(f.Fields()) != 1 || m.Primary().Disabled {
		return false
	}
	send := app.Window().Get("document").Call("querySelector", "#composer-mode .morph-actions .send")
	if !send.Truthy() {
		return false
	}
	send.Call("focus")
	return true
}

// Next implements modes.Stepper.
func (m *Mode) Next(ctx app.Context) bool { return m.view.Next(ctx) }

func (m *Mode) onEffects(ctx app.Context, effs []elicit.Effect) {
	for _, e := range effs {
		switch e := e.(type) {
		case elicit.Settle, elicit.Send:
			m.answer(ctx, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: m.view.Content()})
		case elicit.Show:
			m.view.Focus(e.Index)
		}
	}
}

func (m *Mode) answer(ctx app.Context, reply protocol.ReplyRequest) {
	m.reply.Send(ctx, reply, m.view.Forget)
}
