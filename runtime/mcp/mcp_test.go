package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit/mcpserver"
	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

func TestMain(m *testing.M) {
	mcpserver.Main()
	actAsParley()
	os.Exit(m.Run())
}

// fakeTools are a turn's tools as the runtime gives them, answering decisions with answer.
type fakeTools struct {
	mu       sync.Mutex
	answer   func(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error)
	asked    []protocol.DecisionRequest
	notices  []string
	progress []protocol.ToolProgress
}

func (f *fakeTools) Say(context.Context, string) error { return nil }
func (f *fakeTools) Ask(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
	if err := req.Validate(); err != nil {
		return decision.Answer{}, err
	}
	f.mu.Lock()
	f.asked = append(f.asked, req)
	f.mu.Unlock()
	return f.answer(ctx, req)
}
func (f *fakeTools) Authorize(context.Context, []gate.ToolCall) (gate.Verdict, error) {
	return gate.Verdict{Allowed: true}, nil
}
func (f *fakeTools) History(context.Context) ([]protocol.Event, error) { return nil, nil }
func (f *fakeTools) Stream(context.Context) agent.MessageWriter        { return nil }
func (f *fakeTools) Notice(_ context.Context, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notices = append(f.notices, text)
	return nil
}
func (f *fakeTools) Called(context.Context, protocol.ToolCalled) error { return nil }
func (f *fakeTools) Result(context.Context, protocol.ToolResult) error { return nil }
func (f *fakeTools) Progress(_ context.Context, p protocol.ToolProgress) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.progress = append(f.progress, p)
	return nil
}

func (f *fakeTools) snapshot() ([]protocol.DecisionRequest, []string, []protocol.ToolProgress) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]protocol.DecisionRequest(nil), f.asked...), append([]string(nil), f.notices...), append([]protocol.ToolProgress(nil), f.progress...)
}

// pickOption is the user's pick of option i of an approval (a URL's consent, its wait).
func pickOption(i int) decision.Answer {
	b, _ := json.Marshal(protocol.ApprovalAnswer{Option: &i})
	return decision.Answer{Action: protocol.ActionAccept, Content: b}
}

// errWithdrawn is what asking returns when the question is withdrawn before an answer.
var errWithdrawn = fmt.Errorf("question %w: withdrawn", decision.ErrAborted)

func manager(t *testing.T, opts Options) *Manager {
	if opts.Backoff == nil {
		opts.Backoff = func(int) time.Duration { return 50 * time.Millisecond }
	}
	m := New(opts)
	t.Cleanup(m.Close)
	return m
}

func ready(t *testing.T, s *Set) protocol.MCPList {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, s.WaitReady(ctx))
	return s.List()
}

// testSet is the set of a workspace whose one server, "test", is this test binary serving
// on stdio, once it is ready.
func testSet(t *testing.T, opts Options) *Set {
	s := manager(t, opts).Workspace(mcpserver.Workspace(t, map[string]any{"test": mcpserver.Self(t, "stdio")}))
	ready(t, s)
	return s
}

// everything is a set whose one server is the reference server,
// @modelcontextprotocol/server-everything, ready.
func everything(t *testing.T) *Set {
	s := manager(t, Options{}).Workspace(mcpserver.Workspace(t, map[string]any{"everything": mcpserver.Everything(t)}))
	srv := server(ready(t, s), "everything")
	require.Equal(t, protocol.MCPReady, srv.Status, "reason %q, stderr %q", srv.Reason, srv.Stderr)
	return s
}

func server(l protocol.MCPList, name string) protocol.MCPServer {
	for _, s := range l.Servers {
		if s.Name == name {
			return s
		}
	}
	return protocol.MCPServer{}
}

// run calls a tool as the toolbox would: Prepare, then the run.
func run(t *testing.T, s *Set, ft *fakeTools, ctx context.Context, name string, args string) (*gate.ToolCall, protocol.ToolResult, error) {
	t.Helper()
	require.True(t, s.Has(name), "the set has %s", name)
	g, r, err := s.Prepare(name, json.RawMessage(args))
	require.NoError(t, err)
	res, err := r(ctx, ft)
	return g, res, err
}

