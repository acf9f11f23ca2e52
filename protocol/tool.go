package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

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
	// EventToolsRunning is stored once the gate has let calls of the model's last
	// tool.called through, before the first of them runs. It is the write-ahead mark a turn
	// resumed on another server reads: an approval accepted before it was acted on, or may
	// have been, and is never acted on again; one accepted after it was not, and its call
	// runs on the answer.
	EventToolsRunning EventType = "tools.running"
)

// ToolsRunning is the data of tools.running.
type ToolsRunning struct {
	// Pass numbers the gate's passes since the message's tool.called, from 1: the message's
	// own calls, then any a call makes itself (a function's run()), in the order they ran. A
	// turn resumed elsewhere runs the calls again in the same order, and refuses the passes
	// that began before.
	Pass int `json:"pass"`
	// Allowed is how many calls of the pass the gate let through (a grant may let some
	// through while the person rejected the rest).
	Allowed int `json:"allowed"`
}

// AgentDraft is the data of agent.draft: the text generated since the stream's previous
// draft. The drafts of a stream, in order, are its text so far.
type AgentDraft struct {
	// Stream names the message being generated; its closing agent.message carries it too.
	Stream string `json:"stream"`
	// Seq numbers the stream's drafts from 1.
	Seq int `json:"seq"`
	// Pos is where Text begins in the message, in bytes: the length of the drafts before it.
	// A reader that missed earlier drafts (the socket joining mid-stream) still knows how
	// much of the message a client holds, so a live Delta can start where the client is.
	Pos  int    `json:"pos,omitempty"`
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

// Delta is a live piece of a message still being generated: the socket's "delta" frame. It
// is never stored; the drafts and the closing agent.message are. Text is the message's text
// from byte Pos on, so a client that holds the message up to any point in [Pos, Pos+len(Text)]
// continues it with no gap and no duplicate, and one that holds less waits for the draft
// that fills the hole (see Fold).
type Delta struct {
	Stream string `json:"stream"`
	Pos    int    `json:"pos"`
	Text   string `json:"text"`
}

// Limits of a delta frame.
const (
	MaxStreamIDBytes = 128
	// MaxDeltaBytes bounds one delta's text: the live tail since the last checkpoint (4 KiB
	// by policy) and one model chunk, with room to spare.
	MaxDeltaBytes = 1 << 20
)

// Validate checks a delta as a client receives it.
func (d Delta) Validate() error {
	switch {
	case d.Stream == "" || len(d.Stream) > MaxStreamIDBytes:
		return fmt.Errorf("delta: the stream id must be 1 to %d bytes, not %d", MaxStreamIDBytes, len(d.Stream))
	case d.Pos < 0:
		return fmt.Errorf("delta: position %d is negative", d.Pos)
	case len(d.Text) > MaxDeltaBytes:
		return fmt.Errorf("delta: %d bytes of text; the limit is %d", len(d.Text), MaxDeltaBytes)
	case !utf8.ValidString(d.Text):
		return errors.New("delta: the text is not valid UTF-8")
	}
	return nil
}

// Fold continues text, a message held up to len(text), with d: the new text and whether d
// added anything. A delta that starts beyond the end of text leaves it as it is (a draft
// will fill the hole, and a later delta carries on from there); one that ends within it
// adds nothing.
func (d Delta) Fold(text string) (string, bool) {
	end := d.Pos + len(d.Text)
	if d.Pos > len(text) || end <= len(text) {
		return text, false
	}
	return text + d.Text[len(text)-d.Pos:], true
}

// EventToolOutput carries output of a tool call while it runs (run_command's stdout and
// stderr), so the thread shows it before the call ends. It is for the person: the model reads
// the call's tool.result, which holds the output whole, as it always did. A call's output
// events are coalesced and bounded (see toolbox's output.go), so a chatty process costs a few
// events a second and a bounded number of bytes, never an event per write.
const EventToolOutput EventType = "tool.output"

// ToolOutput is the data of tool.output: the output of one call since its previous event, in
// the order it was written.
type ToolOutput struct {
	Call   string        `json:"call"` // ToolCall.ID
	Name   string        `json:"name"`
	Chunks []OutputChunk `json:"chunks"`
	// Truncated says the call's output goes on beyond what is streamed: its result holds the rest.
	Truncated bool `json:"truncated,omitempty"`
	// Granted, before the call runs, says an earlier "always" let it through without asking.
	Granted *GrantedCall `json:"granted,omitempty"`
}

// OutputChunk is text one stream (StreamStdout or StreamStderr) wrote.
type OutputChunk struct {
	Stream string `json:"stream"`
	Text   string `json:"text"`
}
