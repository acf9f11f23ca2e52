package components

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/hub"
	"parley/app/locale"
	"parley/app/outbox"
	"parley/app/socket"
	"parley/app/store"
	"parley/components/composer"
	"parley/components/inputbar"
	"parley/i18n"
	mo "parley/machine/outbox"
	"parley/protocol"
)

// Conversation is the root: the hero when there is no session, the thread and the composer
// when there is one. It stays mounted across both, so moving between them keeps the frame.
type Conversation struct {
	app.Compo

	listNotice string // the notice that says the sessions could not be listed

	sessions []protocol.SessionInfo
	session  string
	thread   store.Thread
	controls store.Controls // the controls row's part of the session's log
	link     socket.State
	notice   string // the last failure, for the person to read
	// noticeSay words notice again in the page's locale, for a switch (the bar's notices).
	noticeSay func() string
	// noticeUntilLive marks a notice about reaching the server: it goes once the link is back.
	noticeUntilLive bool
	noticeFromBar   bool // the input bar's notice, which it may take back (hub.Notice.Withdraw)
	noticeInfo      bool // the notice is news, not a problem (hub.Notice.Info)
	unauthorized    bool // this browser has no token: nothing here can work until it has one
	updateReady     bool // a new build is installed; a reload runs it

	frame pageFrame // the session list's drawer, on screens too narrow to keep it beside the thread

	// Offline (offline.go): the server did not answer; what failed is retried.
	unreachable  bool
	listRetry    retry
	connectRetry retry
	// claimed are the decisions this tab told the server it shows (notify.go).
	claimed map[string]bool
	// unsent are the open session's prompts the server has not stored yet (outbox.go).
	unsent []mo.Entry

	follower   *socket.Follower
	stopFollow context.CancelFunc
	older      olderWindows   // the history before the newest window (older.go)
	seed       *protocol.Seed // the page's seed, folded and not yet followed (seed.go)
	// Kept threads (kept.go): seedKept says seed is the browser's own copy, not the
	// server's; showingKept that the thread shows it until the socket's replay comes; kept
	// records the open session's window for the next load.
	seedKept    bool
	showingKept bool
	kept        keptThread

	// The hero's workspace: the folders the server offers, the one picked, and whether the
	// open session is the hero's blank one (no prompt yet: the hero still shows).
	workspaces []protocol.Workspace
	workspace  string
	blank      bool
	connecting bool
	nextPick   string // a workspace picked while another was connecting
	starters   starters
	started    string         // the attempt id of the starter this page sent on its blank session
	taken      string         // the blank session another window's first prompt took (engaged)
	listedAt   time.Time      // when listAgainOnReturn last read the session list
	aside      composer.Aside // the decision the composer has set aside, as it last said
	// spaceNamed names the workspaces by id when there are several (spaceNames of
	// workspaces, made as the list arrives): the header and the list name each session's.
	// spacesAsked says a read of the list is under way (the hero's or the session list's):
	// whichever comes first fills workspaces, the other does not ask again.
	spaceNamed  map[string]string
	spacesAsked bool
	here        archivedHere // the open session, when it is archived (archived.go)
}

// knowWorkspaces keeps the server's workspaces, and their names by id.
func (c *Conversation) knowWorkspaces(list []protocol.Workspace) {
	c.workspaces, c.spaceNamed = list, spaceNames(list)
}

