package api

import (
	"context"

	"parley/protocol"
)

// Models lists the endpoint's models (GET /api/models).
func (c *Client) Models(ctx context.Context) (protocol.ModelList, error) {
	var out protocol.ModelList
	err := c.do(ctx, methodGet, "/api/models", nil, &out)
	return out, err
}

// SetModel picks the model of a session's next model calls.
func (c *Client) SetModel(ctx context.Context, session, model string) (protocol.SessionSettingResponse, error) {
	var out protocol.SessionSettingResponse
	err := c.do(ctx, methodPost, "/api/sessions/"+session+"/model", protocol.SetModelRequest{Model: model}, &out)
	return out, err
}

// SetPermissions sets a session's permission mode.
func (c *Client) SetPermissions(ctx context.Context, session string, mode protocol.PermissionMode) (protocol.SessionSettingResponse, error) {
	var out protocol.SessionSettingResponse
	err := c.do(ctx, methodPost, "/api/sessions/"+session+"/permissions", protocol.SetPermissionsRequest{Mode: mode}, &out)
	return out, err
}
