package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/agent/toolbox"
	"parley/runtime/gate"
)

var _ toolbox.StartingExtra = (*Set)(nil)

// ProgressRecorder is what a turn's tools implement to show a call's progress in the thread
// (the runtime's tools store it as tool.progress).
type ProgressRecorder interface {
	Progress(ctx context.Context, p protocol.ToolProgress) error
}

// call is a tool call running on a connection: where its elicitations and progress go.
type call struct {
	ctx   context.Context // the turn's
	tools agent.Tools
	id    string // the model's call id
	name  string // the model's name of the tool
	token string // its progress token

	mu    sync.Mutex
	flows []*flow                 // consented URL elicitations waiting for their step in the browser
	stop  context.CancelCauseFunc // cancels the call on the server
	// idle gives the call up when its server has said nothing for idleFor (Options.CallIdle);
	// held counts what the call waits on the user for, which stops it.
	idle    *time.Timer
	idleFor time.Duration
	held    int
	// The progress recorded, at most one a progressEvery (progressGap): a server may send
	// thousands a second, each one an event in the session's log. late is the newest one
	// waiting for its turn, flush the timer that records it; recorded counts what was.
	recordedAt time.Time
	recorded   int
	late       *sdk.ProgressNotificationParams
	flush      *time.Timer
}

// progressEvery is the shortest time between two progress notifications of a call that are
// recorded, while the call is young; after its first slowAfter recorded, slowEvery. The newest
// one always lands: those in between are only overtaken. An MCP server that sent progress in
// a tight loop for 10 s put 113,517 events in the log, half a gigabyte in the server's
// memory, and 134 MB in the socket of every page that opened the session (QA round 23, P1).
const (
	progressEvery = 250 * time.Millisecond
	slowAfter     = 240 // a minute at progressEvery
	slowEvery     = 5 * time.Second
)

// progressGap is how long after the last recorded progress the next may be.
func (cl *call) progressGap() time.Duration {
	if cl.recorded >= slowAfter {
		return slowEvery
	}
	return progressEvery
}

// heard is a word from the server about the call: its idle clock starts again.
func (cl *call) heard() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.idle != nil && cl.held == 0 {
		cl.idle.Reset(cl.idleFor)
	}
}

// userHolds stops the call's idle clock while it waits on the user (a question, a step in
// the browser); release starts it again from the full time.
func (cl *call) userHolds() (release func()) {
	cl.mu.Lock()
	cl.held++
	if cl.idle != nil {
		cl.idle.Stop()
	}
	cl.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			cl.mu.Lock()
			cl.held--
			cl.mu.Unlock()
			cl.heard()
		})
	}
}

// silent is why a call ends whose server said nothing about it for Options.CallIdle.
type silent struct {
	server string
	after  time.Duration
}

func (s silent) Error() string {
	return "the MCP server " + s.server + " said nothing about the call for " + agent.SilenceWords(s.after) +
		", so Parley gave it up and asked the server to cancel it; it may or may not have taken effect"
}

