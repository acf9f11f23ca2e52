package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
)

// A turn is the work one prompt starts: an agent reply, a slash command's run, or a function
// run. A session runs one turn at a time, on whichever replica claims it:
//
//   - The session's turn.started and turn.ended events live on their own subject
//     (session.<id>.turn). A turn starts only if that subject still ends where the claimer
//     last read it, so two replicas can never run one session's turns at once, and the last
//     event on it says whether a turn is open and who runs it.
//   - The queue is the log itself: the session's user messages that no turn.started names
//     yet, steered ones first, in log order. A delivered prompt is only a doorbell that wakes
//     the session's runner; it stays unacknowledged until its turn starts, so a crash before
//     that rings it again.
//   - A turn whose runner vanished (a crash, a kill -9) is ended as interrupted by the next
//     sweep (at once when embedded), with its run settled as interrupted, and the session's
//     queued prompts run.

// ErrBusy is returned when a session already runs a turn and the request cannot wait.
var ErrBusy = errors.New("this session is already running something: stop it or wait for it to finish")

// doorbell is a delivered prompt, held until its turn starts.
type doorbell struct {
	offset uint64
	msg    jetstream.Msg
}

// runner drives one session's turns in this process.
type runner struct {
	bells  []doorbell
	cancel context.CancelCauseFunc // the running turn's
	turn   uint64                  // the running turn's turn.started offset
}

type turnTable struct {
	mu        sync.Mutex
	bySession map[string]*runner
}

// turnState is what the last event on a session's turn subject says.
type turnState struct {
	seq     uint64 // 0: no turn ever ran
	open    bool
	started protocol.TurnStarted
	through uint64
}

func (r *Runtime) turnState(ctx context.Context, session string) (turnState, error) {
	last, err := r.log.stream.GetLastMsgForSubject(ctx, turnSubject(session))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return turnState{}, nil
	}
	if err != nil {
		return turnState{}, err
	}
	ev, err := decode(last.Subject, last.Sequence, last.Data)
	if err != nil {
		return turnState{}, err
	}
	st := turnState{seq: last.Sequence}
	if ev.Type == protocol.EventTurnStarted {
		st.started, err = protocol.DecodeEventData[protocol.TurnStarted](ev)
		st.open, st.through = true, st.started.Through
	} else {
		var ended protocol.TurnEnded
		ended, err = protocol.DecodeEventData[protocol.TurnEnded](ev)
		st.through = ended.Through
	}
	return st, err
}

// onBell is the inbound door: a user message was delivered to this process.
func (r *Runtime) onBell(ev protocol.Event, msg jetstream.Msg) {
	r.turns.mu.Lock()
	if rn := r.turns.bySession[ev.Session]; rn != nil {
		rn.bells = append(rn.bells, doorbell{offset: ev.Offset, msg: msg})
		r.turns.mu.Unlock()
		// The runner is busy with a turn: tell the browser the prompt waits.
		r.goAsync(func() { r.announceQueue(ev.Session, ev.Offset) })
		return
	}
	rn := &runner{bells: []doorbell{{offset: ev.Offset, msg: msg}}}
	r.turns.bySession[ev.Session] = rn
	r.turns.mu.Unlock()
	r.goAsync(func() { r.runSession(ev.Session, rn) })
}

func (r *Runtime) goAsync(f func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
}

// pendingPrompt is a user message no turn has started yet.
type pendingPrompt struct {
	offset uint64
	text   string
	steer  bool
}

// unstarted reads the session's prompts that wait for a turn, in the order they will run
// (steered ones first), and the offset of the last event it read.
func (r *Runtime) unstarted(ctx context.Context, session string, through uint64) ([]pendingPrompt, uint64, error) {
	evs, err := r.log.Read(ctx, session, through)
	if err != nil {
		return nil, through, err
	}
	started := map[uint64]bool{}
	var prompts []pendingPrompt
	lastRead := through
	for _, ev := range evs {
		lastRead = ev.Offset
		switch ev.Type {
		case protocol.EventTurnStarted:
			if ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev); err == nil {
				started[ts.Prompt] = true
			}
		case protocol.EventUserMessage:
			if m, err := ev.DecodeMessage(); err == nil {
				prompts = append(prompts, pendingPrompt{offset: ev.Offset, text: m.Text, steer: m.Mode == protocol.ModeSteer})
			}
		}
	}
	prompts = slices.DeleteFunc(prompts, func(p pendingPrompt) bool { return started[p.offset] })
	slices.SortStableFunc(prompts, func(a, b pendingPrompt) int { return protocol.RunOrder(a.steer, b.steer) })
	return prompts, lastRead, nil
}