// OnMount handles sends from the composer, and marks the page interactive: the pre-rendered
// HTML looks the same before the wasm takes over, so tests and `make bench` wait for this.
func (c *Conversation) OnMount(ctx app.Context) {
	relabel(ctx)
	if c.sessions == nil {
		c.sessions = slices.DeleteFunc(slices.Clone(knownSessions), func(s protocol.SessionInfo) bool { return s.Blank })
	}
	ctx.Handle(composer.ActionNavigate, func(ctx app.Context, a app.Action) {
		if id, ok := a.Value.(string); ok && protocol.ValidSessionID(id) {
			ctx.Navigate("/s/" + id)
		}
	})
	// The input bar: the hero's first send created a session (docs/input.md, "Sending");
	// notices about sends.
	ctx.Handle(composer.ActionAside, func(ctx app.Context, a app.Action) {
		c.aside, _ = a.Value.(composer.Aside)
	})
	ctx.Handle(inputbar.ActionSessionCreated, c.onSessionCreated)
	ctx.Handle(inputbar.ActionNotice, c.onInputNotice)
	ctx.Handle(actionDecide, c.onDecide)
	ctx.Handle(actionRetry, func(ctx app.Context, a app.Action) { requestRetry(ctx, clientOf(ctx), c.session, a, c.setNotice) })
	ctx.Handle(actionStop, c.onStop)
	ctx.Handle(actionRetryNow, func(ctx app.Context, a app.Action) { c.retryNow(ctx) })
	ctx.Handle(actionStart, c.onStart)
	ctx.Handle(actionRename, c.onRename)
	ctx.Handle(inputbar.ActionWithdraw, c.onWithdraw)
	ctx.Handle(inputbar.ActionEditQueued, c.onEditQueued)
	ctx.Handle(actionArchive, c.onArchive)
	ctx.Handle(actionSessionsRead, func(ctx app.Context, a app.Action) {
		if list, ok := a.Value.([]protocol.SessionInfo); ok {
			c.listed(list)
			c.lookArchived(ctx)
			ctx.NewAction(actionSessionsKnown)
		}
	})
	ctx.Handle(actionRestored, c.onRestored)
	ctx.Handle(actionLoadEarlier, c.onLoadEarlier)
	ctx.Handle(actionPickWorkspace, func(ctx app.Context, a app.Action) {
		if ws, ok := a.Value.(string); ok && (ws != c.workspace || !c.blank) {
			c.connect(ctx, ws)
		}
	})
	c.frame.mount(ctx, nil, false)
	if ctx.AppUpdateAvailable() {
		c.OnAppUpdate(ctx)
	}
	c.startOutbox(ctx)
	c.watchLooking(ctx)
	watchViewport()
	benchHooks(ctx)
	app.Window().Get("performance").Call("mark", "parley-ready")
	app.Window().Get("document").Get("documentElement").Call("setAttribute", "data-ready", "")
}

// OnAppUpdate runs when the service worker has installed a new build. With nothing typed,
// the page reloads into it at once; otherwise a banner offers the reload, so no draft is lost.
func (c *Conversation) OnAppUpdate(ctx app.Context) {
	if ta := app.Window().GetElementByID("composer-input"); !ta.Truthy() || ta.Get("value").String() == "" {
		ctx.Reload()
		return
	}
	c.updateReady = true
}

// OnNav follows the session named by the address, if any. Only in the browser: the server's
// pre-render waits for every ctx.Async task, and a follower never ends.
func (c *Conversation) OnNav(ctx app.Context) {
	if !app.IsClient {
		return
	}
	c.frame.menuOpen = false
	id := sessionOfPath(ctx.Page().URL().Path)
	switch {
	case id == "" && c.blank:
		// Back on the hero, which keeps its blank session.
	case id != c.session || c.follower == nil && id != "":
		c.blank = false
		c.open(ctx, id)
	}
	if id == "" && !c.blank {
		c.connect(ctx, "")
	}
	if id == "" {
		// The hero (first load, New session): what is typed next is the composer's.
		ctx.Defer(func(app.Context) { inputbar.Focus() })
	}
	c.refreshSessions(ctx)
}

// OnDismount stops following.
func (c *Conversation) OnDismount() {
	if c.stopFollow != nil {
		c.stopFollow()
	}
}

func sessionOfPath(path string) string {
	id, ok := strings.CutPrefix(path, "/s/")
	if !ok || !protocol.ValidSessionID(id) {
		return ""
	}
	return id
}

