package components

import (
	"context"
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/i18n"
	"parley/protocol"
)

// pageFrame is the frame a page other than the chat shares with the session pages
// (docs/look.md, "Pages other than the chat"): the phone's Sessions toggle, the sidebar with
// the sessions and the count of decisions waiting, the page's main column, and the dimmed
// backdrop behind the phone drawer.
type pageFrame struct {
	sessions []protocol.SessionInfo
	menuOpen bool
}

// mount handles the drawer's actions and, with load, reads the session list (the list this
// tab last knew at once, so the sidebar never empties while it is read).
func (f *pageFrame) mount(ctx app.Context, stop context.Context, load bool) {
	ctx.Handle(actionCloseMenu, func(ctx app.Context, a app.Action) { f.close(ctx, false) })
	ctx.Handle(actionEscapeMenu, func(ctx app.Context, a app.Action) { f.close(ctx, true) })
	ctx.Handle(actionRestored, func(ctx app.Context, a app.Action) {
		if info, ok := a.Value.(protocol.SessionInfo); ok {
			f.sessions = withRestored(f.sessions, info)
			knownSessions = f.sessions
			ctx.Defer(func(app.Context) { focusSessionRow(info.ID) })
		}
	})
	ctx.Handle(actionSessionsRead, func(ctx app.Context, a app.Action) {
		if list, ok := a.Value.([]protocol.SessionInfo); ok {
			f.sessions, knownSessions = list, list
		}
	})
	if f.sessions == nil {
		f.sessions = knownSessions
	}
	if !app.IsClient {
		return
	}
	// The page is live: its controls answer (the browser tests wait for this).
	app.Window().Get("document").Get("documentElement").Call("setAttribute", "data-ready", "")
	if !load {
		return
	}
	client := clientOf(ctx)
	ctx.Async(func() {
		list, err := client.ListSessions(stop)
		if err != nil {
			return
		}
		ctx.Dispatch(func(ctx app.Context) { f.sessions, knownSessions = list, list })
	})
}

func (f *pageFrame) toggle(ctx app.Context) {
	if f.menuOpen {
		f.close(ctx, true)
		return
	}
	f.menuOpen = true
	focusFirst(ctx, "#sidebar a")
}

// close closes the drawer; refocus gives the focus back to its toggle.
func (f *pageFrame) close(ctx app.Context, refocus bool) {
	if !f.menuOpen {
		return
	}
	f.menuOpen = false
	if refocus {
		focusFirst(ctx, ".menu-toggle")
	}
}

func focusFirst(ctx app.Context, sel string) {
	ctx.Defer(func(app.Context) {
		if el := app.Window().Get("document").Call("querySelector", sel); el.Truthy() {
			el.Call("focus")
		}
	})
}

// visible is the session list without the blank sessions the empty page makes ahead of time.
func (f *pageFrame) visible() []protocol.SessionInfo {
	return slices.DeleteFunc(slices.Clone(f.sessions), func(s protocol.SessionInfo) bool { return s.Blank })
}

// render lays out the frame around main. sidebar is the page's sidebar, whose Open the frame
// fills in. The backdrop is last, so the columns before it keep their index (go-app diffs
// children by place): it dims the page behind the drawer, and a tap on it closes the drawer.
func (f *pageFrame) render(sidebar *Sidebar, main app.UI) app.UI {
	sidebar.Open = f.menuOpen
	return app.Div().Class("layout").Body(
		app.Div().Class("mobile-bar").OnKeyDown(escapeMenu).Body(
			app.Button().Class("menu-toggle").Aria("controls", "sidebar").
				Aria("expanded", strconv.FormatBool(f.menuOpen)).Text(tr(i18n.Sessions)).
				OnClick(func(ctx app.Context, e app.Event) { f.toggle(ctx) }),
		),
		sidebar,
		main,
		app.Div().Class(backdropClass(f.menuOpen)).Aria("hidden", "true").
			OnClick(func(ctx app.Context, e app.Event) { f.close(ctx, true) }),
	)
}