// watermark is the offset through which every prompt has started, once the waiting ones are
// those in queue and everything through lastRead has been read.
func watermark(queue []pendingPrompt, lastRead uint64) uint64 {
	if len(queue) == 0 {
		return lastRead
	}
	low := queue[0].offset
	for _, p := range queue {
		low = min(low, p.offset)
	}
	return low - 1
}

func offsetsOf(ps []pendingPrompt) []uint64 {
	out := make([]uint64, len(ps))
	for i, p := range ps {
		out[i] = p.offset
	}
	return out
}

// announceQueue lists the session's waiting prompts after a new one arrived during a turn.
func (r *Runtime) announceQueue(session string, arrived uint64) {
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	st, err := r.turnState(ctx, session)
	if err != nil || !st.open {
		return
	}
	queue, _, err := r.unstarted(ctx, session, st.through)
	if err != nil || len(queue) == 0 {
		return
	}
	r.appendEvent(session, protocol.EventTurnQueue, protocol.TurnQueue{Prompts: offsetsOf(queue)}, "queue-"+strconv.FormatUint(arrived, 10))
}

// runSession runs the session's waiting prompts, one turn at a time. It returns when none
// waits, when another live replica runs the session (whose runner then takes the prompts
// from the log), or when the runtime closes.
func (r *Runtime) runSession(session string, rn *runner) {
	defer r.releaseRunner(session, rn)
	for r.ctx.Err() == nil {
		st, err := r.turnState(r.ctx, session)
		if err != nil {
			r.retryLater(session, err)
			return
		}
		if st.open {
			if st.started.Owner != r.owner && r.ownerAlive(st.started.Owner) {
				// Another replica runs this session; it reads our prompts from the log.
				if low := r.lowestBell(rn, 0); low > 0 {
					r.announceQueue(session, low)
				}
				r.nakBells(rn)
				return
			}
			// Its runner is gone (or was this process's and failed to record the end).
			r.interrupt(session, st)
			continue
		}
		through := st.through
		if st.seq == 0 {
			// No turn was ever recorded (a session from before turns were): only the prompts
			// delivered now count as waiting.
			through = r.lowestBell(rn, r.lastOffset(session)+1) - 1
		}
		queue, lastRead, err := r.unstarted(r.ctx, session, through)
		if err != nil {
			r.retryLater(session, err)
			return
		}
		if len(queue) == 0 {
			if r.closeRunner(session, rn) {
				return
			}
			continue // a doorbell rang meanwhile
		}
		next, rest := queue[0], queue[1:]
		started := protocol.TurnStarted{Prompt: next.offset, Kind: protocol.TurnAgent, Owner: r.owner, Through: watermark(rest, lastRead)}
		if _, isCommand := protocol.ResolveCommand(next.text); isCommand {
			started.Kind, started.Run = protocol.TurnCommand, commandRunID(next.offset)
		}
		seq, dup, err := r.log.publish(r.ctx, turnSubject(session), protocol.EventTurnStarted, started,
			"turn-"+strconv.FormatUint(next.offset, 10), jetstream.WithExpectLastSequencePerSubject(st.seq))
		if isWrongLastSequence(err) || (err == nil && dup) {
			continue // another runner moved first: read again
		}
		if err != nil {
			r.retryLater(session, err)
			return
		}
		r.ackBells(rn, next.offset)
		if len(rest) > 0 {
			// An empty queue needs no event: each turn.started takes its prompt off the list.
			r.appendEvent(session, protocol.EventTurnQueue, protocol.TurnQueue{Prompts: offsetsOf(rest)}, "dequeue-"+strconv.FormatUint(next.offset, 10))
		}
		r.runTurn(session, rn, seq, started, func(ctx context.Context) {
			if started.Kind == protocol.TurnCommand {
				cmd, _ := protocol.ResolveCommand(next.text)
				r.runCommand(ctx, session, next.offset, cmd)
				return
			}
			r.agentReply(session, next)
		})
	}
}

