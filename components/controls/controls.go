// Package controls is the composer's controls row (docs/composer.md): the model picker and
// the context ring in the `conversation.input.model` seat, and the permission mode in the
// row's left region. Each choice is a request; what the row shows comes back from the
// session's log (store.Controls), so another tab's choice shows here too, and the server,
// never this view, applies it (the gate reads the mode, the agent the model).
package controls

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/hub"
	"parley/app/locale"
	"parley/app/slots"
	"parley/app/store"
	"parley/components/composer"
	"parley/components/inputbar"
	"parley/i18n"
	"parley/protocol"
)

func init() {
	must(composer.Slots.Register(composer.SlotModel, "", slotEntry(func(c *composer.Composer) app.UI {
		return &Model{Session: c.Session, Controls: c.Controls}
	})))
	// After the fn-form's opener.
	must(composer.Slots.Register(composer.SlotLeft, "", slotEntryAt(10, func(c *composer.Composer) app.UI {
		return &Permissions{Session: c.Session, Mode: c.Controls.Mode, Disabled: c.Disabled}
	})))
}

func must(_ func(), err error) {
	if err != nil {
		panic(err)
	}
}

func client(ctx app.Context) *api.Client {
	u := ctx.Page().URL()
	return &api.Client{Base: u.Scheme + "://" + u.Host}
}

// Model is the model picker and the context ring: both read the endpoint's model list (the
// ring for the model's window), so they are one component that asks once.
type Model struct {
	app.Compo
	Session  string
	Controls store.Controls

	list    protocol.ModelList
	loaded  bool
	open    bool
	active  int    // the option the keyboard is on, while open
	problem string // a failed pick or list, in words
	picked  string // the pick sent, shown until the log says it
	// pickedIn is the session picked is for: the component outlives a switch of session.
	pickedIn string
	// mounted is the component's own context. A pick's answer is dispatched on it: the
	// option clicked is gone by then, and a dispatch on its context was dropped, so a pick
	// the server refused showed as made (QA round 21 P2).
	mounted   app.Context
	isMounted bool
}

// ActionReconnected is what the page says when its socket is live again after it was not
// (the composer's name for it: the composer hears it too, and cannot import this package).
const ActionReconnected = composer.ActionReconnected

// OnMount asks for the model list, and again when the server is back if it could not be
// read: "Models: the server is not reachable" stayed until a reload (the re-test of QA
// round 12).
func (m *Model) OnMount(ctx app.Context) {
	m.mounted, m.isMounted = ctx, true
	relabel(ctx)
	ctx.Handle(ActionReconnected, func(ctx app.Context, a app.Action) {
		if m.listFailed() {
			m.load(ctx)
		}
	})
	m.load(ctx)
}

// listFailed says the model list was asked for and could not be read (a pick's failure
// needs the list read, so a problem before it is the list's).
func (m *Model) listFailed() bool { return !m.loaded && m.problem != "" }

func (m *Model) load(ctx app.Context) {
	c := client(ctx)
	ctx.Async(func() {
		list, err := c.Models(ctx)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				m.problem = locale.T(i18n.ModelsFailed, hub.DescribeError(err))
				return
			}
			m.list, m.loaded, m.problem = list, true, ""
		})
	})
}

// current is the model the session's next call names.
func (m *Model) current() string {
	switch {
	case m.picked != "" && m.pickedIn == m.Session && m.picked != m.Controls.Model:
		return m.picked
	case m.Controls.Model != "":
		return m.Controls.Model
	}
	return m.list.Default
}