// Defs describes the tools of the ready servers.
func (s *Set) Defs() []toolbox.Def {
	s.mu.Lock()
	conns := s.conns
	s.mu.Unlock()
	var out []toolbox.Def
	for _, c := range conns {
		c.mu.Lock()
		tools := c.tools
		ready := c.status == protocol.MCPReady
		c.mu.Unlock()
		if !ready {
			continue
		}
		for _, t := range tools {
			params, err := json.Marshal(t.InputSchema)
			if err != nil || t.InputSchema == nil || string(params) == "null" {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			desc := t.Description
			if desc == "" {
				desc = t.Title
			}
			out = append(out, toolbox.Def{
				Name:        s.names.modelName(c.e.name, t.Name),
				Description: "(MCP server " + c.e.name + ") " + desc,
				Parameters:  params,
			})
		}
	}
	return out
}

// Has reports whether name is a tool of one of the servers.
func (s *Set) Has(name string) bool {
	ref, ok := s.names.lookup(name)
	return ok && s.conn(ref.server) != nil
}

// Prepare checks a call and says what the gate is asked: an MCP tool is "mcp" with the
// server's and tool's names, read-only when the server says so.
func (s *Set) Prepare(name string, args json.RawMessage) (*gate.ToolCall, func(ctx context.Context, t agent.Tools) (protocol.ToolResult, error), error) {
	ref, ok := s.names.lookup(name)
	c := s.conn(ref.server)
	if !ok || c == nil {
		return nil, nil, fmt.Errorf("there is no MCP tool named %q", name)
	}
	c.mu.Lock()
	var tool *sdk.Tool
	for _, t := range c.tools {
		if t.Name == ref.tool {
			tool = t
		}
	}
	c.mu.Unlock()
	if tool == nil {
		if _, _, err := c.current(); err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("the MCP server %q no longer offers the tool %q", ref.server, ref.tool)
	}
	var arguments map[string]any
	if err := json.Unmarshal(args, &arguments); err != nil {
		return nil, nil, fmt.Errorf("the arguments are not a JSON object: %v", err)
	}
	g := &gate.ToolCall{Tool: "mcp", Words: []string{ref.server, ref.tool},
		Details:  ref.server + ": " + ref.tool + "\n" + headTail(prettyJSON(args), 4000),
		ReadOnly: tool.Annotations != nil && tool.Annotations.ReadOnlyHint}
	run := func(ctx context.Context, t agent.Tools) (protocol.ToolResult, error) {
		return c.call(ctx, t, name, ref.tool, arguments)
	}
	return g, run, nil
}

var tokens atomic.Int64

// call runs one tool call. Its context ending (Stop) cancels it: the SDK sends
// notifications/cancelled. A -32042 asks for URL elicitations first, then the call is made
// again once.
func (c *conn) call(ctx context.Context, t agent.Tools, modelName, tool string, args map[string]any) (protocol.ToolResult, error) {
	session, live, err := c.connected(ctx)
	if err != nil {
		return protocol.ToolResult{Text: err.Error(), Error: true}, nil
	}
	id := toolbox.CallID(ctx)
	cl := &call{ctx: ctx, tools: t, id: id, name: modelName, token: "parley-" + strconv.FormatInt(tokens.Add(1), 10)}
	c.mu.Lock()
	c.calls = append(c.calls, cl)
	c.progress[cl.token] = cl
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		for i, x := range c.calls {
			if x == cl {
				c.calls = append(c.calls[:i], c.calls[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
		// Progress may arrive after the result: the token stays known a while.
		time.AfterFunc(30*time.Second, func() {
			c.mu.Lock()
			delete(c.progress, cl.token)
			c.mu.Unlock()
		})
	}()
	// The call ends with the turn (Stop) or with the connection (a crash).
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(live, func() { cancel(context.Cause(live)) })
	defer stop()
	idle := c.set.m.opts.CallIdle
	cl.mu.Lock()
	cl.stop = cancel
	cl.idleFor = idle
	cl.idle = time.AfterFunc(idle, func() { cancel(silent{c.e.name, idle}) })
	cl.mu.Unlock()
	defer cl.idle.Stop()

	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken(cl.token)
	res, err := session.CallTool(cctx, params)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == sdk.CodeURLElicitationRequired && ctx.Err() == nil {
		release := cl.userHolds()
		uerr := c.urlRequired(cctx, live, cl, rpcErr)
		release()
		if uerr != nil {
			if ctx.Err() != nil {
				return protocol.ToolResult{}, context.Cause(ctx)
			}
			return protocol.ToolResult{Text: uerr.Error(), Error: true}, nil
		}
		res, err = session.CallTool(cctx, params)
	}
	// A step in the browser that the call's elicitations asked for holds the result until
	// it is done (the server's completion, or the user's word), as after a -32042.
	flowErr := cl.awaitFlows(err == nil)
	switch {
	case ctx.Err() != nil:
		return protocol.ToolResult{}, context.Cause(ctx) // stopped: the turn ends
	case errors.Is(context.Cause(cctx), errGaveUp), errors.As(context.Cause(cctx), new(silent)):
		return protocol.ToolResult{Text: context.Cause(cctx).Error(), Error: true}, nil
	case flowErr != nil:
		text := flowErr.Error()
		if r := resultOf(res); r.Text != "" {
			text += "; the server had answered: " + r.Text
		}
		return protocol.ToolResult{Text: text, Error: true}, nil
	case errors.Is(context.Cause(cctx), errGone):
		return protocol.ToolResult{Text: c.goneText(), Error: true}, nil
	case err != nil && !errors.As(err, &rpcErr):
		// Not the server's answer but the connection's end (EOF, closed): its watcher is
		// about to say so; wait for it, so the model reads why.
		select {
		case <-live.Done():
		case <-time.After(2 * time.Second):
		}
		return protocol.ToolResult{Text: c.goneText() + " (" + err.Error() + ")", Error: true}, nil
	case err != nil:
		return protocol.ToolResult{Text: "the MCP server " + c.e.name + " answered with an error: " + err.Error(), Error: true}, nil
	}
	return resultOf(res), nil
}

// goneText says the server went away during a call.
func (c *conn) goneText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	text := "the MCP server " + c.e.name + " stopped during the call"
	if c.reason != "" {
		text += " (" + c.reason + ")"
	}
	return text + "; it is restarted, but this call did not finish and may or may not have taken effect"
}

// resultOf is what the model reads of a tool's result: its text, its structured content,
// a note for each image or other content, and for an error the tool's own error text.
func resultOf(res *sdk.CallToolResult) protocol.ToolResult {
	var parts []string
	for _, ct := range res.Content {
		switch v := ct.(type) {
		case *sdk.TextContent:
			parts = append(parts, v.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[an image (%s, %d bytes) the tool returned; it is not shown to you]", v.MIMEType, len(v.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s, %d bytes) the tool returned; it is not played to you]", v.MIMEType, len(v.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[a link to the resource %s (%s)]", v.URI, v.Name))
		case *sdk.EmbeddedResource:
			if v.Resource != nil && v.Resource.Text != "" {
				parts = append(parts, "[resource "+v.Resource.URI+"]\n"+v.Resource.Text)
			} else if v.Resource != nil {
				parts = append(parts, "[a resource "+v.Resource.URI+" in binary form]")
			}
		default:
			if b, err := json.Marshal(ct); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			text := string(b)
			// A server usually repeats its structured content as text; say it once.
			if text != "{}" && text != "null" && (len(parts) != 1 || strings.TrimSpace(parts[0]) != text) {
				parts = append(parts, "structured content: "+text)
			}
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError && strings.TrimSpace(text) == "" {
		text = "the tool failed and said nothing more"
	}
	return protocol.ToolResult{Text: text, Error: res.IsError}
}

// onProgress records a progress notification in the session of its call: at once when the
// call's last one was recorded long enough ago (progressGap), else the newest waits its turn.
func (c *conn) onProgress(p *sdk.ProgressNotificationParams) {
	token := fmt.Sprint(p.ProgressToken)
	c.mu.Lock()
	cl := c.progress[token]
	c.mu.Unlock()
	if cl == nil {
		return
	}
	cl.heard()
	now := time.Now()
	cl.mu.Lock()
	// While a flush is due, it records the newest: recorded here as well, the two landed a
	// moment apart when a notification came as the flush's timer fired (CI counted 7 in 1.1 s).
	if wait := cl.progressGap() - now.Sub(cl.recordedAt); wait > 0 || cl.flush != nil {
		cl.late = p // overtakes the one waiting, if any
		if cl.flush == nil {
			cl.flush = time.AfterFunc(wait, func() {
				cl.mu.Lock()
				late := cl.late
				cl.late, cl.flush = nil, nil
				cl.recordedAt = time.Now()
				cl.recorded++
				cl.mu.Unlock()
				if late != nil {
					c.record(cl, late)
				}
			})
		}
		cl.mu.Unlock()
		return
	}
	cl.recordedAt = now
	cl.recorded++
	cl.mu.Unlock()
	c.record(cl, p)
}

// record stores one progress notification of cl as a tool.progress event.
func (c *conn) record(cl *call, p *sdk.ProgressNotificationParams) {
	rec, ok := cl.tools.(ProgressRecorder)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(cl.ctx), 5*time.Second)
	defer cancel()
	if err := rec.Progress(ctx, protocol.ToolProgress{Call: cl.id, Name: cl.name, Progress: p.Progress, Total: p.Total,
		Message: clip(p.Message, 1000)}); err != nil {
		slog.Warn("could not record an MCP progress notification", "server", c.e.name, "err", err)
	}
}

// prettyJSON indents arguments for the approval, as text.
func prettyJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// headTail keeps the head and the tail of a long text, saying how much was left out.
func headTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tailN := n*2/3, n/3
	h := s[:head]
	for len(h) > 0 && !utf8.RuneStart(s[len(h)]) {
		h = h[:len(h)-1]
	}
	start := len(s) - tailN
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return h + fmt.Sprintf("\n… %d bytes left out …\n", start-len(h)) + s[start:]
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