func TestStdioServerToolsAndResults(t *testing.T) {
	s := testSet(t, Options{})
	l := s.List()
	srv := server(l, "test")
	require.Equal(t, protocol.MCPReady, srv.Status, "reason %q, stderr %q", srv.Reason, srv.Stderr)
	assert.Equal(t, "stdio", srv.Transport)
	assert.Contains(t, srv.Stderr, "serving on stdio")
	names := map[string]bool{}
	for _, tl := range srv.Tools {
		names[tl.Name] = tl.ReadOnly
	}
	assert.Contains(t, names, "mcp__test__echo")
	assert.True(t, names["mcp__test__echo"], "echo is read-only")
	assert.False(t, names["mcp__test__fail"])

	defs := s.Defs()
	require.NotEmpty(t, defs)
	for _, d := range defs {
		assert.Regexp(t, `^[a-zA-Z0-9_-]{1,64}$`, d.Name)
		assert.True(t, json.Valid(d.Parameters), d.Name)
	}

	ft := &fakeTools{}
	ctx := context.Background()
	g, res, err := run(t, s, ft, ctx, "mcp__test__echo", `{"text":"hello"}`)
	require.NoError(t, err)
	assert.Equal(t, "mcp", g.Tool)
	assert.Equal(t, []string{"test", "echo"}, g.Words)
	assert.True(t, g.ReadOnly)
	assert.Contains(t, g.Details, `"text": "hello"`, "arguments shown as text")
	assert.False(t, res.Error)
	assert.Contains(t, res.Text, "echo: hello")
	assert.Contains(t, res.Text, `structured content: {"echo":"hello","length":5}`)

	_, res, err = run(t, s, ft, ctx, "mcp__test__picture", `{}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "here it is")
	assert.Contains(t, res.Text, "an image (image/png")

	_, res, err = run(t, s, ft, ctx, "mcp__test__fail", `{}`)
	require.NoError(t, err)
	assert.True(t, res.Error)
	assert.Equal(t, "disk quota exceeded on /srv", res.Text)

	_, _, err = s.Prepare("mcp__test__nope", json.RawMessage(`{}`))
	assert.Error(t, err)
}

func TestHTTPServerAndHeaders(t *testing.T) {
	got := make(chan string, 16)
	h := mcpserver.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Get("Authorization"):
		default:
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close) // after the manager's Close (cleanups run last first): its SSE stream ends

	t.Setenv("PARLEY_TEST_TOKEN", "s3cret")
	dir := mcpserver.Workspace(t, map[string]any{"web": map[string]any{"url": hs.URL, "headers": map[string]string{"Authorization": "Bearer ${PARLEY_TEST_TOKEN}"}}})
	s := manager(t, Options{}).Workspace(dir)
	srv := server(ready(t, s), "web")
	require.Equal(t, protocol.MCPReady, srv.Status, srv.Reason)
	assert.Equal(t, "http", srv.Transport)
	assert.Equal(t, "Bearer s3cret", <-got, "the header's ${VAR} is read from the environment")
	_, res, err := run(t, s, &fakeTools{}, context.Background(), "mcp__web__echo", `{"text":"over http"}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "echo: over http")

	// A form over HTTP keeps the server's order of questions too.
	ft := &fakeTools{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
		return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`{"name":"Ada","color":"red"}`)}, nil
	}}
	_, res, err = run(t, s, ft, context.Background(), "mcp__web__ask", `{}`)
	require.NoError(t, err)
	assert.Equal(t, `action=accept content={"color":"red","name":"Ada"}`, res.Text)
	asked, _, _ := ft.snapshot()
	require.Len(t, asked, 1)
	var keys []string
	for _, p := range asked[0].Schema.Properties {
		keys = append(keys, p.Key)
	}
	assert.Equal(t, []string{"name", "email", "age", "color"}, keys)
}

func TestProgressEvenAfterTheResult(t *testing.T) {
	s := testSet(t, Options{})
	ft := &fakeTools{}
	_, res, err := run(t, s, ft, context.Background(), "mcp__test__slow", `{"steps":3,"every":300,"after":true}`)
	require.NoError(t, err)
	assert.Equal(t, "done in 3 steps", res.Text)
	require.Eventually(t, func() bool { _, _, p := ft.snapshot(); return len(p) == 4 }, 10*time.Second, 10*time.Millisecond,
		"three progress notifications during the call and one after its result")
	_, _, p := ft.snapshot()
	assert.Equal(t, "step 1", p[0].Message)
	assert.Equal(t, 3.0, p[2].Total)
	assert.Equal(t, "cleaning up", p[3].Message)
	assert.Equal(t, "mcp__test__slow", p[3].Name)
}

