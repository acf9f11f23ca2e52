// Package fnform is the composer's fn-form mode, the reference shape of a morph: pick a
// function, fill its typed parameters (defaults seeded, and seeded again when the function
// changes), run it. Running is a request that answers with the session id; the view then
// follows the run's events there.
package fnform

import (
	"encoding/json"
	"strconv"

	"parley/app/locale"
	"parley/i18n"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/components/composer/modes"
	"parley/components/composer/modes/widget"
	"parley/components/internal/tabstore"
	"parley/machine/elicit"
	"parley/protocol"
)

// Mode is the fn-form.
type Mode struct {
	host    modes.Host
	in      modes.Input
	fn      protocol.Function
	view    *widget.FormView
	running bool
	ran     bool // a run started: nothing to keep
	gen     int  // counts forms made, so each function's fields get fresh ids and handlers
}

// New makes the fn-form, on in.Function or, when empty, on the function last closed in this
// session (its fields as they were left), else with a picker.
func New(h modes.Host, in modes.Input) modes.Mode {
	m := &Mode{host: h, in: in}
	name := in.Function
	if name == "" {
		name = lastClosed(h.SessionID())
	}
	m.choose(name)
	return m
}

// What a person typed in a function's fields is kept when the form closes (× or Escape, or a
// decision taking its place), per session and function, in the tab's sessionStorage, as the
// question mode keeps its answers: reopened on the same function, the fields are as they were
// left. A run forgets them. A form that asked "discard?" on close would cost a click each time
// and lose the values anyway once answered; keeping them is what a draft does.

// keptKey is where a function's fields are kept in session's tab.
func keptKey(session, fn string) string { return "parley.fnform." + session + "." + fn }

// lastKey is where the function last closed in session is named.
func lastKey(session string) string { return "parley.fnform.last." + session }

func lastClosed(session string) string { return tabstore.Get(lastKey(session)) }

// choose switches to the named function and seeds its fields from their defaults.
func (m *Mode) choose(name string) {
	m.fn, m.view = protocol.Function{}, nil
	for _, f := range m.host.Functions() {
		if f.Name == name {
			m.fn = f
		}
	}
	if m.fn.Name == "" && name != "" && len(m.host.Functions()) == 0 {
		m.fn.Name = name // not listed yet: the form fills in when the list arrives (Refresh)
	}
	if m.fn.Name != "" && m.fn.Error == "" {
		// Named as it is chosen, not only on close: a reload while the form is open brings
		// it back on this function (the composer's Reset.FnForm).
		tabstore.Set(lastKey(m.host.SessionID()), m.fn.Name)
	}
	if m.fn.Params == nil {
		return
	}
	// A function's parameters are a form, not a conversation: all fields at once, and no
	// answer-on-click.
	opts := m.in.Options
	opts.Layout, opts.AnswerOnClick = elicit.Stacked, false
	form := elicit.New(protocol.DecisionRequest{Kind: protocol.KindAsk, Schema: m.fn.Params}, opts)
	m.gen++
	m.view = widget.NewFormView(form, m.in.Key+"-"+strconv.Itoa(m.gen), m.in.Fields, m.host.Later, m.onEffects)
	m.view.Keep(keptKey(m.host.SessionID(), m.fn.Name))
}

// Refresh implements modes.Refresher: it takes a function list that arrived after the form
// opened on a function.
func (m *Mode) Refresh() {
	if m.view == nil && m.fn.Name != "" {
		m.choose(m.fn.Name)
	}
}

// Label implements modes.Mode.
func (m *Mode) Label() string {
	if m.fn.Name == "" {
		return locale.T(i18n.RunFunction)
	}
	return locale.T(i18n.RunNamed, title(m.fn))
}

func title(f protocol.Function) string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// Header shows the badge and the function picker.
func (m *Mode) Header() app.UI {
	fns := m.host.Functions()
	return app.Div().Class("morph-title").Body(
		app.Span().Class("badge badge-fn").Text("ƒ"),
		app.Select().ID("fn-pick").Class("fn-pick").Aria("label", locale.T(i18n.Function)).
			OnChange(func(ctx app.Context, e app.Event) {
				m.choose(ctx.JSSrc().Get("value").String())
				m.host.SetProblem("")
			}, app.EventScope(m.in.Key)).
			Body(
				// Disabled: go-app drops an empty value attribute, and the option's text would
				// then be its value.
				app.Option().Value("").Text(locale.T(i18n.ChooseFunction)).Disabled(true).Selected(m.fn.Name == ""),
				app.Range(fns).Slice(func(i int) app.UI {
					f := fns[i]
					o := app.Option().Value(f.Name).Text(title(f)).Selected(f.Name == m.fn.Name)
					if f.Error != "" {
						o = o.Disabled(true).Text(title(f) + locale.T(i18n.FnDoesNotLoad))
					}
					return o
				}),
			),
	)
}

