package components

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/socket"
	"parley/protocol"
)

// Conversation is the root: the hero when there is no session, the thread and the composer
// when there is one. It stays mounted across both, so moving between them keeps the frame.
type Conversation struct {
	app.Compo

	sessions []protocol.SessionInfo
	session  string
	title    string
	messages []Message
	working  bool
	link     socket.State
	notice   string // the last failure, for the person to read
	menuOpen bool   // the session list, on screens too narrow to keep it beside the thread

	follower   *socket.Follower
	stopFollow context.CancelFunc
}

func (c *Conversation) client(ctx app.Context) *api.Client {
	u := ctx.Page().URL()
	return &api.Client{Base: u.Scheme + "://" + u.Host}
}

// OnMount handles sends from the composer, and marks the page interactive: the pre-rendered
// HTML looks the same before the wasm takes over, so tests and `make bench` wait for this.
func (c *Conversation) OnMount(ctx app.Context) {
	ctx.Handle(actionSend, c.onSend)
	app.Window().Get("performance").Call("mark", "parley-ready")
	app.Window().Get("document").Get("documentElement").Call("setAttribute", "data-ready", "")
}

// OnNav follows the session named by the address, if any. Only in the browser: the server's
// pre-render waits for every ctx.Async task, and a follower never ends.
func (c *Conversation) OnNav(ctx app.Context) {
	if !app.IsClient {
		return
	}
	c.menuOpen = false
	id := sessionOfPath(ctx.Page().URL().Path)
	if id != c.session || c.follower == nil && id != "" {
		c.open(ctx, id)
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
	c.session, c.messages, c.working, c.notice = id, nil, false, ""
	c.link = socket.State{Status: socket.Connecting}
	c.title = c.titleOf(id)
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
		OnEvent: func(ev protocol.Event) {
			ctx.Dispatch(func(ctx app.Context) {
				if c.follower == nil || c.follower.Session != ev.Session {
					return // a late event of a session we left
				}
				c.apply(ev)
			})
		},
		OnState: func(s socket.State) {
			ctx.Dispatch(func(ctx app.Context) {
				if c.session == id {
					c.link = s
				}
			})
		},
	}
	c.follower, c.stopFollow = f, cancel
	ctx.Async(func() { f.Run(fctx) })
}

// apply folds one event into the view's state.
func (c *Conversation) apply(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventSessionCreated:
		var sc protocol.SessionCreated
		if decodeInto(ev, &sc) == nil && sc.Title != "" {
			c.title = sc.Title
		}
	case protocol.EventUserMessage:
		c.working = true
	case protocol.EventAgentMessage:
		c.working = false
	}
	if m, ok := messageOf(ev); ok {
		c.messages = append(c.messages, m)
	}
}

func (c *Conversation) titleOf(id string) string {
	for _, s := range c.sessions {
		if s.ID == id {
			return s.Title
		}
	}
	return ""
}

func (c *Conversation) refreshSessions(ctx app.Context) {
	client := c.client(ctx)
	ctx.Async(func() {
		list, err := client.ListSessions(ctx)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				c.notice = "Could not list sessions: " + err.Error()
				return
			}
			c.sessions = list
			if c.title == "" {
				c.title = c.titleOf(c.session)
			}
		})
	})
}

// onSend sends a prompt; from the hero it first creates the session and goes there.
func (c *Conversation) onSend(ctx app.Context, a app.Action) {
	intent, ok := a.Value.(SendIntent)
	if !ok {
		return
	}
	client := c.client(ctx)
	c.notice = ""
	ctx.Async(func() {
		session := intent.Session
		if session == "" {
			info, err := client.CreateSession(ctx, protocol.CreateSessionRequest{Title: titleFrom(intent.Text)})
			if err != nil {
				c.sendFailed(ctx, intent, err)
				return
			}
			session = info.ID
			ctx.Dispatch(func(ctx app.Context) {
				c.sessions = append([]protocol.SessionInfo{info}, c.sessions...)
				ctx.Navigate("/s/" + info.ID)
			})
		}
		_, err := client.SendPrompt(ctx, session, protocol.SendPromptRequest{Text: intent.Text, AttemptID: intent.AttemptID, Mode: protocol.ModeQueue})
		if err != nil {
			intent.Session = session
			c.sendFailed(ctx, intent, err)
		}
	})
}

func (c *Conversation) sendFailed(ctx app.Context, intent SendIntent, err error) {
	ctx.Dispatch(func(ctx app.Context) {
		c.notice = "Not sent: " + describeError(err)
		ctx.NewActionWithValue(actionSendFailed, intent)
	})
}

func describeError(err error) string {
	var verr *protocol.ValidationError
	if errors.As(err, &verr) {
		var parts []string
		for _, msg := range verr.Fields {
			parts = append(parts, msg)
		}
		return strings.Join(parts, "; ")
	}
	return err.Error()
}

// titleFrom names a session after the first line of its first prompt.
func titleFrom(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > 60 {
		line = string(r[:60]) + "…"
	}
	return line
}

// Render lays out the sidebar and the main column.
func (c *Conversation) Render() app.UI {
	return app.Div().Class("layout").Body(
		&Sidebar{Sessions: c.sessions, Current: c.session, Open: c.menuOpen},
		app.Main().Class("main").Body(
			app.Div().Class("mobile-bar").Body(
				app.Button().Class("menu-toggle").
					Aria("controls", "sidebar").
					Aria("expanded", strconv.FormatBool(c.menuOpen)).
					Text("Sessions").
					OnClick(func(ctx app.Context, e app.Event) { c.menuOpen = !c.menuOpen }),
			),
			app.If(c.session == "", func() app.UI {
				return app.Div().Class("hero").Body(
					app.H1().Text("Parley"),
					app.P().Class("hero-tag").Text("A chat for AI agents. Every decision lands in the composer."),
				)
			}).Else(func() app.UI {
				return app.Div().Class("session").Body(
					app.Header().Class("session-header").Body(app.H2().Text(c.title)),
					c.renderLink(),
					&Thread{Messages: c.messages, Working: c.working},
				)
			}),
			// Always present, so the composer after it keeps its place among the children:
			// go-app diffs children by index, and a shifted composer would be rebuilt,
			// textarea and draft with it.
			app.Div().Class("notice-slot").Body(
				app.If(c.notice != "", func() app.UI {
					return app.Div().Class("notice").Role("alert").Text(c.notice)
				}),
			),
			&Composer{Session: c.session, Placeholder: placeholderFor(c.session)},
		),
	)
}

func placeholderFor(session string) string {
	if session == "" {
		return "Ask anything to start a session"
	}
	return "Message the agent"
}

// renderLink shows the socket's state while it is not live.
func (c *Conversation) renderLink() app.UI {
	switch c.link.Status {
	case socket.Reconnecting:
		return app.Div().Class("link link-reconnecting").Role("status").Title(c.link.Error).Body(
			app.Span().Text(fmt.Sprintf("Reconnecting… %s; next try in %s.", c.link.Error, c.link.Retry.Round(100*time.Millisecond))),
			app.Button().Class("link-retry").Text("Retry now").OnClick(func(ctx app.Context, e app.Event) {
				if c.follower != nil {
					c.follower.RetryNow()
				}
			}),
		)
	case socket.Failed:
		return app.Div().Class("link link-failed").Role("alert").Text(c.link.Error)
	case socket.Connecting:
		return app.Div().Class("link link-connecting").Role("status").Text("Connecting…")
	}
	return app.Div().Class("link link-live").Role("status").Aria("label", "Live")
}
