package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/decision"
)

// The reference server, @modelcontextprotocol/server-everything, pinned in the Makefile
// (make mcp-everything installs it into bin/npm, as make test does).
const everythingPath = "bin/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// EverythingServer is the reference server's entry point under the repository, or "" when
// it is not installed.
func EverythingServer(t testing.TB) string {
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, everythingPath)
			if _, err := os.Stat(p); err != nil {
				return ""
			}
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func everything(t *testing.T) *Set {
	entry := EverythingServer(t)
	if entry == "" {
		t.Skip("the reference MCP server is not installed: run make mcp-everything")
	}
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node runs the reference server")
	dir := workspace(t, map[string]any{"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}}})
	s := manager(t, Options{}).Workspace(dir)
	srv := server(ready(t, s), "everything")
	require.Equal(t, protocol.MCPReady, srv.Status, "reason %q, stderr %q", srv.Reason, srv.Stderr)
	return s
}

// EverythingForm is an answer to every one of the 13 fields of the reference server's
// trigger-elicitation-request, each different from its default.
const EverythingForm = `{"name":"Ada Lovelace","check":true,"firstLine":"Call me Ishmael.","email":"ada@example.org",` +
	`"homepage":"https://ada.example.org","birthdate":"1815-12-10","integer":7,"number":2.5,` +
	`"untitledSingleSelectEnum":"Phoebe","untitledMultipleSelectEnum":["Piano","Drums"],` +
	`"titledSingleSelectEnum":"hero-3","titledMultipleSelectEnum":["fish-2","fish-3"],"legacyTitledEnum":"pet-4"}`

func TestEverythingForm(t *testing.T) {
	s := everything(t)
	ft := &fakeTools{answer: func(_ context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		if err := req.Schema.ValidateContent(json.RawMessage(EverythingForm)); err != nil {
			return decision.Answer{}, err
		}
		return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(EverythingForm)}, nil
	}}
	_, res, err := run(t, s, ft, context.Background(), "mcp__everything__trigger-elicitation-request", `{}`)
	require.NoError(t, err)
	require.False(t, res.Error, res.Text)
	asked, _, _ := ft.snapshot()
	require.Len(t, asked, 1)
	var keys []string
	for _, p := range asked[0].Schema.Properties {
		keys = append(keys, p.Key)
	}
	assert.Equal(t, []string{"name", "check", "firstLine", "email", "homepage", "birthdate", "integer", "number",
		"untitledSingleSelectEnum", "untitledMultipleSelectEnum", "titledSingleSelectEnum", "titledMultipleSelectEnum", "legacyTitledEnum"}, keys,
		"13 fields, in the server's order")
	assert.Contains(t, res.Text, "User provided the requested information")
	var want map[string]any
	require.NoError(t, json.Unmarshal([]byte(EverythingForm), &want))
	raw := res.Text[strings.Index(res.Text, "Raw result: ")+len("Raw result: "):]
	var got struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &got), raw)
	assert.Equal(t, "accept", got.Action)
	assert.Equal(t, want, got.Content, "the server received every field as answered")
}

func TestEverythingURLAndProgress(t *testing.T) {
	s := everything(t)
	ctx := context.Background()
	consent := func(_ context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		i := 0
		b, _ := json.Marshal(protocol.ApprovalAnswer{Option: &i})
		return decision.Answer{Action: protocol.ActionAccept, Content: b}, nil
	}
	ft := &fakeTools{answer: consent}
	_, res, err := run(t, s, ft, ctx, "mcp__everything__trigger-url-elicitation", `{"url":"https://example.org/consent","message":"Open it"}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "User completed the URL elicitation flow")
	asked, _, _ := ft.snapshot()
	require.Len(t, asked, 2, "consent, then the wait for the step in the browser (this server sends no completion: the user's done ends it)")
	assert.Equal(t, "https://example.org/consent", asked[0].URL)
	assert.Contains(t, asked[1].Message, "Waiting for you to finish in the browser")

	// The error path: -32042 names a prerequisite URL; after consent and the user's "done"
	// (this server sends no completion for it) the call is made again.
	ft = &fakeTools{answer: consent}
	_, res, err = run(t, s, ft, ctx, "mcp__everything__trigger-url-elicitation", `{"url":"https://example.org/after","errorPath":true}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "User completed the URL elicitation flow", res.Text)
	asked, _, _ = ft.snapshot()
	require.Len(t, asked, 4, "consent to the prerequisite, the wait, consent to the URL itself, its wait")
	assert.Equal(t, "https://modelcontextprotocol.io", asked[0].URL)
	assert.Equal(t, "https://example.org/after", asked[2].URL)
	assert.Contains(t, asked[3].Message, "its call goes on after")

	ft = &fakeTools{}
	start := time.Now()
	_, res, err = run(t, s, ft, ctx, "mcp__everything__trigger-long-running-operation", `{"duration":1,"steps":3}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "completed", fmt.Sprint(time.Since(start)))
	// The last progress notification may be handled after the result arrives (the SDK
	// dispatches notifications on their own goroutine); Parley still shows it.
	require.Eventually(t, func() bool { _, _, p := ft.snapshot(); return len(p) == 3 }, 10*time.Second, 10*time.Millisecond)
	_, _, p := ft.snapshot()
	assert.Equal(t, 3.0, p[2].Progress)
	assert.Equal(t, 3.0, p[2].Total)
}
