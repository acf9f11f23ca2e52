// Package locale is the page's current locale (docs/i18n.md): the browser's preferred
// language by default, or the person's own choice, kept in localStorage. Views read their
// strings through T; a switch re-renders them in place, so a half-filled form keeps its
// answers, its focus and its caret.
package locale

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/i18n"
)

// ActionChanged is sent when the person switches the locale; its value is the i18n.Locale.
const ActionChanged = "parley.locale.changed"

// storageKey is where the person's choice is kept.
const storageKey = "parley.locale"

var (
	cur    i18n.Locale
	loaded bool
)

// Current returns the page's locale: the link's ?lang=, else the stored choice, else the
// browser's languages, else English.
func Current() i18n.Locale {
	if !loaded && app.IsClient {
		loaded = true
		cur = fromBrowser()
		setLang(cur)
	}
	return cur
}

func fromBrowser() i18n.Locale {
	ls := app.Window().Get("localStorage")
	// A link that names its language (?lang=zh) is a choice, kept as the switch keeps one:
	// the next page, without the parameter, reads the same.
	if q := app.Window().URL().Query().Get("lang"); q != "" {
		if l, ok := i18n.Parse(q); ok {
			if ls.Truthy() {
				ls.Call("setItem", storageKey, l.Tag())
			}
			return l
		}
	}
	if ls.Truthy() {
		if v := ls.Call("getItem", storageKey); v.Truthy() {
			if l, ok := i18n.Parse(v.String()); ok {
				return l
			}
		}
	}
	nav := app.Window().Get("navigator")
	var langs []string
	if ls := nav.Get("languages"); ls.Truthy() {
		for i := 0; i < ls.Length(); i++ {
			langs = append(langs, ls.Index(i).String())
		}
	}
	if l := nav.Get("language"); len(langs) == 0 && l.Truthy() {
		langs = append(langs, l.String())
	}
	return i18n.FromBrowser(langs)
}

func setLang(l i18n.Locale) {
	if doc := app.Window().Get("document"); doc.Truthy() {
		doc.Get("documentElement").Call("setAttribute", "lang", l.Tag())
	}
}

// PreRender sets the locale the server pre-renders its next page in (the request's
// Accept-Language; the server renders one page at a time). In the browser it does nothing.
func PreRender(l i18n.Locale) {
	if !app.IsClient {
		cur = l
	}
}

// T is message m in the page's locale.
func T(m i18n.Msg, args ...any) string { return Current().T(m, args...) }

// Set switches the page to l, keeps the choice, and tells the views (ActionChanged).
func Set(ctx app.Context, l i18n.Locale) {
	Current()
	if l == cur {
		return
	}
	cur = l
	if ls := app.Window().Get("localStorage"); ls.Truthy() {
		ls.Call("setItem", storageKey, l.Tag())
	}
	setLang(l)
	ctx.NewActionWithValue(ActionChanged, l)
}

// Mac reports whether the platform writes its command key as ⌘.
func Mac() bool {
	if !app.IsClient {
		return false
	}
	nav := app.Window().Get("navigator")
	p := nav.Get("platform")
	return p.Truthy() && len(p.String()) >= 3 && p.String()[:3] == "Mac"
}

// Chord writes a keymap chord ("mod+enter", "mod+shift+enter") as this platform does:
// "⌘Enter", "Ctrl+Shift+Enter".
func Chord(keys string) string {
	mac := Mac()
	out := ""
	for i, part := range splitPlus(keys) {
		var w string
		switch part {
		case "mod":
			w = "Ctrl"
			if mac {
				w = "⌘"
			}
		case "shift":
			w = "Shift"
			if mac {
				w = "⇧"
			}
		case "alt":
			w = "Alt"
			if mac {
				w = "⌥"
			}
		case "ctrl":
			w = "Ctrl"
		case "enter":
			w = "Enter"
		case "esc":
			w = "Esc"
		default:
			w = part
		}
		if i > 0 && !mac {
			out += "+"
		}
		out += w
	}
	return out
}

func splitPlus(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '+' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// Use makes l the page's locale without storing it or telling the views: for native tests
// that render the views in a locale.
func Use(l i18n.Locale) {
	loaded, cur = true, l
}