// open switches to session id ("" for none) and follows its events from the start.
func (c *Conversation) open(ctx app.Context, id string) {
	if c.stopFollow != nil {
		c.stopFollow()
		c.stopFollow, c.follower = nil, nil
	}
	if id != c.session {
		c.here = archivedHere{}
	}
	c.session, c.notice, c.noticeUntilLive = id, "", false
	if id != "" && sessionOfPath(ctx.Page().URL().Path) == id {
		storageSet(keyLastChat, id) // where the other screens' "Back to the chat" goes
	}
	if c.seed == nil && id != "" {
		// A session switched to within the page: the thread this browser kept of it shows at
		// once, as on a load, until the socket's replay replaces it (kept.go). Offline, the
		// replay never comes, and the thread was empty.
		if kept := keptSeed("/s/"+id, ctx.Page().URL().RawQuery); kept != nil {
			c.applySeed(kept, "/s/"+id)
			c.seedKept = true
		}
	}
	after, seeded := c.startThread(id)
	c.link = socket.State{Status: socket.Connecting}
	c.unsent = nil
	if box := outbox.Current(); box != nil && id != "" {
		c.unsent = box.Of(id)
	}
	if id == "" {
		return
	}
	u := ctx.Page().URL()
	scheme := "ws"
	if u.Scheme == "https" {
		scheme = "wss"
	}
	fctx, cancel := context.WithCancel(context.Background())
	f := &socket.Follower{
		URL:     scheme + "://" + u.Host + "/ws",
		Session: id,
		After:   after,
		Tail:    tailOf(u.RawQuery),
		OnWindow: func(w protocol.Window) {
			ctx.Dispatch(func(ctx app.Context) {
				if c.follower != nil && c.follower.Session == id {
					c.onWindow(w)
					c.kept.window(w)
				}
			})
		},
		// A frame's events in one dispatch: a replay renders once per frame, not per event.
		OnEvents: func(evs []protocol.Event) {
			ctx.Dispatch(func(ctx app.Context) {
				if c.follower == nil || c.follower.Session != id {
					return // a late event of a session we left
				}
				c.leaveKept()
				c.kept.add(evs)
				c.keepSoon(ctx)
				for _, ev := range evs {
					c.thread.Apply(ev)
					c.touch(id, ev)
					c.controls.Apply(ev)
					seenPrompt(ev)
					c.namedBy(ctx, ev)
					c.engaged(ctx, ev)
				}
				c.claimSeen(ctx)
			})
		},
		OnDelta: func(d protocol.Delta) {
			ctx.Dispatch(func(ctx app.Context) {
				if c.follower == nil || c.follower.Session != id {
					ctx.PreventUpdate()
					return
				}
				_, shown := c.thread.Streaming(d.Stream)
				if !c.thread.Live(d) {
					ctx.PreventUpdate() // nothing new: a repeat the drafts held
					return
				}
				// A message already on the page grows without a go-app render (paintStream);
				// its first piece takes the thread's hidden placeholder at once (adoptStream),
				// and go-app's render that follows makes the entry its own.
				m, ok := c.thread.Streaming(d.Stream)
				switch {
				case !ok:
				case shown && paintStream(d.Stream, m.Text):
					ctx.PreventUpdate()
				case !shown:
					adoptStream(m)
				}
			})
		},
		OnState: func(s socket.State) {
			ctx.Dispatch(func(ctx app.Context) {
				if c.session != id {
					return
				}
				if s.CaughtUp {
					c.leaveKept() // a replay without events: the session holds none now
				}
				c.onLinkState(ctx, s)
				if s.Status == socket.Live && c.noticeUntilLive {
					c.notice, c.noticeUntilLive = "", false
				}
			})
		},
	}
	c.follower, c.stopFollow = f, cancel
	c.keepSoon(ctx) // the server's seed, kept for a load without it
	for _, ev := range seeded {
		seenPrompt(ev)
	}
	c.claimSeen(ctx)
	ctx.Async(func() { f.Run(fctx) })
}

// namedBy reads the session list again when a prompt arrives, live, in a session that nothing
// named yet (its first prompts were refused commands): the server names it from that prompt
// before storing it (runtime.SendPrompt), so the list read now has the name.
func (c *Conversation) namedBy(ctx app.Context, ev protocol.Event) {
	if ev.Type == protocol.EventUserMessage && c.link.CaughtUp && !c.blank && c.thread.Title == protocol.Untitled {
		c.refreshSessions(ctx)
	}
}

// touch moves session to the top of the list, dated from the prompt, when one lands in it
// live, later than the list knows: the list is read from the server on navigation, and the
// session being written in would otherwise stay where it was, "7 min ago". A prompt the
// replay of the session just opened brings moves nothing: the server's index dated a
// session to the minute then (now to within two seconds, written after a burst), so the
// replay's exact times moved the row clicked above others of that minute, and the focus
// stayed in its slot, on another session's row, whose link the
// next Enter followed (QA round 12, the re-test of #1).
func (c *Conversation) touch(session string, ev protocol.Event) {
	if ev.Type == protocol.EventUserMessage && ev.At > 0 && c.link.CaughtUp {
		c.sessions = touchSession(c.sessions, session, ev.At)
	}
}

