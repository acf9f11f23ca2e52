package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
	"parley/runtime/script"
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

// decisionResult is how a decision ended, as its waiter learns it.
type decisionResult struct {
	offset   uint64
	replied  *protocol.QuestionReplied
	rejected *protocol.QuestionRejected
}

type waiter struct {
	session string
	asked   uint64
	done    chan decisionResult // buffered: the tap never blocks on it
}

// registry holds this process's waiters; the decisions themselves are in the log.
type registry struct {
	log            *Log
	owner          string
	now            func() time.Time
	defaultTimeout time.Duration
	newID          func() string

	mu      sync.Mutex
	waiters map[string]*waiter
}

func newRegistry(log *Log, owner string, now func() time.Time, timeout time.Duration, newID func() string) *registry {
	return &registry{log: log, owner: owner, now: now, defaultTimeout: timeout, newID: newID, waiters: map[string]*waiter{}}
}

// errStopped is the cause of a turn's context when the user stops it; errShutdown when the
// runtime closes under it.
var (
	errStopped  = errors.New("the turn was stopped")
	errShutdown = errors.New("the server is shutting down")
)

// ask opens a decision and waits for its end. A reply or a timeout is a result; the end of
// ctx aborts the decision (reason stopped when the turn was stopped, else withdrawn) and is
// returned as an error.
func (g *registry) ask(ctx context.Context, session, run string, req protocol.DecisionRequest) (decisionResult, error) {
	if err := req.Validate(); err != nil {
		return decisionResult{}, fmt.Errorf("ask: %w", err)
	}
	timeout := g.defaultTimeout
	if req.TimeoutMs > 0 {
		timeout = time.Duration(req.TimeoutMs) * time.Millisecond
	}
	id := g.newID()
	w := &waiter{session: session, done: make(chan decisionResult, 1)}
	g.mu.Lock()
	g.waiters[id] = w
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.waiters, id)
		g.mu.Unlock()
	}()

	asked := protocol.QuestionAsked{ID: id, Request: req, Run: run, Deadline: g.now().Add(timeout).UnixMilli(), Owner: g.owner}
	offset, _, err := g.log.publish(ctx, decisionSubject(session, id), protocol.EventQuestionAsked, asked, "asked-"+id,
		jetstream.WithExpectLastSequencePerSubject(0))
	if err != nil {
		return decisionResult{}, fmt.Errorf("ask: %w", err)
	}
	w.asked = offset

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case res := <-w.done:
			return res, nil
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
			case errors.Is(cause, errStopped):
				reason = protocol.ReasonStopped
			case errors.Is(cause, errShutdown):
				reason = protocol.ReasonOrphaned // its server is going away and cannot resume it
			}
			g.end(context.WithoutCancel(ctx), session, id, offset, protocol.OutcomeAborted, reason)
			return decisionResult{}, fmt.Errorf("question %s %w: %s", id, script.ErrAborted, reason)
		}
	}
}

// end stores an outcome without a user answer, unless the decision has already ended (then
// it reports false).
func (g *registry) end(ctx context.Context, session, id string, asked uint64, outcome protocol.Outcome, reason string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _, err := g.log.publish(ctx, decisionSubject(session, id), protocol.EventQuestionRejected,
		protocol.QuestionRejected{ID: id, Outcome: outcome, Reason: reason}, "",
		jetstream.WithExpectLastSequencePerSubject(asked))
	if isWrongLastSequence(err) {
		return false
	}
	if err != nil {
		slog.Warn("could not end a decision", "session", session, "decision", id, "reason", reason, "err", err)
	}
	return true
}

// outcome reads how a decision ended, if it has.
func (g *registry) outcome(ctx context.Context, session, id string) (decisionResult, bool) {
	last, err := g.log.stream.GetLastMsgForSubject(ctx, decisionSubject(session, id))
	if err != nil {
		return decisionResult{}, false
	}
	ev, err := decode(last.Subject, last.Sequence, last.Data)
	if err != nil {
		return decisionResult{}, false
	}
	switch ev.Type {
	case protocol.EventQuestionReplied:
		if r, err := ev.DecodeQuestionReplied(); err == nil {
			return decisionResult{offset: ev.Offset, replied: &r}, true
		}
	case protocol.EventQuestionRejected:
		if r, err := ev.DecodeQuestionRejected(); err == nil {
			return decisionResult{offset: ev.Offset, rejected: &r}, true
		}
	}
	return decisionResult{}, false
}

// deliver hands an outcome event seen on the log to this process's waiter, if it has one.
func (g *registry) deliver(ev protocol.Event) {
	var res decisionResult
	var id string
	switch ev.Type {
	case protocol.EventQuestionReplied:
		r, err := ev.DecodeQuestionReplied()
		if err != nil {
			return
		}
		res, id = decisionResult{offset: ev.Offset, replied: &r}, r.ID
	case protocol.EventQuestionRejected:
		r, err := ev.DecodeQuestionRejected()
		if err != nil {
			return
		}
		res, id = decisionResult{offset: ev.Offset, rejected: &r}, r.ID
	default:
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

// reply stores a user's answer after validating it against the decision's schema.
func (g *registry) reply(ctx context.Context, session, id string, reply protocol.ReplyRequest) (uint64, error) {
	if !protocol.ValidSessionID(id) {
		return 0, fmt.Errorf("question %q: %w", id, ErrNoDecision)
	}
	last, err := g.log.stream.GetLastMsgForSubject(ctx, decisionSubject(session, id))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, fmt.Errorf("question %s in session %s: %w", id, session, ErrNoDecision)
	}
	if err != nil {
		return 0, fmt.Errorf("question %s: %w", id, err)
	}
	ev, err := decode(last.Subject, last.Sequence, last.Data)
	if err != nil {
		return 0, err
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
	offset, _, err := g.log.publish(ctx, decisionSubject(session, id), protocol.EventQuestionReplied, replied, "",
		jetstream.WithExpectLastSequencePerSubject(last.Sequence))
	if isWrongLastSequence(err) {
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

// pending lists the decisions whose last event is still their question, oldest first. An
// empty session lists every session's.
func (g *registry) pending(ctx context.Context, session string) ([]protocol.Decision, error) {
	filter := "session.*.q.*"
	if session != "" {
		filter = "session." + session + ".q.*"
	}
	lasts, err := g.log.lastPerSubject(ctx, filter)
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

// sweep aborts open decisions whose waiter cannot be resumed: its owner is neither this
// process (with a live waiter) nor a live replica.
func (g *registry) sweep(ctx context.Context, open *openSet, alive func(owner string) bool) {
	decisions, _ := open.snapshot()
	for id, d := range decisions {
		if d.owner == g.owner {
			g.mu.Lock()
			_, waiting := g.waiters[id]
			g.mu.Unlock()
			if waiting {
				continue
			}
		} else if alive(d.owner) {
			continue
		}
		if !g.end(ctx, d.session, id, d.seq, protocol.OutcomeAborted, protocol.ReasonOrphaned) {
			open.dropDecision(id, d.seq) // it had ended; the entry was stale
		}
	}
}

// isWrongLastSequence reports whether a publish failed its "subject still ends at" check.
func isWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
		return true
	}
	return err != nil && strings.Contains(err.Error(), "wrong last sequence")
}
