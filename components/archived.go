package components

import (
	"errors"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/i18n"
	"parley/protocol"
)

// The sidebar's archived sessions (docs/look.md, "Sessions"): a disclosure button at the end
// of the list opens the sessions taken out of it, each with Restore. The list is read from
// the server (GET /api/sessions?archived=true) each time it opens; Restore is PATCH
// archived false, and the page that draws the sidebar puts the session back in its list
// (actionRestored).

// actionRestored says a session is back in the list; value: its protocol.SessionInfo.
const actionRestored = "parley.session.restored"

// archivedState is the archived list as the sidebar shows it.
type archivedState struct {
	open    bool
	loading bool
	list    []protocol.SessionInfo
	problem string // why the list could not be read, or a session not restored
	gen     int    // counts openings: a read that comes back after the list closed is dropped
}

// archivedID is the list's element id, which the toggle's aria-controls names.
const archivedID = "archived-sessions"

func (s *Sidebar) toggleArchived(ctx app.Context, e app.Event) {
	a := &s.archived
	a.open = !a.open
	a.gen++
	if !a.open {
		return
	}
	a.loading, a.problem = true, ""
	client, gen := clientOf(ctx), a.gen
	ctx.Async(func() {
		list, err := client.ListArchivedSessions(ctx)
		ctx.Dispatch(func(ctx app.Context) {
			if s.archived.gen != gen {
				return
			}
			s.archived.loading = false
			if err != nil {
				s.archived.problem = tr(i18n.NotListedArchived, describeError(err))
				return
			}
			s.archived.list = list
		})
	})
}

// restore puts an archived session back in the list, on the server; the page's list takes it
// (actionRestored) and the focus goes to its row.
func (s *Sidebar) restore(ctx app.Context, info protocol.SessionInfo) {
	id := info.ID
	restoreSession(ctx, id, func(ctx app.Context, err error) {
		if err != nil {
			s.archived.problem = tr(i18n.NotRestored, describeError(err))
			return
		}
		s.archived.problem = ""
		s.archived.list = slices.DeleteFunc(slices.Clone(s.archived.list), func(x protocol.SessionInfo) bool { return x.ID == id })
	})
}

// restoreSession restores session id on the server, tells done how it went, and then the
// page's list takes it (actionRestored), which gives its row the focus.
func restoreSession(ctx app.Context, id string, done func(app.Context, error)) {
	client, no := clientOf(ctx), false
	ctx.Async(func() {
		got, err := client.UpdateSession(ctx, id, protocol.UpdateSessionRequest{Archived: &no})
		ctx.Dispatch(func(ctx app.Context) {
			done(ctx, err)
			if err == nil {
				ctx.NewActionWithValue(actionRestored, got)
			}
		})
	})
}

// noteArchived adds a session just archived to the open archived list.
func (s *Sidebar) noteArchived(id string) {
	if !s.archived.open {
		return
	}
	for _, info := range s.Sessions {
		if info.ID == id {
			info.Archived = true
			s.archived.list = append([]protocol.SessionInfo{info}, s.archived.list...)
		}
	}
}

