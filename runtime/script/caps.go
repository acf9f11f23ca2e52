package script

import (
	"context"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// Caps are the capabilities a script receives from the runtime. The host adds nothing of its
// own: a script can send, ask, run, read and write only through what is passed here and the
// workspace the host confines it to.
type Caps interface {
	// Send posts an assistant-side message in the run's session.
	Send(ctx context.Context, text string) error
	// Ask opens a decision and waits for it. A decline is an Answer; an abort (the turn was
	// stopped, the question withdrawn) is an error wrapping decision.ErrAborted.
	Ask(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error)
	// Authorize passes one or more tool calls through the approval gate as one decision (a
	// batch is approved or rejected as a whole). Grants answer without asking.
	Authorize(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error)
	// Output streams a run's output as events. argv names the process, nil for print().
	// It may be called while another capability is being called, from another goroutine.
	Output(stream string, argv []string, text string)
}
