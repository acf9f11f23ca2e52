package api

import (
	"context"

	"parley/protocol"
)

// GetSession describes one session.
func (c *Client) GetSession(ctx context.Context, id string) (protocol.SessionInfo, error) {
	return get[protocol.SessionInfo](ctx, c, "/api/sessions/"+id)
}
