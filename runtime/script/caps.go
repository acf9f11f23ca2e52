package script

import (
	"context"
	"encoding/json"
	"errors"

	"parley/protocol"
)

// Caps are the capabilities a script receives from the runtime. The host adds nothing of its
// own: a script can send, ask, run, read and write only through what is passed here and the
// workspace the host confines it to.
type Caps interface {
	// Send posts an assistant-side message in the run's session.
	Send(ctx context.Context, text string) error
	// Ask opens a decision and waits for it. A decline is an Answer; an abort (the turn was
	// stopped, the question withdrawn) is an error wrapping ErrAborted.
	Ask(ctx context.Context, req protocol.DecisionRequest) (Answer, error)
	// Authorize passes one or more tool calls through the approval gate as one decision (a
	// batch is approved or rejected as a whole). Grants answer without asking.
	Authorize(ctx context.Context, calls []ToolCall) (Verdict, error)
	// Output streams a run's output as events. argv names the process, nil for print().
	// It may be called while another capability is being called, from another goroutine.
	Output(stream string, argv []string, text string)
}

// ToolCall is one request that needs the gate.
type ToolCall struct {
	Tool    string   // "run" or "write"
	Words   []string // run: argv; write: the workspace-relative path
	Details string   // what the user is shown
}

// Verdict is the gate's answer. When not allowed, Text is what the asker is told: the user's
// reason, or "no answer in time" after a timeout.
type Verdict struct {
	Allowed bool
	Text    string
	// Granted has one entry per call: true when a grant let that call through without
	// asking. Such calls may run even when Allowed is false (the user rejected the rest).
	Granted []bool
}

// allows reports whether call i of the batch may run: the whole batch was allowed, or a
// grant let that call through. A missing entry of Granted is false.
func (v Verdict) allows(i int) bool {
	return v.Allowed || i < len(v.Granted) && v.Granted[i]
}

// Answer is a user's reply to Ask.
type Answer struct {
	Action  protocol.ReplyAction
	Content json.RawMessage
	Reason  string
}

// ErrAborted marks a decision that ended without an answer: an error to the asker, never a
// decline.
var ErrAborted = errors.New("aborted")