// touchSession is list with session last used at at, moved up to its place (the list is
// ordered by last use): first for a prompt sent now, below the sessions used since for an
// older one the list did not know of (a replay of the session just opened: moving that to the
// top put another session under the pointer that had clicked it). The same list when it knew
// that already or does not hold the session.
func touchSession(list []protocol.SessionInfo, session string, at int64) []protocol.SessionInfo {
	i := slices.IndexFunc(list, func(s protocol.SessionInfo) bool { return s.ID == session })
	if i < 0 || list[i].LastActive() >= at {
		return list
	}
	s := list[i]
	s.Active = at
	out := slices.Delete(slices.Clone(list), i, i+1)
	place := slices.IndexFunc(out, func(o protocol.SessionInfo) bool { return o.LastActive() < at })
	if place < 0 {
		place = len(out)
	}
	return slices.Insert(out, place, s)
}

// listAgainOnReturn reads the session list again when the person comes back to the page
// (its tab shown or its window focused), at most every listAgainEvery: another tab may have
// renamed, archived or started sessions meanwhile.
func (c *Conversation) listAgainOnReturn(ctx app.Context) {
	if app.Window().Get("document").Get("visibilityState").String() != "visible" {
		return
	}
	if now := clock(); now.Sub(c.listedAt) >= listAgainEvery {
		c.listedAt = now
		c.refreshSessions(ctx)
	}
}

const listAgainEvery = 5 * time.Second

// workspaceOf is the workspace id of session id: the picked one for the hero's blank session,
// else the session list's ("" until it is known, which is the default).
func (c *Conversation) workspaceOf(id string) string {
	if c.blank {
		return c.workspace
	}
	for _, s := range c.sessions {
		if s.ID == id {
			return s.WorkspaceID
		}
	}
	if h := c.here.info; h != nil && h.ID == id {
		return h.WorkspaceID
	}
	return ""
}

func (c *Conversation) titleOf(id string) string {
	for _, s := range c.sessions {
		if s.ID == id {
			return s.Title
		}
	}
	if h := c.here.info; h != nil && h.ID == id {
		return h.Title
	}
	return ""
}

// knownSessions is the session list as this page last read it: a screen that mounts shows
// it while it reads the list again, so moving between screens never empties the sidebar.
var knownSessions []protocol.SessionInfo

// statusUnauthorized is http.StatusUnauthorized: the browser's build does not import net/http.
const statusUnauthorized = 401

func (c *Conversation) refreshSessions(ctx app.Context) {
	client := clientOf(ctx)
	if c.workspaces == nil && !c.spacesAsked {
		// Beside the list, never before it: the list is not kept waiting for the names.
		c.spacesAsked = true
		ctx.Async(func() {
			spaces, err := client.ListWorkspaces(ctx)
			ctx.Dispatch(func(ctx app.Context) {
				c.spacesAsked = false
				if err == nil && c.workspaces == nil {
					c.knowWorkspaces(spaces)
				}
			})
		})
	}
	ctx.Async(func() {
		list, err := client.ListSessions(ctx)
		ctx.Dispatch(func(ctx app.Context) {
			var apiErr *api.Error
			if errors.As(err, &apiErr) && apiErr.Status == statusUnauthorized {
				c.unauthorized = true
				return
			}
			c.noteReach(err)
			if err != nil {
				if c.sessions == nil {
					c.sessions = keptSessionList() // shown while the server cannot say it
				}
				c.setNotice(tr(i18n.CouldNotListSessions, describeError(err)), errors.Is(err, api.ErrUnreachable))
				c.listNotice = c.notice
				c.listRetry.schedule(ctx, c.refreshSessions)
				return
			}
			if c.listRetry.attempt > 0 && c.listFailed() {
				c.notice = ""
			}
			c.listRetry.succeeded()
			c.unauthorized = false
			c.listed(list)
			c.lookArchived(ctx)
			ctx.NewAction(actionSessionsKnown) // the links to sessions take their titles
		})
	})
}

