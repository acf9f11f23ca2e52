package api

import (
	"context"

	"parley/protocol"
)

// PendingDecisions returns the session's open decisions, oldest first: the composer's queue.
func (c *Client) PendingDecisions(ctx context.Context, session string) ([]protocol.Decision, error) {
	var out protocol.DecisionList
	err := c.do(ctx, methodGet, "/api/sessions/"+session+"/decisions", nil, &out)
	return out.Decisions, err
}

// ListGrants returns the "always" grants of the server's workspace.
func (c *Client) ListGrants(ctx context.Context) ([]protocol.Grant, error) {
	var out protocol.GrantList
	err := c.do(ctx, methodGet, "/api/grants", nil, &out)
	return out.Grants, err
}
