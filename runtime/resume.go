package runtime

import (
	"context"
	"strconv"
	"strings"
	"time"

	"parley/protocol"
	"parley/runtime/decision"
)

// A resumed turn (see resume in turns.go) runs the agent again on the log of the turn it
// continues. Its tools carry on from what that turn stored: the ids of what it stores next
// follow the ones already used (within JetStream's dedupe window a reused id would be
// taken for a repeat and dropped), and its first question waits for the decision left
// pending instead of asking again.

// continueFrom sets the counters behind the ids of what the turn stores from the events the
// turn stored so far (evs: the session's events from its first turn.started on).
func (t *tools) continueFrom(evs []protocol.Event) {
	prefix := strconv.FormatUint(t.prompt, 10) + "-"
	streams := map[string]bool{}
	for _, ev := range evs {
		switch ev.Type {
		case protocol.EventToolCalled:
			t.called++
		case protocol.EventToolResult:
			t.results++
		case protocol.EventAgentDraft:
			if d, err := protocol.DecodeEventData[protocol.AgentDraft](ev); err == nil && strings.HasPrefix(d.Stream, prefix) {
				streams[d.Stream] = true
			}
		case protocol.EventAgentMessage:
			m, err := ev.DecodeMessage()
			switch {
			case err != nil:
			case m.From == protocol.FromParley:
				t.notices++
			case m.Stream != "" && strings.HasPrefix(m.Stream, prefix):
				streams[m.Stream] = true
			case m.Stream == "" && m.From == "":
				t.says++
			}
		}
	}
	for s := range streams {
		if n, err := strconv.Atoi(strings.TrimPrefix(s, prefix)); err == nil {
			t.streams = max(t.streams, n)
		}
	}
}

// resuming hands the next Ask or Authorize the first decision left pending; done forgets it
// once it was waited for.
func (t *tools) resuming(ctx context.Context) (context.Context, func()) {
	if len(t.adopt) == 0 {
		return ctx, func() {}
	}
	d := t.adopt[0]
	return decision.Resuming(ctx, d), func() {
		if d.Used() {
			t.adopt = t.adopt[1:]
		}
	}
}

// withdrawUnused ends the decisions the resumed turn never asked again (the model took
// another way): nobody waits for them any more.
func (t *tools) withdrawUnused(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, d := range t.adopt {
		if !d.Used() {
			t.caps.r.registry.End(ctx, d.Session, d.ID, d.Offset, protocol.ReasonWithdrawn)
		}
	}
	t.adopt = nil
}
