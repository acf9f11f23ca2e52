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
