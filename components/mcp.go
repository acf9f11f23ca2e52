package components

import (
	"context"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/components/composer"
	"parley/i18n"
	"parley/protocol"
)

// MCPPage is /mcp: a workspace's MCP servers (docs/mcp.md) with their status, why, the
// tail of their stderr and their tools, and a reconnect button each. Everything a server
// said is drawn as text. ?workspace= names the workspace (the default one without it).
type MCPPage struct {
	app.Compo
	list    protocol.MCPList
	loaded  bool
	problem string
	busy    string // the server being reconnected ("*" all)

	frame pageFrame // the sidebar and the phone drawer, as on the session pages
	alive context.Context
	stop  context.CancelFunc
}

// workspace is the workspace whose servers the page lists ("" for the default one).
func (p *MCPPage) workspace(ctx app.Context) string {
	return ctx.Page().URL().Query().Get("workspace")
}

// OnMount loads the list.
func (p *MCPPage) OnMount(ctx app.Context) {
	relabel(ctx)
	composer.ExposeLocale(ctx)
	stop, cancel := context.WithCancel(context.Background())
	p.alive, p.stop = stop, cancel
	p.frame.mount(ctx, stop, true)
	p.load(ctx)
}

// OnDismount stops reading the session list.
func (p *MCPPage) OnDismount() {
	if p.stop != nil {
		p.stop()
	}
}

func (p *MCPPage) load(ctx app.Context) {
	c, ws := clientOf(ctx), p.workspace(ctx)
	ctx.Async(func() {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		list, err := c.MCPServers(rctx, ws)
		ctx.Dispatch(func(ctx app.Context) {
			p.loaded = true
			p.problem = ""
			if err != nil {
				p.problem = tr(i18n.MCPCouldNotList, describeError(err))
				return
			}
			p.list = list
			// A server starting (its first start, or again after a crash) is read again
			// until it is ready or has failed: a page opened meanwhile would say
			// "starting" for good.
			if starting(list) {
				ctx.After(500*time.Millisecond, func(ctx app.Context) {
					if p.alive != nil && p.alive.Err() == nil && p.busy == "" {
						p.load(ctx)
					}
				})
			}
		})
	})
}

func (p *MCPPage) reconnect(ctx app.Context, name string) {
	if p.busy != "" {
		return // one at a time: the buttons say so (aria-disabled)
	}
	c, ws := clientOf(ctx), p.workspace(ctx)
	p.busy = name
	if name == "" {
		p.busy = "*"
	}
	ctx.Async(func() {
		rctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		defer cancel()
		_, err := c.ReconnectMCP(rctx, ws, name)
		// The server is starting: read again until the handshake is done.
		for i := 0; err == nil && i < 60; i++ {
			list, lerr := c.MCPServers(rctx, ws)
			if lerr != nil || !starting(list) {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.busy = ""
			if err != nil {
				p.problem = tr(i18n.MCPCouldNotReconnect, describeError(err))
			}
			p.load(ctx)
		})
	})
}

func starting(l protocol.MCPList) bool {
	for _, s := range l.Servers {
		if s.Status == protocol.MCPStarting {
			return true
		}
	}
	return false
}

