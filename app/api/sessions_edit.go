package api

import (
	"context"

	"parley/protocol"
)

// UpdateSession renames or archives a session (PATCH /api/sessions/{id}).
func (c *Client) UpdateSession(ctx context.Context, id string, req protocol.UpdateSessionRequest) (protocol.SessionInfo, error) {
	return call[protocol.SessionInfo](ctx, c, "PATCH", "/api/sessions/"+id, req)
}
