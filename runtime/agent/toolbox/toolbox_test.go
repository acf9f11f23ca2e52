package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/decision"
	"parley/runtime/gate"
	"parley/runtime/script"
)

// fakeTools answers the gate and questions from a script, and records what was asked.
type fakeTools struct {
	agent.Conversation // not used by the toolbox
	verdict            gate.Verdict
	authErr            error
	authorized         [][]gate.ToolCall
	answer             decision.Answer
	asked              []protocol.DecisionRequest
	mode               protocol.PermissionMode // "" is the default
}

func (f *fakeTools) Say(context.Context, string) error { return nil }

func (f *fakeTools) Ask(_ context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
	f.asked = append(f.asked, req)
	return f.answer, nil
}

// Authorize passes what the default permission mode lets through (reads) as the gate does,
// and answers the rest with the verdict; its Granted counts only the calls asked.
func (f *fakeTools) Authorize(_ context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
	granted := make([]bool, len(calls))
	var asked []gate.ToolCall
	var at []int
	mode := f.mode
	if mode == "" {
		mode = protocol.DefaultPermissionMode
	}
	for i, c := range calls {
		if gate.Passes(mode, c) {
			granted[i] = true
		} else {
			asked, at = append(asked, c), append(at, i)
		}
	}
	if len(asked) == 0 {
		return gate.Verdict{Allowed: true, Granted: granted}, nil
	}
	f.authorized = append(f.authorized, asked)
	v := f.verdict
	for j, i := range at {
		granted[i] = j < len(v.Granted) && v.Granted[j]
	}
	v.Granted = granted
	return v, f.authErr
}

// box is a toolbox in a fresh workspace holding files (path → text).
func box(t *testing.T, files map[string]string) *Box {
	t.Helper()
	host, err := script.NewHost(testkit.Folder(t, files), script.Limits{})
	require.NoError(t, err)
	return New(host)
}

// run1 runs one call and returns its result.
func run1(t *testing.T, b *Box, tools *fakeTools, name string, args any) protocol.ToolResult {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		data, err := json.Marshal(args)
		require.NoError(t, err)
		raw = string(data)
	}
	res, _, err := b.Run(context.Background(), tools, []protocol.ToolCall{{ID: "c", Name: name, Arguments: raw}})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, "c", res[0].Call)
	assert.Equal(t, name, res[0].Name)
	return res[0]
}

func TestReadingTools(t *testing.T) {
	b := box(t, map[string]string{
		"a.txt":            "one\ntwo\nthree\n",
		"src/main.go":      "package main\n\nfunc main() { println(\"hello\") }\n",
		"src/other.go":     "package main // hello too\n",
		".git/config":      "hello from git\n",
		"bin/blob":         "hello\x00binary",
		"docs/empty/.keep": "",
	})
	require.NoError(t, os.Remove(filepath.Join(b.Host.Workspace, "docs/empty/.keep")))
	tools := &fakeTools{}
	cases := []struct {
		name, tool string
		args       any
		want       string
		wantErr    bool
	}{
		{"read", "read_file", map[string]any{"path": "a.txt"}, "one\ntwo\nthree\n", false},
		{"read a range", "read_file", map[string]any{"path": "a.txt", "start_line": 2, "line_count": 1}, "two\n\n[lines 2-2 of 3; read on with start_line 3]", false},
		{"read a folder", "read_file", map[string]any{"path": "src"}, `read "src": it is a directory (use list)`, true},
		{"read a missing file", "read_file", map[string]any{"path": "nope.txt"}, "no such file", true},
		{"read without a path", "read_file", map[string]any{}, "path is missing", true},
		{"list the root", "list_files", map[string]any{}, ".git/\na.txt\nbin/\ndocs/\nsrc/", false},
		{"list a folder", "list_files", map[string]any{"path": "src"}, "main.go\nother.go", false},
		{"list an empty folder", "list_files", map[string]any{"path": "docs/empty"}, "(empty folder)", false},
		{"search", "search_files", map[string]any{"pattern": "hel+o"}, "src/main.go:3: func main() { println(\"hello\") }\nsrc/other.go:1: package main // hello too\n", false},
		{"search a folder", "search_files", map[string]any{"pattern": "hello", "path": "src"}, "src/main.go:3", false},
		{"search finds nothing", "search_files", map[string]any{"pattern": "absent"}, "no match", false},
		{"search with a bad pattern", "search_files", map[string]any{"pattern": "("}, "not an RE2 regular expression", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run1(t, b, tools, c.tool, c.args)
			assert.Equal(t, c.wantErr, res.Error, res.Text)
			if c.wantErr || strings.HasPrefix(c.name, "search a") {
				assert.Contains(t, res.Text, c.want)
			} else {
				assert.Equal(t, c.want, res.Text)
			}
		})
	}
	assert.Empty(t, tools.authorized, "reading asks nobody")
}

func TestFileToolsAreConfinedToTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("password hello"), 0o644))
	b := box(t, map[string]string{"in.txt": "x"})
	require.NoError(t, os.Symlink(outside, filepath.Join(b.Host.Workspace, "link")))
	tools := &fakeTools{verdict: gate.Verdict{Allowed: true}}
	for _, c := range []struct {
		tool string
		args any
	}{
		{"read_file", map[string]any{"path": "../x"}},
		{"read_file", map[string]any{"path": "/etc/passwd"}},
		{"read_file", map[string]any{"path": "link/secret"}},
		{"list_files", map[string]any{"path": "link"}},
		{"list_files", map[string]any{"path": ".."}},
		{"search_files", map[string]any{"pattern": "x", "path": ".."}},
		{"write_file", map[string]any{"path": "../evil", "content": "x"}},
		{"write_file", map[string]any{"path": "link/evil", "content": "x"}},
		{"edit_file", map[string]any{"path": "link/secret", "old_text": "password", "new_text": "x"}},
	} {
		res := run1(t, b, tools, c.tool, c.args)
		assert.True(t, res.Error, "%s %v: %s", c.tool, c.args, res.Text)
		assert.Contains(t, res.Text, "leaves the workspace", "%s %v", c.tool, c.args)
	}
	assert.Empty(t, tools.authorized, "a path out of the workspace is refused before anyone is asked")
	res := run1(t, b, tools, "search_files", map[string]any{"pattern": "password"})
	assert.Equal(t, "no match", res.Text, "the search does not follow a symlink out")
	_, err := os.Stat(filepath.Join(outside, "evil"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestWritesAndEditsPassTheGate(t *testing.T) {
	b := box(t, map[string]string{"doc.md": "Hello world.\nHello again.\n"})
	path := func(p string) string { return filepath.Join(b.Host.Workspace, p) }
	read := func(p string) string {
		data, err := os.ReadFile(path(p))
		require.NoError(t, err)
		return string(data)
	}

	allow := &fakeTools{verdict: gate.Verdict{Allowed: true}}
	res := run1(t, b, allow, "write_file", map[string]any{"path": "new/file.txt", "content": "fresh"})
	assert.Equal(t, "wrote 5 bytes to new/file.txt", res.Text)
	assert.JSONEq(t, `{"path":"new/file.txt","bytes":5}`, string(res.Details))
	assert.Equal(t, "fresh", read("new/file.txt"))
	require.Len(t, allow.authorized, 1)
	assert.Equal(t, gate.ToolCall{Tool: "write", Words: []string{"new/file.txt"}, Details: "write 5 bytes to new/file.txt:\nfresh"}, allow.authorized[0][0])

	res = run1(t, b, allow, "edit_file", map[string]any{"path": "doc.md", "old_text": "world", "new_text": "there"})
	assert.False(t, res.Error, res.Text)
	assert.Equal(t, "Hello there.\nHello again.\n", read("doc.md"))
	assert.Equal(t, "edit doc.md:\n- world\n+ there", allow.authorized[1][0].Details)

	res = run1(t, b, allow, "edit_file", map[string]any{"path": "doc.md", "old_text": "Hello", "new_text": "Bye"})
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, "appears 2 times")
	res = run1(t, b, allow, "edit_file", map[string]any{"path": "doc.md", "old_text": "Hello", "new_text": "Bye", "replace_all": true})
	assert.False(t, res.Error, res.Text)
	assert.Equal(t, "Bye there.\nBye again.\n", read("doc.md"))
	res = run1(t, b, allow, "edit_file", map[string]any{"path": "doc.md", "old_text": "absent", "new_text": "x"})
	assert.Contains(t, res.Text, "does not appear")
	assert.Len(t, allow.authorized, 3, "a failed edit asks nobody")

	deny := &fakeTools{verdict: gate.Verdict{Text: "keep it as it is"}}
	res = run1(t, b, deny, "write_file", map[string]any{"path": "doc.md", "content": "gone"})
	assert.Equal(t, protocol.ToolResult{Call: "c", Name: "write_file", Text: "rejected by the user: keep it as it is", Error: true}, res)
	assert.Equal(t, "Bye there.\nBye again.\n", read("doc.md"))

	late := &fakeTools{verdict: gate.Verdict{Text: "no answer in time"}}
	res = run1(t, b, late, "write_file", map[string]any{"path": "doc.md", "content": "gone"})
	assert.Equal(t, "no answer in time", res.Text)
}

func TestRunCommand(t *testing.T) {
	b := box(t, map[string]string{"f.txt": "content\n"})
	allow := &fakeTools{verdict: gate.Verdict{Allowed: true}}
	res := run1(t, b, allow, "run_command", map[string]any{"argv": []string{"cat", "f.txt"}})
	assert.Equal(t, "exit status 0\nstdout:\ncontent", res.Text)
	assert.JSONEq(t, `{"argv":["cat","f.txt"],"code":0,"failure":""}`, string(res.Details), "the receipt")
	assert.Equal(t, []gate.ToolCall{{Tool: "run", Words: []string{"cat", "f.txt"}, Details: "cat f.txt"}}, allow.authorized[0])

	res = run1(t, b, allow, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo out; echo err >&2; exit 3"}})
	assert.True(t, res.Error)
	assert.Equal(t, "exited with status 3\nstdout:\nout\nstderr:\nerr", res.Text)

	res = run1(t, b, allow, "run_command", map[string]any{"argv": "cat f.txt | wc"})
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, "there is no shell")
	res = run1(t, b, allow, "run_command", map[string]any{"argv": []string{"sleep", "5"}, "timeout_seconds": 0.2})
	assert.Contains(t, res.Text, "timed out after 200ms")

	deny := &fakeTools{verdict: gate.Verdict{}}
	res = run1(t, b, deny, "run_command", map[string]any{"argv": []string{"touch", "made"}})
	assert.Equal(t, "rejected by the user", res.Text)
	_, err := os.Stat(filepath.Join(b.Host.Workspace, "made"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestOneMessagesGatedCallsAreOneBatch(t *testing.T) {
	b := box(t, nil)
	// The user rejected the batch, but a grant let the command through.
	tools := &fakeTools{verdict: gate.Verdict{Text: "not now", Granted: []bool{false, true}}}
	calls := []protocol.ToolCall{
		{ID: "1", Name: "write_file", Arguments: `{"path":"a","content":"x"}`},
		{ID: "2", Name: "read_file", Arguments: `{"path":"a"}`},
		{ID: "3", Name: "run_command", Arguments: `{"argv":["true"]}`},
		{ID: "4", Name: "nope", Arguments: `{}`},
		{ID: "5", Name: "write_file", Arguments: `{"path":`},
	}
	res, wrong, err := b.Run(context.Background(), tools, calls)
	require.NoError(t, err)
	require.Len(t, tools.authorized, 1, "one decision")
	assert.Len(t, tools.authorized[0], 2, "the write and the command; not the read, nor the broken calls")
	assert.Equal(t, 2, wrong)
	require.Len(t, res, 5)
	assert.Equal(t, "rejected by the user: not now", res[0].Text)
	assert.Contains(t, res[1].Text, "no such file", "run in order: the rejected write did not happen")
	assert.Equal(t, "exit status 0", res[2].Text, "granted")
	assert.Contains(t, res[3].Text, `no tool named "nope"`)
	assert.Contains(t, res[4].Text, "not a JSON object")
	for i, r := range res {
		assert.Equal(t, calls[i].ID, r.Call)
	}
}

func TestAnAbortedApprovalEndsTheTurn(t *testing.T) {
	b := box(t, nil)
	tools := &fakeTools{authErr: decision.ErrAborted}
	_, _, err := b.Run(context.Background(), tools, []protocol.ToolCall{{ID: "1", Name: "write_file", Arguments: `{"path":"a","content":"x"}`}})
	assert.True(t, errors.Is(err, decision.ErrAborted))
}

func TestAskUser(t *testing.T) {
	b := box(t, nil)
	tools := &fakeTools{answer: decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`"blue"`)}}
	res := run1(t, b, tools, "ask_user", `{"message":"Colour?","schema":{"type":"string","oneOf":[{"const":"blue"},{"const":"red"}],"allowOther":false}}`)
	assert.Equal(t, `the user answered: "blue"`, res.Text)
	require.Len(t, tools.asked, 1)
	assert.Equal(t, protocol.KindAsk, tools.asked[0].Kind)
	assert.Len(t, tools.asked[0].Schema.Choices(), 2)
	assert.Nil(t, tools.asked[0].Schema.AllowOther, "the model does not decide Other…")

	tools.answer = decision.Answer{Action: protocol.ActionDecline, Reason: protocol.ReasonTimeout}
	res = run1(t, b, tools, "ask_user", `{"message":"Colour?"}`)
	assert.Equal(t, "no answer in time", res.Text)
	assert.Equal(t, &protocol.Schema{Type: "string"}, tools.asked[1].Schema, "no schema: a text question")

	tools.answer = decision.Answer{Action: protocol.ActionDecline, Reason: "ask me later"}
	res = run1(t, b, tools, "ask_user", `{"message":"Colour?"}`)
	assert.Equal(t, "the user declined to answer: ask me later", res.Text)

	res = run1(t, b, tools, "ask_user", `{"message":"Colour?","schema":{"type":"object","properties":{"a":{"type":"object"}}}}`)
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, "the question cannot be asked")
	assert.Len(t, tools.asked, 3, "an invalid question is not asked")
}

func TestQuestionPolicy(t *testing.T) {
	yes := true
	cases := []struct {
		name string
		in   *protocol.Schema
		want *protocol.Schema
	}{
		{"nil", nil, &protocol.Schema{Type: "string"}},
		{"untyped", &protocol.Schema{Title: "x"}, &protocol.Schema{Type: "string"}},
		{"empty enum with other", &protocol.Schema{Type: "string", Enum: []string{}, AllowOther: &yes}, &protocol.Schema{Type: "string"}},
		{"empty oneOf", &protocol.Schema{Type: "string", OneOf: []protocol.EnumOption{}}, &protocol.Schema{Type: "string"}},
		{"choices keep, other dropped", &protocol.Schema{Type: "string", Enum: []string{"a"}, AllowOther: &yes}, &protocol.Schema{Type: "string", Enum: []string{"a"}}},
		{"array without choices", &protocol.Schema{Type: "array", Title: "Tags", Items: &protocol.ItemsSchema{}}, &protocol.Schema{Type: "string", Title: "Tags", Multiline: true}},
		{"form", &protocol.Schema{Type: "object", Properties: protocol.Properties{{Key: "k", Schema: &protocol.Schema{Type: "string", Enum: []string{}}}}},
			&protocol.Schema{Type: "object", Properties: protocol.Properties{{Key: "k", Schema: &protocol.Schema{Type: "string"}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Question(c.in))
		})
	}
}

func TestRunFunction(t *testing.T) {
	b := box(t, map[string]string{".parley/functions/greet.star": `
PARAMS = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

def main(args):
    print("greeting", args["name"])
    return "hello " + args["name"]
`})
	tools := &fakeTools{}
	res := run1(t, b, tools, "run_function", map[string]any{"name": "greet", "args": map[string]any{"name": "Ada"}})
	assert.False(t, res.Error, res.Text)
	assert.Equal(t, "log: greeting Ada\nresult: hello Ada", res.Text)

	res = run1(t, b, tools, "run_function", map[string]any{"name": "greet", "args": map[string]any{}})
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, "do not fit greet's parameters")
	res = run1(t, b, tools, "run_function", map[string]any{"name": "absent"})
	assert.Contains(t, res.Text, `there is no function "absent"`)
	assert.Contains(t, res.Text, "greet")
	assert.Contains(t, b.Defs()[6].Description, "Functions here:")
}

// TestAnUnknownToolSaysWhy: a call to a tool the box does not hold says so and lists the
// tools; one of an MCP server's tools says its server is not connected, not that it never
// existed (QA round 21: a resumed turn called it while its server started).
func TestAnUnknownToolSaysWhy(t *testing.T) {
	b := box(t, nil)
	res := run1(t, b, &fakeTools{}, "delete_everything", map[string]any{})
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, `there is no tool named "delete_everything"; the tools are read_file`)
	res = run1(t, b, &fakeTools{}, "mcp__everything__echo", map[string]any{})
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, `the tool "mcp__everything__echo" is not available now: its MCP server is not connected`)
}

