package widget

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/elicitation"
	"parley/app/locale"
	"parley/i18n"
	"parley/machine/elicit"
	"parley/protocol"
)

// FormView renders an elicit.Form's fields and chips and turns their DOM events into the
// form's events: the question mode's questions and the fn-form's parameters.
type FormView struct {
	form   *elicit.Form
	fields []elicit.Field
	prefix string
	hook   elicitation.FieldRenderer
	custom map[int]*elicitation.FieldControl
	later  func(func()) // modes.Host.Later
	// arrowing says an arrow key is down in a radio group: the change it makes is browsing.
	arrowing bool
	// kept is where the answers given so far are kept across reloads ("" for nowhere), and
	// log the events that gave them.
	kept    string
	log     elicit.Log
	problem string // why the content of a form with custom controls was refused
	effects func(ctx app.Context, effs []elicit.Effect)
	// initial is each text field's text when its control was first drawn: the control's value
	// attribute never changes after that, so a render never writes over what the browser
	// holds in the focused field (a number typed "0." reads "" or "0" until the next key).
	initial    []string
	otherStart map[int]string
}

// NewFormView makes the view of form. prefix keeps element ids and event scopes unique
// (modes.Input.Key); hook, if not nil, may replace any field's control; effects receives what
// the form's events produce.
func NewFormView(form *elicit.Form, prefix string, hook elicitation.FieldRenderer, later func(func()), effects func(ctx app.Context, effs []elicit.Effect)) *FormView {
	v := &FormView{form: form, fields: form.Fields(), prefix: prefix, hook: hook, later: later, effects: effects}
	v.seedInitial()
	if hook != nil {
		for i, f := range v.fields {
			if c := hook(f, elicitation.FieldContext{Key: f.Key, NotifyChange: func(ctx app.Context) { ctx.Update() }}); c != nil && c.Render != nil && c.Value != nil {
				if v.custom == nil {
					v.custom = map[int]*elicitation.FieldControl{}
				}
				v.custom[i] = c
			}
		}
	}
	return v
}

// Form returns the form.
func (v *FormView) Form() *elicit.Form { return v.form }

// seedInitial takes each field's text as its control's starting value.
func (v *FormView) seedInitial() {
	v.initial = make([]string, len(v.fields))
	for i, f := range v.fields {
		v.initial[i] = v.form.Answer(i).Text
		if f.Kind == elicit.DateTime {
			v.initial[i] = v.form.WallClock(v.initial[i]) // a default in RFC 3339, as the input shows time
		}
	}
}

// Dispatch is what a control's handler does: the form's event, kept if the answers are,
// and its effects handed on.
func (v *FormView) Dispatch(ctx app.Context, ev elicit.Event) {
	v.record(ev)
	effs := v.form.Dispatch(ev)
	v.notePosition()
	v.effects(ctx, effs)
}

// Next moves a stepped form on to the following question, reporting whether there was one:
// Enter in a one-line field goes on, and sends only from the last question.
func (v *FormView) Next(ctx app.Context) bool {
	v.readInputs()
	v.record(elicit.Advance{})
	effs := v.form.Dispatch(elicit.Advance{})
	v.notePosition()
	if len(v.custom) > 0 {
		for _, e := range effs {
			if _, ok := e.(elicit.Send); ok {
				effs = v.Submit() // the form cannot judge the custom controls' values
				break
			}
		}
	}
	v.effects(ctx, effs)
	return true
}

// TabOn is Tab in a field of a stepped form: the next question, which takes the focus,
// reporting whether there was one (the last question's Tab is the caller's).
func (v *FormView) TabOn(ctx app.Context) bool {
	if i := v.form.Current(); v.form.Stepped() && i < len(v.fields)-1 {
		v.Dispatch(ctx, elicit.Goto{Index: i + 1})
		return true
	}
	return false
}

// FocusFirst moves the keyboard to the current question's first control: its checked
// option, or its first one. A form that shows every question at once and kept answers goes
// back to the question answered last, where the person was before a reload.
func (v *FormView) FocusFirst() bool {
	if len(v.fields) == 0 {
		return false
	}
	v.Focus(v.firstFocus())
	return true
}

// firstFocus is the question FocusFirst focuses: the one last answered, in a form that
// shows them all; the current one, in a stepped form.
func (v *FormView) firstFocus() int {
	i, ok := v.log.Last()
	if !ok || v.form.Stepped() {
		i = v.form.Current()
	}
	return i
}

