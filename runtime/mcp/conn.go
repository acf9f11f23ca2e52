package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"parley/protocol"
	"parley/runtime/script"
)

// errGone is the cause of a connection's context once the connection has ended: what was
// waiting on it (an elicitation, a call) ends with it.
var errGone = errors.New("the MCP server's connection ended")

// conn is one configured server and its current connection, restarted after a crash.
type conn struct {
	set *Set
	e   entry

	mu         sync.Mutex
	status     protocol.MCPStatus
	reason     string
	stderr     *tail
	session    *sdk.ClientSession
	cmd        *exec.Cmd
	live       context.Context // the connection's life; cancelled with errGone when it ends
	endLive    context.CancelCauseFunc
	tools      []*sdk.Tool
	leftOut    []string // why tools the server lists are not offered (offered)
	restarts   int
	nextRetry  time.Time
	gen        int  // bumped by every start, so a stale watcher leaves the new one alone
	closed     bool // by Parley: no restart
	retry      *time.Timer
	readySince time.Time

	// relisting says a read of the tools is under way, and relistAgain that the server said
	// they changed once more meanwhile: a flood of tools/list_changed is one read at a time,
	// not a goroutine a notification (QA round 26: 1.4 GB in 55 s, and no shutdown).
	relisting, relistAgain bool

	orders   *orders          // the property order of the forms it sent
	calls    []*call          // running calls, oldest first: an elicitation goes to the newest
	progress map[string]*call // progress token → its call, kept a while after the call ends
}

func newConn(s *Set, e entry) *conn {
	c := &conn{set: s, e: e, status: protocol.MCPStarting, stderr: newTail(4 << 10), progress: map[string]*call{}, orders: newOrders()}
	if e.problem != "" {
		c.status, c.reason = protocol.MCPFailed, e.problem
	}
	return c
}

// info is the server as the listing shows it.
func (c *conn) info() protocol.MCPServer {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := protocol.MCPServer{
		Name: c.e.name, Source: c.e.source, Transport: c.e.cfg.transport(), Target: c.e.cfg.target(),
		Status: c.status, Reason: c.reason, Stderr: c.stderr.String(), Restarts: c.restarts,
	}
	if !c.nextRetry.IsZero() && (c.status == protocol.MCPCrashed || c.status == protocol.MCPFailed) {
		out.NextRetry = c.nextRetry.UnixMilli()
	}
	if c.status == protocol.MCPReady {
		out.LeftOut = c.leftOut
		for _, t := range c.tools {
			out.Tools = append(out.Tools, protocol.MCPTool{Name: c.set.names.modelName(c.e.name, t.Name), Tool: t.Name,
				Description: t.Description, ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint})
		}
	}
	return out
}

// start connects in the background.
func (c *conn) start() {
	c.mu.Lock()
	if c.closed || c.e.problem != "" {
		c.mu.Unlock()
		return
	}
	c.gen++
	gen := c.gen
	c.status = protocol.MCPStarting
	if c.restarts == 0 {
		c.reason = "" // a retry keeps the last failure's reason in view while it starts
	}
	c.stderr.Reset()
	c.mu.Unlock()
	c.set.m.wg.Add(1)
	go func() {
		defer c.set.m.wg.Done()
		c.connect(gen)
	}()
}