func TestStopCancelsARunningCall(t *testing.T) {
	s := testSet(t, Options{})
	ft := &fakeTools{}
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { _, _, err := run(t, s, ft, ctx, "mcp__test__slow", `{"steps":2,"hold":true}`); done <- err }()
	require.Eventually(t, func() bool { _, _, p := ft.snapshot(); return len(p) == 2 }, 10*time.Second, 10*time.Millisecond)
	cancel(decision.ErrStopped)
	err := <-done
	assert.ErrorIs(t, err, decision.ErrStopped, "a stopped call ends the turn")
	// The server got notifications/cancelled, and is still up for the next call.
	require.Eventually(t, func() bool {
		_, res, err := run(t, s, ft, context.Background(), "mcp__test__cancelled", `{}`)
		return err == nil && res.Text == "cancelled=1"
	}, 10*time.Second, 20*time.Millisecond, "the held call was cancelled on the server")
}

func TestBrokenFileAndFailingServers(t *testing.T) {
	user := filepath.Join(t.TempDir(), "user.json")
	require.NoError(t, os.WriteFile(user, []byte(`{"mcpServers": {`), 0o644))
	dir := mcpserver.Workspace(t, map[string]any{
		"missing": map[string]any{"command": "/nonexistent/mcp-server"},
		"fails":   mcpserver.Self(t, "fail"),
		"hangs":   mcpserver.Self(t, "hang"),
		"empty":   map[string]any{},
		"good":    mcpserver.Self(t, "stdio"),
	})
	s := manager(t, Options{UserFile: user, Handshake: 5 * time.Second, Backoff: func(int) time.Duration { return time.Hour }}).Workspace(dir)
	l := ready(t, s)
	require.Len(t, l.Problems, 1)
	assert.Contains(t, l.Problems[0], user)
	assert.Contains(t, l.Problems[0], "not valid JSON")

	assert.Equal(t, protocol.MCPReady, server(l, "good").Status, "the rest keep working")
	missing := server(l, "missing")
	assert.Equal(t, protocol.MCPFailed, missing.Status)
	assert.Contains(t, missing.Reason, "/nonexistent/mcp-server")
	fails := server(l, "fails")
	assert.Equal(t, protocol.MCPFailed, fails.Status)
	assert.Contains(t, fails.Stderr, "cannot open the database", "the stderr tail says why")
	hangs := server(l, "hangs")
	assert.Equal(t, protocol.MCPFailed, hangs.Status)
	assert.Contains(t, hangs.Reason, "no answer to the handshake within 5s")
	empty := server(l, "empty")
	assert.Equal(t, protocol.MCPFailed, empty.Status)
	assert.Contains(t, empty.Reason, `neither "command"`)
	assert.NotZero(t, fails.NextRetry, "a failed server is tried again later")

	// A tool of a failed server is not offered.
	for _, d := range s.Defs() {
		assert.True(t, strings.HasPrefix(d.Name, "mcp__good__"), d.Name)
	}
}