// listed shows the session list the server gave (a read, or the sidebar's live list).
func (c *Conversation) listed(list []protocol.SessionInfo) {
	old := c.sessions
	// Blank sessions (the hero's, never prompted) are not listed; the open one that just got
	// its first prompt is, even if the list was read a moment too early.
	c.sessions = slices.DeleteFunc(list, func(s protocol.SessionInfo) bool {
		return s.Blank && (s.ID != c.session || c.blank)
	})
	// The open session, which this page listed as its first prompt went (engagedBy,
	// onSessionCreated), stays when a list read before the server indexed it lacks it; and
	// keeps the title its first prompt gave it when the list still calls it blank: read
	// before that prompt was stored, as when it waited in the outbox while the server was
	// away and the list was read again as the server came back (QA round 16 #11: it was
	// "New session" until the list's long poll, up to 30 s into its backoff, read it again).
	for _, s := range old {
		if s.ID != c.session || c.blank || s.Blank {
			continue
		}
		listed := false
		for i := range c.sessions {
			if l := &c.sessions[i]; l.ID == s.ID {
				listed = l.Title != ""
				if l.Blank && s.Title != "" {
					l.Title = s.Title
				}
			}
		}
		if !listed {
			c.sessions = append([]protocol.SessionInfo{s}, c.sessions...)
		}
	}
	// A session this page dated later than the list does keeps that date, and its place: one
	// the server read before it dated its first prompt, and a prompt the page saw land (the
	// index dates a burst's last prompt up to two seconds after it, touch in
	// runtime/sessions.go), which a list read in between moved down, then up again.
	for _, s := range old {
		c.sessions = touchSession(c.sessions, s.ID, s.LastActive())
	}
	keepSessions(c.sessions)
	// What the list shows, not the server's words: a read a moment too early still calls the
	// open session blank, and another screen mounted on that showed an empty sidebar until
	// it read the list again (TestMovingToApprovalsKeepsTheList, once in CI).
	knownSessions = slices.Clone(c.sessions)
	if slices.ContainsFunc(c.sessions, func(s protocol.SessionInfo) bool { return s.ID == c.session }) {
		c.here.info = nil // restored elsewhere
	}
	if title := c.titleOf(c.session); title != "" {
		c.thread.Title = title
	}
}

// listFailed says the notice shown is the one that says the sessions could not be listed.
func (c *Conversation) listFailed() bool { return c.notice != "" && c.notice == c.listNotice }

func (c *Conversation) setNotice(text string, untilLive bool) {
	c.notice, c.noticeUntilLive, c.noticeSay, c.noticeFromBar, c.noticeInfo = text, untilLive, nil, false, false
}

// noticeText is the notice shown, reworded in the page's locale when it can be (the bar's).
func (c *Conversation) noticeText() string {
	if c.noticeSay != nil {
		return c.noticeSay()
	}
	return c.notice
}

// onSessionCreated lists the session the hero's first send created and goes there; the
// input bar sends the prompt itself (app/hub).
func (c *Conversation) onSessionCreated(ctx app.Context, a app.Action) {
	info, ok := a.Value.(protocol.SessionInfo)
	if !ok {
		return
	}
	c.sessions = append([]protocol.SessionInfo{info}, c.sessions...)
	ctx.Navigate("/s/" + info.ID)
}

// onInputNotice shows (or, empty, clears) the input bar's notice about a send.
func (c *Conversation) onInputNotice(ctx app.Context, a app.Action) {
	if n, ok := a.Value.(hub.Notice); ok {
		if n.Withdraw {
			if c.noticeFromBar {
				c.setNotice("", false)
			}
			return
		}
		c.setNotice(n.Text, n.UntilLive)
		c.noticeSay, c.noticeFromBar, c.noticeInfo = n.Say, n.Text != "", n.Info
	}
}

