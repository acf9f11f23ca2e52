package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"parley/protocol"
	"parley/runtime/catalogue"
	"parley/runtime/script"
)

// ListCommands lists the slash commands and a workspace's examples ("" names the default
// workspace), for /help and the browser's menu.
func (r *Runtime) ListCommands(workspaceID string) (protocol.CommandList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.CommandList{}, err
	}
	return catalogue.Commands(ws.Path), nil
}

// ListFunctions describes every function the fn-form can run in a workspace ("" names the
// default one). A workspace file that does not load is listed with its error, so its author
// sees why it cannot run.
func (r *Runtime) ListFunctions(workspaceID string) (protocol.FunctionList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.FunctionList{}, err
	}
	return catalogue.FunctionList(ws.Path), nil
}

// ListSkills lists a workspace's skills ("" names the default workspace), sorted by name.
func (r *Runtime) ListSkills(workspaceID string) (protocol.SkillList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.SkillList{}, err
	}
	return catalogue.Skills(ws.Path), nil
}

// SearchFiles returns a workspace's files and folders ("" names the default workspace) that
// best match q, at most limit of them, best first; Truncated says more matched. See
// catalogue.Files.Search for the order.
func (r *Runtime) SearchFiles(workspaceID, q string, limit int) (protocol.FileList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.FileList{}, err
	}
	return ws.files.Search(q, limit)
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
	entry, ok := catalogue.Functions(ws.Path)[name]
	if !ok {
		return protocol.RunFunctionResponse{}, fmt.Errorf("function %q: %w", name, ErrNoFunction)
	}
	if entry.Problem != "" {
		return protocol.RunFunctionResponse{}, fmt.Errorf("%w: %s (%s): %s", ErrFunctionBroken, name, entry.Origin, entry.Problem)
	}
	fn, err := script.LoadFunction(name, entry.Source)
	if err != nil {
		return protocol.RunFunctionResponse{}, fmt.Errorf("%w: %s (%s): %v", ErrFunctionBroken, name, entry.Origin, err)
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
	title := fn.Title
	if strings.TrimSpace(title) == "" {
		title = name
	}
	if session == "" {
		info, err := r.CreateSession(ctx, protocol.CreateSessionRequest{Title: title, Workspace: ws.ID})
		if err != nil {
			return protocol.RunFunctionResponse{}, err
		}
		session = info.ID
	}
	run := protocol.FunctionRunPrefix + r.opts.NewID()
	err = r.startFunctionTurn(ctx, session, run, func(ctx context.Context) {
		r.execute(ctx, ws, session, protocol.RunStarted{ID: run, Kind: protocol.RunFunction, Name: name, Title: strings.TrimSpace(fn.Title), Args: args, Source: entry.Origin},
			func(ctx context.Context, caps script.Caps) (string, error) {
				return ws.host.Call(ctx, name, entry.Source, args, caps)
			})
	})
	if err != nil {
		return protocol.RunFunctionResponse{}, err
	}
	// A run is a use of the session, as a prompt is: a blank session (the hero's) is named
	// after the function and dated from the run, not left as "New session" from the time the
	// empty page opened; a used one moves up the list. The index is not the truth: a failure
	// fails nothing.
	now := r.opts.Now().UnixMilli()
	if err := r.sessions.markUsed(ctx, session, title, now); err != nil {
		slog.Warn("session index", "err", err)
	}
	r.sessions.touch(ctx, session, now, 0)
	return protocol.RunFunctionResponse{Session: session, Run: run}, nil
}
