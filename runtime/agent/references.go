package agent

import (
	"context"

	"parley/protocol"
)

// Transcripts is the hook for `@session:<id>` references in a prompt: an agent whose tools
// implement it hands the model a short transcript of the session referred to. The runtime's
// tools implement it (runtime/conversation.go).
type Transcripts interface {
	// Transcript returns another session's title and its log, oldest first.
	Transcript(ctx context.Context, session string) (title string, evs []protocol.Event, err error)
}
