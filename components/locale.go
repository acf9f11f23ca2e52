package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/i18n"
)

// tr is message m in the page's locale (docs/i18n.md).
func tr(m i18n.Msg, args ...any) string { return locale.T(m, args...) }

// relabel renders the component of ctx again when the locale switches: go-app updates a
// child only when its props change, so every component that shows words listens itself.
func relabel(ctx app.Context) {
	ctx.Handle(locale.ActionChanged, func(ctx app.Context, a app.Action) { ctx.Update() })
}
