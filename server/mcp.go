package server

import (
	"errors"
	"net/http"

	"parley/protocol"
	"parley/runtime"
)

// MCPRuntime is what the MCP endpoints ask of the runtime (docs/mcp.md); *runtime.Runtime
// is one. A runtime without it answers 404 there.
type MCPRuntime interface {
	MCPServers(workspaceID string) (protocol.MCPList, error)
	ReconnectMCP(workspaceID, name string) (protocol.MCPList, error)
}

var _ MCPRuntime = (*runtime.Runtime)(nil)

// listMCP answers GET /api/mcp?workspace=: the workspace's MCP servers, their status, their
// tools, and the configuration files that could not be read.
func (s *Server) listMCP(w http.ResponseWriter, r *http.Request) {
	m, ok := s.rt.(MCPRuntime)
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "this server has no MCP client")
		return
	}
	list, err := m.MCPServers(r.URL.Query().Get("workspace"))
	s.respond(w, http.StatusOK, list, err)
}

// reconnectMCP answers POST /api/mcp/reconnect?workspace=&server=: the server is started
// again at once (all of them, with the files read again, without server=).
func (s *Server) reconnectMCP(w http.ResponseWriter, r *http.Request) {
	m, ok := s.rt.(MCPRuntime)
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "this server has no MCP client")
		return
	}
	q := r.URL.Query()
	list, err := m.ReconnectMCP(q.Get("workspace"), q.Get("server"))
	if errors.Is(err, runtime.ErrNoMCPServer) {
		writeError(w, http.StatusNotFound, "no_mcp_server", err.Error()+": GET /api/mcp lists the configured ones")
		return
	}
	s.respond(w, http.StatusOK, list, err)
}
