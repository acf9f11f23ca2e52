package composer

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/i18n"
)

// localeSwitch is the controls row's language picker (docs/i18n.md). A switch re-renders the
// composer in place: every element stays, so a half-filled form keeps its answers, the focus
// and the caret.
func (c *Composer) localeSwitch() app.UI { return LocaleSwitch() }

// LocaleSwitch is the language picker, for a page without a composer (the approvals screen).
func LocaleSwitch() app.UI {
	cur := locale.Current()
	return app.Span().Class("locale-field").Body(
		app.Elem("label").Class("control-field").Attr("for", "locale-pick").Body(
			app.Span().Class("control-label").Aria("hidden", "true").Text(locale.T(i18n.LocaleLabel)),
		),
		localeSelect(cur),
	)
}

func localeSelect(cur i18n.Locale) app.UI {
	return app.Select().ID("locale-pick").Class("locale-pick control-select").
		Aria("label", locale.T(i18n.LocaleLabel)).
		Title(locale.T(i18n.LocaleLabel)).
		OnChange(func(ctx app.Context, e app.Event) {
			n, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
			if err == nil && n >= 0 && n < len(i18n.All) {
				locale.Set(ctx, i18n.All[n])
			}
		}).
		Body(app.Range(i18n.All[:]).Slice(func(i int) app.UI {
			l := i18n.All[i]
			return app.Option().Value(strconv.Itoa(i)).Lang(l.Tag()).Text(l.Name()).Selected(l == cur)
		}))
}

// exposeLocale gives the page's scripts parley.setLocale(tag): the same switch, for a host
// page of its own (and the tests, which switch while the focus stays in a field).
func (c *Composer) exposeLocale(ctx app.Context) { ExposeLocale(ctx) }

// ExposeLocale gives the page's scripts parley.setLocale(tag), for a page without a composer.
func ExposeLocale(ctx app.Context) {
	if !app.IsClient {
		return
	}
	ns := app.Window().Get("parley")
	if !ns.Truthy() {
		ns = app.Window().Get("Object").New()
		app.Window().Set("parley", ns)
	}
	ns.Set("setLocale", app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) == 0 {
			return false
		}
		l, ok := i18n.Parse(args[0].String())
		if !ok {
			return false
		}
		ctx.Dispatch(func(ctx app.Context) { locale.Set(ctx, l) })
		return true
	}))
}
