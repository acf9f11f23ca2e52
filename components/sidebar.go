package components

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/i18n"
	"parley/protocol"
)

// Sidebar lists the sessions, newest first, grouped by day, and starts new ones. Each
// session can be renamed or archived, each with a confirmation.
type Sidebar struct {
	app.Compo
	Sessions []protocol.SessionInfo
	Current  string
	Open     bool // shown over the thread on a narrow screen

	editing   string        // the session being renamed
	draft     string        // its new title so far
	archiving string        // the session whose archiving waits for a confirmation
	archived  archivedState // the archived sessions, behind their toggle (archived.go)
	// Approvals says the approvals screen is open. That screen takes the queue the sidebar
	// reads (actionQueueRead) and hands it back in Queue, without the entries answered there.
	Approvals bool
	Queue     []protocol.QueueEntry
	// MCP says the MCP servers screen is open.
	MCP bool
	// Spaces names the workspaces by id when there are several (spaceNames): each row
	// says its session's.
	Spaces map[string]string

	pending pendingCounts // the decisions waiting, followed live (pending.go)
	stop    context.CancelFunc
}

// OnMount handles the end of a rename, follows the session list and the queue of open
// decisions, and words the times again as they pass (those three in the browser only: the
// pre-render waits for async work).
func (s *Sidebar) OnMount(ctx app.Context) {
	s.handleRenameEnd(ctx)
	relabel(ctx)
	if !app.IsClient {
		return
	}
	stop, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	tick(ctx, stop, nil) // "just now", "1 min ago": minutes
	client := clientOf(ctx)
	// The list follows the server's session index (docs/look.md, "Sessions"): a session made,
	// renamed, archived or used elsewhere (another tab or device, the API, another replica)
	// shows without a reload. The page that owns the list takes it (actionSessionsRead); the
	// approvals screen takes the queue (actionQueueRead), the count is the sidebar's.
	ctx.Async(func() {
		followServer(stop, client, func(l protocol.SessionList) {
			ctx.NewActionWithValue(actionSessionsRead, l.Sessions)
		}, func(q protocol.ApprovalQueue) {
			c := countPending(q)
			ctx.Dispatch(func(ctx app.Context) { s.pending = c })
			ctx.NewActionWithValue(actionQueueRead, queueRead{queue: q})
		}, func(err error, retry time.Duration) {
			ctx.NewActionWithValue(actionQueueRead, queueRead{err: err, retry: retry})
		})
	})
}

// OnDismount stops following.
func (s *Sidebar) OnDismount() {
	if s.stop != nil {
		s.stop()
	}
}

// Actions the sidebar asks of the conversation, which calls the server.
const (
	actionRename  = "parley.session.rename"  // value: renameIntent
	actionArchive = "parley.session.archive" // value: archiveIntent
	// actionSessionsRead hands the page the session list as the server has it now (value:
	// []protocol.SessionInfo).
	actionSessionsRead = "parley.sessions.read"
	// actionQueueRead hands the approvals screen the queue as the server has it now, or why
	// it could not be read (value: queueRead).
	actionQueueRead = "parley.queue.read"
)

// queueRead is the queue read, or err and the wait before the next try.
type queueRead struct {
	queue protocol.ApprovalQueue
	err   error
	retry time.Duration
}

type renameIntent struct{ ID, Title string }

// archiveIntent archives session ID; Next is the row that takes the focus once it is gone
// ("" for New session).
type archiveIntent struct{ ID, Next string }

// neighbourOf is the session listed after id, else the one before, else "" (none is left).
func neighbourOf(id string) string {
	rows := app.Window().Get("document").Call("querySelectorAll", "#sidebar .session-item")
	n := rows.Length()
	for i := range n {
		if rows.Index(i).Get("dataset").Get("session").String() != id {
			continue
		}
		switch {
		case i+1 < n:
			return rows.Index(i + 1).Get("dataset").Get("session").String()
		case i > 0:
			return rows.Index(i - 1).Get("dataset").Get("session").String()
		}
	}
	return ""
}

