package api

import (
	"context"

	"parley/protocol"
)

// GetSession describes one session.
func (c *Client) GetSession(ctx context.Context, id string) (protocol.SessionInfo, error) {
	var out protocol.SessionInfo
	err := c.do(ctx, methodGet, "/api/sessions/"+id, nil, &out)
	return out, err
}
