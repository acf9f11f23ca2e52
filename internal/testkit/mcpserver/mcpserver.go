// Package mcpserver is an MCP server written with the official go-sdk, for tests: a test
// binary re-executes itself with Env set (Main serves stdio then), or a test serves it over
// streamable HTTP with Handler. Its tools cover what Parley's client must handle: text and
// structured results, images, errors, progress (also after the result), form and URL
// elicitations, a -32042, a crash in the middle of a call, and a hanging handshake.
package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Env names the mode a re-executed test binary serves in: "stdio", "hang" (never answers
// the handshake), "fail" (writes to stderr and exits 3 at once) or "flood" (a hostile
// server: FloodCount notifications/tools/list_changed once initialized; see flood).
const Env = "PARLEY_TEST_MCP_SERVER"

// Main serves as the MCP server when Env is set, and exits; otherwise it returns.
func Main() {
	switch os.Getenv(Env) {
	case "":
		return
	case "hang":
		fmt.Fprintln(os.Stderr, "test server: hanging in the handshake")
		time.Sleep(time.Hour)
	case "fail":
		fmt.Fprintln(os.Stderr, "test server: cannot open the database /nonexistent.db")
		os.Exit(3)
	case "flood":
		flood()
	default:
		fmt.Fprintln(os.Stderr, "test server: serving on stdio")
		err := New().Run(context.Background(), &mcp.StdioTransport{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
	}
	os.Exit(0)
}

// Self is the entry of a workspace's MCP servers that starts this test binary as the server,
// serving in mode (see Env); the binary's TestMain must call Main.
func Self(t testing.TB, mode string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "env": map[string]string{Env: mode}}
}

// Workspace is a fresh folder whose .parley/mcp.json (the workspace's MCP file) names
// servers, each an entry like Self's or Everything's.
func Workspace(t testing.TB, servers map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".parley"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".parley", "mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// everythingPath is the reference server, @modelcontextprotocol/server-everything, under
// the repository: the Makefile pins it and make mcp-everything (and make test) installs it.
const everythingPath = "bin/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// Everything is the entry of a workspace's MCP servers that starts the reference server on
// stdio with node. The test is skipped when the server is not installed.
func Everything(t testing.TB) map[string]any {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Skip("no go.mod above the test's folder, so no reference MCP server")
		}
		dir = filepath.Dir(dir)
	}
	entry := filepath.Join(dir, everythingPath)
	if _, err := os.Stat(entry); err != nil {
		t.Skip("the reference MCP server is not installed: run make mcp-everything")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node runs the reference server: %v", err)
	}
	return map[string]any{"command": node, "args": []string{entry, "stdio"}}
}

// Handler serves New over streamable HTTP.
func Handler() http.Handler {
	s := New()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

type empty struct{}

// New is the test server.
func New() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "parley-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, struct {
			Echo   string `json:"echo"`
			Length int    `json:"length"`
		}, error) {
			out := struct {
				Echo   string `json:"echo"`
				Length int    `json:"length"`
			}{in.Text, len(in.Text)}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, out, nil
		})
	s.AddTool(&mcp.Tool{Name: "picture", Description: "Draw a picture.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "here it is"},
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG fake")},
			}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "disk quota exceeded on /srv"}}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Report progress, then wait for a release or a cancel."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Steps int  `json:"steps"`
			Every int  `json:"every,omitempty"` // milliseconds between the steps
			Hold  bool `json:"hold,omitempty"`
			After bool `json:"after,omitempty"` // one more progress notification after the result
		}) (*mcp.CallToolResult, empty, error) {
			token := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps; i++ {
				if i > 1 {
					time.Sleep(time.Duration(in.Every) * time.Millisecond)
				}
				if token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
						Progress: float64(i), Total: float64(in.Steps), Message: "step " + strconv.Itoa(i)})
				}
			}
			if in.Hold {
				<-ctx.Done() // until notifications/cancelled
				cancelled.Add(1)
				return nil, empty{}, ctx.Err()
			}
			if in.After && token != nil {
				go func() {
					time.Sleep(50 * time.Millisecond)
					_ = req.Session.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{ProgressToken: token,
						Progress: float64(in.Steps + 1), Total: float64(in.Steps + 1), Message: "cleaning up"})
				}()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done in " + strconv.Itoa(in.Steps) + " steps"}}}, empty{}, nil
		})
	s.AddTool(&mcp.Tool{Name: "cancelled", Description: "How many held calls were cancelled (notifications/cancelled).",
		InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("cancelled=" + strconv.FormatInt(cancelled.Load(), 10)), nil
		})
	s.AddTool(&mcp.Tool{Name: "stray", Description: "Print a line that is not JSON-RPC on standard output.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Println("hello from a stray print")
			time.Sleep(time.Second) // the connection ends before the answer would
			return text("printed"), nil
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Exit in the middle of the call.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "test server: crashing on purpose")
			os.Exit(7)
			return nil, nil
		})
	// The questions go the 2026-07-28 way (multi round-trip: the result asks for input and
	// the call is made again with the answers); the SDK serves older clients the same
	// tools through elicitation/create.
	s.AddTool(&mcp.Tool{Name: "ask", Description: "Ask the user a form, and report what came back.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, ok := answer(req, "who")
			if !ok {
				return needs("who", &mcp.ElicitParams{
					Message: "Who are you?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{
					"name":{"type":"string","title":"Name","minLength":2},
					"email":{"type":"string","title":"Email","format":"email"},
					"age":{"type":"integer","title":"Age","minimum":0,"maximum":150},
					"color":{"type":"string","title":"Colour","enum":["red","green"]}
				},"required":["name","color"]}`)}), nil
			}
			b, _ := json.Marshal(res.Content)
			return text("action=" + res.Action + " content=" + string(b)), nil
		})
	s.AddTool(&mcp.Tool{Name: "confirm", Description: "Ask an empty form.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, ok := answer(req, "go")
			if !ok {
				return needs("go", &mcp.ElicitParams{Message: "Go ahead?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}), nil
			}
			return text("action=" + res.Action), nil
		})
	s.AddTool(&mcp.Tool{Name: "login", Description: "Ask the user to open a URL, then report completion.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		urlLogin("login", "Sign in to the tracker.", "https://tracker.example/login?session=", func(req *mcp.CallToolRequest) {
			id := req.Params.RequestState
			go func() {
				time.Sleep(50 * time.Millisecond)
				_ = req.Session.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: id})
			}()
		}))
	// login_later asks for a URL elicitation and, on consent, answers at once but says
	// nothing of the step's completion until finish_login is called with its id (as a real
	// server would once its OAuth callback arrives).
	s.AddTool(&mcp.Tool{Name: "login_later", Description: "Ask the user to open a URL; finish_login completes it.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		urlLogin("later", "Sign in to the wiki.", "https://wiki.example/login?session=", nil))
	s.AddTool(&mcp.Tool{Name: "finish_login", Description: "Say that the step of a login_later is complete.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &in)
			if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: in.ID}); err != nil {
				return nil, err
			}
			return text("completed " + in.ID), nil
		})
	// ask_timed is the benchmark's question: the result says when it was sent (the first
	// round) and when its answer came back (the second), in unix nanoseconds.
	s.AddTool(&mcp.Tool{Name: "ask_timed", Description: "Ask one question and report the times.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, ok := answer(req, "word")
			if !ok {
				r := needs("word", &mcp.ElicitParams{Message: "Say a word.",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string","title":"Word"}},"required":["word"]}`)})
				r.RequestState = strconv.FormatInt(time.Now().UnixNano(), 10)
				return r, nil
			}
			b, _ := json.Marshal(res.Content)
			return text(fmt.Sprintf("sent=%s received=%d content=%s", req.Params.RequestState, time.Now().UnixNano(), b)), nil
		})
	s.AddTool(&mcp.Tool{Name: "needs_login", Description: "Answer -32042 until the user has signed in.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if signedIn.Load() {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "signed in: here are the issues"}}}, nil
			}
			id := "auth-" + strconv.FormatInt(ids.Add(1), 10)
			go func() {
				time.Sleep(100 * time.Millisecond)
				signedIn.Store(true)
				_ = req.Session.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: id})
			}()
			return nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", Message: "Authorize the tracker.",
				URL: "https://tracker.example/authorize?id=" + id, ElicitationID: id}})
		})
	return s
}

