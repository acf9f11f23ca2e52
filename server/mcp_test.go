package server_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// GET /api/mcp lists the workspace's MCP servers (none here), and a reconnect of a server
// that is not configured says so.
func TestMCPEndpoints(t *testing.T) {
	ts, _ := testServer(t)
	resp, data := request(t, http.MethodGet, ts.URL+"/api/mcp", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	l := testkit.DecodeAs[protocol.MCPList](t, data)
	assert.Equal(t, []protocol.MCPServer{}, l.Servers)
	assert.NotEmpty(t, l.Workspace)

	resp, data = request(t, http.MethodGet, ts.URL+"/api/mcp?workspace=nosuch", testToken, "")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(data))
	assert.Equal(t, "no_workspace", testkit.ErrorOf(t, data).Code)

	resp, data = postJSON(t, ts.URL+"/api/mcp/reconnect?server=nosuch", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, string(data))
	assert.Equal(t, "no_mcp_server", testkit.ErrorOf(t, data).Code)

	resp, data = request(t, http.MethodGet, ts.URL+"/api/mcp", "", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "behind the token: %s", data)
}
