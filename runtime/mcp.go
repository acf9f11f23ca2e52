package runtime

import (
	"context"
	"strconv"
	"strings"
	"time"

	"parley/protocol"
	"parley/runtime/mcp"
)

// MCP servers (runtime/mcp, docs/mcp.md): each workspace connects to the servers of its
// .parley/mcp.json and of the user's file; their tools join the model's.

// ErrNoMCPServer is returned for a server a workspace does not configure.
var ErrNoMCPServer = mcp.ErrNoServer

// MCPServers lists a workspace's MCP servers with their status and tools.
func (r *Runtime) MCPServers(workspaceID string) (protocol.MCPList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.MCPList{}, err
	}
	l := r.mcp.Workspace(ws.Path).List()
	l.Workspace = ws.ID
	return l, nil
}

// ReconnectMCP starts a workspace's server again at once; an empty name reads the
// configuration again and restarts them all.
func (r *Runtime) ReconnectMCP(workspaceID, name string) (protocol.MCPList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.MCPList{}, err
	}
	set := r.mcp.Workspace(ws.Path)
	if err := set.Reconnect(name); err != nil {
		return protocol.MCPList{}, err
	}
	l := set.List()
	l.Workspace = ws.ID
	return l, nil
}

// mcpCommand is /mcp: the listing, or a reconnect first, as the arguments of its phrase
// (i18n.PhraseCodeParts: each line by its own code, the servers' words as arguments).
// Everything a server said (its reason, its stderr, its tools' descriptions) is shown as
// text, never as Markdown.
func (r *Runtime) mcpCommand(ctx context.Context, ws *workspace, args string) []string {
	set := r.mcp.Workspace(ws.Path)
	fields := strings.Fields(args)
	var head []string
	switch {
	case len(fields) == 0:
	case fields[0] == "reconnect" && len(fields) <= 2:
		name := ""
		if len(fields) == 2 {
			name = fields[1]
		}
		if err := set.Reconnect(name); err != nil {
			return append(part("mcp_error", err.Error()), mcpParts(set.List())...)
		}
		wctx, cancel := context.WithTimeout(ctx, 35*time.Second)
		_ = set.WaitReady(wctx)
		cancel()
		head = part("mcp_reconnected_all")
		if name != "" {
			head = part("mcp_reconnected", name)
		}
	default:
		head = part("mcp_usage")
	}
	return append(head, mcpParts(set.List())...)
}

// part is one line of a phrase of parts: its code, how many arguments, the arguments.
func part(code string, args ...string) []string {
	return append([]string{code, strconv.Itoa(len(args))}, args...)
}

// mcpParts are a workspace's servers, line by line.
func mcpParts(l protocol.MCPList) []string {
	if len(l.Servers) == 0 && len(l.Problems) == 0 {
		return part("mcp_none", mcp.WorkspaceFile)
	}
	out := part("mcp_count", strconv.Itoa(len(l.Servers)))
	for _, s := range l.Servers {
		out = append(out, part("mcp_server", s.Name, string(s.Status), s.Transport, s.Target)...)
		if s.Reason != "" {
			out = append(out, part("mcp_why", s.Reason)...)
		}
		for _, why := range s.LeftOut {
			out = append(out, part("mcp_why", why)...)
		}
		if s.Restarts > 0 {
			out = append(out, part("mcp_restarts", strconv.Itoa(s.Restarts))...)
		}
		if s.Stderr != "" && s.Status != protocol.MCPReady {
			out = append(out, part("mcp_stderr", indent(lastLines(s.Stderr, 8), "    "))...)
		}
		for _, t := range s.Tools {
			code := "mcp_tool"
			if t.ReadOnly {
				code = "mcp_tool_ro"
			}
			out = append(out, part(code, t.Name, firstLine(t.Description))...)
		}
		out = append(out, part("mcp_from", s.Source)...)
	}
	for _, p := range l.Problems {
		out = append(out, part("mcp_problem", p)...)
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s, pre string) string { return pre + strings.ReplaceAll(s, "\n", "\n"+pre) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(line); len(r) > 120 {
		line = string(r[:120]) + "…"
	}
	return line
}
