package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/nats-io/nats.go"

	"parley/protocol"
)

// The live path of a streaming message: after every delta, the writer's text since its last
// checkpoint is published on a core NATS subject, live.session.<id>, which no JetStream
// stream captures. So a token costs the log nothing; every process on the same NATS (this
// one, and replicas on a cluster) hears it, and a socket there turns it into a "delta" frame.
// Core NATS keeps no history and may drop a message for a slow subscriber: that is fine,
// because each message is the whole tail since the last stored draft, and the drafts and the
// closing agent.message are stored. See docs/runtime.md, "The live path".

// liveSubject is where a session's live deltas go. Session ids never hold a dot or a
// wildcard, so this is one subject per session.
func liveSubject(session string) string { return "live.session." + session }

// liveQueue is how many deltas a socket may fall behind before the newest are dropped (the
// next one carries them again).
const liveQueue = 256

// publishLive sends a delta of session's streaming message, at most once and without
// waiting: the stream must never slow down for its watchers.
func (r *Runtime) publishLive(session string, d protocol.Delta) {
	if r.nc == nil {
		return
	}
	b, err := json.Marshal(d)
	if err != nil {
		return
	}
	if err := r.nc.Publish(liveSubject(session), b); err != nil {
		slog.Debug("live delta not sent", "session", session, "err", err)
	}
}

// Live streams the deltas of a session's streaming messages, as this process hears them,
// until ctx ends. Nothing of the past: what was said before is in the log's drafts.
func (r *Runtime) Live(ctx context.Context, session string) (<-chan protocol.Delta, error) {
	if !protocol.ValidSessionID(session) {
		return nil, fmt.Errorf("live deltas of %q: not a session id", session)
	}
	out := make(chan protocol.Delta, liveQueue)
	sub, err := r.nc.Subscribe(liveSubject(session), func(m *nats.Msg) {
		var d protocol.Delta
		if json.Unmarshal(m.Data, &d) != nil || d.Validate() != nil {
			return
		}
		select {
		case out <- d:
		default: // full: the next tail carries this one's text again
		}
	})
	if err != nil {
		return nil, fmt.Errorf("follow the live deltas of session %s: %w", session, err)
	}
	go func() {
		<-ctx.Done()
		_ = sub.Unsubscribe()
	}()
	return out, nil
}