// runTurn does one turn's work and records its end.
func (r *Runtime) runTurn(session string, rn *runner, seq uint64, started protocol.TurnStarted, work func(ctx context.Context)) {
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	r.turns.mu.Lock()
	rn.cancel, rn.turn = cancel, seq
	r.turns.mu.Unlock()
	work(ctx)
	r.turns.mu.Lock()
	rn.cancel, rn.turn = nil, 0
	r.turns.mu.Unlock()
	ended := protocol.TurnEnded{Prompt: started.Prompt, Run: started.Run, Through: started.Through,
		Stopped: errors.Is(context.Cause(ctx), errStopped)}
	if r.ctx.Err() != nil {
		// The runtime is closing: the turn did not finish, and nothing here will finish it.
		ended.Interrupted = true
	}
	ectx, ecancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer ecancel()
	_, _, err := r.log.publish(ectx, turnSubject(session), protocol.EventTurnEnded, ended, "",
		jetstream.WithExpectLastSequencePerSubject(seq))
	if err != nil && !isWrongLastSequence(err) {
		slog.Warn("could not record the end of a turn", "session", session, "err", err)
	}
}

// interrupt ends a turn whose runner is gone, settling its run, so the thread stops waiting.
// It reports false when the turn had already ended.
func (r *Runtime) interrupt(session string, st turnState) bool {
	if now, err := r.turnState(r.ctx, session); err == nil && (now.seq != st.seq || !now.open) {
		return false // it ended meanwhile: settling its run again would be a lie
	}
	if st.started.Run != "" {
		key := runKey(st.started.Run)
		r.appendEvent(session, protocol.EventRunSettled, protocol.RunSettled{Run: st.started.Run,
			Error: "interrupted: the server running it stopped before it finished"}, "settled-"+key)
	}
	ended := protocol.TurnEnded{Prompt: st.started.Prompt, Run: st.started.Run, Through: st.through, Interrupted: true}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := r.log.publish(ctx, turnSubject(session), protocol.EventTurnEnded, ended, "",
		jetstream.WithExpectLastSequencePerSubject(st.seq))
	if isWrongLastSequence(err) {
		return false
	}
	if err != nil {
		slog.Warn("could not end an interrupted turn", "session", session, "err", err)
	}
	return true
}

// sweepTurns ends the open turns whose runner is gone, then runs their sessions' waiting
// prompts here.
func (r *Runtime) sweepTurns() {
	_, turns := r.open.snapshot()
	for session, t := range turns {
		if t.started.Owner == r.owner || r.ownerAlive(t.started.Owner) {
			continue
		}
		if !r.interrupt(session, turnState{seq: t.seq, open: true, started: t.started, through: t.started.Through}) {
			r.open.dropTurn(session, t.seq)
			continue
		}
		if !r.opts.NoAgent {
			r.wake(session)
		}
	}
}

// wake starts a runner for a session that has none here.
func (r *Runtime) wake(session string) {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	if r.turns.bySession[session] != nil {
		return
	}
	rn := &runner{}
	r.turns.bySession[session] = rn
	r.goAsync(func() { r.runSession(session, rn) })
}

func (r *Runtime) ownerAlive(owner string) bool {
	if owner == r.owner {
		return true
	}
	if r.opts.Exclusive {
		return false
	}
	ctx, cancel := context.WithTimeout(r.ctx, 2*time.Second)
	defer cancel()
	return r.presence.alive(ctx, owner)
}

// lastOffset is the offset of the session's last event.
func (r *Runtime) lastOffset(session string) uint64 {
	last, err := r.log.stream.GetLastMsgForSubject(r.ctx, sessionSubjects(session))
	if err != nil {
		return 0
	}
	return last.Sequence
}

// lowestBell is the offset of the earliest held doorbell, or otherwise.
func (r *Runtime) lowestBell(rn *runner, otherwise uint64) uint64 {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	if len(rn.bells) == 0 {
		return otherwise
	}
	low := rn.bells[0].offset
	for _, b := range rn.bells {
		low = min(low, b.offset)
	}
	return low
}

func (r *Runtime) ackBells(rn *runner, offset uint64) {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	rn.bells = slices.DeleteFunc(rn.bells, func(b doorbell) bool {
		if b.offset == offset {
			_ = b.msg.Ack()
			return true
		}
		return false
	})
}

func (r *Runtime) nakBells(rn *runner) {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	for _, b := range rn.bells {
		_ = b.msg.NakWithDelay(time.Second)
	}
	rn.bells = nil
}

