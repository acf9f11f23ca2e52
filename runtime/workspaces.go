package runtime

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"parley/protocol"
	"parley/runtime/catalogue"
	"parley/runtime/eventlog"
	"parley/runtime/script"
)

// Workspaces are the folders sessions work in. A session is bound to one when it is made;
// everything it does (scripts, examples, functions, the gate's rules and grants) uses that
// one. Requests that name none get the first, which protocol.DefaultWorkspace also names.

// ErrNoWorkspace is returned for a workspace id that Workspaces does not list, and for a
// session whose folder this runtime does not serve.
var ErrNoWorkspace = errors.New("no such workspace")

// workspace is one folder and what is kept per folder.
type workspace struct {
	protocol.Workspace
	host  *script.Host // confined to Path
	files *catalogue.Files
}

func newWorkspace(id, dir string, limits script.Limits) (*workspace, error) {
	host, err := script.NewHost(dir, limits)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	return &workspace{
		Workspace: protocol.Workspace{ID: id, Name: filepath.Base(host.Workspace), Path: host.Workspace},
		host:      host,
		files:     catalogue.NewFiles(host.Workspace, time.Now), // a cache's age is wall-clock time, whatever clock events use
	}, nil
}

// openWorkspaces resolves the folders (symlinks followed) and names them. The same folder
// twice is refused: its grants and its sessions would answer to two ids.
func openWorkspaces(dirs []string, limits script.Limits) ([]*workspace, error) {
	ids := workspaceIDs(dirs)
	out := make([]*workspace, 0, len(dirs))
	seen := map[string]string{}
	for i, dir := range dirs {
		ws, err := newWorkspace(ids[i], dir, limits)
		if err != nil {
			return nil, err
		}
		if first, ok := seen[ws.Path]; ok {
			return nil, fmt.Errorf("workspace %s is given twice (also as %s): give each folder once", dir, first)
		}
		seen[ws.Path] = dir
		out = append(out, ws)
	}
	out[0].Default = true
	return out, nil
}

// workspaceIDs names folders by their base names, lower-cased, with anything but letters,
// digits, '-' and '_' turned into '-', and -2, -3… after a name already taken. Only the first
// folder may be called "default", the alias every request may use for it.
func workspaceIDs(dirs []string) []string {
	taken := map[string]bool{}
	out := make([]string, len(dirs))
	for i, dir := range dirs {
		base := slug(filepath.Base(filepath.Clean(dir)))
		if i > 0 {
			taken[protocol.DefaultWorkspace] = true
		}
		id := base
		for n := 2; taken[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		taken[id] = true
		out[i] = id
	}
	return out
}

// slug makes a folder's name an id: at most 48 characters (room for a -N suffix within the
// 64 an id may have), never empty.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
		switch {
		case ok:
			b.WriteRune(c)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 48 {
			break
		}
	}
	s := strings.TrimSuffix(b.String(), "-")
	if s == "" {
		return "workspace"
	}
	return s
}

// Workspaces lists the workspaces a session can work in, the default first.
func (r *Runtime) Workspaces() protocol.WorkspaceList {
	list := protocol.WorkspaceList{Workspaces: make([]protocol.Workspace, len(r.workspaces))}
	for i, ws := range r.workspaces {
		list.Workspaces[i] = ws.Workspace
	}
	return list
}

// Workspace is the absolute directory of the default workspace.
func (r *Runtime) Workspace() string { return r.workspaces[0].Path }

// workspace returns the workspace with an id; "" and protocol.DefaultWorkspace name the
// default one.
func (r *Runtime) workspace(id string) (*workspace, error) {
	if id == "" || id == protocol.DefaultWorkspace {
		return r.workspaces[0], nil
	}
	for _, ws := range r.workspaces {
		if ws.ID == id {
			return ws, nil
		}
	}
	ids := make([]string, len(r.workspaces))
	for i, ws := range r.workspaces {
		ids[i] = ws.ID
	}
	return nil, fmt.Errorf("%w %q: the workspaces are %s (GET /api/workspaces)", ErrNoWorkspace, id, strings.Join(ids, ", "))
}

// sessionWorkspace is the workspace a session is bound to: the one with its folder, so a
// restart with the folders in another order keeps every binding; else the one with its id
// (a replica or a restart that has the folder at another path). A session from before
// workspaces had ids (id "default" or none) works in the default one, as it did then. A
// session whose folder and id are both gone has none: running it elsewhere would surprise.
func (r *Runtime) sessionWorkspace(info protocol.SessionInfo) (*workspace, error) {
	for _, ws := range r.workspaces {
		if ws.Path == info.Workspace {
			return ws, nil
		}
	}
	if ws, err := r.workspace(info.WorkspaceID); err == nil {
		return ws, nil
	}
	return nil, fmt.Errorf("%w: this session works in %s (%s), which this server does not serve: start Parley with -workspace %s",
		ErrNoWorkspace, info.Workspace, info.WorkspaceID, info.Workspace)
}

// workspaceOf is the workspace of a session, by its id. A session's binding never changes,
// so it is kept once read (r.bound): a turn needs no read of the session index, which on a
// cluster can be electing a leader just then.
func (r *Runtime) workspaceOf(ctx context.Context, session string) (*workspace, error) {
	if ws, ok := r.bound.Load(session); ok {
		return ws.(*workspace), nil
	}
	info, err := r.sessions.get(ctx, session)
	if err != nil {
		return nil, err
	}
	ws, err := r.sessionWorkspace(info)
	if err == nil {
		r.bound.Store(session, ws)
	}
	return ws, err
}

// turnWorkspace is workspaceOf for a turn that has started: the prompt was accepted, so a log
// that is unavailable for a moment (a leader election) is waited out, within the turn's
// context and at most a minute, rather than turned into "cannot run" (CI saw five of six
// scripts refused so while a node of the cluster was down).
func (r *Runtime) turnWorkspace(ctx context.Context, session string) (*workspace, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for pause := 50 * time.Millisecond; ; pause = min(2*pause, time.Second) {
		ws, err := r.workspaceOf(ctx, session)
		if err == nil || !errors.Is(err, eventlog.ErrUnavailable) {
			return ws, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pause):
		}
	}
}
