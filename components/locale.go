package components

import (
	"strings"
	"time"

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

// duration writes d as the page's locale does: "1m30s" in English, "1 分 30 秒" in Chinese.
func duration(d time.Duration) string {
	s := d.String()
	if locale.Current() == i18n.English {
		return s
	}
	return strings.TrimSpace(strings.NewReplacer("ms", " 毫秒", "h", " 小时 ", "m", " 分 ", "s", " 秒").Replace(s))
}