// options are the models offered: the listed ones, and the current one if the list lacks it
// (a list that failed still shows the default).
func (m *Model) options() []string {
	var out []string
	for _, x := range m.list.Models {
		out = append(out, x.ID)
	}
	if cur := m.current(); cur != "" && !contains(out, cur) {
		out = append([]string{cur}, out...)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

const listboxID = "model-listbox"

// Render draws the picker's button and, while open, its listbox; then the ring.
func (m *Model) Render() app.UI {
	if !m.loaded {
		return app.Div().Class("model-controls").Body(
			app.If(m.problem != "", func() app.UI { return app.Span().Class("control-problem").Role("alert").Text(m.problem) }),
		)
	}
	if !m.list.Configured {
		return app.Div().Class("model-controls").Body(
			app.Span().Class("control-field").
				Title(locale.T(i18n.ModelNone)).Body(
				app.Span().Class("control-label").Text(locale.T(i18n.ModelWord)),
				app.Span().Class("model-offline").Text(locale.T(i18n.ModelOffline)),
				app.Span().Class("sr-only").Text(locale.T(i18n.ModelOfflineSR)),
			),
		)
	}
	opts := m.options()
	cur := m.current()
	title := locale.T(i18n.ModelIs, cur)
	if m.list.Error != "" {
		title += locale.T(i18n.ModelListFailed, m.list.Error)
	}
	body := []app.UI{
		app.Button().Type("button").Class("control-button model-button").ID("model-button").
			Aria("haspopup", "listbox").
			Aria("expanded", strconv.FormatBool(m.open)).
			Aria("controls", listboxID).
			Aria("label", locale.T(i18n.ModelIs, cur)).
			Title(title).
			Text(cur + " ▾").
			OnClick(func(ctx app.Context, e app.Event) { m.toggle(ctx) }).
			OnKeyDown(func(ctx app.Context, e app.Event) {
				switch e.Get("key").String() {
				case "ArrowDown", "ArrowUp":
					e.PreventDefault()
					if !m.open {
						m.toggle(ctx)
					}
				}
			}),
	}
	if m.open {
		items := make([]app.UI, len(opts))
		for i, id := range opts {
			items[i] = app.Elem("li").ID(optionID(i)).Role("option").Class("model-option", activeClass(i == m.active)).
				Aria("selected", strconv.FormatBool(id == cur)).
				Text(id).
				OnMouseDown(func(ctx app.Context, e app.Event) {
					e.PreventDefault() // keep the focus on the listbox until the pick closes it
					m.pick(ctx, id)
				})
		}
		body = append(body, app.Elem("ul").ID(listboxID).Role("listbox").Class("model-listbox").
			TabIndex(-1).
			Aria("label", locale.T(i18n.Models)).
			Aria("activedescendant", optionID(m.active)).
			OnKeyDown(func(ctx app.Context, e app.Event) { m.onListKey(ctx, e, opts) }).
			OnBlur(func(ctx app.Context, e app.Event) { m.open = false }).
			Body(items...))
	}
	if m.problem != "" {
		body = append(body, app.Span().Class("control-problem").Role("alert").Text(m.problem))
	}
	body = append(body, m.ring(cur))
	return app.Div().Class("model-controls").Body(body...)
}

func optionID(i int) string { return "model-option-" + strconv.Itoa(i) }

func activeClass(active bool) string {
	if active {
		return "active"
	}
	return ""
}

func (m *Model) toggle(ctx app.Context) {
	m.open = !m.open
	if !m.open {
		return
	}
	if m.listFailed() {
		// The endpoint may be back: opening the list asks again (QA round 21: only a
		// reload did, and until then the list offered the default alone).
		m.load(ctx)
	}
	m.active = max(0, indexOf(m.options(), m.current()))
	ctx.Defer(func(ctx app.Context) { focus(listboxID) })
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func focus(id string) {
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Call("focus")
	}
}

// backToWriting gives the keys back to the composer's textarea after a pick, as a pick in
// the `/` menu does: the person picked a model or a mode to write with it, and the letters
// they typed next went to the model button, which does nothing with them, or to the mode's
// select, whose type-ahead changed the mode (QA round 13 #3). Under a decision the textarea
// is hidden and takes no focus; the control (id from) keeps it then. It reports whether the
// textarea took it.
func backToWriting(from string) bool {
	focus(inputbar.InputID)
	if app.Window().Get("document").Get("activeElement").Get("id").String() == inputbar.InputID {
		return true
	}
	focus(from)
	return false
}

// onListKey moves through the options, picks with Enter or Space (backToWriting), and closes
// with Escape or Tab, giving the focus back to the button.
func (m *Model) onListKey(ctx app.Context, e app.Event, opts []string) {
	switch e.Get("key").String() {
	case "ArrowDown":
		e.PreventDefault()
		m.active = min(m.active+1, len(opts)-1)
	case "ArrowUp":
		e.PreventDefault()
		m.active = max(m.active-1, 0)
	case "Home":
		e.PreventDefault()
		m.active = 0
	case "End":
		e.PreventDefault()
		m.active = len(opts) - 1
	case "Enter", " ":
		e.PreventDefault()
		if m.active < len(opts) {
			m.pick(ctx, opts[m.active])
		}
	case "Escape", "Tab":
		if e.Get("key").String() == "Escape" {
			e.PreventDefault()
		}
		m.open = false
		focus("model-button")
	}
}

// pick asks the server to record the session's model.
func (m *Model) pick(ctx app.Context, id string) {
	m.open = false
	backToWriting("model-button") // now, while the listbox that had it is still there
	ctx.Defer(func(ctx app.Context) { backToWriting("model-button") })
	if id == m.current() || m.Session == "" {
		return
	}
	m.picked, m.pickedIn, m.problem = id, m.Session, ""
	c, session := client(ctx), m.Session
	if m.isMounted {
		ctx = m.mounted
	}
	ctx.Async(func() {
		_, err := c.SetModel(ctx, session, id)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				m.picked, m.problem = "", locale.T(i18n.ModelNotChanged, hub.DescribeError(err))
			}
		})
	})
}