// MessageID is the id of the element that holds the decision's message: a lone question
// without a title is labelled by it.
func (v *FormView) MessageID() string { return v.prefix + "-message" }

// CanProceed reports whether every required question is answered, custom controls included.
func (v *FormView) CanProceed() bool {
	if len(v.custom) == 0 {
		return v.form.CanProceed()
	}
	for i, f := range v.fields {
		if !f.Required {
			continue
		}
		if c, ok := v.custom[i]; ok {
			if c.Complete != nil && !c.Complete() {
				return false
			}
		} else if !v.form.Complete(i) {
			return false
		}
	}
	return true
}

// Submit is the send button: the form's own validation, or, with custom controls, the
// protocol's validation of Content, since the form cannot judge values it does not hold.
// A Send or Settle it returns means Content.
func (v *FormView) Submit() []elicit.Effect {
	v.readInputs()
	if len(v.custom) == 0 {
		return v.form.Dispatch(elicit.Submit{})
	}
	v.problem = ""
	if s := v.form.Schema(); s != nil {
		if err := s.ValidateContent(v.Content()); err != nil {
			v.problem = Describe(err)
			return []elicit.Effect{elicit.Invalid{}}
		}
	}
	return []elicit.Effect{elicit.Send{Version: v.form.Version()}}
}

// Content is the answer a Send or a Settle means: the form's Content, with the custom
// controls' values in their fields' place.
func (v *FormView) Content() json.RawMessage {
	if len(v.custom) == 0 {
		return v.form.Content()
	}
	values := make(map[int]json.RawMessage, len(v.custom))
	for i, c := range v.custom {
		values[i] = c.Value()
	}
	return v.form.ContentWith(values)
}

// Chips are the navigation of a stepped form: one per question, with its header and a check
// mark once answered; ←/→ move between them.
func (v *FormView) Chips() app.UI {
	if !v.form.Stepped() {
		return app.Text("")
	}
	cur := v.form.Current()
	return app.Div().Class("chips").Role("tablist").Aria("label", locale.T(i18n.Questions)).Body(
		app.Range(v.fields).Slice(func(i int) app.UI {
			f := v.fields[i]
			done := v.complete(i)
			label := f.Header
			if done {
				label += " ✓"
			}
			tabIndex := -1
			if i == cur {
				tabIndex = 0
			}
			state, stateText := "unanswered", locale.T(i18n.Unanswered)
			if done {
				state, stateText = "answered", locale.T(i18n.Answered)
			}
			name := f.Title
			if name == "" || f.Header != elicit.ChipLabel(f.Title, i) {
				name = f.Header
			}
			return app.Button().Type("button").
				ID(v.prefix+"-chip-"+strconv.Itoa(i)).
				Class("chip", "chip-"+state).
				Role("tab").
				Aria("selected", strconv.FormatBool(i == cur)).
				Aria("controls", v.prefix+"-panel").
				Aria("label", name+", "+stateText).
				Title(name).
				TabIndex(tabIndex).
				Text(label).
				OnClick(func(ctx app.Context, e app.Event) { v.Dispatch(ctx, elicit.Goto{Index: i}) }, app.EventScope(v.prefix, i)).
				OnKeyDown(func(ctx app.Context, e app.Event) {
					next := i
					switch e.Get("key").String() {
					case "ArrowRight":
						next = (i + 1) % len(v.fields)
					case "ArrowLeft":
						next = (i - 1 + len(v.fields)) % len(v.fields)
					case "ArrowDown":
						e.PreventDefault()
						v.Focus(i) // into the question
						return
					case "Home":
						next = 0
					case "End":
						next = len(v.fields) - 1
					default:
						return
					}
					e.PreventDefault()
					v.Dispatch(ctx, elicit.Goto{Index: next})
					id := v.prefix + "-chip-" + strconv.Itoa(next)
					v.later(func() {
						if el := app.Window().GetElementByID(id); el.Truthy() {
							el.Call("focus")
						}
					})
				}, app.EventScope(v.prefix, i))
		}),
	)
}

// complete is what a chip's check mark says: answered, and with a value its question takes.
func (v *FormView) complete(i int) bool {
	if c, ok := v.custom[i]; ok && c.Complete != nil {
		return c.Complete()
	}
	return v.form.Complete(i) && v.form.Valid(i)
}