// onRename renames a session on the server; the list is read again after.
func (c *Conversation) onRename(ctx app.Context, a app.Action) {
	in, ok := a.Value.(renameIntent)
	if !ok {
		return
	}
	client := clientOf(ctx)
	req := protocol.UpdateSessionRequest{Title: &in.Title}
	ctx.Async(func() {
		_, err := client.UpdateSession(ctx, in.ID, req)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				c.setNotice(tr(i18n.NotRenamed, describeError(err)), errors.Is(err, api.ErrUnreachable))
				return
			}
			// A new slice: the sidebar renders again only when its list is another value.
			c.sessions = slices.Clone(c.sessions)
			for i := range c.sessions {
				if c.sessions[i].ID == in.ID {
					c.sessions[i].Title = strings.TrimSpace(in.Title)
				}
			}
			if in.ID == c.session {
				c.thread.Title = strings.TrimSpace(in.Title)
			}
			c.refreshSessions(ctx)
		})
	})
}

// onArchive takes a session out of the list on the server; the open one gives way to the
// empty page.
func (c *Conversation) onArchive(ctx app.Context, a app.Action) {
	intent, ok := a.Value.(archiveIntent)
	if !ok {
		return
	}
	id := intent.ID
	client, yes := clientOf(ctx), true
	ctx.Async(func() {
		_, err := client.UpdateSession(ctx, id, protocol.UpdateSessionRequest{Archived: &yes})
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				c.setNotice(tr(i18n.NotArchived, describeError(err)), errors.Is(err, api.ErrUnreachable))
				return
			}
			c.sessions = slices.DeleteFunc(slices.Clone(c.sessions), func(s protocol.SessionInfo) bool { return s.ID == id })
			if id == c.session {
				ctx.Navigate("/")
			}
			// The list is drawn by index: the row that had the focus may be another one's
			// element now. The neighbour takes it again, once the row is gone.
			ctx.Defer(func(app.Context) { focusSessionRow(intent.Next) })
			c.refreshSessions(ctx)
		})
	})
}

// onRestored puts a session restored from the archived list back in the list, and gives its
// row the focus (the Restore button that had it is gone).
func (c *Conversation) onRestored(ctx app.Context, a app.Action) {
	info, ok := a.Value.(protocol.SessionInfo)
	if !ok {
		return
	}
	c.sessions = withRestored(c.sessions, info)
	ctx.Defer(func(app.Context) { focusSessionRow(info.ID) })
	c.refreshSessions(ctx)
}

// onDecide sends a reply from a decision card. The card leaves its pending state when the
// outcome comes back on the socket, the same way as when another tab answered.
func (c *Conversation) onDecide(ctx app.Context, a app.Action) {
	intent, ok := a.Value.(DecideIntent)
	if !ok || c.session == "" {
		return
	}
	client, session := clientOf(ctx), cmpOr(intent.Session, c.session)
	ctx.Async(func() {
		if _, err := client.Reply(ctx, session, intent.Decision, intent.Reply); err != nil {
			ctx.Dispatch(func(ctx app.Context) {
				// A lost connection's notice goes when the socket is live again.
				c.setNotice(tr(i18n.NotAnsweredNotice, describeError(err)), errors.Is(err, api.ErrUnreachable))
			})
		}
	})
}

// onWithdraw takes back a waiting prompt on the server.
func (c *Conversation) onWithdraw(ctx app.Context, a app.Action) {
	w, ok := a.Value.(inputbar.Withdraw)
	if !ok || c.session == "" {
		return
	}
	c.changeQueued(ctx, i18n.NotWithdrawn, func(client *api.Client, session string) error {
		_, err := client.WithdrawPrompt(ctx, session, w.Offset)
		return err
	}, nil)
}

// onEditQueued changes a waiting prompt on the server, in place: the dock shows the new text
// when its prompt.edited comes back on the socket. A Save that reaches the server as the
// prompt's turn begins is refused (not_waiting): the change goes to the box with the
// dock's own notice, as when the dock sees the prompt leave before the Save.
func (c *Conversation) onEditQueued(ctx app.Context, a app.Action) {
	ed, ok := a.Value.(inputbar.EditQueued)
	if !ok || c.session == "" {
		return
	}
	c.changeQueued(ctx, i18n.NotEdited, func(client *api.Client, session string) error {
		_, err := client.EditPrompt(ctx, session, ed.Offset, ed.Text)
		return err
	}, func(ctx app.Context) {
		ctx.NewActionWithValue(inputbar.ActionHandBack, ed.Text)
		ctx.NewActionWithValue(inputbar.ActionNotice, inputbar.EditStartedFirst(ed.Was))
	})
}