// ring draws the tokens used against the model's window.
func (m *Model) ring(model string) app.UI {
	window, source := m.list.WindowOf(model)
	used := m.Controls.Used
	label := RingLabel(used, window)
	from := locale.T(i18n.FromEndpoint)
	if source == "flag" {
		from = locale.T(i18n.FromFlag)
	}
	title := locale.T(i18n.WindowFrom, label, from)
	frac := 0.0
	if window > 0 {
		frac = math.Min(float64(used)/float64(window), 1)
	}
	const r = 7.0
	circ := 2 * math.Pi * r
	class := "context-ring"
	if frac >= 0.9 {
		class += " context-ring-full"
	}
	const svgNS = "http://www.w3.org/2000/svg"
	// The share is written beside the arc: at a few percent the arc alone, a short stroke on a
	// circle, read as a spinner (QA round 12 #19). Inside role=img, only the label is read.
	// One Tab stop: focused, the stylesheet shows the title's figures, which a hover tooltip
	// alone kept from the keyboard and from touch (QA round 13 #4).
	return app.Span().Class(class).Role("img").TabIndex(0).Aria("label", label).Title(title).Body(
		app.Elem("svg").XMLNS(svgNS).Attr("width", "18").Attr("height", "18").Attr("viewBox", "0 0 18 18").Aria("hidden", "true").Body(
			app.Elem("circle").XMLNS(svgNS).Class("ring-track").Attr("cx", "9").Attr("cy", "9").Attr("r", fmt.Sprint(r)),
			app.Elem("circle").XMLNS(svgNS).Class("ring-used").Attr("cx", "9").Attr("cy", "9").Attr("r", fmt.Sprint(r)).
				Attr("stroke-dasharray", fmt.Sprintf("%.2f %.2f", frac*circ, circ)).
				Attr("transform", "rotate(-90 9 9)"),
		),
		app.Span().Class("ring-share").Text(RingShare(used, window)), // empty without a window
	)
}

// RingLabel is the ring's text alternative: "12,340 of 32,768 tokens (38%)".
func RingLabel(used, window int) string {
	if window <= 0 {
		return locale.T(i18n.TokensUsed, Thousands(used))
	}
	return locale.T(i18n.RingOf, Thousands(used), Thousands(window), RingShare(used, window))
}

// RingShare is the share of the window used, in whole percents: "38%"; "<1%" for a use that
// rounds to none, so a thread that has used some never reads as empty.
func RingShare(used, window int) string {
	if window <= 0 {
		return ""
	}
	pct := (100*used + window/2) / window // rounded to the nearest
	if pct == 0 && used > 0 {
		return "<1%"
	}
	return strconv.Itoa(pct) + "%"
}

// Thousands writes n with commas between groups of three digits.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Permissions is the permission mode's selector: a native select, so it is reachable and
// operable by keyboard and announced as what it is.
type Permissions struct {
	app.Compo
	Session  string
	Mode     protocol.PermissionMode
	Disabled bool

	problem string
	sent    protocol.PermissionMode // the mode asked for, shown until the log says it
	sentIn  string                  // the session sent is for
	// steppedAt is when a key last stepped the closed select's value in place: the change
	// that follows in the same keydown is a step of a walk, not a pick.
	steppedAt time.Time
}

// selectKey is what a key pressed on the closed permission select does in Chromium.
type selectKey int

const (
	selectOwn  selectKey = iota // the select's own: Space, Enter and Alt+↓ open its list, Tab
	selectStep                  // the arrows, Home, End and the page keys change the value in place
	selectType                  // a character: type-ahead would change the mode
)