// connect starts the server and does the handshake, then watches the connection.
func (c *conn) connect(gen int) {
	m := c.set.m
	ctx, cancel := context.WithTimeout(m.ctx, m.opts.Handshake)
	defer cancel()
	live, endLive := context.WithCancelCause(m.ctx)
	client := sdk.NewClient(&sdk.Implementation{Name: "parley", Version: "1"}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{
			Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return c.elicit(ctx, live, req)
		},
		ElicitationCompleteHandler: func(_ context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
			c.set.m.completed(req.Params.ElicitationID)
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) { c.onProgress(req.Params) },
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { c.relist(gen) },
	})
	var transport sdk.Transport
	var cmd *exec.Cmd
	cfg := c.e.cfg
	if cfg.URL != "" {
		headers := map[string]string{}
		for k, v := range cfg.Headers {
			headers[k] = expand(v)
		}
		transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: orderRoundTripper{o: c.orders, next: headerTransport{headers: headers, next: http.DefaultTransport}}}}
	} else {
		cmd = exec.Command(cfg.Command, cfg.Args...)
		cmd.Dir = c.set.dir
		cmd.Env = childEnv(cfg.Env)
		cmd.Stderr = c.stderr
		setProcessGroup(cmd)
		transport = orderTransport{guardTransport{&sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, cmd}, c.orders}
	}
	c.mu.Lock()
	c.cmd = cmd
	c.mu.Unlock()
	session, err := client.Connect(ctx, transport, nil)
	if err == nil {
		var tools []*sdk.Tool
		var leftOut []string
		tools, leftOut, err = listTools(ctx, session)
		if err == nil {
			c.mu.Lock()
			if c.gen != gen || c.closed {
				c.mu.Unlock()
				session.Close()
				killGroup(cmd)
				endLive(errGone)
				return
			}
			c.session, c.tools, c.leftOut, c.live, c.endLive = session, tools, leftOut, live, endLive
			c.status, c.reason, c.readySince = protocol.MCPReady, "", m.opts.Now()
			c.nextRetry = time.Time{}
			c.mu.Unlock()
			c.set.names.add(c.e.name, tools)
			slog.Info("MCP server ready", "workspace", c.set.dir, "server", c.e.name, "tools", len(tools))
			c.watch(gen, session, cmd)
			return
		}
		session.Close()
	}
	killGroup(cmd)
	endLive(errGone)
	reason := startFailure(err, ctx, m.opts.Handshake, cfg)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.closed {
		return
	}
	c.status, c.reason = protocol.MCPFailed, reason
	slog.Warn("MCP server failed to start", "workspace", c.set.dir, "server", c.e.name, "reason", reason)
	c.scheduleLocked(gen)
}

