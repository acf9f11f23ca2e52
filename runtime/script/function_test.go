package script

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"parley/protocol"
)

func TestLoadBuiltinFunctions(t *testing.T) {
	fns := BuiltinFunctions()
	for _, name := range []string{"greet", "word-count", "make-note"} {
		if _, ok := fns[name]; !ok {
			t.Errorf("no built-in function %q", name)
		}
	}
	for name, src := range fns {
		fn, err := LoadFunction("functions/"+name+".star", src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fn.Name != name || fn.Title == "" || fn.Description == "" || fn.Params == nil {
			t.Errorf("%s: described as %+v", name, fn)
		}
		if err := fn.Params.Check(); err != nil || fn.Params.Type != "object" {
			t.Errorf("%s: PARAMS %v", name, err)
		}
	}
	fn, _ := LoadFunction("greet", fns["greet"])
	var keys []string
	for _, p := range fn.Params.Properties {
		keys = append(keys, p.Key)
	}
	if !slices.Equal(keys, []string{"name", "excited"}) || !slices.Equal(fn.Params.Required, []string{"name"}) {
		t.Errorf("greet params %v required %v", keys, fn.Params.Required)
	}
	if string(fn.Params.Properties[1].Schema.Default) != "false" {
		t.Errorf("excited default %s", fn.Params.Properties[1].Schema.Default)
	}
}

func TestLoadFunctionRefusals(t *testing.T) {
	const main = "\ndef main(args):\n    return 1\n"
	for src, want := range map[string]string{
		`PARAMS = {"type": "string"}` + main:                                                             "PARAMS must be an object schema",
		`PARAMS = {"type": "object", "properties": {"a": {"type": "nope"}}}` + main:                      "fn.star:1:1: PARAMS.properties.a.type: unknown type",
		`PARAMS = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}` + main: "fn.star:1:1: PARAMS.required",
		`PARAMS = "name"` + main:                "want a dict",
		`TITLE = 3` + main:                      "TITLE must be a string",
		`DESCRIPTION = None` + main:             "DESCRIPTION must be a string",
		`x = 1`:                                 "does not define main(args)",
		`main = 3`:                              "main must be a function",
		"def main(a, b):\n    pass\n":           "exactly one parameter",
		"def main(*args):\n    pass\n":          "exactly one parameter",
		"def main():\n    pass\n":               "exactly one parameter",
		"send('hi')" + main:                     "send is only available while the function runs",
		"run(['rm', '-rf', '/'])" + main:        "run is only available while the function runs",
		"list()" + main:                         "list is only available while the function runs",
		"for i in range(10000000): pass" + main: "step limit",
		"def main(args)\n    pass\n":            "fn.star:2:1:",
	} {
		_, err := LoadFunction("fn.star", src)
		if err == nil {
			t.Errorf("%q loaded", src)
			continue
		}
		wantContains(t, err.Error(), want)
	}
	// No PARAMS: a function without parameters.
	fn, err := LoadFunction("fn.star", "print('loading is quiet')\nx = list((1, 2))"+main)
	if err != nil || fn.Params == nil || fn.Params.Type != "object" || len(fn.Params.Properties) != 0 || fn.Name != "fn" {
		t.Errorf("no PARAMS: %+v, %v", fn, err)
	}
}

func TestCallGreet(t *testing.T) {
	h := newTestHost(t, Limits{})
	src := BuiltinFunctions()["greet"]
	for args, want := range map[string]string{
		`{"name": "Ada"}`:                  "Hello, Ada.",
		`{"excited": true, "name": "Ada"}`: "Hello, Ada!",
	} {
		caps := &fakeCaps{}
		out, err := h.Call(context.Background(), "functions/greet.star", src, json.RawMessage(args), caps)
		if err != nil || out != want {
			t.Errorf("%s: %q, %v; want %q", args, out, err, want)
		}
		if sent := caps.sentMessages(); !slices.Equal(sent, []string{want}) {
			t.Errorf("%s: sent %q", args, sent)
		}
	}
	for args, want := range map[string]string{
		`{}`:                      "name: is required",
		`{"name": "Ada", "x": 1}`: "x: is not a question of this form",
		`{"name": 3}`:             "name",
		`[1]`:                     "JSON object",
	} {
		_, err := h.Call(context.Background(), "functions/greet.star", src, json.RawMessage(args), &fakeCaps{})
		if err == nil {
			t.Errorf("%s: called", args)
			continue
		}
		wantContains(t, err.Error(), "functions/greet.star", want)
	}
}

func TestCallWordCount(t *testing.T) {
	h := newTestHost(t, Limits{})
	if err := os.WriteFile(filepath.Join(h.Workspace, "doc.txt"), []byte("one two\nthrée\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := h.Call(context.Background(), "functions/word-count.star", BuiltinFunctions()["word-count"], json.RawMessage(`{"path": "doc.txt"}`), &fakeCaps{})
	if want := `{"path":"doc.txt","lines":2,"words":3,"characters":14,"bytes":15}`; err != nil || out != want {
		t.Errorf("word-count: %s, %v; want %s", out, err, want)
	}
	_, err = h.Call(context.Background(), "functions/word-count.star", BuiltinFunctions()["word-count"], json.RawMessage(`{"path": "../x"}`), &fakeCaps{})
	if err == nil {
		t.Fatal("word-count read outside the workspace")
	}
	wantContains(t, err.Error(), "leaves the workspace", "functions/word-count.star:14:")
}

func TestCallMakeNote(t *testing.T) {
	h := newTestHost(t, Limits{})
	src := BuiltinFunctions()["make-note"]
	args := json.RawMessage(`{"title": "Release plan, v2!", "body": "ship it"}`)

	caps := &fakeCaps{answer: accept("true")}
	out, err := h.Call(context.Background(), "functions/make-note.star", src, args, caps)
	if err != nil || out != "notes/release-plan-v2.md" {
		t.Fatalf("make-note: %q, %v", out, err)
	}
	data, err := os.ReadFile(filepath.Join(h.Workspace, "notes", "release-plan-v2.md"))
	if err != nil || string(data) != "# Release plan, v2!\n\nship it\n" {
		t.Errorf("note %q, %v", data, err)
	}
	if q := caps.questions(); len(q) != 1 || q[0].Kind != protocol.KindConfirm {
		t.Errorf("asked %+v", q)
	}
	if b := caps.authorized(); len(b) != 1 || b[0][0].Tool != "write" || b[0][0].Words[0] != "notes/release-plan-v2.md" {
		t.Errorf("authorized %+v", b)
	}

	// Confirmed but the write rejected: nothing written, no result.
	os.RemoveAll(filepath.Join(h.Workspace, "notes"))
	caps = &fakeCaps{answer: accept("true"), verdict: reject("no notes today")}
	out, err = h.Call(context.Background(), "functions/make-note.star", src, args, caps)
	if err != nil || out != "" {
		t.Errorf("rejected: %q, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(h.Workspace, "notes")); !os.IsNotExist(err) {
		t.Error("a rejected note was written")
	}
	wantContains(t, caps.sentMessages()[0], "no notes today")

	// Not confirmed: not even asked for approval.
	caps = &fakeCaps{answer: accept("false")}
	if _, err := h.Call(context.Background(), "functions/make-note.star", src, args, caps); err != nil || len(caps.authorized()) != 0 {
		t.Errorf("declined confirm: %v, %d approvals", err, len(caps.authorized()))
	}
}

func TestCallErrorsCarryLineNumbers(t *testing.T) {
	h := newTestHost(t, Limits{})
	src := "def helper(x):\n    return x + 'a'\n\ndef main(args):\n    return helper(args['n'])\n"
	_, err := h.Call(context.Background(), "fn.star", src, json.RawMessage(`{"n": 1}`), &fakeCaps{})
	if err == nil {
		t.Fatal("no error")
	}
	wantContains(t, err.Error(), "fn.star:5:", "fn.star:2:", "in helper", "in main")
	out, err := h.Call(context.Background(), "fn.star", "def main(args):\n    return None\n", nil, &fakeCaps{})
	if err != nil || out != "" {
		t.Errorf("None result: %q, %v", out, err)
	}
}

// A function with no parameters may say so with an empty PARAMS, and is called with none.
func TestFunctionWithEmptyParams(t *testing.T) {
	src := "TITLE = \"Ping\"\nPARAMS = {\"type\": \"object\", \"properties\": {}}\n\ndef main(args):\n    return \"pong %d\" % len(args)\n"
	fn, err := LoadFunction("functions/ping.star", src)
	if err != nil || fn.Params == nil || fn.Params.Type != "object" || len(fn.Params.Properties) != 0 {
		t.Fatalf("LoadFunction: %+v, %v", fn, err)
	}
	h := newTestHost(t, Limits{})
	if out, err := h.Call(context.Background(), "functions/ping.star", src, nil, &fakeCaps{}); err != nil || out != "pong 0" {
		t.Errorf("Call: %q, %v", out, err)
	}
	_, err = LoadFunction("fn.star", `PARAMS = {"type": "object", "properties": {}, "required": ["x"]}`+"\ndef main(args):\n    pass\n")
	if err == nil {
		t.Fatal("an empty PARAMS that requires a parameter loaded")
	}
	wantContains(t, err.Error(), "fn.star:1:1: PARAMS: required", "no properties")
}

// TestFunctionChoicesAreClosed: main(args) gets one of a parameter's own choices, unless
// PARAMS opens "Other…" on it (as a script's ask(); QA round 22).
func TestFunctionChoicesAreClosed(t *testing.T) {
	fn, err := LoadFunction("functions/env.star", `PARAMS = {"type": "object", "properties": {"env": {"type": "string", "enum": ["dev", "prod"]}, "tag": {"type": "string", "enum": ["a"], "allowOther": True}}}`+"\ndef main(args):\n    pass\n")
	if err != nil {
		t.Fatal(err)
	}
	env, tag := fn.Params.Properties[0].Schema, fn.Params.Properties[1].Schema
	if env.AllowOther == nil || *env.AllowOther || tag.AllowOther == nil || !*tag.AllowOther {
		t.Errorf("allowOther: env %v, tag %v; want env closed, tag open", env.AllowOther, tag.AllowOther)
	}
}

// LoadFunction's errors say where, in a person's words: never a Go type.
func TestLoadFunctionErrorsAreWorded(t *testing.T) {
	const main = "\n\ndef main(args):\n    return 1\n"
	for src, want := range map[string]string{
		"x = 1\nPARAMS = {\"type\": 3}" + main:                                                          `fn.star:2:1: PARAMS: type must be a string, not a number`,
		`PARAMS = {"type": "object", "required": "a", "properties": {"a": {"type": "string"}}}` + main:  `fn.star:1:1: PARAMS: required must be a list of strings, not a string`,
		`PARAMS = {"type": "object", "properties": {"a": {"type": "string", "minLength": "3"}}}` + main: `fn.star:1:1: PARAMS: property "a": minLength must be a whole number, not a string`,
		`PARAMS = {"type": "object", "properties": {"a": {"type": "array", "items": [1]}}}` + main:      `fn.star:1:1: PARAMS: property "a": items must be a dict, not a list`,
		"\n\nTITLE = [\"x\"]" + main:         `fn.star:3:1: TITLE must be a string, not a list`,
		"x = 1\n":                            `fn.star: the file does not define main(args)`,
		"x = 1\n\ndef main(a, b):\n  pass\n": `fn.star:3:1: main must take exactly one parameter`,
		"\nmain = 3\n":                       `fn.star:2:1: main must be a function, not a int`,
		"def main(args)\n    pass\n":         `fn.star:2:1: got newline, want ':'`,
	} {
		_, err := LoadFunction("fn.star", src)
		if err == nil {
			t.Errorf("%q loaded", src)
			continue
		}
		wantContains(t, err.Error(), want)
		if strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "interface {}") || strings.Contains(err.Error(), "json:") {
			t.Errorf("%q: %q speaks Go", src, err)
		}
	}
}

// Arguments that are not an object are refused in words, not Go's.
func TestCallArgumentsAreWorded(t *testing.T) {
	h := newTestHost(t, Limits{})
	for args, want := range map[string]string{
		`[1, 2]`: `functions/greet.star: the arguments must be a JSON object like {"name": "Ada"}, not [1, 2]`,
		`{"a":`:  `functions/greet.star: the arguments must be a JSON object like {"name": "Ada"}, and this is not valid JSON`,
	} {
		_, err := h.Call(context.Background(), "functions/greet.star", BuiltinFunctions()["greet"], json.RawMessage(args), &fakeCaps{})
		if err == nil {
			t.Fatalf("%s: called", args)
		}
		wantContains(t, err.Error(), want)
	}
	_, err := h.Exec(context.Background(), "script", "pass", json.RawMessage(`["Ada"]`), &fakeCaps{})
	if err == nil {
		t.Fatal("vars that are not an object were accepted")
	}
	wantContains(t, err.Error(), `script: vars must be a JSON object like {"name": "Ada"}, not ["Ada"]`)
}
