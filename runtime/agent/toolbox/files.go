package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/gate"
	"parley/runtime/script"
)

// Bounds of what one file tool returns to the model: the script host's read limit (1 MiB)
// is far more than a context window holds.
const (
	maxReadBytes    = 100 << 10
	maxSearchHits   = 100
	maxSearchFiles  = 5000
	maxSearchLineCh = 300
)

// registry is every tool, in the order the model is shown them.
var registry = []tool{
	{def: Def{Name: "read_file", Description: "Read a text file of the workspace. Paths are relative to the workspace. " +
		"Long files come back in part; ask for a range with start_line and line_count.",
		Parameters: schema(`{"type":"object","properties":{
			"path":{"type":"string","description":"the file, relative to the workspace"},
			"start_line":{"type":"integer","minimum":1,"description":"first line to return (1-based)"},
			"line_count":{"type":"integer","minimum":1,"description":"how many lines to return"}},
			"required":["path"]}`)}, prepare: prepareRead},
	{def: Def{Name: "list_files", Description: "List a folder of the workspace: its entries, folders with a trailing /.",
		Parameters: schema(`{"type":"object","properties":{
			"path":{"type":"string","description":"the folder, relative to the workspace; . for its root"}}}`)}, prepare: prepareList},
	{def: Def{Name: "search_files", Description: "Search the text files of the workspace for lines that match a pattern " +
		"(a regular expression, RE2 syntax). Returns path:line: text for each match.",
		Parameters: schema(`{"type":"object","properties":{
			"pattern":{"type":"string","description":"RE2 regular expression"},
			"path":{"type":"string","description":"folder to search in, relative to the workspace (default: all of it)"}},
			"required":["pattern"]}`)}, prepare: prepareSearch},
	{def: Def{Name: "write_file", Description: "Write a whole file of the workspace (created with its folders, or replaced). " +
		"The user approves every write.",
		Parameters: schema(`{"type":"object","properties":{
			"path":{"type":"string","description":"the file, relative to the workspace"},
			"content":{"type":"string","description":"the file's complete new text"}},
			"required":["path","content"]}`)}, prepare: prepareWrite},
	{def: Def{Name: "edit_file", Description: "Replace text in a file of the workspace: old_text must appear exactly once " +
		"(or set replace_all). The user approves every edit.",
		Parameters: schema(`{"type":"object","properties":{
			"path":{"type":"string","description":"the file, relative to the workspace"},
			"old_text":{"type":"string","description":"the exact text to replace, with enough context to be unique"},
			"new_text":{"type":"string","description":"the text to put in its place"},
			"replace_all":{"type":"boolean","description":"replace every occurrence"}},
			"required":["path","old_text","new_text"]}`)}, prepare: prepareEdit},
	{def: Def{Name: "run_command", Description: "Run a program in the workspace, without a shell: argv is the program and " +
		"its arguments as separate words (no pipes, redirections or globs). Needs the user's approval or an earlier " +
		"\"always\". Returns the exit code and the output.",
		Parameters: schema(`{"type":"object","properties":{
			"argv":{"type":"array","items":{"type":"string"},"minItems":1,"description":"program and arguments, e.g. [\"go\",\"test\",\"./...\"]"},
			"timeout_seconds":{"type":"number","description":"stop it after this long (at most the server's limit)"}},
			"required":["argv"]}`)}, prepare: prepareCommand},
	{def: Def{Name: "run_function", Description: "Run one of the workspace's functions (.parley/functions) with arguments " +
		"that fit its parameters. What it runs or writes asks the user as usual.",
		Parameters: schema(`{"type":"object","properties":{
			"name":{"type":"string"},
			"args":{"type":"object","description":"the function's arguments"}},
			"required":["name"]}`)}, prepare: prepareFunction},
	{def: Def{Name: "ask_user", Description: askDescription, Parameters: schema(askParameters)}, prepare: prepareAsk},
}