// changeQueued asks the server to change a waiting prompt of this session; the dock follows
// what the socket then says. A failure is a notice in the words of failed, or, for a prompt
// no longer waiting, began's (when it is not nil) while its session is still shown.
func (c *Conversation) changeQueued(ctx app.Context, failed i18n.Msg, change func(*api.Client, string) error, began func(app.Context)) {
	client, session := clientOf(ctx), c.session
	ctx.Async(func() {
		if err := change(client, session); err != nil {
			ctx.Dispatch(func(ctx app.Context) {
				var apiErr *api.Error
				if began != nil && errors.As(err, &apiErr) && apiErr.Code == "not_waiting" && session == c.session {
					began(ctx)
					return
				}
				c.setNotice(tr(failed, describeError(err)), errors.Is(err, api.ErrUnreachable))
			})
		}
	})
}

// onStop asks the server to stop the session's running turn.
func (c *Conversation) onStop(ctx app.Context, a app.Action) {
	if c.session == "" {
		return
	}
	client, session, turn := clientOf(ctx), c.session, c.thread.Turn
	// The Stop button leaves with the turn: keep the keyboard where the next prompt goes.
	if input := app.Window().GetElementByID("composer-input"); input.Truthy() {
		input.Call("focus")
	}
	ctx.Async(func() {
		if _, err := client.Stop(ctx, session, turn); err != nil {
			ctx.Dispatch(func(ctx app.Context) {
				c.setNotice(tr(i18n.NotStopped, describeError(err)), errors.Is(err, api.ErrUnreachable))
			})
		}
	})
}

// describeError words a failure for a person (hub.DescribeError).
func describeError(err error) string { return hub.DescribeError(err) }

// Render lays out the sidebar and the main column.
func (c *Conversation) Render() app.UI {
	notFound := c.session != "" && c.link.Status == socket.Failed
	hero := !c.unauthorized && (c.session == "" || c.blank)
	// A composer that nothing here can enable says why, and looks it (composer-closed), so no
	// one is invited to type into it; web/early.js drops the keys typed on such a page.
	placeholder := placeholderFor(c.session == "" || c.blank)
	switch {
	case c.unauthorized:
		placeholder = tr(i18n.NeedsLink)
	case notFound:
		placeholder = tr(i18n.NoSessionToWrite)
	}
	_, docked := c.unsentIn()
	// Escape is listened to on the session list and its toggle, not on the whole layout:
	// a handler here would run Go through go-app on every keystroke in the composer.
	return c.frame.
		render(&Sidebar{Sessions: c.sessions, Current: c.session, Spaces: c.spaceNamed},
			app.Elem("main").Class(mainClass(hero, c.unauthorized || notFound, c.offline())).Body(
				app.Div().Class("update-slot").Body(
					// A session's page says it in its link strip (renderLink): one strip.
					app.If(c.offline() && !c.sessionShown(notFound), func() app.UI { return c.renderOffline() }),
					app.If(c.updateReady, func() app.UI {
						return app.Div().Class("update").Role("status").Body(
							app.Span().Text(tr(i18n.Updated)),
							app.Button().Class("link-retry").Text(tr(i18n.Reload)).
								OnClick(func(ctx app.Context, e app.Event) { ctx.Reload() }),
						)
					}),
				),
				c.renderBody(notFound),
				// Always present, so the composer after it keeps its place among the children:
				// go-app diffs children by index, and a shifted composer would be rebuilt,
				// textarea and draft with it.
				app.Div().Class("notice-slot").Body(
					app.If(c.noticeShown(), func() app.UI {
						return app.Div().Class(noticeClass(c.noticeInfo)).Role("alert").Body(
							app.Span().Text(c.noticeText()),
							app.If(c.listRetry.pending() && c.listFailed(), func() app.UI {
								return app.Button().Class("link-retry").Text(tr(i18n.RetryNow)).
									OnClick(func(ctx app.Context, e app.Event) { c.retryNow(ctx) })
							}),
						)
					}),
				),
				&composer.Composer{
					Session:     c.session,
					Placeholder: placeholder,
					Disabled:    c.unauthorized || notFound,
					Pending:     c.thread.Pending,
					TimedOut:    c.thread.TimedOut,
					Working:     c.thread.Working,
					Queued:      c.thread.Queued,
					Unsent:      docked,
					RetryAbove:  len(docked) > 0 && c.reachShown(),
					Workspace:   c.workspaceOf(c.session),
					Replaying:   c.session != "" && !c.link.CaughtUp,
					Controls:    c.controls,
				},
				// After the composer, so the composer keeps its index: the hero's starters.
				app.Div().Class("starters-slot").Body(
					app.If(hero && c.session != "", c.renderStarters),
					app.If(hero && c.session != "" && c.starters.modelKnown && !c.starters.model, c.offlineNote),
				),
			),
		)
}