// focusSessionRow focuses session id's link in the list, or New session for "" (or a row
// no longer there).
func focusSessionRow(id string) {
	doc := app.Window().Get("document")
	el := app.Null()
	if id != "" {
		// Ids are [0-9a-z] (protocol.ValidSessionID): safe in a selector.
		el = doc.Call("querySelector", `#sidebar .session-item[data-session="`+id+`"] .session-link`)
	}
	if !el.Truthy() {
		el = doc.Call("querySelector", "#sidebar .new-session")
	}
	if el.Truthy() {
		el.Call("focus")
	}
}

// focusOp focuses the control op (data-op) of session id's row. A row's controls are drawn
// only while it is pointed at or holds the focus (:focus-within), and an element not drawn
// takes no focus: the row shows them (ops-shown) for the call, and its focus keeps them.
func focusOp(id, op string) {
	row := app.Window().Get("document").Call("querySelector", `#sidebar .session-item[data-session="`+id+`"]`)
	if !row.Truthy() {
		return
	}
	if b := row.Call("querySelector", `.session-op[data-op="`+op+`"]`); b.Truthy() {
		cl := row.Get("classList")
		cl.Call("add", "ops-shown")
		b.Call("focus")
		cl.Call("remove", "ops-shown")
	}
}

// actionRenameEnd ends the rename of a session (value: its id), saved or cancelled: the
// field gives way to the title, and the focus goes back to the session's Rename control.
// An action, so the focus moves from the sidebar's own context: the field that asked is gone
// by then, and a Defer of its context would not run.
const actionRenameEnd = "parley.session.rename.end"

func (s *Sidebar) handleRenameEnd(ctx app.Context) {
	ctx.Handle(actionRenameEnd, func(ctx app.Context, a app.Action) {
		id, ok := a.Value.(string)
		if !ok || s.editing != id {
			return
		}
		s.editing, s.draft = "", ""
		// Ids are [0-9a-z] (protocol.ValidSessionID): safe in a selector.
		ctx.Defer(func(app.Context) { focusOp(id, "rename") })
	})
}

// Render draws the session list as navigation links, under a heading per day.
func (s *Sidebar) Render() app.UI {
	class := "sidebar"
	if s.Open {
		class += " open"
	}
	now := clock()
	if s.Approvals {
		s.pending = countPending(protocol.ApprovalQueue{Entries: s.Queue})
	}
	groups := groupSessions(s.Sessions, now)
	s.syncDocumentTitle()
	return app.Elem("nav").ID("sidebar").Class(class).Aria("label", tr(i18n.Sessions)).On("keydown", escapeMenu).Body(
		app.A().Class("new-session").Href("/").Text(tr(i18n.NewSession)).OnClick(closeMenu),
		pendingLink(s.Approvals, s.pending.total),
		// Other links of the app go in this list (one li each), above the sessions.
		app.Elem("ul").Class("sidebar-links").Body(
			app.Elem("li").Body(mcpLink(s.MCP)),
		),
		app.Div().Class("session-groups").Body(
			app.Range(groups).Slice(func(g int) app.UI {
				grp := groups[g]
				return app.Elem("section").Class("session-group").Aria("label", grp.name).Body(
					app.Elem("h3").Class("session-group-name").Text(grp.name),
					app.Elem("ul").Class("sessions").Body(
						app.Range(grp.sessions).Slice(func(i int) app.UI {
							return s.renderItem(grp.sessions[i], now)
						}),
					),
				)
			}),
		),
		s.renderArchived(),
		&NotifySwitch{},
	)
}

