// Package protocol holds the wire types shared by the browser and the server: the events of a
// session's log, the HTTP requests and their answers, the socket frames, and their validation.
//
// It is pure: no browser, no network, no clock. Times arrive as values set by the server.
package protocol

import (
	"encoding/json"
	"fmt"
)

// Limits on what a client may send. They are part of the protocol so that the browser can
// refuse an oversized prompt before sending it, with the same message the server would give.
const (
	// MaxRequestBytes bounds an HTTP request body.
	MaxRequestBytes = 256 << 10
	// MaxPromptBytes bounds the text of one prompt.
	MaxPromptBytes = 128 << 10
	// MaxFrameBytes bounds one socket frame from a client.
	MaxFrameBytes = 16 << 10
	// MaxAttemptIDBytes bounds a client attempt id.
	MaxAttemptIDBytes = 128
	// MaxOffset bounds an offset a client may name: JetStream sequences are 63-bit in
	// practice, and one past the largest must still be a sequence.
	MaxOffset = 1<<63 - 1
)

// EventType names what happened in a session.
type EventType string

// The event types of the first protocol version.
const (
	EventSessionCreated EventType = "session.created"
	EventUserMessage    EventType = "user.message"
	EventAgentMessage   EventType = "agent.message"
)

// Event is one entry of a session's log. Offset is assigned by the log: it grows strictly
// within a session (it is not dense: sessions share one sequence), so a client that remembers
// the last offset it saw can ask for exactly what follows.
type Event struct {
	Session string          `json:"session"`
	Offset  uint64          `json:"offset"`
	Type    EventType       `json:"type"`
	At      int64           `json:"at"` // unix milliseconds, set by the server
	Data    json.RawMessage `json:"data,omitempty"`
}

// Message is the data of user.message and agent.message.
type Message struct {
	Text string `json:"text"`
	// AttemptID is the client's id for the send that produced a user message.
	AttemptID string `json:"attemptId,omitempty"`
	// Mode is what a prompt asked to do if a turn is running.
	Mode PromptMode `json:"mode,omitempty"`
	// From says who wrote an assistant-side message that is not the agent's: "parley" (a
	// command's answer) or "script" (a run's send()).
	From string `json:"from,omitempty"`
	// Stream, on a model's message, names it among its agent.draft checkpoints: the message
	// holds the whole text, and replaces them.
	Stream string `json:"stream,omitempty"`
	// Phrase, on a message Parley itself wrote in fixed words (the offline agent's reply),
	// names those words by a stable code and their arguments, so a page can show them in its
	// locale (docs/i18n.md); Text holds them in English, for every other reader.
	Phrase *Phrase `json:"phrase,omitempty"`
}

// Phrase is a message's fixed words by their catalogue code (i18n.Locale.Phrase).
type Phrase struct {
	Code string   `json:"code"`
	Args []string `json:"args,omitempty"`
}

// Senders of assistant-side messages besides the agent.
const (
	FromParley = "parley"
	FromScript = "script"
)

// SessionCreated is the data of session.created.
type SessionCreated struct {
	Title     string `json:"title"`
	Workspace string `json:"workspace"`
}

// DecodeMessage returns the message carried by a user.message or agent.message event.
func (e Event) DecodeMessage() (Message, error) {
	var m Message
	if err := json.Unmarshal(e.Data, &m); err != nil {
		return Message{}, fmt.Errorf("event %d (%s): %w", e.Offset, e.Type, err)
	}
	return m, nil
}

// SessionInfo describes a session in a listing.
type SessionInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Workspace is the absolute path of the folder the session works in; WorkspaceID names
	// it among GET /api/workspaces (empty for sessions made before workspaces had ids).
	Workspace   string `json:"workspace"`
	WorkspaceID string `json:"workspaceId,omitempty"`
	Created     int64  `json:"created"` // unix milliseconds
	// Active is when a prompt was last sent to it (unix milliseconds, to the minute: the
	// index is written at most once a minute a session); 0 before any.
	Active int64 `json:"active,omitempty"`
	// Blank says no prompt was ever stored in the session: the sidebar hides it.
	Blank bool `json:"blank,omitempty"`
	// Archived says the person took it out of the list (PATCH /api/sessions/{id}).
	Archived bool `json:"archived,omitempty"`
}

// LastActive is when the session was last used: its last prompt, else its creation. Lists
// order and date sessions by it, as chat apps do.
func (s SessionInfo) LastActive() int64 { return max(s.Active, s.Created) }

// CreateSessionRequest is the body of POST /api/sessions.
type CreateSessionRequest struct {
	Title string `json:"title,omitempty"`
	// Workspace is the id of the workspace to work in (GET /api/workspaces); empty means
	// the default one.
	Workspace string `json:"workspace,omitempty"`
}

// SessionList is the answer to GET /api/sessions, newest first. Version is the session
// index's: GET /api/sessions?wait=<version> answers once the index changed since.
type SessionList struct {
	Sessions []SessionInfo `json:"sessions"`
	Version  uint64        `json:"version"`
}

// PromptMode says what a prompt does while the agent is working.
type PromptMode string

// Prompt modes. Queue is the default: the prompt waits for the running turn.
const (
	ModeQueue PromptMode = "queue"
	ModeSteer PromptMode = "steer"
)

// SendPromptRequest is the body of POST /api/sessions/{id}/prompt.
type SendPromptRequest struct {
	Text string `json:"text"`
	// AttemptID identifies this send on the client. A retry with the same id is stored once.
	AttemptID string     `json:"attemptId"`
	Mode      PromptMode `json:"mode,omitempty"`
}

// SendPromptResponse answers a prompt with the offset at which it was stored.
type SendPromptResponse struct {
	Offset    uint64 `json:"offset"`
	Duplicate bool   `json:"duplicate,omitempty"` // a retry of an attempt already stored
}

// ErrorResponse is the body of every failed request and the payload of an error frame.
type ErrorResponse struct {
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
	// Fields holds per-field messages for a request that failed validation.
	Fields map[string]string `json:"fields,omitempty"`
	// Phrases name some of Fields' messages by their catalogue codes, so a page words them
	// in its locale; a field without one shows as the server wrote it.
	Phrases map[string]Phrase `json:"phrases,omitempty"`
}