// closeRunner retires the runner when no doorbell rang since its last look at the log; the
// prompts of any held doorbell have all started, so they are acknowledged.
func (r *Runtime) closeRunner(session string, rn *runner) bool {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	for _, b := range rn.bells {
		_ = b.msg.Ack()
	}
	had := len(rn.bells) > 0
	rn.bells = nil
	if had {
		return false // look once more: a doorbell may have rung after the last read
	}
	delete(r.turns.bySession, session)
	return true
}

func (r *Runtime) releaseRunner(session string, rn *runner) {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	if r.turns.bySession[session] == rn {
		delete(r.turns.bySession, session)
	}
	// Doorbells still held go back for redelivery (the runtime is closing, or the log failed).
	for _, b := range rn.bells {
		_ = b.msg.Nak()
	}
	rn.bells = nil
}

func (r *Runtime) retryLater(session string, err error) {
	if r.ctx.Err() == nil {
		slog.Warn("session runner failed; its prompts will be redelivered", "session", session, "err", err)
	}
}

// keepBells tells JetStream that held doorbells are still being worked on, so they are not
// redelivered while their prompts wait in the queue.
func (r *Runtime) keepBells() {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	for _, rn := range r.turns.bySession {
		for _, b := range rn.bells {
			_ = b.msg.InProgress()
		}
	}
}

// startFunctionTurn claims the session's turn for a function run and starts it; the
// session's waiting prompts follow it. It refuses when a turn is running.
func (r *Runtime) startFunctionTurn(ctx context.Context, session, run string, work func(ctx context.Context)) error {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	if r.turns.bySession[session] != nil {
		return ErrBusy
	}
	st, err := r.turnState(ctx, session)
	if err != nil {
		return err
	}
	if st.open && r.ownerAlive(st.started.Owner) {
		return ErrBusy
	}
	if st.open {
		r.interrupt(session, st)
		if st, err = r.turnState(ctx, session); err != nil {
			return err
		}
	}
	through := st.through
	if st.seq == 0 {
		through = r.lastOffset(session)
	}
	started := protocol.TurnStarted{Kind: protocol.TurnFunction, Run: run, Owner: r.owner, Through: through}
	seq, _, err := r.log.publish(ctx, turnSubject(session), protocol.EventTurnStarted, started, "turn-"+runKey(run),
		jetstream.WithExpectLastSequencePerSubject(st.seq))
	if isWrongLastSequence(err) {
		return ErrBusy
	}
	if err != nil {
		return err
	}
	rn := &runner{}
	r.turns.bySession[session] = rn
	r.goAsync(func() {
		r.runTurn(session, rn, seq, started, work)
		r.runSession(session, rn)
	})
	return nil
}

// StopTurn asks whoever runs the session's turn to stop it: the request is an event, so the
// replica that runs the turn sees it through its tap.
func (r *Runtime) StopTurn(ctx context.Context, session string, req protocol.StopRequest) (protocol.StopResponse, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return protocol.StopResponse{}, err
	}
	st, err := r.turnState(ctx, session)
	if err != nil {
		return protocol.StopResponse{}, err
	}
	if !st.open || (req.Turn != 0 && req.Turn != st.seq) {
		return protocol.StopResponse{}, nil // nothing runs, or not the turn the user saw
	}
	offset, _, err := r.log.Append(ctx, session, protocol.EventStopRequested, protocol.StopRequested{Turn: st.seq}, "")
	return protocol.StopResponse{Running: true, Offset: offset}, err
}

// onStop cancels the turn a stop names, if this process runs it and it still runs.
func (r *Runtime) onStop(session string, turn uint64) {
	r.turns.mu.Lock()
	var cancel context.CancelCauseFunc
	if rn := r.turns.bySession[session]; rn != nil && rn.turn == turn {
		cancel = rn.cancel
	}
	r.turns.mu.Unlock()
	if cancel != nil {
		cancel(errStopped)
	}
}

// appendEvent stores an event the runtime itself produces. These must not be lost to a
// passing hiccup, so a failure is retried briefly and then logged.
func (r *Runtime) appendEvent(session string, typ protocol.EventType, data any, msgID string) uint64 {
	var err error
	for attempt := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var offset uint64
		offset, _, err = r.log.Append(ctx, session, typ, data, msgID)
		cancel()
		if err == nil {
			return offset
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	slog.Error("could not store an event", "session", session, "type", typ, "err", err)
	return 0
}

func commandRunID(offset uint64) string { return fmt.Sprintf("slash-command:%d", offset) }