// Fields draws every question; a stepped form hides all but the current one. Each field
// keeps its own elements: go-app reuses elements by position, and its Value("") never clears
// an input the person typed in, so a field drawn into another's elements would show the
// other's text.
func (v *FormView) Fields() app.UI {
	panel := app.Div().Class("fields").ID(v.prefix + "-panel")
	if v.form.Stepped() {
		panel = panel.Role("tabpanel").Aria("labelledby", v.prefix+"-chip-"+strconv.Itoa(v.form.Current()))
	}
	return panel.Body(
		app.Range(v.fields).Slice(v.field),
		app.If(v.problem != "", func() app.UI {
			return app.Div().Class("field-error").Role("alert").Text(sentence(v.problem))
		}),
	)
}

func (v *FormView) id(i int, part string) string {
	return v.prefix + "-" + strconv.Itoa(i) + part
}

// Focus moves the keyboard to field i's first control.
func (v *FormView) Focus(i int) {
	id, chip := v.id(i, "-field"), v.prefix+"-chip-"+strconv.Itoa(i)
	v.later(func() {
		focusField(id)
		// Its chip in view, as a tab bar keeps its tab: in a form of many questions the
		// chip of the one shown was past the strip's edge (QA round 26).
		if c := app.Window().GetElementByID(chip); c.Truthy() {
			c.Call("scrollIntoView", map[string]any{"block": "nearest", "inline": "nearest"})
		}
	})
}

// FocusNow focuses the question FocusFirst would, at once: within a key's event, the key
// then lands in it (modes.FieldTaker). It reports whether the question is drawn.
func (v *FormView) FocusNow() bool {
	if len(v.fields) == 0 || !app.IsClient {
		return false
	}
	return focusField(v.id(v.firstFocus(), "-field"))
}

// focusField focuses the control of the question drawn with id: the person's own answer
// when they began one ("Other…"), else its chosen option, else its first control. After a
// reload the own answer came back with the focus on the first choice, and the words typed
// on went to the draft while a Space answered that choice (QA round 21's re-test).
func focusField(id string) bool {
	el := app.Window().GetElementByID(id)
	if !el.Truthy() {
		return false
	}
	var first app.Value
	for _, sel := range []string{".other-input", "input:checked", `button[aria-pressed="true"]`, "input,textarea,button,select"} {
		if first = el.Call("querySelector", sel); first.Truthy() {
			break
		}
	}
	if !first.Truthy() {
		return false
	}
	first.Call("focus")
	return true
}

// field draws one question: its title, its control, its error.
func (v *FormView) field(i int) app.UI {
	f := v.fields[i]
	errText := v.form.ErrorsIn(locale.Current())[f.Key]
	hint := elicit.Hint(f, locale.Current())
	title := f.Title
	if title == "" && len(v.fields) > 1 {
		title = f.Header
	}
	var control app.UI
	if c, ok := v.custom[i]; ok {
		control = c.Render()
	} else {
		control = v.control(i, f, errText != "")
	}
	div := app.Div().Class("field", "field-"+f.Kind.String()).ID(v.id(i, "-field"))
	if v.form.Stepped() && i != v.form.Current() {
		div = div.Class("is-hidden")
	}
	return div.Body(
		app.If(title != "", func() app.UI {
			label := app.Div().Class("field-title").ID(v.id(i, "-title")).Text(title)
			// Every required field's title says so, a form's only field too: the fn-form's line
			// asks for "every required field (*)" (QA round 20's re-test: its lone Word had none).
			if f.Required {
				label = app.Div().Class("field-title").ID(v.id(i, "-title")).Body(
					app.Text(title), app.Span().Class("required").Aria("hidden", "true").Text(" *"))
			}
			return label
		}),
		app.If(f.Description != "", func() app.UI {
			return app.Div().Class("field-description").ID(v.id(i, "-desc")).Text(f.Description)
		}),
		app.If(hint != "", func() app.UI {
			return app.Div().Class("field-hint").ID(v.id(i, "-hint")).Text(hint)
		}),
		control,
		app.If(f.MaxLength != nil, func() app.UI { return v.count(i, f) }),
		app.If(errText != "", func() app.UI {
			return app.Div().Class("field-error").ID(v.id(i, "-error")).Role("alert").Text(sentence(errText))
		}),
	)
}