// answer is the user's answer to input request key, once the call is made again with it.
func answer(req *mcp.CallToolRequest, key string) (*mcp.ElicitResult, bool) {
	r, ok := req.Params.InputResponses[key].(*mcp.ElicitResult)
	return r, ok && r != nil
}

// needs is a result that asks the client for input first.
func needs(key string, p *mcp.ElicitParams) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: p}}
}

// needsURL is a result that asks the client, as input request key, to open link followed by
// a fresh elicitation id; the id comes back as the call's request state.
func needsURL(key, message, link string) *mcp.CallToolResult {
	id := key + "-" + strconv.FormatInt(ids.Add(1), 10)
	r := needs(key, &mcp.ElicitParams{Mode: "url", Message: message, URL: link + id, ElicitationID: id})
	r.RequestState = id
	return r
}

// urlLogin is a tool that asks the user, as input request key, to open link; once they
// consent, accepted runs (nil: nothing more) and the call answers with their action. The
// login tools differ only in what follows the consent.
func urlLogin(key, message, link string, accepted func(*mcp.CallToolRequest)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, ok := answer(req, key)
		if !ok {
			return needsURL(key, message, link), nil
		}
		if res.Action == "accept" && accepted != nil {
			accepted(req)
		}
		return text("action=" + res.Action), nil
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

var (
	ids       atomic.Int64
	signedIn  atomic.Bool
	cancelled atomic.Int64
)

// FloodCount is how many notifications/tools/list_changed the "flood" server sends, as fast
// as it can write them.
const FloodCount = 20000

// FloodListsEnv names the file the "flood" server writes, after each tools/list it answers,
// how many it answered.
const FloodListsEnv = "PARLEY_TEST_MCP_FLOOD_LISTS"

// flood serves JSON-RPC on stdio by hand, as a hostile server would: it answers the
// handshake and tools/list (one tool, "echo"), and once initialized says its tools changed
// FloodCount times in a row (QA round 26: the client started a goroutine for each).
func flood() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	var mu sync.Mutex
	write := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		os.Stdout.Write(append(b, '\n'))
	}
	lists := 0
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil {
			continue
		}
		switch msg.Method {
		case "initialize":
			write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{
				"protocolVersion": msg.Params.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo":      map[string]any{"name": "flood", "version": "1"}}})
		case "notifications/initialized":
			go func() {
				for range FloodCount {
					write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
				}
			}()
		case "tools/list":
			lists++
			if f := os.Getenv(FloodListsEnv); f != "" {
				_ = os.WriteFile(f, []byte(strconv.Itoa(lists)), 0o600)
			}
			write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"tools": []any{
				map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}})
		case "ping":
			write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{}})
		default:
			if len(msg.ID) > 0 {
				write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			}
		}
	}
}
