package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"parley/runtime/decision"
)

// Fencing (docs/runtime.md, "Leases"): a replica's turns are its own only while its lease in
// the presence bucket holds. Once its heartbeat has failed for two thirds of the lease, the
// others may soon find it dead and take its turns over, so it stops them first: a model's turn
// is left open with its pending decisions, for whichever replica resumes it, a script's ends
// as interrupted, and no new turn starts here until a heartbeat succeeds again. Then a turn
// it stopped and nobody took is resumed (or ended) here. So a replica cut off from the
// presence bucket never runs a turn beside the one that took it over. The embedded default
// shares its log with no other runtime and never fences.

// errFenced is the cause of a turn stopped by fencing. It is a shutdown to the decisions: a
// model's question stays pending for the turn to wait on again, wherever it resumes.
var errFenced = fmt.Errorf("%w: this runtime lost its lease, so another replica may run its turns", decision.ErrShutdown)

type fence struct {
	mu       sync.Mutex
	lastBeat time.Time
	// lifted is open while fenced and closed when the lease is renewed; nil when not fenced.
	lifted chan struct{}
	// stopped are the turns fencing stopped, by session (their turn id), to resume here.
	stopped map[string]uint64
}

// beat renews the lease and fences or lifts the fence by how that went.
func (r *Runtime) beat(ctx context.Context) {
	err := r.renew(ctx)
	if err != nil {
		slog.Warn("presence heartbeat", "err", err)
	}
	if r.opts.Exclusive {
		return
	}
	now := r.opts.Now()
	r.fence.mu.Lock()
	if err == nil {
		r.fence.lastBeat = now
		if r.fence.lifted != nil {
			close(r.fence.lifted)
			r.fence.lifted = nil
			slog.Info("the lease is renewed: this runtime runs turns again")
		}
		r.fence.mu.Unlock()
		return
	}
	if r.fence.lifted != nil || now.Sub(r.fence.lastBeat) < 2*r.opts.Lease/3 {
		r.fence.mu.Unlock()
		return
	}
	r.fence.lifted = make(chan struct{})
	since := r.fence.lastBeat
	r.fence.mu.Unlock()
	slog.Warn("the lease is lapsing: stopping this runtime's turns, for another replica to take over", "last-heartbeat", since)

	r.turns.mu.Lock()
	var cancels []context.CancelCauseFunc
	stopped := map[string]uint64{}
	for session, rn := range r.turns.bySession {
		if rn.cancel != nil {
			cancels = append(cancels, rn.cancel)
			stopped[session] = rn.turn
		}
	}
	r.turns.mu.Unlock()
	r.fence.mu.Lock()
	if r.fence.stopped == nil {
		r.fence.stopped = map[string]uint64{}
	}
	for s, t := range stopped {
		r.fence.stopped[s] = t
	}
	r.fence.mu.Unlock()
	for _, cancel := range cancels {
		cancel(errFenced)
	}
}

// awaitLease blocks while the runtime is fenced. It reports false when the runtime closes.
func (r *Runtime) awaitLease() bool {
	r.fence.mu.Lock()
	lifted := r.fence.lifted
	r.fence.mu.Unlock()
	if lifted == nil {
		return true
	}
	select {
	case <-lifted:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// isFenced says the runtime is fenced now.
func (r *Runtime) isFenced() bool {
	r.fence.mu.Lock()
	defer r.fence.mu.Unlock()
	return r.fence.lifted != nil
}

// fencedHere says, once, whether fencing stopped this session's turn.
func (r *Runtime) fencedHere(session string, turn uint64) bool {
	r.fence.mu.Lock()
	defer r.fence.mu.Unlock()
	if t, ok := r.fence.stopped[session]; ok && t == turn {
		delete(r.fence.stopped, session)
		return true
	}
	return false
}

// fenced says a turn's context ended because the runtime fenced itself.
func fenced(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errFenced) }