func (s *Sidebar) renderItem(info protocol.SessionInfo, now time.Time) app.UI {
	id := info.ID
	switch {
	case s.editing == id:
		// Enter or Save renames (a blank title keeps the old one); Escape or Cancel keeps it.
		// Either way the title shows again and the focus is back on Rename.
		save := func(ctx app.Context) {
			if title := strings.TrimSpace(s.draft); title != "" && title != info.Title {
				ctx.NewActionWithValue(actionRename, renameIntent{ID: id, Title: title})
			}
			ctx.NewActionWithValue(actionRenameEnd, id)
		}
		cancel := func(ctx app.Context) { ctx.NewActionWithValue(actionRenameEnd, id) }
		return app.Elem("li").Class("session-item editing").DataSet("session", id).Body(
			app.Input().Type("text").Class("session-rename").Attr("dir", "auto").Value(s.draft).
				Aria("label", tr(i18n.NewTitleFor, titleWords(info.Title))).MaxLength(200).AutoFocus(true).
				OnInput(func(ctx app.Context, e app.Event) { s.draft = ctx.JSSrc().Get("value").String() }, app.EventScope(id)).
				OnKeyDown(func(ctx app.Context, e app.Event) {
					switch e.Get("key").String() {
					case "Enter":
						if !e.Get("isComposing").Bool() {
							e.PreventDefault()
							save(ctx)
						}
					case "Escape":
						// Not the session list's Escape (which closes the drawer): this one
						// only cancels the rename.
						e.PreventDefault()
						e.StopImmediatePropagation()
						cancel(ctx)
					}
				}, app.EventScope(id)),
			app.Div().Class("session-confirm").Body(
				app.Button().Type("button").Class("session-op primary").Text(tr(i18n.Save)).
					OnClick(func(ctx app.Context, e app.Event) { save(ctx) }, app.EventScope(id)),
				app.Button().Type("button").Class("session-op").Text(tr(i18n.Cancel)).
					OnClick(func(ctx app.Context, e app.Event) { cancel(ctx) }, app.EventScope(id)),
			),
		)
	case s.archiving == id:
		return app.Elem("li").Class("session-item confirming").DataSet("session", id).Role("alertdialog").
			Aria("label", tr(i18n.ArchiveQuestion, titleWords(info.Title))).Body(
			app.Elem("p").Class("session-question").Text(tr(i18n.ArchiveConfirm, titleWords(info.Title))),
			app.Div().Class("session-confirm").Body(
				app.Button().Type("button").Class("session-op danger").Text(tr(i18n.Archive)).
					OnClick(func(ctx app.Context, e app.Event) {
						s.archiving = ""
						s.noteArchived(id)
						next := neighbourOf(id)
						ctx.NewActionWithValue(actionArchive, archiveIntent{ID: id, Next: next})
						// The row's buttons are gone: the focus goes where the row will no
						// longer be, as list UIs do (again once the row is removed).
						ctx.Defer(func(app.Context) { focusSessionRow(next) })
					}, app.EventScope(id)),
				app.Button().Type("button").Class("session-op").DataSet("op", "keep").Text(tr(i18n.Keep)).
					OnClick(func(ctx app.Context, e app.Event) {
						s.archiving = ""
						ctx.Defer(func(app.Context) { focusOp(id, "archive") })
					}, app.EventScope(id)),
			),
		)
	}
	waiting := s.pending.bySession[id]
	a := app.A().Class("session-link").Href("/s/"+id).OnClick(closeMenu).Body(
		app.Span().Class("session-line").Body(
			app.Span().Class("session-title").Attr("dir", "auto").Text(titleWords(info.Title)),
			app.If(waiting > 0, func() app.UI {
				// The number is for the eye; the words after the line are read instead.
				return app.Span().Class("session-waiting").Aria("hidden", "true").Title(waitingWords(waiting)).Text(strconv.Itoa(waiting))
			}),
		),
		app.If(waiting > 0, func() app.UI { return app.Span().Class("sr-only").Text(", " + waitingWords(waiting)) }),
		// When it was used, and, with several workspaces, where: one quiet line.
		app.Span().Class("session-meta").Body(
			app.If(info.LastActive() > 0, func() app.UI {
				at := time.UnixMilli(info.LastActive())
				return app.Elem("time").Class("session-when").Attr("datetime", at.Format(time.RFC3339)).
					Title(at.Format(tr(i18n.LayoutDateTime))).Text(relativeTime(at, now))
			}),
			workspaceTag(s.Spaces[info.WorkspaceID]),
		),
	)
	if id == s.Current {
		a = a.Aria("current", "page")
	}
	// The list is diffed by index: after a row goes, its element shows the next session, and
	// a handler must be that session's (EventScope), not the one it was first drawn for.
	return app.Elem("li").Class("session-item").DataSet("session", id).Body(
		a,
		app.Div().Class("session-ops").Body(
			// Icons (web/parley.css), named by their labels.
			app.Button().Type("button").Class("session-op").DataSet("op", "rename").Text(tr(i18n.Rename)).
				Aria("label", tr(i18n.RenameNamed, titleWords(info.Title))).
				OnClick(func(ctx app.Context, e app.Event) {
					s.editing, s.draft, s.archiving = id, info.Title, ""
					ctx.Defer(func(app.Context) {
						if in := app.Window().Get("document").Call("querySelector", ".session-rename"); in.Truthy() {
							in.Call("focus")
							in.Call("select")
						}
					})
				}, app.EventScope(id)),
			app.Button().Type("button").Class("session-op").DataSet("op", "archive").Text(tr(i18n.Archive)).
				Aria("label", tr(i18n.ArchiveNamed, titleWords(info.Title))).
				OnClick(func(ctx app.Context, e app.Event) {
					s.archiving, s.editing = id, ""
					// The question replaces the row: the focus goes to its safe answer.
					ctx.Defer(func(app.Context) { focusOp(id, "keep") })
				}, app.EventScope(id)),
		),
	)
}

