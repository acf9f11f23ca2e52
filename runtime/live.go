package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"parley/protocol"
	"parley/runtime/agent"
)

// The live path of a streaming message: after every delta, the writer's text since its last
// checkpoint is published on a core NATS subject, live.session.<id>, which no JetStream
// stream captures. So a token costs the log nothing; every process on the same NATS (this
// one, and replicas on a cluster) hears it, and a socket there turns it into a "delta" frame.
// Core NATS keeps no history and may drop a message for a slow subscriber: that is fine,
// because each message is the whole tail since the last stored draft, and the drafts and the
// closing agent.message are stored. See docs/runtime.md, "The live path".

// tailsSubject is where a subscriber asks the process running a session's turn for the
// tails of its open streams: a socket that subscribes while the model pauses would
// otherwise show only the stored drafts until the next token.
func tailsSubject(session string) string { return "live.tails." + session }

// liveStreams are the streams open in this process, per session, and the sessions whose
// deltas this process listens to.
type liveStreams struct {
	mu  sync.Mutex
	by  map[string]map[*agent.Writer]bool
	sub *nats.Subscription

	// watchMu guards watch: one subscription to a session's live subject for all its
	// watchers in this process (a thousand sockets on a session), so a delta costs NATS one
	// message to the process and one decoding, not one of each per socket.
	watchMu sync.Mutex
	watch   map[string]*liveWatch
}

// liveWatch is a session's live subject as this process hears it, and the channels of the
// callers of Live on it.
type liveWatch struct {
	sub  *nats.Subscription
	outs map[chan protocol.Delta]struct{}
}

func (l *liveStreams) open(session string, w *agent.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]map[*agent.Writer]bool{}
	}
	if l.by[session] == nil {
		l.by[session] = map[*agent.Writer]bool{}
	}
	l.by[session][w] = true
}

func (l *liveStreams) close(session string, w *agent.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.by[session], w)
	if len(l.by[session]) == 0 {
		delete(l.by, session)
	}
}

func (l *liveStreams) tails(session string) []protocol.Delta {
	l.mu.Lock()
	ws := make([]*agent.Writer, 0, len(l.by[session]))
	for w := range l.by[session] {
		ws = append(ws, w)
	}
	l.mu.Unlock()
	var out []protocol.Delta
	for _, w := range ws {
		if d, ok := w.Tail(); ok {
			out = append(out, d)
		}
	}
	return out
}

// serveTails answers requests for the tails of this process's open streams. Only a process
// that has some answers, so a session with no stream gets "no responders" at once.
func (r *Runtime) serveTails() error {
	if r.nc == nil {
		return nil
	}
	sub, err := r.nc.Subscribe(tailsSubject("*"), func(m *nats.Msg) {
		session := m.Subject[len(tailsSubject("")):] // the prefix is tailsSubject's alone
		tails := r.live.tails(session)
		if len(tails) == 0 {
			return
		}
		b, err := json.Marshal(tails)
		if err == nil {
			_ = m.Respond(b)
		}
	})
	if err != nil {
		return fmt.Errorf("answer for the live streams: %w", err)
	}
	r.live.sub = sub
	return nil
}

// liveSubject is where a session's live deltas go. Session ids never hold a dot or a
// wildcard, so this is one subject per session.
func liveSubject(session string) string { return "live.session." + session }

// liveQueue is how many deltas a socket may fall behind before the newest are dropped (the
// next one carries them again).
const liveQueue = 64

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
// until ctx ends. Nothing of the past: what was said before is in the log's drafts. The
// callers on one session share one subscription to its subject (liveWatch).
func (r *Runtime) Live(ctx context.Context, session string) (<-chan protocol.Delta, error) {
	if !protocol.ValidSessionID(session) {
		return nil, fmt.Errorf("live deltas of %q: not a session id", session)
	}
	out := make(chan protocol.Delta, liveQueue)
	if err := r.watchLive(session, out); err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { r.unwatchLive(session, out) })
	// Then the tails of the streams open now: what was said since their last draft. Asked
	// after subscribing, so nothing falls between; a tail older than a delta already queued
	// is harmless (positions say what is new).
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		reply, err := r.nc.RequestWithContext(rctx, tailsSubject(session), nil)
		if err != nil {
			return // no stream open anywhere (no responders), or too slow: the next delta says it
		}
		var tails []protocol.Delta
		if json.Unmarshal(reply.Data, &tails) != nil {
			return
		}
		for _, d := range tails {
			if d.Validate() != nil {
				continue
			}
			select {
			case out <- d:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// watchLive adds out to the session's watchers, subscribing to its subject for the first.
func (r *Runtime) watchLive(session string, out chan protocol.Delta) error {
	l := &r.live
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	w := l.watch[session]
	if w == nil {
		w = &liveWatch{outs: map[chan protocol.Delta]struct{}{}}
		sub, err := r.nc.Subscribe(liveSubject(session), func(m *nats.Msg) {
			var d protocol.Delta
			if json.Unmarshal(m.Data, &d) != nil || d.Validate() != nil {
				return
			}
			l.watchMu.Lock()
			defer l.watchMu.Unlock()
			for o := range w.outs {
				select {
				case o <- d:
				default: // full: the next tail carries this one's text again
				}
			}
		})
		if err != nil {
			return fmt.Errorf("follow the live deltas of session %s: %w", session, err)
		}
		w.sub = sub
		if l.watch == nil {
			l.watch = map[string]*liveWatch{}
		}
		l.watch[session] = w
	}
	w.outs[out] = struct{}{}
	return nil
}

// unwatchLive removes out from the session's watchers, and the subscription with the last.
func (r *Runtime) unwatchLive(session string, out chan protocol.Delta) {
	l := &r.live
	l.watchMu.Lock()
	w := l.watch[session]
	if w == nil {
		l.watchMu.Unlock()
		return
	}
	delete(w.outs, out)
	last := len(w.outs) == 0
	if last {
		delete(l.watch, session)
	}
	l.watchMu.Unlock()
	if last {
		_ = w.sub.Unsubscribe() // outside the lock: its handler may be waiting for it
	}
}