// keyOnSelect says what key (chord: with Ctrl, Alt or Meta) does on the closed select.
func keyOnSelect(key string, chord bool) selectKey {
	switch {
	case chord || key == " ":
		return selectOwn
	case strings.HasPrefix(key, "Arrow"), strings.HasPrefix(key, "Page"), key == "Home", key == "End":
		return selectStep
	case utf8.RuneCountInString(key) == 1:
		return selectType
	}
	return selectOwn
}

// OnMount relabels the selector when the locale switches.
func (p *Permissions) OnMount(ctx app.Context) { relabel(ctx) }

// Render draws the selector.
func (p *Permissions) Render() app.UI {
	cur := p.Mode
	if p.sent != "" && p.sentIn == p.Session && p.sent != p.Mode {
		cur = p.sent
	}
	if !cur.Valid() {
		cur = protocol.DefaultPermissionMode
	}
	opts := make([]app.UI, len(protocol.PermissionModes))
	for i, m := range protocol.PermissionModes {
		opts[i] = app.Option().Value(string(m)).Selected(m == cur).Title(modeDescription(m)).Text(modeLabel(m))
	}
	return app.Span().Class("permissions").Body(
		app.Elem("label").Class("control-field").Attr("for", "permission-mode").Body(
			app.Span().Class("control-label").Aria("hidden", "true").Text(locale.T(i18n.PermissionMode)),
		),
		app.Select().ID("permission-mode").Class("control-select").
			Aria("label", locale.T(i18n.PermissionMode)).
			Title(modeDescription(cur)).
			Disabled(p.Disabled || p.Session == "").
			OnChange(p.onChange).
			OnKeyDown(p.onKey).
			Body(opts...),
		app.If(p.problem != "", func() app.UI { return app.Span().Class("control-problem").Role("alert").Text(p.problem) }),
	)
}

// onKey lets the arrows walk the modes in place, and sends a character typed on the select to
// the draft: the person is writing, and its type-ahead would change the mode unseen.
func (p *Permissions) onKey(ctx app.Context, e app.Event) {
	switch keyOnSelect(e.Get("key").String(), e.Get("ctrlKey").Bool() || e.Get("altKey").Bool() || e.Get("metaKey").Bool()) {
	case selectStep:
		p.steppedAt = time.Now()
	case selectType:
		// Focused inside the keydown, the textarea receives the key's text.
		if !backToWriting("permission-mode") {
			e.PreventDefault()
		}
	}
}

func (p *Permissions) onChange(ctx app.Context, e app.Event) {
	mode := protocol.PermissionMode(ctx.JSSrc().Get("value").String())
	if !mode.Valid() || p.Session == "" {
		return
	}
	if time.Since(p.steppedAt) > 100*time.Millisecond {
		// Picked from the open list (a click, or Enter there): back to writing, as after a
		// model's pick. A step of the arrows keeps the focus, so the walk can go on.
		backToWriting("permission-mode")
	}
	p.sent, p.sentIn, p.problem = mode, p.Session, ""
	c, session := client(ctx), p.Session
	ctx.Async(func() {
		_, err := c.SetPermissions(ctx, session, mode)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.sent, p.problem = "", locale.T(i18n.ModeNotChanged, hub.DescribeError(err))
			}
		})
	})
}

func slotEntry(render func(*composer.Composer) app.UI) slots.Entry[*composer.Composer] {
	return slotEntryAt(0, render)
}

func slotEntryAt(order int, render func(*composer.Composer) app.UI) slots.Entry[*composer.Composer] {
	return slots.Entry[*composer.Composer]{Order: order, Render: render}
}

// relabel renders the component of ctx again when the locale switches (docs/i18n.md).
func relabel(ctx app.Context) {
	ctx.Handle(locale.ActionChanged, func(ctx app.Context, a app.Action) { ctx.Update() })
}

var modeWords = map[protocol.PermissionMode][2]i18n.Msg{
	protocol.PermissionAsk:   {i18n.ModeAsk, i18n.ModeAskDesc},
	protocol.PermissionReads: {i18n.ModeReads, i18n.ModeReadsDesc},
	protocol.PermissionEdits: {i18n.ModeEdits, i18n.ModeEditsDesc},
}

// modeLabel and modeDescription word a permission mode in the page's locale.
func modeLabel(m protocol.PermissionMode) string {
	if w, ok := modeWords[m]; ok {
		return locale.T(w[0])
	}
	return m.Label()
}

func modeDescription(m protocol.PermissionMode) string {
	if w, ok := modeWords[m]; ok {
		return locale.T(w[1])
	}
	return m.Description()
}