// count is a limited field's counter (elicit.Count): "185 / 200" from 80% of the limit, in
// the error's colour past it, and a polite status that says it in steps. The status is
// there from the start, so a screen reader hears its first words.
func (v *FormView) count(i int, f elicit.Field) app.UI {
	shown, said, over := elicit.Count(f, v.form.Answer(i).Text)
	div := app.Div().Class("field-count")
	if over {
		div = div.Class("field-count-over")
	}
	return div.Body(app.Span().Aria("hidden", "true").Text(shown), app.Span().Class("sr-only").Role("status").Text(said))
}

// sentence capitalises a validation message and ends it with a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	out := []rune(s)
	if out[0] >= 'a' && out[0] <= 'z' {
		out[0] -= 'a' - 'A'
	}
	switch last := out[len(out)-1]; {
	case last == '.' || last == '。':
	case locale.Current() == i18n.Chinese:
		out = append(out, '。')
	default:
		out = append(out, '.')
	}
	return string(out)
}

// control is the built-in control of a field's kind.
func (v *FormView) control(i int, f elicit.Field, invalid bool) app.UI {
	a := v.form.Answer(i)
	describedBy := ""
	if f.Description != "" {
		describedBy = v.id(i, "-desc")
	}
	if elicit.Hint(f, locale.Current()) != "" {
		describedBy = strings.TrimSpace(describedBy + " " + v.id(i, "-hint"))
	}
	if invalid {
		describedBy += " " + v.id(i, "-error")
	}
	switch f.Kind {
	case elicit.Single, elicit.Boolean:
		if v.form.Lone() {
			return v.choiceButtons(i, f, a)
		}
		return v.radios(i, f, a, describedBy)
	case elicit.Multi:
		return v.checkboxes(i, f, a, describedBy)
	case elicit.Textarea:
		return typed(v, app.Textarea(), i, f, invalid, describedBy).Rows(3).Text(v.initial[i])
	}
	// The value is the one the control started with, never the answer as typed: the browser
	// holds what is typed (see initial).
	in := typed(v, app.Input(), i, f, invalid, describedBy).Type(inputType[f.Kind]).Value(v.initial[i])
	if f.Title == "" && len(v.fields) == 1 {
		in = in.Aria("labelledby", v.MessageID())
	}
	switch f.Kind {
	case elicit.Number:
		in = in.Attr("step", "any")
	case elicit.Integer:
		in = in.Attr("step", "1")
	}
	if f.Min != nil {
		in = in.Min(formatNumber(*f.Min))
	}
	if f.Max != nil {
		in = in.Max(formatNumber(*f.Max))
	}
	// No maxlength: the browser's counts UTF-16 units, so it cut an answer of emoji short of
	// its limit in characters, unsaid (QA round 21). The counter and the form's check count
	// characters, as the server does, and say when an answer is too long.
	return in
}

// ariaElem is a go-app element, which returns itself from Aria.
type ariaElem[T any] interface {
	Aria(k string, v any) T
}

// described adds what a screen reader says of a field beside its label: the ids of its
// description and error, and whether it is required.
func described[T ariaElem[T]](el T, describedBy string, required bool) T {
	if describedBy != "" {
		el = el.Aria("describedby", describedBy)
	}
	if required {
		el = el.Aria("required", "true")
	}
	return el
}

// textElem is an input or a textarea.
type textElem[T any] interface {
	ariaElem[T]
	ID(format string, v ...any) T
	Class(v ...string) T
	Placeholder(format string, v ...any) T
	OnInput(app.EventHandler, ...app.EventOption) T
}

// typed makes el field i's text control: its whole value is the field's text.
func typed[T textElem[T]](v *FormView, el T, i int, f elicit.Field, invalid bool, describedBy string) T {
	el = el.ID(v.id(i, "-input")).Class("field-input").
		Placeholder(f.Placeholder).
		Aria("labelledby", v.id(i, "-title")).
		Aria("invalid", strconv.FormatBool(invalid)).
		OnInput(func(ctx app.Context, e app.Event) { v.Dispatch(ctx, typing(i, ctx.JSSrc())) }, app.EventScope(v.prefix, i))
	return described(el, describedBy, f.Required)
}