func TestCrashDuringACallAndRestart(t *testing.T) {
	s := testSet(t, Options{Backoff: func(int) time.Duration { return 300 * time.Millisecond }})
	ft := &fakeTools{}
	_, res, err := run(t, s, ft, context.Background(), "mcp__test__crash", `{}`)
	require.NoError(t, err, "a crash is the call's result, not the turn's end")
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, "the MCP server test stopped during the call")
	crashed := server(s.List(), "test")
	if crashed.Status == protocol.MCPCrashed {
		assert.Contains(t, crashed.Reason, "exit status 7")
		assert.Contains(t, crashed.Stderr, "crashing on purpose")
	}
	require.Eventually(t, func() bool {
		srv := server(s.List(), "test")
		return srv.Status == protocol.MCPReady && srv.Restarts == 1
	}, 20*time.Second, 20*time.Millisecond, "restarted after its backoff")
	_, res, err = run(t, s, ft, context.Background(), "mcp__test__echo", `{"text":"back"}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "echo: back")
}

// TestAStrayPrintIsSaid: a stdio server that prints a line that is not JSON-RPC is stopped
// and restarted (the SDK cannot read on), and its reason says so rather than "the process
// exited" (QA round 24).
func TestAStrayPrintIsSaid(t *testing.T) {
	s := testSet(t, Options{Backoff: func(int) time.Duration { return 2 * time.Second }})
	ft := &fakeTools{}
	_, res, err := run(t, s, ft, context.Background(), "mcp__test__stray", `{}`)
	require.NoError(t, err)
	assert.True(t, res.Error)
	var reason string
	require.Eventually(t, func() bool {
		srv := server(s.List(), "test")
		reason = srv.Reason
		return srv.Status == protocol.MCPCrashed
	}, 10*time.Second, 20*time.Millisecond, "stopped")
	assert.Contains(t, reason, "the process was stopped")
	assert.Contains(t, reason, "it wrote a line that is not JSON-RPC on its standard output")
	assert.NotContains(t, reason, "exited")
}

// TestACallDuringARestartWaitsForIt: a call prepared (and so approved) while its server was
// ready, run while the server restarts after a crash, runs once the server is back, rather
// than failing "not connected" with its approval spent (QA round 24).
func TestACallDuringARestartWaitsForIt(t *testing.T) {
	s := testSet(t, Options{Backoff: func(int) time.Duration { return time.Second }})
	ft := &fakeTools{}
	_, echo, err := s.Prepare("mcp__test__echo", json.RawMessage(`{"text":"after the restart"}`))
	require.NoError(t, err)
	_, res, err := run(t, s, ft, context.Background(), "mcp__test__crash", `{}`)
	require.NoError(t, err)
	require.True(t, res.Error)
	require.Eventually(t, func() bool { return server(s.List(), "test").Status == protocol.MCPCrashed }, 10*time.Second, 10*time.Millisecond)
	res, err = echo(context.Background(), ft)
	require.NoError(t, err)
	assert.False(t, res.Error, res.Text)
	assert.Contains(t, res.Text, "echo: after the restart")
	assert.Equal(t, 1, server(s.List(), "test").Restarts)
}

func TestReconnectAndClose(t *testing.T) {
	dir := mcpserver.Workspace(t, map[string]any{"test": mcpserver.Self(t, "stdio")})
	m := New(Options{})
	s := m.Workspace(dir)
	ready(t, s)
	pid := s.conn("test").cmd.Process.Pid
	require.NoError(t, s.Reconnect("test"))
	l := ready(t, s)
	assert.Equal(t, protocol.MCPReady, server(l, "test").Status)
	assert.NotEqual(t, pid, s.conn("test").cmd.Process.Pid, "a new process")
	assert.ErrorIs(t, s.Reconnect("nope"), ErrNoServer)
	proc := s.conn("test").cmd.Process
	m.Close()
	assert.Equal(t, protocol.MCPStopped, server(s.List(), "test").Status)
	// The child is gone with the manager.
	require.Eventually(t, func() bool { return errors.Is(proc.Signal(syscall.Signal(0)), os.ErrProcessDone) }, 10*time.Second, 10*time.Millisecond)
}

func TestToolNames(t *testing.T) {
	n := &names{byModel: map[string]toolRef{}}
	assert.Equal(t, "mcp__git_hub__list_issues", n.modelName("git hub", "list.issues"))
	long := n.modelName("server", strings.Repeat("x", 80))
	assert.Len(t, long, 64)
	a := n.modelName("a.b", "t")
	b := n.modelName("a_b", "t")
	assert.NotEqual(t, a, b, "two tools never share a name")
	ref, ok := n.lookup(b)
	assert.True(t, ok)
	assert.Equal(t, toolRef{"a_b", "t"}, ref)
}

// TestOfferedTools: what of a server's tool list the model is offered, and the words for what
// is left out (QA round 24: a server listing a name twice, or a tool taking an array, was
// passed on, and endpoints refuse such a request: every turn of the workspace would fail).
func TestOfferedTools(t *testing.T) {
	tool := func(name string, schema any) *sdk.Tool { return &sdk.Tool{Name: name, InputSchema: schema} }
	object := map[string]any{"type": "object", "properties": map[string]any{}}
	cases := []struct {
		name    string
		tools   []*sdk.Tool
		keep    []string
		leftOut []string
	}{
		{"all fine", []*sdk.Tool{tool("a", object), tool("b", nil), tool("c", map[string]any{"properties": map[string]any{}})},
			[]string{"a", "b", "c"}, nil},
		{"a name listed twice", []*sdk.Tool{tool("dup", object), tool("x", object), tool("dup", map[string]any{"type": "object", "title": "second"})},
			[]string{"dup", "x"}, []string{`the tool "dup" is listed twice: the first is kept`}},
		{"parameters that are not an object", []*sdk.Tool{tool("arr", map[string]any{"type": "array", "items": 42}), tool("ok", object), tool("both", map[string]any{"type": []string{"object", "null"}})},
			[]string{"ok"}, []string{`the tool "arr" is left out: its input schema is of type "array", not an object of arguments`,
				`the tool "both" is left out: its input schema is of type ["object","null"], not an object of arguments`}},
		{"a schema that is not a JSON object", []*sdk.Tool{tool("s", "object")},
			nil, []string{`the tool "s" is left out: its input schema is not a JSON object`}},
		{"no name", []*sdk.Tool{tool("", object), nil, tool("n", object)},
			[]string{"n"}, []string{"a tool with no name is left out", "a tool with no name is left out"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keep, leftOut := offered(c.tools)
			var names []string
			for _, k := range keep {
				names = append(names, k.Name)
			}
			assert.Equal(t, c.keep, names)
			assert.Equal(t, c.leftOut, leftOut)
		})
	}
}

// A server killed (SIGKILL) while a call runs: the call's result says so, and the server
// comes back after its backoff.
func TestServerKilledWhileACallRuns(t *testing.T) {
	s := testSet(t, Options{Backoff: func(int) time.Duration { return 200 * time.Millisecond }})
	ft := &fakeTools{}
	done := make(chan protocol.ToolResult, 1)
	go func() {
		_, res, err := run(t, s, ft, context.Background(), "mcp__test__slow", `{"steps":1,"hold":true}`)
		assert.NoError(t, err)
		done <- res
	}()
	require.Eventually(t, func() bool { _, _, p := ft.snapshot(); return len(p) == 1 }, 10*time.Second, 10*time.Millisecond, "the call is running")
	c := s.conn("test")
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	res := <-done
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, "the MCP server test stopped during the call")
	assert.Contains(t, res.Text, "signal: killed")
	require.Eventually(t, func() bool {
		return server(s.List(), "test").Status == protocol.MCPReady && server(s.List(), "test").Restarts == 1
	},
		20*time.Second, 20*time.Millisecond, "restarted")
}

// TestASilentCallIsGivenUp: a call whose server says nothing for CallIdle ends with words
// the model reads, and the server is asked to cancel it; each progress notification starts
// the clock again, so a call that keeps reporting runs past it.
func TestASilentCallIsGivenUp(t *testing.T) {
	s := testSet(t, Options{CallIdle: 600 * time.Millisecond})
	ft := &fakeTools{}
	start := time.Now()
	// Five steps 250 ms apart: a second of work, longer than the idle limit, then silence.
	_, res, err := run(t, s, ft, context.Background(), "mcp__test__slow", `{"steps":5,"every":250,"hold":true}`)
	require.NoError(t, err, "the turn goes on")
	assert.True(t, res.Error)
	assert.Equal(t, "the MCP server test said nothing about the call for 1 s, so Parley gave it up and asked the server to cancel it; it may or may not have taken effect", res.Text)
	_, _, p := ft.snapshot()
	assert.Len(t, p, 5, "every step arrived: the progress kept the call alive")
	assert.GreaterOrEqual(t, time.Since(start), time.Second+600*time.Millisecond, "given up only after the silence")
	require.Eventually(t, func() bool {
		_, res, err := run(t, s, ft, context.Background(), "mcp__test__cancelled", `{}`)
		return err == nil && res.Text == "cancelled=1"
	}, 10*time.Second, 20*time.Millisecond, "the server was asked to cancel the call")
}

// TestTheUsersTimeIsNotTheServers: a question the call waits on stops its idle clock: an
// answer slower than CallIdle is still the call's.
func TestTheUsersTimeIsNotTheServers(t *testing.T) {
	s := testSet(t, Options{CallIdle: 300 * time.Millisecond})
	ft := &fakeTools{answer: func(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		select {
		case <-time.After(900 * time.Millisecond): // the person takes their time
		case <-ctx.Done():
			return decision.Answer{}, context.Cause(ctx)
		}
		return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`{"name":"Ada","email":"ada@example.org","age":36,"color":"green"}`)}, nil
	}}
	_, res, err := run(t, s, ft, context.Background(), "mcp__test__ask", `{}`)
	require.NoError(t, err)
	assert.Equal(t, `action=accept content={"age":36,"color":"green","email":"ada@example.org","name":"Ada"}`, res.Text)
}

// TestAProgressFloodIsThinned: a server that sends progress in a tight loop has a few of
// them recorded, never one per notification, and the newest always lands (QA round 23's P1:
// 113,517 events in ten seconds).
func TestAProgressFloodIsThinned(t *testing.T) {
	s := testSet(t, Options{})
	ft := &fakeTools{}
	start := time.Now()
	_, res, err := run(t, s, ft, context.Background(), "mcp__test__slow", `{"steps":3000}`)
	require.NoError(t, err)
	assert.Equal(t, "done in 3000 steps", res.Text)
	require.Eventually(t, func() bool {
		_, _, p := ft.snapshot()
		return len(p) > 0 && p[len(p)-1].Message == "step 3000"
	}, 10*time.Second, 10*time.Millisecond, "the newest lands")
	_, _, p := ft.snapshot()
	most := int(time.Since(start)/progressEvery) + 2
	assert.LessOrEqual(t, len(p), most, "at most one a %v, and the newest", progressEvery)
	assert.Equal(t, "step 1", p[0].Message, "the first at once")
}

// TestAFloodOfToolChangesIsOneReadAtATime: a hostile server says its tools changed 20,000
// times in a row. The client reads them again one read at a time, at most every relistGap,
// and keeps no goroutine a notification: it started one for each, all waiting on the
// session, 1.4 GB in 55 s, and the process no longer shut down (QA round 26).
func TestAFloodOfToolChangesIsOneReadAtATime(t *testing.T) {
	lists := filepath.Join(t.TempDir(), "lists")
	entry := mcpserver.Self(t, "flood")
	entry["env"].(map[string]string)[mcpserver.FloodListsEnv] = lists
	before := goruntime.NumGoroutine()
	s := manager(t, Options{}).Workspace(mcpserver.Workspace(t, map[string]any{"flood": entry}))
	require.Equal(t, protocol.MCPReady, server(ready(t, s), "flood").Status)
	const watch = 3 * time.Second
	most := 0
	for end := time.Now().Add(watch); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		most = max(most, goruntime.NumGoroutine())
	}
	assert.Less(t, most-before, 200, "goroutines beside the server's")
	raw, err := os.ReadFile(lists)
	require.NoError(t, err)
	n, err := strconv.Atoi(string(raw))
	require.NoError(t, err)
	assert.LessOrEqual(t, n, int(watch/relistGap)+3, "reads of the tools: the first, then one a gap")
	assert.True(t, s.Has("mcp__flood__echo"), "the tools are still known")
}

// TestAServerRetryingIsNotWaitedFor: a server that never answers its handshake failed once;
// while it tries again, a turn's wait (WaitReady) does not wait for it, and its listing keeps
// the last failure's reason. Every turn of its workspace waited 10 s, and /mcp said only
// "starting" (QA round 26).
func TestAServerRetryingIsNotWaitedFor(t *testing.T) {
	dir := mcpserver.Workspace(t, map[string]any{"hangs": mcpserver.Self(t, "hang"), "good": mcpserver.Self(t, "stdio")})
	s := manager(t, Options{Handshake: time.Second, Backoff: func(int) time.Duration { return 10 * time.Millisecond }}).Workspace(dir)
	ready(t, s)
	require.Eventually(t, func() bool {
		srv := server(s.List(), "hangs")
		return srv.Status == protocol.MCPStarting && srv.Restarts > 0
	}, 10*time.Second, 10*time.Millisecond, "it tries again")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	require.NoError(t, s.WaitReady(ctx))
	assert.Less(t, time.Since(start), 200*time.Millisecond, "not waited for")
	assert.Contains(t, server(s.List(), "hangs").Reason, "no answer to the handshake within 1s", "the last failure's reason stays")
	assert.Equal(t, protocol.MCPReady, server(s.List(), "good").Status)
}
