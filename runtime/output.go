package runtime

import (
	"context"

	"parley/protocol"
	"parley/runtime/agent/toolbox"
)

var _ toolbox.OutputRecorder = (*tools)(nil)

// ToolOutput stores a running call's output as tool.output, for the thread (the model reads
// the result). Like progress it has no message id: each event is new, and one lost in a crash
// is a few lines the receipt does not show.
func (t *tools) ToolOutput(ctx context.Context, o protocol.ToolOutput) error {
	return t.store(ctx, protocol.EventToolOutput, o, "")
}
