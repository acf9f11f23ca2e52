package components

import (
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/slots"
	"parley/components/composer/modes/widget"
	"parley/components/inputbar"
	"parley/i18n"
	"parley/protocol"
)

// The conversation's own seats; the composer declares the input area's (composer.Slots).
const (
	// SlotSession holds a session's view: header, link state, thread. It is strict session:
	// it renders only when a session is open and past its blank phase.
	SlotSession = "conversation.session"
	// SlotHeroWorkspace is the hero's workspace picker, shared by the no-session and the
	// blank hero.
	SlotHeroWorkspace = "conversation.hero.workspace"
)

// Slots is the conversation's slot registry.
var Slots = slots.New[*Conversation]()

func init() {
	for _, d := range []struct {
		name  string
		scope slots.Scope
	}{{SlotSession, slots.Session}, {SlotHeroWorkspace, slots.Root}} {
		if err := Slots.Declare(d.name, slots.Single, d.scope); err != nil {
			panic(err)
		}
	}
	register := func(name string, render func(*Conversation) app.UI) {
		if _, err := Slots.Register(name, "", slots.Entry[*Conversation]{Render: render}); err != nil {
			panic(err)
		}
	}
	register(SlotSession, (*Conversation).renderSession)
	register(SlotHeroWorkspace, func(c *Conversation) app.UI {
		if len(c.workspaces) < 2 {
			return app.Div().Class("workspaces-none") // nothing to pick among
		}
		return &WorkspacePicker{Workspaces: c.workspaces, Current: c.workspace}
	})
}

// actionPickWorkspace carries the id of the workspace the person picked in the hero.
const actionPickWorkspace = "parley.workspace.pick"

// WorkspacePicker shows the folders the server can work in; picking one gives the hero a
// blank session there.
type WorkspacePicker struct {
	app.Compo
	Workspaces []protocol.Workspace
	Current    string
}

// OnMount relabels the picker when the locale switches.
func (w *WorkspacePicker) OnMount(ctx app.Context) { relabel(ctx) }