// watch waits for the connection to end; an end Parley did not ask for is a crash, and the
// server is started again after a backoff.
func (c *conn) watch(gen int, session *sdk.ClientSession, cmd *exec.Cmd) {
	err := session.Wait()
	var exit string
	if cmd != nil {
		killGroup(cmd)
		if cmd.ProcessState != nil {
			exit = cmd.ProcessState.String()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.endLive != nil && c.gen == gen {
		c.endLive(errGone)
	}
	if c.gen != gen || c.closed {
		return
	}
	reason := crashReason(cmd != nil, exit, err)
	c.status, c.reason, c.session, c.tools = protocol.MCPCrashed, reason, nil, nil
	// A server that stayed up a while starts over with a short backoff.
	if c.set.m.opts.Now().Sub(c.readySince) > time.Minute {
		c.restarts = 0
	}
	slog.Warn("MCP server crashed", "workspace", c.set.dir, "server", c.e.name, "reason", reason)
	c.scheduleLocked(gen)
}

// scheduleLocked starts the server again after the backoff of its restarts so far.
func (c *conn) scheduleLocked(gen int) {
	delay := c.set.m.opts.Backoff(c.restarts)
	c.restarts++
	c.nextRetry = c.set.m.opts.Now().Add(delay)
	c.retry = time.AfterFunc(delay, func() {
		c.mu.Lock()
		stale := c.gen != gen || c.closed
		c.mu.Unlock()
		if !stale && c.set.m.ctx.Err() == nil {
			c.start()
		}
	})
}

// reconnect closes the connection and starts a new one at once, with the backoff reset.
func (c *conn) reconnect() {
	c.mu.Lock()
	c.restarts = 0
	c.mu.Unlock()
	c.shut(false)
	c.start()
}

// shut ends the connection; closed says for good (the set is closing or reloading).
func (c *conn) shut(closed bool) {
	c.mu.Lock()
	c.gen++
	if closed {
		c.closed = true
		c.status, c.reason = protocol.MCPStopped, ""
	}
	if c.retry != nil {
		c.retry.Stop()
	}
	session, cmd, endLive := c.session, c.cmd, c.endLive
	c.session, c.tools, c.cmd, c.endLive = nil, nil, nil, nil
	c.mu.Unlock()
	if endLive != nil {
		endLive(errGone)
	}
	if session != nil {
		session.Close()
	}
	killGroup(cmd)
}

// current is the live session, or an error a person can act on.
func (c *conn) current() (*sdk.ClientSession, context.Context, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status != protocol.MCPReady || c.session == nil {
		why := string(c.status)
		if c.reason != "" {
			why += ": " + c.reason
		}
		return nil, nil, fmt.Errorf("the MCP server %q is not connected (%s); see /mcp", c.e.name, why)
	}
	return c.session, c.live, nil
}

// restartWait bounds how long a call waits for its server to come back (connected).
const restartWait = 30 * time.Second

// connected is current, waiting a while for a server that is coming back: a call approved
// while its server restarts (a crash's backoff, then the handshake) runs once the server is
// ready, rather than failing "not connected" with its approval spent (QA round 24). It waits
// while the server is starting, or crashed with its restart due within restartWait, and
// until ctx ends (a Stop).
func (c *conn) connected(ctx context.Context) (*sdk.ClientSession, context.Context, error) {
	by := c.set.m.opts.Now().Add(restartWait)
	for {
		session, live, err := c.current()
		if err == nil || !c.comingBack(by) {
			return session, live, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// comingBack says the server will be ready again before by, as far as can be told: it is
// starting, or crashed with its restart due before then.
func (c *conn) comingBack(by time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.set.m.opts.Now()
	switch {
	case c.closed || !now.Before(by):
		return false
	case c.status == protocol.MCPStarting:
		return true
	case c.status == protocol.MCPCrashed:
		return !c.nextRetry.IsZero() && c.nextRetry.Before(by)
	}
	return false
}

// relist reads the tools again after the server said they changed: one read at a time, and
// one more after it for every change said while it ran, at most every relistGap.
func (c *conn) relist(gen int) {
	c.mu.Lock()
	session := c.session
	ok := c.gen == gen && session != nil
	if ok && c.relisting {
		c.relistAgain = true
		ok = false
	}
	if ok {
		c.relisting = true
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	go func() {
		for {
			c.listOnce(gen, session)
			select {
			case <-c.set.m.ctx.Done():
			case <-time.After(relistGap):
			}
			c.mu.Lock()
			again := c.relistAgain && c.gen == gen && c.set.m.ctx.Err() == nil
			c.relistAgain, c.relisting = false, again
			c.mu.Unlock()
			if !again {
				return
			}
		}
	}()
}

// relistGap is the least time between two reads of a server's tools.
const relistGap = 500 * time.Millisecond

// listOnce reads the tools of the connection of generation gen.
func (c *conn) listOnce(gen int, session *sdk.ClientSession) {
	ctx, cancel := context.WithTimeout(c.set.m.ctx, c.set.m.opts.Handshake)
	defer cancel()
	tools, leftOut, err := listTools(ctx, session)
	if err != nil {
		return
	}
	c.mu.Lock()
	if c.gen == gen {
		c.tools, c.leftOut = tools, leftOut
	}
	c.mu.Unlock()
	c.set.names.add(c.e.name, tools)
}

// listTools reads the server's tools: those the model can be offered, and why the others are
// left out (offered).
func listTools(ctx context.Context, s *sdk.ClientSession) ([]*sdk.Tool, []string, error) {
	var all []*sdk.Tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("list its tools: %w", err)
		}
		all = append(all, t)
	}
	keep, leftOut := offered(all)
	return keep, leftOut, nil
}

// offered splits a server's tool list into the tools the model is offered and, in words, the
// ones left out: a name listed again (the first is kept) and an input schema that is not an
// object, whose arguments no call can give. Chat Completions endpoints refuse a request
// naming two functions alike or one whose parameters are not an object, so one such tool
// would fail every turn of the workspace (QA round 24).
func offered(tools []*sdk.Tool) (keep []*sdk.Tool, leftOut []string) {
	seen := map[string]bool{}
	for _, t := range tools {
		if t == nil || t.Name == "" {
			leftOut = append(leftOut, "a tool with no name is left out")
			continue
		}
		switch kind := schemaType(t.InputSchema); {
		case seen[t.Name]:
			leftOut = append(leftOut, fmt.Sprintf("the tool %q is listed twice: the first is kept", t.Name))
		case kind == notJSONObject:
			leftOut = append(leftOut, fmt.Sprintf("the tool %q is left out: its input schema is not a JSON object", t.Name))
		case kind != "" && kind != "object":
			leftOut = append(leftOut, fmt.Sprintf("the tool %q is left out: its input schema is of type %s, not an object of arguments", t.Name, kind))
		default:
			seen[t.Name] = true
			keep = append(keep, t)
		}
	}
	return keep, leftOut
}

// notJSONObject is schemaType's word for a schema that is not a JSON object.
const notJSONObject = "-"

// schemaType is the "type" of an input schema as JSON: "" when it has none (read as an
// object, as Defs offers one), "object", or else its type as JSON ("array", ["object","null"]).
func schemaType(schema any) string {
	var s struct {
		Type json.RawMessage `json:"type"`
	}
	raw, err := json.Marshal(schema)
	if err != nil || json.Unmarshal(raw, &s) != nil {
		return notJSONObject
	}
	switch t := strings.TrimSpace(string(s.Type)); t {
	case "", "null", `"object"`:
		return strings.Trim(t, `"`)
	default:
		return t
	}
}

// startFailure words why a server did not become ready.
func startFailure(err error, ctx context.Context, handshake time.Duration, cfg ServerConfig) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("no answer to the handshake within %s: is %q an MCP server speaking %s?", handshake, cfg.target(), cfg.transport())
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("cannot start %q: %v (is it installed, and on the PATH?)", cfg.Command, err)
	case err == nil:
		return "the handshake failed"
	}
	return "the handshake failed: " + err.Error()
}

// childEnv is what a stdio server gets: the few variables a program needs to run (as Claude
// Desktop passes them) and the entry's env, never the rest of Parley's environment (its
// access token, the model's key).
func childEnv(extra map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR", "NODE_PATH"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range extra {
		env = append(env, k+"="+expand(v))
	}
	return env
}

// crashReason says why a ready server's connection ended: a stdio server's process exited
// (how, when known), or the connection did; and the error it ended with. A page words it in
// its locale by this English (i18n.Locale.MCPReason).
func crashReason(stdio bool, exit string, err error) string {
	if stdio && err != nil && strings.Contains(err.Error(), "exceeded the configured maximum line length") {
		// The SDK's frame limit (16 MiB): it cannot find the next message after one larger,
		// so it ends the connection, and the server is restarted. Said in words a person
		// can act on, not the SDK's (QA round 23).
		return fmt.Sprintf("the process was stopped (%s): it sent a message larger than 16 MiB, more than Parley reads in one", cmp.Or(exit, "killed"))
	}
	var syntax *json.SyntaxError
	if stdio && errors.As(err, &syntax) {
		// A line on its standard output that is not JSON-RPC (a stray print): the SDK ends
		// the connection, and the server is restarted. It did not exit on its own, as "the
		// process exited" said (QA round 24).
		return fmt.Sprintf("the process was stopped (%s): it wrote a line that is not JSON-RPC on its standard output (%s); a server logs to its standard error", cmp.Or(exit, "killed"), err.Error())
	}
	reason := "its connection ended"
	if stdio {
		reason = "the process exited"
		if exit != "" {
			reason += " (" + exit + ")"
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		reason += ": " + err.Error()
	}
	return reason
}

// setProcessGroup starts the server as the leader of its own group (so what it starts is
// killed with it) and has it killed when Parley dies, like the script host's processes.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup kills a stdio server's whole process group, if it was started, then stands its
// watchdog down.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if release, ok := guards.LoadAndDelete(cmd); ok {
		release.(func())()
	}
}

// guards holds the watchdog of each running stdio server's group (*exec.Cmd → its release).
var guards sync.Map

// guardTransport starts a stdio server's watchdog as soon as its process is started (the
// SDK's CommandTransport starts it in Connect): Pdeathsig kills the server when Parley dies,
// but not what the server started itself (npx starting node, a shell starting the real
// server); the watchdog kills the whole group when the pipe Parley holds closes, so even a
// SIGKILL of Parley leaves nothing behind (see script.GuardGroup). Parley's own ends of a
// server (a close, a crash, a failed start) go through killGroup, which releases it.
type guardTransport struct {
	sdk.Transport
	cmd *exec.Cmd
}

func (t guardTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err == nil && t.cmd.Process != nil {
		guards.Store(t.cmd, script.GuardGroup(t.cmd.Process.Pid))
	}
	return c, err
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.next.RoundTrip(r)
}

// tail keeps the last bytes written to it: a server's stderr.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "�")
}

func (t *tail) Reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.mu.Unlock()
}
