package composer

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/i18n"

	"parley/app/slots"
	"parley/components/inputbar"
	machine "parley/machine/composer"
)

// The composer's seats (docs/composer.md, the seats). Everything
// in the input area mounts through them; a seat nobody registered for draws nothing.
const (
	// SlotBar holds the input bar itself. It is a seat, not a mode: a mode that morphs in
	// hides it, never unmounts it, so the textarea and its draft survive.
	SlotBar = "conversation.composer.bar"
	// SlotOverlay is the anchor for floating overlays inside the input card.
	SlotOverlay = "conversation.input.overlay"
	// SlotDock is the stacked strip above the input: the queued prompts.
	SlotDock = "conversation.input.dock"
	// SlotStats is the band on the composer's top edge.
	SlotStats = "conversation.composer.dock"
	// SlotLeft and SlotRight are the controls row's regions.
	SlotLeft  = "conversation.input.left"
	SlotRight = "conversation.input.right"
	// SlotPlan and SlotModel are the controls row's two named seats; they stay empty until
	// their owner registers.
	SlotPlan  = "conversation.input.plan"
	SlotModel = "conversation.input.model"
)

// Slots is the composer's slot registry; entries render with the composer's props.
var Slots = slots.New[*Composer]()

func init() {
	for _, d := range []struct {
		name string
		kind slots.Kind
	}{
		{SlotBar, slots.Single}, {SlotOverlay, slots.Multi}, {SlotDock, slots.Multi}, {SlotStats, slots.Multi},
		{SlotLeft, slots.Multi}, {SlotRight, slots.Multi}, {SlotPlan, slots.Single}, {SlotModel, slots.Single},
	} {
		if err := Slots.Declare(d.name, d.kind, slots.Session); err != nil {
			panic(err)
		}
	}
	must(Slots.Register(SlotBar, "", slots.Entry[*Composer]{Render: func(c *Composer) app.UI {
		return &inputbar.Bar{Session: c.Session, Placeholder: c.Placeholder, Disabled: c.Disabled, Working: c.Working, Workspace: c.Workspace}
	}}))
	must(Slots.Register(SlotRight, "", slots.Entry[*Composer]{Order: 100, Render: func(c *Composer) app.UI {
		return c.localeSwitch()
	}}))
	must(Slots.Register(SlotDock, "", slots.Entry[*Composer]{Render: func(c *Composer) app.UI {
		return &inputbar.QueueDock{Queued: c.Queued}
	}}))
	// The fn-form's opener: the mode that owns it puts it in the controls row.
	must(Slots.Register(SlotLeft, "", slots.Entry[*Composer]{Render: (*Composer).functionsButton}))
}

// must panics on a registration that failed: a programming error, at init.
func must(_ func(), err error) {
	if err != nil {
		panic(err)
	}
}

// functionsButton opens the fn-form on its picker. While a mode (the fn-form) holds the
// composer it is aria-disabled, not disabled: a click on a disabled button sends the focus to
// the page's body, and the keys typed next into the draft the form hides (QA round 15 P3-1).
// Its press takes no focus then, so the focus stays in the form; nor does Tab stop on it, as
// on a disabled button (QA round 22: the form's Tab order ended on it, where Escape did not
// close the form).
func (c *Composer) functionsButton() app.UI {
	b := app.Button()
	if c.mode != nil || c.Disabled {
		b = b.TabIndex(-1)
	}
	return b.Type("button").Class("control-button").
		Body(app.Span().Aria("hidden", "true").Text("ƒ\u00a0"), app.Text(locale.T(i18n.Functions))). // named "Functions", not "f Functions"; a no-break space, which a flex item keeps (QA round 21: "ƒFunctions" on a phone)
		Title(locale.T(i18n.FunctionsTitle)).
		Aria("disabled", c.mode != nil || c.Disabled).
		On("mousedown", func(ctx app.Context, e app.Event) {
			if c.mode != nil || c.Disabled {
				e.PreventDefault()
			}
		}).
		OnClick(func(ctx app.Context, e app.Event) {
			if c.mode != nil || c.Disabled {
				return
			}
			c.loadFunctions(ctx, nil)
			c.run(ctx, c.machine.Dispatch(machine.OpenFnForm{}))
		})
}

// seat draws a slot inside a wrapper that is always there, so the elements after it keep
// their index: go-app diffs children by index, and a shifted bar would be rebuilt.
func (c *Composer) seat(name, class string) app.UI {
	return app.Div().Class("seat " + class).Body(Slots.Render(name, c.Session, c)...)
}