// typing is what field i's input el holds, as the form's event: its value, or Unparsed when it
// shows what it cannot read (a date input's 02/30/2026, a number input's 1-2: the browser's
// validity.badInput, its value then "").
func typing(i int, el app.Value) elicit.Event {
	if el.Get("validity").Get("badInput").Bool() {
		return elicit.Unparsed{Index: i}
	}
	return elicit.Type{Index: i, Text: el.Get("value").String()}
}

// readInputs tells the form which inputs show what they cannot read, or no longer do, before
// Enter or Send judges the answers: a date input fires no input event while its value stays
// "" (02/30/2026 is typed key by key without one), and an unread date was moved past and sent
// without (QA round 19, P2-1).
func (v *FormView) readInputs() {
	if !app.IsClient {
		return
	}
	for i := range v.fields {
		el := app.Window().GetElementByID(v.id(i, "-input"))
		if _, ok := v.custom[i]; ok || !el.Truthy() || el.Get("validity").Get("badInput").Bool() == v.form.Unparsed(i) {
			continue
		}
		ev := typing(i, el)
		v.record(ev)
		v.form.Dispatch(ev)
	}
}

var inputType = map[elicit.Kind]string{
	elicit.Text:     "text",
	elicit.Email:    "email",
	elicit.URI:      "url",
	elicit.Date:     "date",
	elicit.DateTime: "datetime-local",
	elicit.Number:   "number",
	elicit.Integer:  "number",
}

func formatNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// choiceButtons answer a lone single choice with one click each.
func (v *FormView) choiceButtons(i int, f elicit.Field, a elicit.Answer) app.UI {
	if !a.Other {
		delete(v.otherStart, i)
	}
	return app.Div().Class("choices").Role("group").Aria("labelledby", v.MessageID()).OnKeyDown(ArrowKeys).Body(
		app.Range(f.Choices).Slice(func(j int) app.UI {
			c := f.Choices[j]
			return ChoiceButton(v.id(i, "-choice-"+strconv.Itoa(j)), choiceLabel(f, c), c.Description, toneOf(f, c), c.Recommended, func(ctx app.Context) {
				v.Dispatch(ctx, elicit.Pick{Index: i, Value: c.Value})
			})
		}),
		app.If(f.AllowOther, func() app.UI {
			return app.Button().Type("button").Class("choice choice-other").
				Aria("pressed", strconv.FormatBool(a.Other)).
				Text(locale.T(i18n.Other)).
				OnClick(func(ctx app.Context, e app.Event) {
					v.Dispatch(ctx, elicit.ChooseOther{Index: i})
					v.focusOther(ctx, i)
				}, app.EventScope(v.prefix, i)).
				OnKeyDown(func(ctx app.Context, e app.Event) { v.letterOnOther(ctx, e, i) }, app.EventScope(v.prefix, i))
		}),
		app.If(a.Other, func() app.UI { return v.otherInput(i, a) }),
	)
}

// choiceLabel is a choice's label in the page's locale: a boolean's Yes and No when its
// schema names neither, else the schema's own words.
func choiceLabel(f elicit.Field, c protocol.Choice) string {
	if f.Kind == elicit.Boolean && f.Schema != nil {
		if c.Value == "true" && f.Schema.TrueLabel == "" {
			return locale.T(i18n.Yes)
		}
		if c.Value == "false" && f.Schema.FalseLabel == "" {
			return locale.T(i18n.No)
		}
	}
	return c.Label
}

func toneOf(f elicit.Field, c protocol.Choice) protocol.Tone {
	if f.Kind == elicit.Boolean && c.Value == "true" {
		return protocol.ToneAffirm
	}
	return protocol.ToneNeutral
}

