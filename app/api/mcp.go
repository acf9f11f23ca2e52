package api

import (
	"context"
	"net/url"

	"parley/protocol"
)

// MCPServers lists a workspace's MCP servers ("" the default one).
func (c *Client) MCPServers(ctx context.Context, workspace string) (protocol.MCPList, error) {
	return get[protocol.MCPList](ctx, c, inWorkspace("/api/mcp", workspace, nil))
}

// ReconnectMCP starts a workspace's MCP server again ("" all of them, the files read again).
func (c *Client) ReconnectMCP(ctx context.Context, workspace, server string) (protocol.MCPList, error) {
	q := url.Values{}
	if server != "" {
		q.Set("server", server)
	}
	var out protocol.MCPList
	err := c.do(ctx, methodPost, inWorkspace("/api/mcp/reconnect", workspace, q), nil, &out)
	return out, err
}
