// Package catalogue is what a workspace offers the composer and the command door: its
// examples and functions (built into the binary, or the workspace's own in .parley/), its
// skills, and the index of its files for the `@` menu. Everything is read from the folder
// on use, so an edit needs no restart; nothing here runs code or touches the event log.
package catalogue

import (
	"errors"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"parley/protocol"
	"parley/runtime/script"
)

// The catalogue: examples and functions built into the binary, and a workspace's own in
// .parley/examples/*.star and .parley/functions/*.star. A workspace file with a built-in's
// name replaces it.

// WorkspaceDir is where a workspace keeps its own examples, functions and skills.
const WorkspaceDir = ".parley"

// ErrNoFunction is returned for a function name the catalogue does not have.
var ErrNoFunction = errors.New("no such function")

// ErrFunctionBroken is returned for a function whose file does not load; the error says why.
var ErrFunctionBroken = errors.New("the function does not load")

// Entry is one example or function: its source, and where it comes from ("builtin" or the
// workspace-relative path).
type Entry struct {
	Source string
	Origin string
	// Problem says why a workspace file could not be read (Source is then empty): a link
	// that leaves the workspace, as a skill's.
	Problem string
}

func entries(workspace, kind string, builtin map[string]string) map[string]Entry {
	out := map[string]Entry{}
	for name, src := range builtin {
		out[name] = Entry{Source: src, Origin: "builtin"}
	}
	dir := filepath.Join(workspace, WorkspaceDir, kind)
	files, _ := filepath.Glob(filepath.Join(dir, "*.star"))
	if len(files) == 0 {
		return out
	}
	// Read within the workspace, as a skill is: a link out of it (a cloned repository can
	// ship one to ~/.env) is refused, where its contents were read, run, and quoted back in
	// a load error (QA round 26: "undefined: sk_live_…").
	root, err := os.OpenRoot(workspace)
	if err != nil {
		slog.Warn("catalogue unreadable", "workspace", workspace, "err", err)
		return out
	}
	defer root.Close()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".star")
		if !protocol.ValidSessionID(name) {
			continue // the name becomes part of a command and an id
		}
		origin := filepath.ToSlash(filepath.Join(WorkspaceDir, kind, filepath.Base(f)))
		src, err := readIn(root, filepath.Join(WorkspaceDir, kind, filepath.Base(f)))
		if err != nil {
			slog.Warn("catalogue file unreadable", "file", f, "err", err)
			out[name] = Entry{Origin: origin, Problem: "the file cannot be read: it may be a link that leaves the workspace"}
			continue
		}
		out[name] = Entry{Source: src, Origin: origin}
	}
	return out
}

// readIn reads a regular file of root.
func readIn(root *os.Root, name string) (string, error) {
	f, err := root.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	data, err := io.ReadAll(f)
	return string(data), err
}

// Examples are the workspace's examples by slug.
func Examples(workspace string) map[string]Entry {
	return entries(workspace, "examples", script.BuiltinExamples())
}

// Functions are the workspace's functions by name.
func Functions(workspace string) map[string]Entry {
	return entries(workspace, "functions", script.BuiltinFunctions())
}

// Commands lists the slash commands and the workspace's examples, for /help and the
// browser's menu.
func Commands(workspace string) protocol.CommandList {
	list := protocol.CommandList{Commands: protocol.Commands}
	ex := Examples(workspace)
	for _, slug := range slices.Sorted(maps.Keys(ex)) {
		if ex[slug].Problem != "" {
			continue // unreadable: /example says why
		}
		title, desc := script.Describe(ex[slug].Source)
		description := sentence(title)
		if desc != "" {
			description += " " + sentence(desc)
		}
		if ex[slug].Origin != "builtin" {
			description += " (from " + ex[slug].Origin + ")"
		}
		list.Examples = append(list.Examples, protocol.CommandInfo{Name: slug, Usage: "/example " + slug, Description: description})
	}
	return list
}

// FunctionList describes every function the fn-form can run in the workspace. A workspace
// file that does not load is listed with its error, so its author sees why it cannot run.
func FunctionList(workspace string) protocol.FunctionList {
	list := protocol.FunctionList{Functions: []protocol.Function{}}
	fns := Functions(workspace)
	for _, name := range slices.Sorted(maps.Keys(fns)) {
		fn, err := script.LoadFunction(name, fns[name].Source)
		if p := fns[name].Problem; p != "" {
			fn, err = protocol.Function{}, errors.New(p)
		}
		if err != nil {
			fn = protocol.Function{Name: name, Error: err.Error()}
		}
		fn.Source = fns[name].Origin
		list.Functions = append(list.Functions, fn)
	}
	return list
}

// sentence ends a phrase with a full stop unless it has its own punctuation.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:") {
		return s
	}
	return s + "."
}
