package runtime

import (
	"context"

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
