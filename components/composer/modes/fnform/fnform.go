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
	gen     int // counts forms made, so each function's fields get fresh ids and handlers
}

// New makes the fn-form, on in.Function or, when empty, with a picker.
func New(h modes.Host, in modes.Input) modes.Mode {
	m := &Mode{host: h, in: in}
	m.choose(in.Function)
	return m
}

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
						o = o.Disabled(true).Text(title(f) + " (does not load)")
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
		return app.P().Class("fn-empty").Text(locale.T(i18n.NoFunctions))
	case m.fn.Name == "":
		return app.P().Class("fn-empty").Text(locale.T(i18n.ChooseToRun))
	case m.fn.Error != "":
		return app.P().Class("fn-broken").Role("alert").Text(m.fn.Name + " does not load: " + m.fn.Error)
	case m.view == nil:
		return app.P().Class("fn-empty").Text(locale.T(i18n.Loading, m.fn.Name))
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
			return app.P().Class("fn-description").Text(m.fn.Description)
		}),
		app.If(len(m.view.Form().Fields()) == 0, func() app.UI {
			return app.P().Class("fn-empty").Text(locale.T(i18n.NoParameters))
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
	if m.fn.Name == "" {
		a.Label, a.Title = locale.T(i18n.Run), locale.T(i18n.ChooseFirst)
	}
	return a
}

// Secondary closes the form.
func (m *Mode) Secondary() (modes.Action, bool) {
	return modes.Action{Label: locale.T(i18n.Close), Title: locale.T(i18n.CloseTitle), Run: m.host.Close}, true
}

// Exit implements modes.Mode.
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
	client, name := m.host.Client(), m.fn.Name
	req := protocol.RunFunctionRequest{Args: args, Session: m.host.SessionID()}
	ctx.Async(func() {
		res, err := client.RunFunction(ctx, name, req)
		ctx.Dispatch(func(ctx app.Context) {
			m.running = false
			if err != nil {
				m.host.SetProblem("Not run: " + widget.Describe(err) + ".")
				return
			}
			m.host.Ran(ctx, res.Session)
		})
	})
}

// FocusFirst implements modes.Focuser: with no function chosen yet, the form's first field is
// its picker, which sits in the header rather than the body the container looks in.
func (m *Mode) FocusFirst() bool {
	if m.fn.Name != "" {
		return false
	}
	el := app.Window().GetElementByID("fn-pick")
	if !el.Truthy() {
		return false
	}
	el.Call("focus")
	return true
}
