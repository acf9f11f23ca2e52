package api

import (
	"context"

	"parley/protocol"
)

// PendingDecisions returns the session's open decisions, oldest first: the composer's queue.
func (c *Client) PendingDecisions(ctx context.Context, session string) ([]protocol.Decision, error) {
	out, err := get[protocol.DecisionList](ctx, c, "/api/sessions/"+session+"/decisions")
	return out.Decisions, err
}

// ListGrants returns the "always" grants of the default workspace.
func (c *Client) ListGrants(ctx context.Context) ([]protocol.Grant, error) {
	return c.ListGrantsIn(ctx, "")
}

// ListGrantsIn returns the "always" grants of a workspace ("" the default one).
func (c *Client) ListGrantsIn(ctx context.Context, workspace string) ([]protocol.Grant, error) {
	out, err := get[protocol.GrantList](ctx, c, inWorkspace("/api/grants", workspace, nil))
	return out.Grants, err
}