func (v *FormView) radios(i int, f elicit.Field, a elicit.Answer, describedBy string) app.UI {
	if !a.Other {
		delete(v.otherStart, i) // its field goes: drawn again, it starts from the answer
	}
	name := v.id(i, "-radio")
	group := described(app.Div().Class("options").Role("radiogroup").Aria("labelledby", v.labelFor(i)), describedBy, f.Required)
	// The arrow keys walk a radio group, checking each radio on the way: that is browsing,
	// not an answer, so it stays on the question. Space, Enter or a click on a choice is
	// the answer, and moves on to the next unanswered question.
	group = group.OnKeyDown(func(ctx app.Context, e app.Event) {
		t := e.Get("target")
		if t.Get("type").String() != "radio" {
			return // the Other text field's own keys
		}
		isOther := t.Get("id").String() == v.id(i, "-other")
		switch key := e.Get("key").String(); key {
		case "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight":
			// The arrows do not wrap: from the first option back, or from the last forward,
			// they would land on the other end ("Other…", whose field takes the focus).
			radios := e.Get("currentTarget").Call("querySelectorAll", "input[type=radio]")
			n, back := radios.Length(), key == "ArrowUp" || key == "ArrowLeft"
			if n > 0 && (back && radios.Index(0).Equal(t) || !back && radios.Index(n-1).Equal(t)) {
				e.PreventDefault()
				return
			}
			v.arrowing = true
		default:
			// A letter typed on "Other…" (the arrows reach it and leave the focus there) starts
			// the person's own answer, as on a lone choice's "Other…" button (QA round 20's
			// re-test: it was dropped).
			if isOther {
				v.letterOnOther(ctx, e, i)
			}
			return
		case "Enter", " ":
			if e.Get("isComposing").Bool() || e.Get("keyCode").Int() == 229 {
				return
			}
			// Space is a click on the option: it is the answer, and a stepped form goes on to
			// the next unanswered question. It never sends: Space typed on from a field before
			// (a name's space, the Tab having moved on) ran a function with the answers half
			// typed (QA round 20 #13). Enter on the option chosen goes on as Enter does (the
			// next question, or the send from the last of a complete form).
			e.PreventDefault()
			e.Call("stopPropagation") // the container's Advance is this one
			if key == "Enter" && !t.Get("checked").Bool() {
				// Enter on an option nobody chose moves on without choosing it, as a form's
				// Enter does: the focus lands on a question's first option, and an optional
				// yes/no left alone was sent as "Yes" (QA round 18). Space chooses.
				v.Next(ctx)
				return
			}
			if isOther {
				v.Dispatch(ctx, elicit.ChooseOther{Index: i})
				v.focusOther(ctx, i)
				return
			}
			if key == " " {
				v.Dispatch(ctx, elicit.Pick{Index: i, Value: t.Get("value").String()})
				return
			}
			v.Dispatch(ctx, elicit.Pick{Index: i, Value: t.Get("value").String(), Stay: true})
			v.Next(ctx)
		}
	}, app.EventScope(v.prefix, i)).On("keyup", func(ctx app.Context, e app.Event) {
		v.arrowing = false
		ctx.PreventUpdate()
	}, app.EventScope(v.prefix, i))
	return group.Body(
		app.Range(f.Choices).Slice(func(j int) app.UI {
			c := f.Choices[j]
			c.Label = choiceLabel(f, c)
			return v.option("radio", name, v.id(i, "-opt-"+strconv.Itoa(j)), c, !a.Other && a.Text == c.Value, func(ctx app.Context) {
				v.Dispatch(ctx, elicit.Pick{Index: i, Value: c.Value, Stay: v.arrowing})
			})
		}),
		app.If(f.AllowOther, func() app.UI {
			return v.option("radio", name, v.id(i, "-other"), protocol.Choice{Label: locale.T(i18n.Other)}, a.Other, func(ctx app.Context) {
				v.Dispatch(ctx, elicit.ChooseOther{Index: i})
				if !v.arrowing {
					v.focusOther(ctx, i) // a click means "my own words"; an arrow only browses
				}
			})
		}),
		app.If(a.Other, func() app.UI { return v.otherInput(i, a) }),
	)
}

func (v *FormView) checkboxes(i int, f elicit.Field, a elicit.Answer, describedBy string) app.UI {
	group := described(app.Div().Class("options").Role("group").Aria("labelledby", v.labelFor(i)), describedBy, false)
	return group.Body(
		app.Range(f.Choices).Slice(func(j int) app.UI {
			c := f.Choices[j]
			checked := false
			for _, p := range a.Picks {
				checked = checked || p == c.Value
			}
			return v.option("checkbox", v.id(i, "-check"), v.id(i, "-opt-"+strconv.Itoa(j)), c, checked, func(ctx app.Context) {
				v.Dispatch(ctx, elicit.Toggle{Index: i, Value: c.Value})
			})
		}),
	)
}

func (v *FormView) labelFor(i int) string {
	if v.fields[i].Title == "" && len(v.fields) == 1 {
		return v.MessageID()
	}
	return v.id(i, "-title")
}

