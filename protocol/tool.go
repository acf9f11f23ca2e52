package protocol

import "encoding/json"

// The model agent's events. A turn's model conversation is kept in the session's log, so a
// turn is rebuilt from the log and never from memory: what the model said is agent.message
// (from the agent, From empty), what it asked to run is tool.called, and what came back is
// tool.result. A long message streams: agent.draft events hold its text in pieces while it is
// generated (a checkpoint every few seconds or kilobytes, never one event per token), and the
// agent.message that closes it names the same stream and holds the whole text, so a reader
// drops the drafts it replaces.
const (
	// EventAgentDraft holds a piece of a message still being generated.
	EventAgentDraft EventType = "agent.draft"
	// EventToolCalled records the tool calls of one model message, in the order the model
	// gave them. They run after it is stored.
	EventToolCalled EventType = "tool.called"
	// EventToolResult records what one tool call returned to the model.
	EventToolResult EventType = "tool.result"
)

// AgentDraft is the data of agent.draft: the text generated since the stream's previous
// draft. The drafts of a stream, in order, are its text so far.
type AgentDraft struct {
	// Stream names the message being generated; its closing agent.message carries it too.
	Stream string `json:"stream"`
	// Seq numbers the stream's drafts from 1.
	Seq  int    `json:"seq"`
	Text string `json:"text"`
}

// ToolCall is one tool call a model asked for.
type ToolCall struct {
	// ID is the model's id of the call; a result answers it by this id.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments are the call's arguments as the model sent them: usually a JSON object, but
	// kept as text, because a model may send something that is not JSON and must be told so.
	Arguments string `json:"arguments"`
}

// ToolCalled is the data of tool.called.
type ToolCalled struct {
	// Stream is the message the calls belong to (its agent.message carries the same stream);
	// empty when the message had no text.
	Stream string     `json:"stream,omitempty"`
	Calls  []ToolCall `json:"calls"`
}

// ToolResult is the data of tool.result: the text the model reads back for one call. Error
// says the call did not do what was asked (a refusal, a timeout, a bad argument); the text
// then says why, in words the model can act on.
type ToolResult struct {
	Call  string `json:"call"` // ToolCall.ID
	Name  string `json:"name"`
	Text  string `json:"text"`
	Error bool   `json:"error,omitempty"`
	// Details, for the thread's receipt, are what the tool did in a person's terms (the
	// question asked and its answer, the command run); the model never reads them.
	Details json.RawMessage `json:"details,omitempty"`
}
