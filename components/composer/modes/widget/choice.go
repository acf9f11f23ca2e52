package widget

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/components/composer/modes"
	"parley/i18n"
	"parley/machine/keymap"
	"parley/protocol"
)

// ArrowKeys moves the focus among a group's buttons with the arrow keys, Home and End, so a
// row of one-click answers is reachable without a Tab per answer. Put it on the group. The
// arrows stop at the row's ends and go the way they point (keymap.Row).
func ArrowKeys(ctx app.Context, e app.Event) {
	g := e.Get("currentTarget")
	if !g.Truthy() {
		return // a key dispatched from a script the page was running: its handlers ran after it
	}
	buttons := g.Call("querySelectorAll", ":scope > button")
	active := app.Window().Get("document").Get("activeElement")
	for i, n := 0, buttons.Length(); i < n; i++ {
		if buttons.Index(i).Equal(active) {
			rtl := app.Window().Call("getComputedStyle", g).Get("direction").String() == "rtl"
			if j, ok := keymap.Row(e.Get("key").String(), rtl, i, n); ok {
				e.PreventDefault()
				buttons.Index(j).Call("focus")
			}
			return
		}
	}
}

// ChoiceButton is a one-click answer with its description drawn under the label. The
// approval mode draws its options with it. scope must be unique to the answer (see
// modes.Input.Key).
func ChoiceButton(scope, label, description string, tone protocol.Tone, recommended bool, run func(ctx app.Context)) app.UI {
	return ChoiceButtonKeys(scope, label, description, tone, recommended, "", run)
}

// ChoiceButtonKeys is ChoiceButton with the chord that presses it too ("mod+enter"), shown
// as a hint beside its label.
func ChoiceButtonKeys(scope, label, description string, tone protocol.Tone, recommended bool, keys string, run func(ctx app.Context)) app.UI {
	return choiceButton(scope, label, description, tone, recommended, keys, false, run)
}

// PrimaryChoiceButtonKeys is ChoiceButtonKeys drawn with the primary action's weight: the
// one answer a person most often gives (an approval's Approve).
func PrimaryChoiceButtonKeys(scope, label, description string, tone protocol.Tone, recommended bool, keys string, run func(ctx app.Context)) app.UI {
	return choiceButton(scope, label, description, tone, recommended, keys, true, run)
}

func choiceButton(scope, label, description string, tone protocol.Tone, recommended bool, keys string, primary bool, run func(ctx app.Context)) app.UI {
	b := app.Button().Type("button").Class("choice", "tone-"+string(tone))
	if primary {
		b = b.Class("choice-primary")
	}
	if keys != "" {
		b = b.Aria("keyshortcuts", modes.AriaKeys(keys))
	}
	b = b.
		Body(
			app.Span().Class("choice-label").Text(label),
			app.If(keys != "", func() app.UI {
				return app.Elem("kbd").Class("key-hint").Aria("hidden", "true").Text(locale.Chord(keys))
			}),
			app.If(recommended, func() app.UI { return app.Span().Class("choice-tag").Text(locale.T(i18n.Recommended)) }),
			app.If(description != "", func() app.UI {
				return app.Span().Class("choice-description").Text(description)
			}),
		).
		OnClick(func(ctx app.Context, e app.Event) { run(ctx) }, app.EventScope(scope))
	return b
}
