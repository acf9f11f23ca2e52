// Package decision is the decision registry: questions an agent or a script asks the user
// (ask, confirm, approval), their single outcome, and the waiters of this process. The
// registry is the event log itself, so it survives restarts and any replica can take a
// reply; see docs/runtime.md.
package decision

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"parley/protocol"
	"parley/runtime/eventlog"
)

// The decision registry is the event log itself: a decision is pending while the last event on
// its subject (session.<id>.q.<decision>) is its question.asked. An outcome (question.replied
// or question.rejected) is stored only if that subject still ends at the question, which
// JetStream checks atomically; so the first valid reply wins on every replica, and the
// registry survives restarts because nothing of it lives in memory but the waiters.

// ErrNoDecision is returned for a decision id that was never asked in the session.
var ErrNoDecision = errors.New("no such question")

// AlreadyEndedError says a decision has ended, and how, for a reply that came too late.
type AlreadyEndedError struct {
	How string // "answered", "declined", "timed out", "aborted"
}

func (e *AlreadyEndedError) Error() string {
	return "this question was already " + e.How + "; nothing was changed"
}

// Is makes errors.Is(err, protocol.ErrAlreadyAnswered) true.
func (e *AlreadyEndedError) Is(target error) bool { return target == protocol.ErrAlreadyAnswered }

// Result is how a decision ended, as its waiter learns it: a reply, or an outcome without
// one (only a timeout reaches a waiter this way; an abort is an error).
type Result struct {
	Offset   uint64
	Replied  *protocol.QuestionReplied
	Rejected *protocol.QuestionRejected
}

// Answer is a user's reply as the asker reads it. A timeout reads as a decline whose reason
// says so.
type Answer struct {
	Action  protocol.ReplyAction
	Content json.RawMessage
	Reason  string
}

// Answer is the result as an Answer.
func (r Result) Answer() Answer {
	if r.Rejected != nil {
		return Answer{Action: protocol.ActionDecline, Reason: protocol.ReasonTimeout}
	}
	return Answer{Action: r.Replied.Action, Content: r.Replied.Content, Reason: r.Replied.Reason}
}

// ErrAborted marks a decision that ended without an answer: an error to the asker, never a
// decline.
var ErrAborted = errors.New("aborted")

type waiter struct {
	session string
	asked   uint64
	done    chan Result // buffered: the tap never blocks on it
}

// Registry holds this process's waiters; the decisions themselves are in the log.
type Registry struct {
	log            *eventlog.Log
	owner          string
	now            func() time.Time
	defaultTimeout time.Duration
	newID          func() string

	mu      sync.Mutex
	waiters map[string]*waiter
}

// NewRegistry makes the registry of the instance owner. timeout ends a decision that asks
// for none of its own.
func NewRegistry(log *eventlog.Log, owner string, now func() time.Time, timeout time.Duration, newID func() string) *Registry {
	return &Registry{log: log, owner: owner, now: now, defaultTimeout: timeout, newID: newID, waiters: map[string]*waiter{}}
}

// ErrStopped is the cause of a turn's context when the user stops it; ErrShutdown when the
// runtime closes under it. An asker's decision ends with the reason they imply.
var (
	ErrStopped  = errors.New("the turn was stopped")
	ErrShutdown = errors.New("the server is shutting down")
)