// Render draws the list. The Reconnect buttons are aria-disabled while a reconnection runs,
// not disabled: a disabled button loses the focus, and a keyboard user pressing Enter on one
// was sent back to the top of the page (QA round 14 #7).
func (p *MCPPage) Render() app.UI {
	return p.frame.render(&Sidebar{Sessions: p.frame.visible(), MCP: true}, app.Elem("main").Class("main mcp-page").Body(
		// The page's header is the thread's and /approvals': one bar, the title and the
		// language (pageHeader). The page's own actions are the row under it.
		pageHeader(tr(i18n.MCPServers)),
		app.Div().Class("mcp-bar").Body(
			app.Elem("nav").Class("page-back").Aria("label", tr(i18n.Back)).Body(
				app.A().Href(lastChat()).Class("back-link").Text(tr(i18n.BackToChat)),
			),
			app.Button().Type("button").Class("mcp-reconnect-all").Text(tr(i18n.MCPReconnectAll)).
				Aria("disabled", p.busy != "").OnClick(func(ctx app.Context, e app.Event) { p.reconnect(ctx, "") }),
		),
		app.If(p.problem != "", func() app.UI { return app.Elem("p").Class("mcp-problem").Role("alert").Text(p.problem) }),
		app.If(!p.loaded, func() app.UI { return app.Elem("p").Class("mcp-loading").Text(tr(i18n.MCPLoading)) }),
		app.Range(p.list.Problems).Slice(func(i int) app.UI {
			return app.Elem("p").Class("mcp-problem mcp-file-problem").Role("alert").Text(tr(i18n.MCPFileProblem, locale.Current().MCPReason(p.list.Problems[i])))
		}),
		app.If(p.loaded && len(p.list.Servers) == 0 && len(p.list.Problems) == 0, func() app.UI {
			// The prose, then the file's shape as a code block of its own (it ran into the
			// sentence: docs/qa-round11.md #16).
			return app.Div().Class("mcp-empty").Body(
				app.Elem("p").Text(tr(i18n.MCPEmptyLead, ".parley/mcp.json")),
				app.Elem("pre").Class("mcp-example").Body(app.Elem("code").Text(mcpExample)),
			)
		}),
		app.Elem("ul").Class("mcp-servers").Body(
			app.Range(p.list.Servers).Slice(func(i int) app.UI { return p.server(p.list.Servers[i]) }),
		),
	))
}

func (p *MCPPage) server(s protocol.MCPServer) app.UI {
	name := s.Name
	return app.Elem("li").Class("mcp-server status-"+string(s.Status)).DataSet("server", s.Name).Aria("label", tr(i18n.MCPServerNamed, s.Name)).Body(
		app.Div().Class("mcp-server-head").Body(
			app.Span().Class("mcp-name").Text(s.Name),
			app.Span().Class("mcp-status").Text(mcpStatus(s.Status)),
			app.Span().Class("mcp-target").Text(s.Transport+": "+s.Target),
			app.Button().Type("button").Class("mcp-reconnect").Text(tr(i18n.MCPReconnect)).Aria("label", tr(i18n.MCPReconnectNamed, s.Name)).
				Aria("disabled", p.busy != "").OnClick(func(ctx app.Context, e app.Event) { p.reconnect(ctx, name) }, app.EventScope(name)),
		),
		app.If(s.Reason != "", func() app.UI { return app.Elem("p").Class("mcp-reason").Text(locale.Current().MCPReason(s.Reason)) }),
		app.Range(s.LeftOut).Slice(func(i int) app.UI {
			return app.Elem("p").Class("mcp-reason mcp-left-out").Text(locale.Current().MCPReason(s.LeftOut[i]))
		}),
		app.If(s.Restarts > 0, func() app.UI {
			return app.Elem("p").Class("mcp-restarts").Text(tr(i18n.MCPRestarted, s.Restarts))
		}),
		app.If(s.Stderr != "", func() app.UI {
			return app.Elem("details").Class("mcp-stderr").Body(app.Elem("summary").Text(tr(i18n.MCPStderr)), app.Elem("pre").Text(s.Stderr))
		}),
		app.If(len(s.Tools) > 0, func() app.UI {
			return app.Elem("ul").Class("mcp-tools").Aria("label", tr(i18n.MCPToolsOf, s.Name)).Body(
				app.Range(s.Tools).Slice(func(i int) app.UI {
					t := s.Tools[i]
					ro := ""
					if t.ReadOnly {
						ro = tr(i18n.MCPReadOnly)
					}
					return app.Elem("li").Class("mcp-tool").Body(
						app.Elem("code").Text(t.Name), app.Text(ro+" "+t.Description))
				}),
			)
		}),
		app.Elem("p").Class("mcp-source").Text(tr(i18n.MCPFrom, s.Source)),
	)
}

// mcpStatus words a server's status in the page's locale.
func mcpStatus(s protocol.MCPStatus) string { return locale.Current().MCPStatus(string(s)) }

// keyLastChat keeps the session page last opened in this browser.
const keyLastChat = "parley.lastChat"

// lastChat is where "Back to the chat" goes: the session last opened, else the empty page.
func lastChat() string {
	if id := storageGet(keyLastChat); protocol.ValidSessionID(id) {
		return "/s/" + id
	}
	return "/"
}

// mcpExample is the shape of an MCP configuration file, shown when there is none: JSON, in
// every language.
const mcpExample = `{
  "mcpServers": {
    "name": { "command": "…", "args": ["…"] }
  }
}`
