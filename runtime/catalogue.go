package runtime

import (
	"context"
	"errors"
	"fmt"
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
// name replaces it. Files are read on each use, so editing one needs no restart.

// WorkspaceDir is where a workspace keeps its own examples and functions.
const WorkspaceDir = ".parley"

// ErrNoFunction is returned for a function name the catalogue does not have.
var ErrNoFunction = errors.New("no such function")

// ErrFunctionBroken is returned for a function whose file does not load; the error says why.
var ErrFunctionBroken = errors.New("the function does not load")

type catalogueEntry struct {
	source string
	origin string // "builtin" or the workspace-relative path
}

func (ws *workspace) catalogue(kind string, builtin map[string]string) map[string]catalogueEntry {
	out := map[string]catalogueEntry{}
	for name, src := range builtin {
		out[name] = catalogueEntry{source: src, origin: "builtin"}
	}
	dir := filepath.Join(ws.Path, WorkspaceDir, kind)
	files, _ := filepath.Glob(filepath.Join(dir, "*.star"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".star")
		if !protocol.ValidSessionID(name) {
			continue // the name becomes part of a command and an id
		}
		src, err := os.ReadFile(f)
		if err != nil {
			slog.Warn("catalogue file unreadable", "file", f, "err", err)
			continue
		}
		out[name] = catalogueEntry{source: string(src), origin: filepath.ToSlash(filepath.Join(WorkspaceDir, kind, filepath.Base(f)))}
	}
	return out
}

func (ws *workspace) examples() map[string]catalogueEntry {
	return ws.catalogue("examples", script.BuiltinExamples())
}

func (ws *workspace) functions() map[string]catalogueEntry {
	return ws.catalogue("functions", script.BuiltinFunctions())
}

// ListCommands lists the slash commands and a workspace's examples ("" names the default
// workspace), for /help and the browser's menu.
func (r *Runtime) ListCommands(workspaceID string) (protocol.CommandList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.CommandList{}, err
	}
	return ws.commands(), nil
}

func (ws *workspace) commands() protocol.CommandList {
	list := protocol.CommandList{Commands: protocol.Commands}
	ex := ws.examples()
	for _, slug := range slices.Sorted(maps.Keys(ex)) {
		title, desc := script.Describe(ex[slug].source)
		description := sentence(title)
		if desc != "" {
			description += " " + sentence(desc)
		}
		if ex[slug].origin != "builtin" {
			description += " (from " + ex[slug].origin + ")"
		}
		list.Examples = append(list.Examples, protocol.CommandInfo{Name: slug, Usage: "/example " + slug, Description: description})
	}
	return list
}

// ListFunctions describes every function the fn-form can run in a workspace ("" names the
// default one). A workspace file that does not load is listed with its error, so its author
// sees why it cannot run.
func (r *Runtime) ListFunctions(workspaceID string) (protocol.FunctionList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.FunctionList{}, err
	}
	list := protocol.FunctionList{Functions: []protocol.Function{}}
	fns := ws.functions()
	for _, name := range slices.Sorted(maps.Keys(fns)) {
		fn, err := script.LoadFunction(name, fns[name].source)
		if err != nil {
			fn = protocol.Function{Name: name, Error: err.Error()}
		}
		fn.Source = fns[name].origin
		list.Functions = append(list.Functions, fn)
	}
	return list, nil
}

// sentence ends a phrase with a full stop unless it has its own punctuation.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:") {
		return s
	}
	return s + "."
}

// RunFunction validates the arguments against the function's parameters, starts the run in
// the given session or a new one, and returns at once: the run's events stream on the socket.
// The function comes from the session's workspace, or for a new session from the one the
// request names.
func (r *Runtime) RunFunction(ctx context.Context, name string, req protocol.RunFunctionRequest) (protocol.RunFunctionResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.RunFunctionResponse{}, err
	}
	ws, err := r.workspace(req.Workspace)
	if err != nil {
		return protocol.RunFunctionResponse{}, err
	}
	if req.Session != "" {
		info, err := r.Session(ctx, req.Session)
		if err != nil {
			return protocol.RunFunctionResponse{}, err
		}
		bound, err := r.sessionWorkspace(info)
		if err != nil {
			return protocol.RunFunctionResponse{}, err
		}
		if req.Workspace != "" && bound != ws {
			return protocol.RunFunctionResponse{}, &protocol.ValidationError{Fields: map[string]string{"workspace": fmt.Sprintf(
				"the session works in %s, not %s: leave workspace out, or run it without a session to start one there", bound.ID, ws.ID)}}
		}
		ws = bound
	}
	entry, ok := ws.functions()[name]
	if !ok {
		return protocol.RunFunctionResponse{}, fmt.Errorf("function %q: %w", name, ErrNoFunction)
	}
	fn, err := script.LoadFunction(name, entry.source)
	if err != nil {
		return protocol.RunFunctionResponse{}, fmt.Errorf("%w: %s (%s): %v", ErrFunctionBroken, name, entry.origin, err)
	}
	args, err := script.Arguments(fn.Params, req.Args)
	var invalid *protocol.ValidationError
	if err != nil && !errors.As(err, &invalid) {
		err = &protocol.ValidationError{Fields: map[string]string{"args": err.Error()}}
	}
	if err != nil {
		return protocol.RunFunctionResponse{}, err
	}
	session := req.Session
	if session == "" {
		info, err := r.CreateSession(ctx, protocol.CreateSessionRequest{Title: cmpOr(fn.Title, name), Workspace: ws.ID})
		if err != nil {
			return protocol.RunFunctionResponse{}, err
		}
		session = info.ID
	}
	run := "function:" + r.opts.NewID()
	err = r.startFunctionTurn(ctx, session, run, func(ctx context.Context) {
		r.execute(ctx, ws, session, protocol.RunStarted{ID: run, Kind: protocol.RunFunction, Name: name, Args: args, Source: entry.origin},
			func(ctx context.Context, caps script.Caps) (string, error) {
				return ws.host.Call(ctx, name, entry.source, args, caps)
			})
	})
	if err != nil {
		return protocol.RunFunctionResponse{}, err
	}
	return protocol.RunFunctionResponse{Session: session, Run: run}, nil
}
