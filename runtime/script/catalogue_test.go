package script

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

func TestCatalogueExamplesCompile(t *testing.T) {
	examples := BuiltinExamples()
	for _, slug := range []string{"hello", "echo-burst", "ask-deploy", "list-workspace", "git-status"} {
		if _, ok := examples[slug]; !ok {
			t.Errorf("no built-in example %q", slug)
		}
	}
	predeclared := (&env{}).predeclared()
	predeclared["vars"] = starlark.NewDict(0)
	for slug, src := range examples {
		// Parse and resolve: a typo'd name fails here, not when someone runs it.
		if _, _, err := starlark.SourceProgramOptions(fileOptions, "examples/"+slug+".star", src, predeclared.Has); err != nil {
			t.Errorf("%s: %v", slug, err)
		}
		if title, desc := Describe(src); title == "" || desc == "" {
			t.Errorf("%s: header title %q, description %q", slug, title, desc)
		}
	}
}

func TestHelloExample(t *testing.T) {
	h := newTestHost(t, Limits{})
	src := BuiltinExamples()["hello"]
	for vars, want := range map[string]string{
		`{"name": "Ada"}`: "Hello, Ada!",
		``:                "Hello, there!",
	} {
		caps := &fakeCaps{}
		out, err := h.Exec(context.Background(), "examples/hello.star", src, json.RawMessage(vars), caps)
		if err != nil || out != "" {
			t.Fatalf("hello %s: %q, %v", vars, out, err)
		}
		if sent := caps.sentMessages(); len(sent) != 1 || !strings.HasPrefix(sent[0], want) {
			t.Errorf("hello %s: sent %q; want %q…", vars, sent, want)
		}
	}
}

func TestEchoBurstExample(t *testing.T) {
	h := newTestHost(t, Limits{})
	src := BuiltinExamples()["echo-burst"]
	caps := &fakeCaps{verdict: func(_ context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
		if calls[0].Words[1] == "beta" {
			return gate.Verdict{Text: "not beta"}, nil
		}
		return gate.Verdict{Allowed: true}, nil
	}}
	if _, err := h.Exec(context.Background(), "examples/echo-burst.star", src, json.RawMessage(`{"words": ["alpha", "beta"]}`), caps); err != nil {
		t.Fatal(err)
	}
	if got := caps.sentMessages(); len(got) != 1 || got[0] != "echo alpha: alpha\necho beta did not run: not beta" {
		t.Errorf("sent %q", got)
	}
	if n := len(caps.authorized()); n != 2 {
		t.Errorf("%d approvals; want one per run", n)
	}
}

func TestAskDeployExample(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{answer: func(_ context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		if req.Kind == protocol.KindConfirm {
			return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage("true")}, nil
		}
		return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`"staging"`)}, nil
	}}
	if _, err := h.Exec(context.Background(), "examples/ask-deploy.star", BuiltinExamples()["ask-deploy"], nil, caps); err != nil {
		t.Fatal(err)
	}
	wantContains(t, strings.Join(caps.sentMessages(), "|"), "deploy to staging")
	if q := caps.questions(); len(q) != 2 || !q[0].Schema.IsSingleSelect() {
		t.Errorf("asked %+v", q)
	}
}

func TestListWorkspaceExample(t *testing.T) {
	h := newTestHost(t, Limits{})
	os.Mkdir(filepath.Join(h.Workspace, "src"), 0o755)
	os.WriteFile(filepath.Join(h.Workspace, "go.mod"), nil, 0o644)
	caps := &fakeCaps{}
	if _, err := h.Exec(context.Background(), "examples/list-workspace.star", BuiltinExamples()["list-workspace"], nil, caps); err != nil {
		t.Fatal(err)
	}
	wantContains(t, strings.Join(caps.sentMessages(), "|"), "1 folders and 1 files", "src/", "go.mod")
}

func TestGitStatusExample(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{verdict: reject("no git today")}
	if _, err := h.Exec(context.Background(), "examples/git-status.star", BuiltinExamples()["git-status"], nil, caps); err != nil {
		t.Fatal(err)
	}
	if got := caps.sentMessages(); len(got) != 1 || got[0] != "git status did not run: no git today" {
		t.Errorf("sent %q", got)
	}
	if b := caps.authorized(); len(b) != 1 || b[0][0].Details != "git status --short" {
		t.Errorf("authorized %+v", b)
	}
}

func TestDescribe(t *testing.T) {
	title, desc := Describe("#!/usr/bin/env parley\n#\n# Title here\n# first line\n# continues\n#\n# second para\nsend('x')\n# not header\n")
	if title != "Title here" || desc != "first line continues\nsecond para" {
		t.Errorf("Describe: %q, %q", title, desc)
	}
	if title, desc := Describe("send('x')\n"); title != "" || desc != "" {
		t.Errorf("no header: %q, %q", title, desc)
	}
}

// Messages are plain text: a fence would show as backticks.
func TestGitStatusExampleSendsPlainText(t *testing.T) {
	for name, src := range BuiltinExamples() {
		if strings.Contains(src, "```") {
			t.Errorf("examples/%s.star sends Markdown fences", name)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to run the git-status example (CI clones with git, so it is there)")
	}
	h := newTestHost(t, Limits{})
	init := exec.Command("git", "init", "-q", h.Workspace)
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(h.Workspace, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	caps := &fakeCaps{}
	if _, err := h.Exec(context.Background(), "examples/git-status.star", BuiltinExamples()["git-status"], nil, caps); err != nil {
		t.Fatal(err)
	}
	if got := caps.sentMessages(); len(got) != 1 || got[0] != "git status --short:\n?? new.txt" {
		t.Errorf("sent %q", got)
	}
}
