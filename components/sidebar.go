package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/protocol"
)

// Sidebar lists the sessions, newest first, and starts new ones.
type Sidebar struct {
	app.Compo
	Sessions []protocol.SessionInfo
	Current  string
	Open     bool // shown over the thread on a narrow screen
}

// Render draws the session list as navigation links.
func (s *Sidebar) Render() app.UI {
	class := "sidebar"
	if s.Open {
		class += " open"
	}
	return app.Nav().ID("sidebar").Class(class).Aria("label", "Sessions").OnKeyDown(escapeMenu).Body(
		app.A().Class("new-session").Href("/").Text("New session").OnClick(closeMenu),
		app.Ul().Class("sessions").Body(
			app.Range(s.Sessions).Slice(func(i int) app.UI {
				info := s.Sessions[i]
				a := app.A().Href("/s/" + info.ID).Text(info.Title).OnClick(closeMenu)
				if info.ID == s.Current {
					a = a.Aria("current", "page")
				}
				return app.Li().Body(a)
			}),
		),
		&NotifySwitch{},
	)
}

// escapeMenu closes the session list on Escape and gives the focus back to its toggle.
func escapeMenu(ctx app.Context, e app.Event) {
	if e.Get("key").String() == "Escape" {
		ctx.NewAction(actionEscapeMenu)
	}
	ctx.PreventUpdate()
}

// closeMenu closes the session list on a narrow screen once a link in it was used; the
// address may not change (New session on the hero), so navigation alone cannot close it.
func closeMenu(ctx app.Context, e app.Event) {
	ctx.NewAction(actionCloseMenu)
}