// option is one radio or checkbox with its label and description; chosen runs when the
// person picks it (a radio) or flips it (a checkbox).
//
// A radio is chosen by its click, not its change event. The browser checks a radio before
// the click's listeners run, and the composer's click listener (OnMount) is Go: entering Go
// lets go-app draw a frame that was due, and a frame still showing the choice before sets
// that radio's checked property, which unchecks the one being clicked. The browser then
// sees nothing changed and fires no change event: an arrow pressed as the last arrow's
// choice was drawn left the focus on "Other…" with the choice before it checked and no
// field (CI). The click always comes, unless the composer stopped it as stray; the next
// frame checks what it picked. A checkbox is alone in its state, so its change is safe.
func (v *FormView) option(kind, name, id string, c protocol.Choice, checked bool, chosen func(ctx app.Context)) app.UI {
	input := app.Input().Type(kind).ID(id).Name(name).Value(c.Value).Checked(checked)
	if kind == "radio" {
		input = input.OnClick(func(ctx app.Context, e app.Event) { chosen(ctx) }, app.EventScope(id))
	} else {
		input = input.OnChange(func(ctx app.Context, e app.Event) { chosen(ctx) }, app.EventScope(id))
	}
	return app.Elem("label").Class("option").Attr("for", id).Body(
		input,
		app.Span().Class("option-text").Body(
			// Recommended is said as on a lone choice's button (ChoiceButton): a form of several
			// questions drew its radios without it.
			app.Span().Class("option-label").Body(
				app.Text(c.Label),
				app.If(c.Recommended, func() app.UI { return app.Span().Class("choice-tag").Text(" " + locale.T(i18n.Recommended)) }),
			),
			app.If(c.Description != "", func() app.UI {
				return app.Span().Class("option-description").Text(c.Description)
			}),
		),
	)
}

func (v *FormView) otherInput(i int, a elicit.Answer) app.UI {
	return app.Input().Type("text").ID(v.id(i, "-other-text")).Class("field-input other-input").
		Aria("label", locale.T(i18n.YourOwnAnswer)).
		Placeholder(locale.T(i18n.YourOwnAnswer)).
		MaxLength(protocol.MaxOtherChars).
		Value(v.otherInitial(i, a)).
		OnInput(func(ctx app.Context, e app.Event) {
			v.Dispatch(ctx, elicit.TypeOther{Index: i, Text: ctx.JSSrc().Get("value").String()})
		}, app.EventScope(v.prefix, i))
}

// otherInitial is the Other field's text when drawn; as for the text fields, its value
// attribute then never changes.
func (v *FormView) otherInitial(i int, a elicit.Answer) string {
	if v.otherStart == nil {
		v.otherStart = map[int]string{}
	}
	t, ok := v.otherStart[i]
	if !ok {
		t = a.OtherText
		v.otherStart[i] = t
	}
	return t
}

// letterOnOther starts the person's own answer with a letter typed on "Other…" (a lone
// choice's button, or a form's radio), which the arrows reach and leave the focus on (QA
// round 21: an agent's question dropped the letters). With its field shown, the field
// takes the focus within the key's event and the browser types the letter there; before it
// is, the letter is the answer's start, and the field shows it when it comes.
func (v *FormView) letterOnOther(ctx app.Context, e app.Event, i int) {
	key := e.Get("key").String()
	if utf8.RuneCountInString(key) != 1 || key == " " || e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool() || e.Get("altKey").Bool() ||
		e.Get("isComposing").Bool() || e.Get("keyCode").Int() == 229 {
		return
	}
	e.Call("stopPropagation") // the answer's letter, not the draft's (machine.ToDraft)
	if el := app.Window().GetElementByID(v.id(i, "-other-text")); el.Truthy() {
		el.Call("focus")
		return
	}
	e.PreventDefault()
	v.Dispatch(ctx, elicit.ChooseOther{Index: i})
	v.Dispatch(ctx, elicit.TypeOther{Index: i, Text: key})
	v.focusOther(ctx, i)
}

func (v *FormView) focusOther(ctx app.Context, i int) {
	id := v.id(i, "-other-text")
	v.later(func() {
		if el := app.Window().GetElementByID(id); el.Truthy() {
			el.Call("focus")
			// The caret after what the answer holds (the browser clamps the offset to it).
			el.Call("setSelectionRange", 1<<30, 1<<30)
		}
	})
}