// schema checks a literal schema once, at start.
func schema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("toolbox: invalid schema literal: " + s)
	}
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	b, _ := json.Marshal(v) // compact: the model pays for every byte
	return b
}

func prepareRead(b *Box, args json.RawMessage) (*plan, error) {
	var a struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		LineCount int    `json:"line_count"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if a.Path == "" {
		return nil, errors.New("path is missing: name a file relative to the workspace")
	}
	return b.readPlan(a.Path, "read_file ", func(context.Context) (string, error) {
		text, err := b.Host.ReadFile(a.Path)
		if err != nil {
			return "", err
		}
		return lineRange(text, a.StartLine, a.LineCount), nil
	})
}

// lineRange returns lines [start, start+count) of text (all when both are 0), bounded by
// maxReadBytes, saying what was left out so the model can ask for the rest.
func lineRange(text string, start, count int) string {
	if start <= 0 && count <= 0 && len(text) <= maxReadBytes {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the text ends with a newline: no line after it
	}
	from := max(start, 1) - 1
	if from >= len(lines) {
		return fmt.Sprintf("[the file has %d lines]", len(lines))
	}
	to := len(lines)
	if count > 0 {
		to = min(to, from+count)
	}
	var out strings.Builder
	n := from
	for ; n < to && out.Len()+len(lines[n]) <= maxReadBytes; n++ {
		out.WriteString(lines[n])
	}
	if n < len(lines) {
		fmt.Fprintf(&out, "\n[lines %d-%d of %d; read on with start_line %d]", from+1, n, len(lines), n+1)
	}
	return out.String()
}

func prepareList(b *Box, args json.RawMessage) (*plan, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if a.Path == "" {
		a.Path = "."
	}
	return b.readPlan(a.Path, "list_files ", func(context.Context) (string, error) {
		names, err := b.Host.ListDir(a.Path)
		if err != nil {
			return "", err
		}
		if len(names) == 0 {
			return "(empty folder)", nil
		}
		return strings.Join(names, "\n"), nil
	})
}

func prepareSearch(b *Box, args json.RawMessage) (*plan, error) {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil || a.Pattern == "" {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression: %v", err)
	}
	if a.Path == "" {
		a.Path = "."
	}
	return b.readPlan(a.Path, "search_files "+a.Pattern+" in ", func(ctx context.Context) (string, error) {
		return b.search(ctx, re, a.Path)
	})
}

// readPlan is the plan of a tool that reads p (what, then the target, is its line for the
// gate): read gives the tool's text, or the error it fails with.
func (b *Box) readPlan(p, what string, read func(context.Context) (string, error)) (*plan, error) {
	call, err := b.readGate(p, what)
	if err != nil {
		return nil, err
	}
	return &plan{gate: call, run: func(ctx context.Context, _ agent.Tools) (protocol.ToolResult, error) {
		text, err := read(ctx)
		if err != nil {
			return failed(err.Error())
		}
		return ok(text)
	}}, nil
}

// readGate is a read's call for the gate, about what the read really reaches (symlinks
// followed); a path out of the workspace is refused before anyone is asked. Reads pass the
// gate so that a session in the "ask for everything" mode sees them; in the other modes the
// gate lets them through at once (docs/runtime.md, "Permission modes").
func (b *Box) readGate(p, what string) (*gate.ToolCall, error) {
	target, err := b.Host.ReadTarget(p)
	if err != nil {
		return nil, err
	}
	return &gate.ToolCall{Tool: "read", Words: []string{target}, Details: what + target}, nil
}

// search greps the workspace's files under dir. The walk never follows a symlink, and every
// file is read through the host, so nothing outside the workspace is read.
func (b *Box) search(ctx context.Context, re *regexp.Regexp, dir string) (string, error) {
	if _, err := b.Host.ListDir(dir); err != nil { // confines dir, and says when it is not a folder
		return "", err
	}
	root := filepath.Join(b.Host.Workspace, dir)
	var out strings.Builder
	hits, files := 0, 0
	stop := errors.New("enough")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder: skip it
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == ".git" || name == "node_modules" || name == ".cache") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if files++; files > maxSearchFiles {
			return stop
		}
		rel, _ := filepath.Rel(b.Host.Workspace, p)
		rel = filepath.ToSlash(rel)
		text, err := b.Host.ReadFile(rel)
		if err != nil || strings.IndexByte(text, 0) >= 0 {
			return nil // too big, or binary
		}
		for i, line := range strings.Split(text, "\n") {
			if re.MatchString(line) {
				fmt.Fprintf(&out, "%s:%d: %s\n", rel, i+1, clip(strings.TrimRight(line, "\r"), maxSearchLineCh))
				if hits++; hits >= maxSearchHits {
					return stop
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, stop) {
		return "", err
	}
	switch {
	case hits == 0:
		return "no match", nil
	case errors.Is(err, stop):
		out.WriteString("[more matches not shown: narrow the pattern or the path]")
	}
	return out.String(), nil
}

func prepareWrite(b *Box, args json.RawMessage) (*plan, error) {
	var a struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if a.Path == "" || a.Content == nil {
		return nil, errors.New("path and content are both required")
	}
	return b.writePlan(a.Path, *a.Content, script.WriteDetails)
}

// writePlan gates a write of text to path: the gate is asked about the file really written
// (symlinks followed), the same way a script's write() is.
func (b *Box) writePlan(path, text string, details func(target, text string) string) (*plan, error) {
	target, err := b.Host.WriteTarget(path)
	if err != nil {
		return nil, err
	}
	call := gate.ToolCall{Tool: "write", Words: []string{target}, Details: details(target, text)}
	return &plan{gate: &call, run: func(context.Context, agent.Tools) (protocol.ToolResult, error) {
		if err := b.Host.WriteFile(target, text); err != nil {
			return failed(err.Error())
		}
		details, _ := json.Marshal(map[string]any{"path": target, "bytes": len(text)})
		return protocol.ToolResult{Text: fmt.Sprintf("wrote %d bytes to %s", len(text), target), Details: details}, nil
	}}, nil
}

func prepareEdit(b *Box, args json.RawMessage) (*plan, error) {
	var a struct {
		Path       string  `json:"path"`
		OldText    *string `json:"old_text"`
		NewText    *string `json:"new_text"`
		ReplaceAll bool    `json:"replace_all"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if a.Path == "" || a.OldText == nil || a.NewText == nil || *a.OldText == "" {
		return nil, errors.New("path, old_text (not empty) and new_text are all required")
	}
	old, err := b.Host.ReadFile(a.Path)
	if err != nil {
		return nil, err
	}
	n := strings.Count(old, *a.OldText)
	switch {
	case n == 0:
		return nil, fmt.Errorf("old_text does not appear in %s: read the file and copy the text exactly", a.Path)
	case n > 1 && !a.ReplaceAll:
		return nil, fmt.Errorf("old_text appears %d times in %s: add context to make it unique, or set replace_all", n, a.Path)
	}
	text := strings.ReplaceAll(old, *a.OldText, *a.NewText)
	if !a.ReplaceAll {
		text = strings.Replace(old, *a.OldText, *a.NewText, 1)
	}
	return b.writePlan(a.Path, text, func(target, _ string) string {
		return editDetails(target, *a.OldText, *a.NewText, n, a.ReplaceAll)
	})
}

// editDetails is what a person approves for an edit: the replaced and the new text.
func editDetails(target, oldText, newText string, n int, all bool) string {
	head := "edit " + target
	if all && n > 1 {
		head += fmt.Sprintf(" (%d places)", n)
	}
	quote := func(prefix, s string) string {
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		for i, l := range lines {
			lines[i] = prefix + l
		}
		return strings.Join(lines, "\n")
	}
	return clip(head+":\n"+quote("- ", oldText)+"\n"+quote("+ ", newText), protocol.MaxDetailsBytes/2)
}