// Render draws the workspaces as a radio group of buttons.
func (w *WorkspacePicker) Render() app.UI {
	return app.Div().Class("workspaces").Role("radiogroup").Aria("label", tr(i18n.WorkspaceLabel)).OnKeyDown(widget.ArrowKeys).Body(
		app.Range(w.Workspaces).Slice(func(i int) app.UI {
			ws := w.Workspaces[i]
			return app.Button().Type("button").Class("workspace").
				Role("radio").
				Aria("checked", boolText(ws.ID == w.Current)).
				DataSet("workspace", ws.ID).
				Title(ws.Path).
				Body(
					app.Span().Class("workspace-name").Text(ws.Name),
					app.Span().Class("workspace-path").Text(ws.Path),
				).
				OnClick(func(ctx app.Context, e app.Event) {
					ctx.NewActionWithValue(actionPickWorkspace, ws.ID)
				}, app.EventScope(ws.ID))
		}),
	)
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// Keys of what the hero remembers in localStorage: the workspace last picked, and each
// workspace's blank session, so a reload of the hero returns to the same one.
const (
	keyWorkspace  = "parley.workspace"
	keyBlankOfPre = "parley.blank."
)

func storageGet(key string) string {
	ls := app.Window().Get("localStorage")
	if !ls.Truthy() {
		return ""
	}
	v := ls.Call("getItem", key)
	if !v.Truthy() {
		return ""
	}
	return v.String()
}

func storageSet(key, value string) {
	if ls := app.Window().Get("localStorage"); ls.Truthy() {
		if value == "" {
			ls.Call("removeItem", key)
			return
		}
		ls.Call("setItem", key, value)
	}
}

// connect gives the hero a blank session in workspace ws ("" for the one picked last, else
// the default): the one it had there if it is still blank, or a new one. The input bar then
// works on it; a draft typed in the previous blank session moves along.
func (c *Conversation) connect(ctx app.Context, ws string) {
	if c.connecting {
		c.nextPick = ws // taken when the connection under way is done: the last pick wins
		return
	}
	c.connecting = true
	client := clientOf(ctx)
	if ws == "" {
		ws = storageGet(keyWorkspace)
	}
	from := ""
	if c.blank {
		from = c.session
	}
	remembered := map[string]string{}
	for _, w := range c.workspaces {
		remembered[w.ID] = storageGet(keyBlankOfPre + w.ID)
	}
	// The workspaces are read once a page (they are the server's flags): here, unless the
	// session list's read has them already.
	list, read := c.workspaces, c.workspaces == nil
	c.spacesAsked = c.spacesAsked || read
	ctx.Async(func() {
		var err error
		if read {
			list, err = client.ListWorkspaces(ctx)
		}
		listed := err == nil
		var info protocol.SessionInfo
		pick := ""
		if err == nil {
			pick = pickWorkspace(list, ws)
			if pick == "" {
				err = errors.New(tr(i18n.NoWorkspace))
			}
		}
		if err == nil {
			blank := remembered[pick]
			if blank == "" {
				blank = storageGet(keyBlankOfPre + pick)
			}
			// Never the one being left: another window may have just sent its first prompt
			// (engaged), which the index can still call blank for a moment.
			if blank != "" && blank != from {
				if got, gerr := client.GetSession(ctx, blank); gerr == nil && got.Blank {
					info = got
				}
			}
			if info.ID == "" {
				info, err = client.CreateSession(ctx, protocol.CreateSessionRequest{Workspace: pick})
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			c.connecting = false
			if read {
				c.spacesAsked = false
				if listed && c.workspaces == nil {
					c.knowWorkspaces(list)
				}
			}
			if next := c.nextPick; next != "" {
				c.nextPick = ""
				if next != pick {
					defer c.connect(ctx, next)
				}
			}
			var apiErr *api.Error
			switch {
			case errors.As(err, &apiErr) && apiErr.Status == statusUnauthorized:
				c.unauthorized = true
				return
			case err != nil:
				c.noteReach(err)
				if errors.Is(err, api.ErrUnreachable) && c.adoptRememberedBlank(ctx) {
					return // offline.go: typed into the remembered blank session
				}
				c.setNotice(tr(i18n.NoSessionToType, describeError(err)), errors.Is(err, api.ErrUnreachable))
				c.connectRetry.schedule(ctx, func(ctx app.Context) { c.connect(ctx, "") })
				return
			case sessionOfPath(ctx.Page().URL().Path) != "":
				return // the person went to a session meanwhile
			}
			c.connectRetry.succeeded()
			c.noteReach(nil)
			c.workspace = pick
			c.loadStarters(ctx, pick)
			storageSet(keyWorkspace, pick)
			storageSet(keyBlankOfPre+pick, info.ID)
			if from != "" && from != info.ID {
				ctx.NewActionWithValue(inputbar.ActionCarryDraft, inputbar.Carry{From: from, To: info.ID})
			}
			if c.session != info.ID {
				c.open(ctx, info.ID)
			}
			c.blank = true
			ctx.Defer(func(app.Context) {
				// Only a bar that is live already (a re-pick): the first connection's bar
				// focuses itself when it takes the keys held until then, and a focus before
				// that would let keys into it ahead of the held ones.
				if !app.Window().Get("document").Get("documentElement").Call("hasAttribute", "data-composer-live").Bool() {
					return
				}
				// Nor from a control the person focused meanwhile (the fn-form's picker).
				if ta := app.Window().GetElementByID(inputbar.InputID); ta.Truthy() && (inputbar.Free() || pickedWorkspace()) {
					ta.Call("focus")
				}
			})
		})
	})
}

// pickedWorkspace reports whether the focus is on a workspace button the person just picked:
// the composer takes it from there, what they type next is for the new workspace.
func pickedWorkspace() bool {
	a := app.Window().Get("document").Get("activeElement")
	return a.Truthy() && a.Get("classList").Call("contains", "workspace").Bool()
}

// pickWorkspace returns want if the server has it, else the default (the first).
func pickWorkspace(list []protocol.Workspace, want string) string {
	for _, w := range list {
		if w.ID == want {
			return w.ID
		}
	}
	if len(list) == 0 {
		return ""
	}
	return list[0].ID
}

// engaged is called after each event of the open session: the blank hero's session got its
// first message, so it becomes a session like any other, at its own address, in the list.
//
// A first prompt this page did not send leaves it where it is, on a new blank session: the
// blank session is remembered in the browser's storage, which every window of the app shares,
// so two windows on the empty page type into one, and a window followed the other's prompt
// to its session, taking its own unsent draft there (QA round 18, P1). This page's prompts
// have left the hero before their echo comes (engagedBy, from the outbox), but a starter's
// (onStart), whose attempt id is kept.
func (c *Conversation) engaged(ctx app.Context, ev protocol.Event) {
	if !c.blank || len(c.thread.Messages) == 0 || c.session == c.taken {
		return // the events after another window's prompt, while this page leaves its session
	}
	if ev.Type == protocol.EventUserMessage {
		if m, err := ev.DecodeMessage(); err == nil && (m.AttemptID == "" || m.AttemptID != c.started) {
			c.taken = c.session
			c.connect(ctx, c.workspace) // the draft moves along (ActionCarryDraft)
			return
		}
	}
	c.engagedBy(ctx, c.thread.Messages[0].Text, c.thread.Messages[0].At)
}

// engagedBy leaves the hero for the blank session's own page: its first prompt (text,
// logged at at, 0 when not yet) is stored, or waits in the outbox.
func (c *Conversation) engagedBy(ctx app.Context, text string, at int64) {
	if !c.blank {
		return
	}
	c.blank = false
	storageSet(keyBlankOfPre+c.workspace, "")
	c.prefetchBlank(ctx, c.workspace)
	// Listed at once, titled as the server titles it: the list the server gives may still
	// call it blank for a moment.
	if c.titleOf(c.session) == "" {
		title := protocol.TitleFrom(text)
		// Dated from its first prompt, as the server dates it (docs/look.md, "Sessions").
		if at == 0 {
			at = clock().UnixMilli()
		}
		c.sessions = append([]protocol.SessionInfo{{ID: c.session, Title: title, WorkspaceID: c.workspace, Created: at}}, c.sessions...)
		c.thread.Title = title
	}
	ctx.Navigate("/s/" + c.session)
	c.refreshSessions(ctx)
}

// renderHero is the hero: with no session, or with the blank session of the picked
// workspace.
func (c *Conversation) renderHero() app.UI {
	return app.Div().Class("hero").Body(
		app.Elem("h1").Text(tr(i18n.HeroTitle)),
		app.Elem("p").Class("hero-tag").Text(tr(i18n.HeroLine)),
		app.Div().Class("seat seat-hero-workspace").Body(Slots.Render(SlotHeroWorkspace, "", c)...),
	)
}

// renderSession is a session's view: its header, the link's state, the thread.
func (c *Conversation) renderSession() app.UI {
	unsent, _ := c.unsentIn()
	return app.Div().Class("session").Body(
		app.Elem("header").Class("session-header").Body(
			app.Elem("h1").Attr("dir", "auto").Text(titleWords(c.thread.Title)), // the page's one h1 (axe: page-has-heading-one)
			workspaceTag(c.spaceNamed[c.workspaceOf(c.session)]),
			c.renderArchivedHere(),
		),
		c.renderLink(),
		&Thread{Messages: c.thread.Messages, Rev: c.thread.Rev, Working: c.thread.Working, Older: c.older.more, Unsent: unsent,
			RetryAbove: c.reachShown(), Aside: c.asideHere(), Kept: c.showingKept},
	)
}

// asideHere is the decision of the open session that the composer has set aside, if any.
func (c *Conversation) asideHere() string {
	if c.aside.Session != c.session {
		return ""
	}
	return c.aside.ID
}