// renderBody is the part of the main column above the composer.
func (c *Conversation) renderBody(notFound bool) app.UI {
	switch {
	case c.unauthorized:
		return app.Div().Class("hero gate").Body(
			app.Elem("h1").Text(tr(i18n.NeedsLink)),
			app.Elem("p").Text(tr(i18n.NeedsLinkText)),
		)
	case c.session == "" || c.blank:
		return c.renderHero()
	case notFound:
		return app.Div().Class("session").Body(
			app.Elem("header").Class("session-header").Body(app.Elem("h1").Text(tr(i18n.SessionNotFound))),
			app.Div().Class("hero gate").Body(
				app.Elem("p").Text(tr(i18n.SessionNotFoundText)),
				app.A().Class("new-session").Href("/").Text(tr(i18n.StartNewSession)),
			),
		)
	}
	return app.Div().Class("seat seat-session").Body(Slots.Render(SlotSession, c.session, c)...)
}

// noticeClass draws a notice as a problem, or as news (.said) when it is none.
func noticeClass(info bool) string {
	if info {
		return "notice said"
	}
	return "notice"
}

func backdropClass(open bool) string {
	if open {
		return "drawer-backdrop open"
	}
	return "drawer-backdrop"
}

// mainClass marks the main column of the empty page, which centres the composer, and of a
// page whose composer is closed (a session that is not there, no access).
func mainClass(hero, closed, offline bool) string {
	c := "main"
	if hero {
		c += " main-hero"
	}
	if closed {
		c += " composer-closed"
	}
	if offline {
		// The strip or the banner says the server is away; the controls row does not say it
		// again (web/parley.css, QA round 17 #4).
		c += " main-offline"
	}
	return c
}

// dropHeldKeys empties what web/early.js holds for the bar, on a page whose bar is closed for
// good (the session is not there): the next page's bar would take it, and a held Enter
// would send it there, unseen (QA: "ghost message").
func dropHeldKeys() {
	if e := app.Window().Get("parleyEarly"); e.Truthy() {
		e.Set("text", "")
		e.Get("sends").Set("length", 0)
	}
}

func placeholderFor(hero bool) string {
	if hero {
		return tr(i18n.PlaceholderHero)
	}
	return tr(i18n.PlaceholderSession)
}

// renderLink shows the socket's state while it is not live. While the server cannot be
// reached it is the page's one strip about it (the offline banner is not drawn beside it):
// why, in the words of whoever said it (the socket, or an edge whose runtime is away), when
// the next try is, and one Retry now for everything that waits.
func (c *Conversation) renderLink() app.UI {
	if c.reachShown() {
		return c.renderReach()
	}
	switch c.link.Status {
	case socket.Connecting:
		return app.Div().Class("link link-connecting").Role("status").Text(tr(i18n.Connecting))
	}
	live := app.Div().Class("link link-live").Role("status").Aria("label", tr(i18n.Live))
	if c.link.CaughtUp {
		// The replay of the stored events is over and on the page: what comes now happens
		// now. Tests wait on it instead of guessing how long a replay takes.
		live = live.DataSet("caught-up", "true")
	}
	return live
}

// linkError is why the link dropped, in the page's locale when it is the socket's own words;
// a network error's text is shown as the browser gives it in English, and as the connection
// closing in another locale (its words are the network library's English: "failed to read:
// use of closed network connection"); "" when nothing is known but that the server is away.
func linkError(s string) string {
	switch {
	case s == "" || s == socket.Unreachable:
		return "" // no more is known than that it is away: the caller's words say so
	case s == "the connection closed" || locale.Current() != i18n.English:
		return tr(i18n.ConnectionClosed)
	}
	return s
}