// Body shows the function's description and its fields.
func (m *Mode) Body() app.UI {
	switch {
	case len(m.host.Functions()) == 0:
		return app.Elem("p").Class("fn-empty").Text(locale.T(i18n.NoFunctions))
	case m.fn.Name == "":
		return app.Elem("p").Class("fn-empty").Text(locale.T(i18n.ChooseToRun))
	case m.fn.Error != "":
		return app.Elem("p").Class("fn-broken").Role("alert").Text(locale.T(i18n.FnBroken, m.fn.Name, m.fn.Error))
	case m.view == nil:
		return app.Elem("p").Class("fn-empty").Text(locale.T(i18n.Loading, m.fn.Name))
	}
	// A new function's fields go into new elements (the tag alternates with each form): go-app
	// reuses elements by position, and an input reused from the previous function would keep
	// the text typed there.
	tag := "div"
	if m.gen%2 == 0 {
		tag = "section"
	}
	return app.Elem(tag).Class("fn-form").Body(
		app.If(m.fn.Description != "", func() app.UI {
			return app.Elem("p").Class("fn-description").Text(m.fn.Description)
		}),
		app.If(len(m.view.Form().Fields()) == 0, func() app.UI {
			return app.Elem("p").Class("fn-empty").Text(locale.T(i18n.NoParameters))
		}),
		m.view.Fields(),
	)
}

// Primary runs the function: the run button takes over the send button's place.
func (m *Mode) Primary() modes.Action {
	ready := m.view != nil && m.fn.Error == "" && m.view.CanProceed() && !m.running
	a := modes.Action{Label: locale.T(i18n.RunNamed, title(m.fn)), Title: locale.T(i18n.RunTitle), Disabled: !ready, Run: func(ctx app.Context) {
		if m.view != nil {
			m.onEffects(ctx, m.view.Submit())
		}
	}}
	switch {
	case m.fn.Name == "":
		a.Label, a.Title = locale.T(i18n.Run), locale.T(i18n.ChooseFirst)
	case m.view == nil || m.fn.Error != "" || m.running:
		// The body says it: loading, broken; a run started closes the form.
	case ready && m.view.Form().Checked():
		a.Hint = locale.T(i18n.RunReady, title(m.fn))
	case ready:
		// Run stays enabled: pressed, it says beside each field what is wrong.
		a.Hint = locale.T(i18n.RunFixFirst)
	default:
		a.Title = locale.T(i18n.RunIncomplete)
		a.Hint = a.Title
	}
	return a
}

// Next is Enter in a field: the form judges the answers, as Run does, and says what is
// missing or wrong beside its field. Without it, Enter ran the Run button, which an
// incomplete form disables, and nothing on screen answered the key (QA round 21).
func (m *Mode) Next(ctx app.Context) bool {
	if m.view == nil || m.fn.Error != "" || m.running {
		return false
	}
	return m.view.Next(ctx)
}

// Secondary closes the form.
func (m *Mode) Secondary() (modes.Action, bool) {
	return modes.Action{Label: locale.T(i18n.Close), Title: locale.T(i18n.CloseTitle), Run: m.host.Close}, true
}

// Exit implements modes.Mode. The function chosen was named as it was (choose): the next
// opening shows it, unless it ran (Ran forgot it).
func (m *Mode) Exit() {}

func (m *Mode) onEffects(ctx app.Context, effs []elicit.Effect) {
	for _, e := range effs {
		if _, ok := e.(elicit.Send); ok {
			m.run(ctx, m.view.Content())
		}
	}
}

// run starts the function: a request that answers with the session the run streams in.
func (m *Mode) run(ctx app.Context, args json.RawMessage) {
	if m.running {
		return
	}
	m.running = true
	m.host.SetProblem("")
	client, name, session := m.host.Client(), m.fn.Name, m.host.SessionID()
	req := protocol.RunFunctionRequest{Args: args, Session: m.host.SessionID()}
	ctx.Async(func() {
		res, err := client.RunFunction(ctx, name, req)
		ctx.Dispatch(func(ctx app.Context) {
			m.running = false
			if err != nil {
				m.host.SetProblem("Not run: " + widget.Describe(err) + ".")
				return
			}
			// It ran: its fields and the form's place are forgotten, so the next opening
			// starts afresh.
			m.ran = true
			m.view.Forget()
			tabstore.Set(lastKey(session), "")
			m.host.Ran(ctx, res.Session)
		})
	})
}

// FocusFirst implements modes.Focuser: with no function chosen yet, the form's first field is
// its picker, which sits in the header rather than the body the container looks in; with
// one, the field typed in last (after a reload, where the person was), else the first.
func (m *Mode) FocusFirst() bool {
	if m.fn.Name != "" {
		return m.view != nil && m.view.FocusFirst()
	}
	return m.focusPicker()
}

// FocusNow implements modes.FieldTaker: a key typed on the form's body goes to its field, or
// to the function picker before one is chosen.
func (m *Mode) FocusNow() bool {
	if m.fn.Name != "" {
		return m.view != nil && m.view.FocusNow()
	}
	return m.focusPicker()
}

// focusPicker focuses the function picker.
func (m *Mode) focusPicker() bool {
	el := app.Window().GetElementByID("fn-pick")
	if !el.Truthy() {
		return false
	}
	el.Call("focus")
	return true
}