// Ask opens a decision and waits for its end. A reply or a timeout is a result; the end of
// ctx aborts the decision (reason stopped when the turn was stopped, else withdrawn) and is
// returned as an error.
func (g *Registry) Ask(ctx context.Context, session, run string, req protocol.DecisionRequest) (Result, error) {
	if err := req.Validate(); err != nil {
		return Result{}, fmt.Errorf("ask: %w", err)
	}
	timeout := g.defaultTimeout
	if req.TimeoutMs > 0 {
		timeout = time.Duration(req.TimeoutMs) * time.Millisecond
	}
	if d, ok := resumedFrom(ctx); ok && d.Request.Kind == req.Kind && d.Request.Message == req.Message {
		// The turn that asked this before its runtime went away asks it again: wait for that
		// decision, still pending in the composer, rather than ask twice.
		d.used = true
		return g.Await(ctx, d.Decision)
	}
	id := g.newID()
	w := g.watch(id, session)
	defer g.unwatch(id)

	asked := protocol.QuestionAsked{ID: id, Request: req, Run: run, Deadline: g.now().Add(timeout).UnixMilli(), Owner: g.owner}
	offset, _, err := g.log.PublishAfter(ctx, eventlog.DecisionSubject(session, id), 0, protocol.EventQuestionAsked, asked, "asked-"+id)
	if err != nil {
		return Result{}, fmt.Errorf("ask: %w", err)
	}
	w.asked = offset
	return g.wait(ctx, session, id, offset, timeout, w)
}

// Await waits for the end of a decision that is pending in the log, asked by a runtime that
// went away: the turn that asked it continues here, and its deadline still holds. A reply
// stored before the wait began is read from the log.
func (g *Registry) Await(ctx context.Context, d protocol.Decision) (Result, error) {
	w := g.watch(d.ID, d.Session)
	defer g.unwatch(d.ID)
	w.asked = d.Offset
	if res, ok := g.outcome(ctx, d.Session, d.ID); ok {
		return res, nil
	}
	timeout := max(time.UnixMilli(d.Deadline).Sub(g.now()), 0)
	return g.wait(ctx, d.Session, d.ID, d.Offset, timeout, w)
}

func (g *Registry) watch(id, session string) *waiter {
	w := &waiter{session: session, done: make(chan Result, 1)}
	g.mu.Lock()
	g.waiters[id] = w
	g.mu.Unlock()
	return w
}

func (g *Registry) unwatch(id string) {
	g.mu.Lock()
	delete(g.waiters, id)
	g.mu.Unlock()
}

// outcomeRecheck is how often a waiter reads its decision's stored outcome in case the tap
// has not handed it over.
const outcomeRecheck = 3 * time.Second

// wait waits for a decision's outcome, ending it at its deadline (declined, timeout) or when
// ctx ends (aborted).
func (g *Registry) wait(ctx context.Context, session, id string, offset uint64, timeout time.Duration, w *waiter) (Result, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	// The tap hands the outcome over as it is stored; the stored outcome is also read now and
	// then, so a tap that lags (a consumer being made again on another node of a cluster)
	// never leaves a person's answer unheard until the deadline.
	recheck := time.NewTicker(outcomeRecheck)
	defer recheck.Stop()
	for {
		select {
		case res := <-w.done:
			return res, nil
		case <-recheck.C:
			if res, ok := g.outcome(context.WithoutCancel(ctx), session, id); ok {
				return res, nil
			}
		case <-timer.C:
			g.end(context.WithoutCancel(ctx), session, id, offset, protocol.OutcomeDeclined, protocol.ReasonTimeout)
			// The outcome is now stored: ours, or a reply that won the race. Read it rather
			// than wait for the tap, so a waiter never outlives its deadline by much.
			if res, ok := g.outcome(context.WithoutCancel(ctx), session, id); ok {
				return res, nil
			}
			timer.Reset(time.Second)
		case <-ctx.Done():
			reason := protocol.ReasonWithdrawn
			switch cause := context.Cause(ctx); {
			case errors.Is(cause, ErrStopped):
				reason = protocol.ReasonStopped
			case errors.Is(cause, ErrShutdown) && survives(ctx):
				// Its turn resumes on the next runtime that finds it: it stays pending.
				return Result{}, fmt.Errorf("question %s %w: the server is shutting down; it stays pending", id, ErrAborted)
			case errors.Is(cause, ErrShutdown):
				reason = protocol.ReasonOrphaned // its server is going away and cannot resume it
			}
			g.end(context.WithoutCancel(ctx), session, id, offset, protocol.OutcomeAborted, reason)
			return Result{}, fmt.Errorf("question %s %w: %s", id, ErrAborted, reason)
		}
	}
}

