package runtime

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"parley/protocol"
	"parley/runtime/mcp"
)

// MCP servers (runtime/mcp, docs/mcp.md): each workspace connects to the servers of its
// .parley/mcp.json and of the user's file; their tools join the model's.

var _ mcp.ProgressRecorder = (*tools)(nil)

// Progress stores a progress notification of a running MCP call as tool.progress. It has no
// message id: every notification is new, and one lost in a crash is only a bar's step.
func (t *tools) Progress(ctx context.Context, p protocol.ToolProgress) error {
	return t.store(ctx, protocol.EventToolProgress, p, "")
}

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

// mcpCommand is /mcp: the listing as text, or a reconnect first. Everything a server said
// (its reason, its stderr, its tools' descriptions) is shown as text, never as Markdown.
func (r *Runtime) mcpCommand(ctx context.Context, ws *workspace, args string) string {
	set := r.mcp.Workspace(ws.Path)
	fields := strings.Fields(args)
	head := ""
	switch {
	case len(fields) == 0:
	case fields[0] == "reconnect" && len(fields) <= 2:
		name := ""
		if len(fields) == 2 {
			name = fields[1]
		}
		if err := set.Reconnect(name); err != nil {
			return err.Error() + ".\n\n" + mcpText(set.List())
		}
		wctx, cancel := context.WithTimeout(ctx, 35*time.Second)
		_ = set.WaitReady(wctx)
		cancel()
		head = "Reconnected " + cmp.Or(name, "every server (the configuration was read again)") + ".\n\n"
	default:
		return "Usage: /mcp lists the MCP servers; /mcp reconnect [server] starts one (or all) again.\n\n" + mcpText(set.List())
	}
	return head + mcpText(set.List())
}

// mcpText is a workspace's servers as plain text.
func mcpText(l protocol.MCPList) string {
	var b strings.Builder
	if len(l.Servers) == 0 && len(l.Problems) == 0 {
		return "No MCP servers are configured for this workspace. List them in " + mcp.WorkspaceFile +
			` (or in the file -mcp-config names) as {"mcpServers": {"name": {"command": "…", "args": ["…"]}}}, or {"url": "http://…"} for streamable HTTP.`
	}
	fmt.Fprintf(&b, "MCP servers (%d):\n", len(l.Servers))
	for _, s := range l.Servers {
		fmt.Fprintf(&b, "\n• %s — %s (%s: %s)\n", s.Name, s.Status, s.Transport, s.Target)
		if s.Reason != "" {
			fmt.Fprintf(&b, "  why: %s\n", s.Reason)
		}
		if s.Restarts > 0 {
			fmt.Fprintf(&b, "  restarts: %d\n", s.Restarts)
		}
		if s.Stderr != "" && s.Status != protocol.MCPReady {
			fmt.Fprintf(&b, "  stderr (last lines):\n%s\n", indent(lastLines(s.Stderr, 8), "    "))
		}
		for _, t := range s.Tools {
			ro := ""
			if t.ReadOnly {
				ro = " (read-only)"
			}
			fmt.Fprintf(&b, "  – %s%s: %s\n", t.Name, ro, firstLine(t.Description))
		}
		fmt.Fprintf(&b, "  from %s\n", s.Source)
	}
	for _, p := range l.Problems {
		fmt.Fprintf(&b, "\nA configuration file could not be read: %s\n", p)
	}
	return strings.TrimRight(b.String(), "\n")
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