// failingExtra is an extra tool source (as the MCP bridge) whose server has just gone: its
// tools are still listed, and Prepare fails.
type failingExtra struct{}

func (failingExtra) Defs() []Def          { return nil }
func (failingExtra) Has(name string) bool { return name == "mcp__bad__huge" }
func (failingExtra) Prepare(string, json.RawMessage) (*gate.ToolCall, func(context.Context, agent.Tools) (protocol.ToolResult, error), error) {
	return nil, nil, errors.New(`the MCP server "bad" is restarting`)
}

// TestAToolThatCannotBePreparedRunsNothing: an extra tool whose Prepare fails is the call's
// error result, beside a call that runs; the turn goes on (QA round 22, P1: the server
// crashed calling the missing run).
func TestAToolThatCannotBePreparedRunsNothing(t *testing.T) {
	b := box(t, map[string]string{"a.txt": "alpha"})
	b.Extra = failingExtra{}
	res, _, err := b.Run(context.Background(), &fakeTools{}, []protocol.ToolCall{
		{ID: "1", Name: "mcp__bad__huge", Arguments: `{}`},
		{ID: "2", Name: "read_file", Arguments: `{"path": "a.txt"}`},
	})
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.True(t, res[0].Error)
	assert.Contains(t, res[0].Text, `the MCP server "bad" is restarting`)
	assert.False(t, res[1].Error, res[1].Text)
	assert.Contains(t, res[1].Text, "alpha")
}

// In the "ask for everything" mode a read is asked like a write, about the file it really
// reaches; a refusal is the read's result.
func TestReadsAskInAskForEverything(t *testing.T) {
	b := box(t, map[string]string{"docs/a.txt": "secret"})
	require.NoError(t, os.Symlink("docs/a.txt", filepath.Join(b.Host.Workspace, "link")))
	tools := &fakeTools{mode: protocol.PermissionAsk, verdict: gate.Verdict{Text: "not that one"}}
	res := run1(t, b, tools, "read_file", map[string]any{"path": "link"})
	require.Len(t, tools.authorized, 1)
	assert.Equal(t, []gate.ToolCall{{Tool: "read", Words: []string{"docs/a.txt"}, Details: "read_file docs/a.txt"}}, tools.authorized[0])
	assert.True(t, res.Error)
	assert.Equal(t, "rejected by the user: not that one", res.Text)
	assert.NotContains(t, res.Text, "secret")
}