// Resumable is a pending decision a resumed turn may wait for in place of asking again.
type Resumable struct {
	protocol.Decision
	// Acted says an approval was accepted before the restart and the turn went on past it
	// (a tools.running was stored after the answer, or in older logs a question was asked):
	// what it allowed ran, or began to. It never lets that run again (runtime/resume.go).
	Acted bool
	used  bool
}

// Take marks it taken by a resumed turn's call without waiting for it (an acted approval).
func (r *Resumable) Take() { r.used = true }

// Used says an Ask took it.
func (r *Resumable) Used() bool { return r.used }

type resumeKey struct{}

type survivesKey struct{}

// Surviving marks ctx as a turn that can resume on another runtime (a model's turn): a
// decision it waits for when the server shuts down stays pending, for the turn to wait
// for again, instead of ending as orphaned.
func Surviving(ctx context.Context) context.Context {
	return context.WithValue(ctx, survivesKey{}, true)
}

func survives(ctx context.Context) bool { v, _ := ctx.Value(survivesKey{}).(bool); return v }

// Resuming makes the next Ask under ctx that asks what d asked (the same kind and message)
// wait for d instead of opening a new decision.
func Resuming(ctx context.Context, d *Resumable) context.Context {
	return context.WithValue(ctx, resumeKey{}, d)
}

func resumedFrom(ctx context.Context) (*Resumable, bool) {
	d, ok := ctx.Value(resumeKey{}).(*Resumable)
	return d, ok && d != nil && !d.used
}

// End stores an outcome without a user answer (aborted, with its reason), unless the
// decision has already ended.
func (g *Registry) End(ctx context.Context, session, id string, asked uint64, reason string) {
	g.end(ctx, session, id, asked, protocol.OutcomeAborted, reason)
}

// end stores an outcome without a user answer, unless the decision has already ended (then
// it reports false).
func (g *Registry) end(ctx context.Context, session, id string, asked uint64, outcome protocol.Outcome, reason string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _, err := g.log.PublishAfter(ctx, eventlog.DecisionSubject(session, id), asked, protocol.EventQuestionRejected,
		protocol.QuestionRejected{ID: id, Outcome: outcome, Reason: reason}, "")
	if errors.Is(err, eventlog.ErrConflict) {
		return false
	}
	if err != nil {
		slog.Warn("could not end a decision", "session", session, "decision", id, "reason", reason, "err", err)
	}
	return true
}

// outcome reads how a decision ended, if it has.
func (g *Registry) outcome(ctx context.Context, session, id string) (Result, bool) {
	ev, err := g.log.Last(ctx, eventlog.DecisionSubject(session, id))
	if err != nil {
		return Result{}, false
	}
	res, _, ok := resultOf(ev)
	return res, ok
}

// resultOf reads an outcome event (question.replied or question.rejected) as the Result its
// asker is handed, with the decision's id; any other event, or one that does not decode, is
// no outcome.
func resultOf(ev protocol.Event) (Result, string, bool) {
	switch ev.Type {
	case protocol.EventQuestionReplied:
		if r, err := ev.DecodeQuestionReplied(); err == nil {
			return Result{Offset: ev.Offset, Replied: &r}, r.ID, true
		}
	case protocol.EventQuestionRejected:
		if r, err := ev.DecodeQuestionRejected(); err == nil {
			return Result{Offset: ev.Offset, Rejected: &r}, r.ID, true
		}
	}
	return Result{}, "", false
}

// Deliver hands an outcome event seen on the log to this process's waiter, if it has one.
func (g *Registry) Deliver(ev protocol.Event) {
	res, id, ok := resultOf(ev)
	if !ok {
		return
	}
	g.mu.Lock()
	w := g.waiters[id]
	g.mu.Unlock()
	if w != nil {
		select {
		case w.done <- res:
		default: // only one outcome is ever stored per decision
		}
	}
}

