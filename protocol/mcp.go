package protocol

// MCP servers a workspace connects to (docs/mcp.md): their status as GET /api/mcp reports it,
// and the progress of their tool calls as the thread shows it.

// MCPStatus is where a server's connection stands.
type MCPStatus string

// Statuses of an MCP server.
const (
	MCPStarting MCPStatus = "starting" // started, the handshake not done yet
	MCPReady    MCPStatus = "ready"    // connected: its tools are offered
	MCPFailed   MCPStatus = "failed"   // could not start, or its handshake failed or hung
	MCPCrashed  MCPStatus = "crashed"  // was ready, then its connection ended; restarted with backoff
	MCPStopped  MCPStatus = "stopped"  // closed by Parley
)

// MCPServer is one configured server.
type MCPServer struct {
	Name string `json:"name"`
	// Source is the file that configures it.
	Source string `json:"source"`
	// Transport is "stdio" (a child process) or "http" (streamable HTTP).
	Transport string `json:"transport"`
	// Target is the command line or the URL, as text.
	Target string    `json:"target"`
	Status MCPStatus `json:"status"`
	// Reason says why it failed or crashed, in words a person can act on.
	Reason string `json:"reason,omitempty"`
	// Stderr is the tail of a stdio server's standard error.
	Stderr string `json:"stderr,omitempty"`
	// Restarts counts the restarts after a crash; NextRetry is when the next one is due (unix ms).
	Restarts  int       `json:"restarts,omitempty"`
	NextRetry int64     `json:"nextRetry,omitempty"`
	Tools     []MCPTool `json:"tools,omitempty"`
	// LeftOut says, a line each, which tools the server lists that the model is not offered,
	// and why (a name listed twice, parameters that are not an object).
	LeftOut []string `json:"leftOut,omitempty"`
}

// MCPTool is one tool of a server as the model is offered it.
type MCPTool struct {
	// Name is the name the model calls: mcp__<server>__<tool>.
	Name string `json:"name"`
	// Tool is the server's own name of it.
	Tool        string `json:"tool"`
	Description string `json:"description,omitempty"`
	// ReadOnly is the server's readOnlyHint: the permission modes that let reads through
	// let it through.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// MCPList answers GET /api/mcp: a workspace's servers, and the configuration files that
// could not be read.
type MCPList struct {
	Workspace string      `json:"workspace"`
	Servers   []MCPServer `json:"servers"`
	// Problems are broken configuration files, each with its path and what is wrong.
	Problems []string `json:"problems,omitempty"`
}

// EventToolProgress records a progress notification of a running tool call (an MCP
// server's): the thread draws it as a progress bar with the server's message. It may arrive
// after the call's result.
const EventToolProgress EventType = "tool.progress"

// ToolProgress is the data of tool.progress.
type ToolProgress struct {
	Call     string  `json:"call"` // ToolCall.ID
	Name     string  `json:"name"`
	Progress float64 `json:"progress"`
	// Total is 0 when the server does not know it.
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}