// renderArchived draws the toggle and, open, the archived sessions. The list's element is
// always there (hidden while closed), so the toggle's aria-controls names an element.
func (s *Sidebar) renderArchived() app.UI {
	a := s.archived
	list := a.list
	return app.Div().Class("archived").Body(
		app.Button().Type("button").Class("archived-toggle").
			Aria("expanded", boolText(a.open)).Aria("controls", archivedID).
			Body(
				app.Span().Class("archived-chevron").Aria("hidden", "true").Text(chevron(a.open)),
				app.Text(tr(i18n.ArchivedWord)),
			).
			OnClick(s.toggleArchived),
		app.Div().ID(archivedID).Class("archived-list").Hidden(!a.open).Body(
			app.If(a.problem != "", func() app.UI {
				return app.Elem("p").Class("archived-problem").Role("alert").Text(a.problem)
			}),
			app.If(a.open && a.loading, func() app.UI {
				return app.Elem("p").Class("archived-empty").Role("status").Text(tr(i18n.ArchivedLoading))
			}).ElseIf(a.open && len(list) == 0 && a.problem == "", func() app.UI {
				return app.Elem("p").Class("archived-empty").Role("status").Text(tr(i18n.ArchivedNone))
			}),
			app.Elem("ul").Class("archived-sessions").Aria("label", tr(i18n.ArchivedWord)).Body(
				app.Range(list).Slice(func(i int) app.UI {
					info := list[i]
					// Diffed by index: the handler is the session's own (EventScope).
					return app.Elem("li").Class("archived-item").DataSet("session", info.ID).Body(
						app.A().Class("archived-title").Attr("dir", "auto").Href("/s/"+info.ID).Text(info.Title).OnClick(closeMenu),
						app.Button().Type("button").Class("session-op archived-restore").Text(tr(i18n.Restore)).
							Aria("label", tr(i18n.RestoreNamed, info.Title)).
							OnClick(func(ctx app.Context, e app.Event) { s.restore(ctx, info) }, app.EventScope(info.ID)),
					)
				}),
			),
		),
	)
}

func chevron(open bool) string {
	if open {
		return "▾ "
	}
	return "▸ "
}

// withRestored is list with info back in it, in the list's order (the last used first).
func withRestored(list []protocol.SessionInfo, info protocol.SessionInfo) []protocol.SessionInfo {
	out := slices.DeleteFunc(slices.Clone(list), func(x protocol.SessionInfo) bool { return x.ID == info.ID })
	info.Archived = false
	at := len(out)
	for i, x := range out {
		if x.LastActive() < info.LastActive() || (x.LastActive() == info.LastActive() && x.ID > info.ID) {
			at = i
			break
		}
	}
	return slices.Insert(out, at, info)
}

// The open session when it is archived (QA round 25): the list leaves it out, so the page
// knew neither its title (the header showed its first prompt, not the name it was given)
// nor that it was archived (a prompt sent there ran in a session out of the list, with
// nothing saying so). The page reads the session once when the list lacks it, and says it
// is archived, with Restore.
type archivedHere struct {
	asked string                // the session read for, once
	info  *protocol.SessionInfo // the open session, archived
}

// lookArchived reads the open session when the list does not hold it.
func (c *Conversation) lookArchived(ctx app.Context) {
	id := c.session
	if id == "" || c.blank || c.here.asked == id || slices.ContainsFunc(c.sessions, func(s protocol.SessionInfo) bool { return s.ID == id }) {
		return
	}
	c.here.asked = id
	client := clientOf(ctx)
	ctx.Async(func() {
		info, err := client.GetSession(ctx, id)
		ctx.Dispatch(func(ctx app.Context) {
			switch {
			case c.session != id:
			case err != nil:
				c.here.asked = "" // read again with the next list
			case info.Archived:
				c.here.info = &info
				c.thread.Title = info.Title
			}
		})
	})
}

// restoreHere restores the open session from the note in its header.
func (c *Conversation) restoreHere(ctx app.Context, e app.Event) {
	id := c.session
	restoreSession(ctx, id, func(ctx app.Context, err error) {
		switch {
		case err != nil:
			c.setNotice(tr(i18n.NotRestored, describeError(err)), errors.Is(err, api.ErrUnreachable))
		case c.session == id:
			c.here.info = nil
		}
	})
}

// renderArchivedHere is the header's note that the open session is archived.
func (c *Conversation) renderArchivedHere() app.UI {
	return app.If(c.here.info != nil, func() app.UI {
		return app.Elem("p").Class("archived-here").Role("status").Body(
			app.Span().Text(tr(i18n.ArchivedHere)),
			app.Button().Type("button").Class("session-op archived-restore").Text(tr(i18n.Restore)).OnClick(c.restoreHere),
		)
	})
}