// Reply stores a user's answer after validating it against the decision's schema.
func (g *Registry) Reply(ctx context.Context, session, id string, reply protocol.ReplyRequest) (uint64, error) {
	if !protocol.ValidSessionID(id) {
		return 0, fmt.Errorf("question %q: %w", id, ErrNoDecision)
	}
	ev, err := g.log.Last(ctx, eventlog.DecisionSubject(session, id))
	if errors.Is(err, eventlog.ErrNotFound) {
		return 0, fmt.Errorf("question %s in session %s: %w", id, session, ErrNoDecision)
	}
	if err != nil {
		return 0, fmt.Errorf("question %s: %w", id, err)
	}
	if ev.Type != protocol.EventQuestionAsked {
		return 0, endedError(ev)
	}
	asked, err := ev.DecodeQuestionAsked()
	if err != nil {
		return 0, err
	}
	if err := protocol.ValidateReply(asked.Request, reply); err != nil {
		return 0, err
	}
	replied := protocol.QuestionReplied{ID: id, Action: reply.Action, Content: reply.Content, Reason: reply.Reason}
	offset, _, err := g.log.PublishAfter(ctx, eventlog.DecisionSubject(session, id), ev.Offset, protocol.EventQuestionReplied, replied, "")
	if errors.Is(err, eventlog.ErrConflict) {
		// Another reply won between our read and our write.
		return 0, &AlreadyEndedError{How: "answered"}
	}
	return offset, err
}

func endedError(ev protocol.Event) error {
	if ev.Type == protocol.EventQuestionRejected {
		if r, err := ev.DecodeQuestionRejected(); err == nil {
			switch r.Reason {
			case protocol.ReasonTimeout:
				return &AlreadyEndedError{How: "timed out (no answer in time)"}
			case protocol.ReasonStopped:
				return &AlreadyEndedError{How: "ended: its turn was stopped"}
			case protocol.ReasonOrphaned:
				return &AlreadyEndedError{How: "ended: the server restarted before it was answered"}
			}
			return &AlreadyEndedError{How: "withdrawn: it is no longer needed"}
		}
	}
	if r, err := ev.DecodeQuestionReplied(); err == nil && r.Action == protocol.ActionDecline {
		return &AlreadyEndedError{How: "declined"}
	}
	return &AlreadyEndedError{How: "answered"}
}

// Pending lists the decisions whose last event is still their question, oldest first. An
// empty session lists every session's.
func (g *Registry) Pending(ctx context.Context, session string) ([]protocol.Decision, error) {
	lasts, err := g.log.LastPerSubject(ctx, eventlog.DecisionSubjects(session))
	if err != nil {
		return nil, fmt.Errorf("list questions: %w", err)
	}
	var out []protocol.Decision
	for _, ev := range lasts {
		if ev.Type != protocol.EventQuestionAsked {
			continue
		}
		asked, err := ev.DecodeQuestionAsked()
		if err != nil {
			continue
		}
		out = append(out, protocol.Decision{Session: ev.Session, Offset: ev.Offset, QuestionAsked: asked})
	}
	slices.SortFunc(out, func(a, b protocol.Decision) int { return cmp.Compare(a.Offset, b.Offset) })
	return out, nil
}

// Open is a decision that is pending in the log, as the runtime's open set knows it.
type Open struct {
	Session string
	Seq     uint64
	Owner   string
}

// Sweep aborts open decisions whose waiter cannot be resumed: no waiter of this process
// holds it, and held (a live replica owns it, or its turn may resume it) says no. stale is
// told of entries that had ended.
func (g *Registry) Sweep(ctx context.Context, open map[string]Open, held func(d Open) bool, stale func(id string, seq uint64)) {
	for id, d := range open {
		g.mu.Lock()
		_, waiting := g.waiters[id]
		g.mu.Unlock()
		if waiting || held(d) {
			continue
		}
		if !g.end(ctx, d.Session, id, d.Seq, protocol.OutcomeAborted, protocol.ReasonOrphaned) {
			stale(id, d.Seq) // it had ended; the entry was stale
		}
	}
}