// sessionGroup is the sessions of one heading.
type sessionGroup struct {
	name     string // the heading, in the page's locale
	sessions []protocol.SessionInfo
}

// groupSessions puts sessions (the last used first) under Today, Yesterday and Earlier, by the day
// they were last used in now's time zone.
func groupSessions(list []protocol.SessionInfo, now time.Time) []sessionGroup {
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	yesterday := today.AddDate(0, 0, -1)
	var out []sessionGroup
	for _, s := range list {
		at := time.UnixMilli(s.LastActive()).In(now.Location())
		name := tr(i18n.Earlier)
		switch {
		case !at.Before(today):
			name = tr(i18n.Today)
		case !at.Before(yesterday):
			name = tr(i18n.Yesterday)
		}
		if len(out) == 0 || out[len(out)-1].name != name {
			out = append(out, sessionGroup{name: name})
		}
		out[len(out)-1].sessions = append(out[len(out)-1].sessions, s)
	}
	return out
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

// spaceNames maps the workspaces' ids to their names when there are several; with one (or
// none known) it is nil, and no session names its workspace.
func spaceNames(list []protocol.Workspace) map[string]string {
	if len(list) < 2 {
		return nil
	}
	out := make(map[string]string, len(list))
	for _, w := range list {
		out[w.ID] = w.Name
		if w.Default {
			out[""] = w.Name // a session made before workspaces had ids works in the default
		}
	}
	return out
}

// titleWords is a session's title as the page says it: "New session", the server's word for a
// session nothing named yet (protocol.Untitled), in the page's locale.
func titleWords(title string) string {
	if title == protocol.Untitled {
		return tr(i18n.NewSession)
	}
	// A title Parley derived from a command (protocol.TitleFrom: "Help", "Example hello", a
	// slug without spaces; "Script" before a script was named by its code) in the page's
	// words, as the run card says it. A person's own title ("Example of my own words") and a
	// script's code stay as written.
	switch slug, ok := strings.CutPrefix(title, "Example "); {
	case title == "Help":
		return tr(i18n.SessionHelp)
	case title == "Script" || ok && slug != "" && !strings.Contains(slug, " "):
		return runTitle(title)
	}
	return title
}

// workspaceTag names a session's workspace, quietly (meta type); nothing for "".
func workspaceTag(name string) app.UI {
	if name == "" {
		return app.Text("")
	}
	return app.Span().Class("session-workspace").Title(tr(i18n.WorkspaceNamed, name)).Body(
		app.Span().Class("sr-only").Text(tr(i18n.WorkspaceNamed, "")),
		app.Text(name),
	)
}
