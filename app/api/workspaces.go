package api

import (
	"context"

	"parley/protocol"
)

// ListWorkspaces returns the folders the server can work in, the default first.
func (c *Client) ListWorkspaces(ctx context.Context) ([]protocol.Workspace, error) {
	var out protocol.WorkspaceList
	err := c.do(ctx, methodGet, "/api/workspaces", nil, &out)
	return out.Workspaces, err
}

// GetSession describes one session.
func (c *Client) GetSession(ctx context.Context, id string) (protocol.SessionInfo, error) {
	var out protocol.SessionInfo
	err := c.do(ctx, methodGet, "/api/sessions/"+id, nil, &out)
	return out, err
}
