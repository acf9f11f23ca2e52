package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"parley/i18n"
	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/decision"
	"parley/runtime/eventlog"
	"parley/runtime/turn"
)

// A turn is the work one prompt starts: an agent reply, a slash command's run, or a function
// run. A session runs one turn at a time, on whichever replica claims it:
//
//   - The session's turn.started and turn.ended events live on their own subject
//     (session.<id>.turn). A turn starts only if that subject still ends where the claimer
//     last read it, so two replicas can never run one session's turns at once, and the last
//     event on it says whether a turn is open and who runs it.
//   - The queue is the log itself: the session's user messages that no turn.started names
//     yet, steered ones first, in log order (turn.Next). A delivered prompt is only a
//     doorbell that wakes the session's runner; it stays unacknowledged until its turn
//     starts, so a crash before that rings it again. Which prompt runs is never taken from
//     the doorbells.
//   - A turn whose runner vanished (a crash, a kill -9) is ended as interrupted by the next
//     sweep (at once when embedded), with its run settled as interrupted, and the session's
//     queued prompts run.

// ErrBusy is returned when a session already runs a turn and the request cannot wait.
var ErrBusy = errors.New("this session is already running something: stop it or wait for it to finish")

// runner drives one session's turns in this process.
//
// It holds at most one doorbell unacknowledged, its anchor, for as long as the session may
// have prompts waiting: while it is unacknowledged a crash rings it again (and the next
// runtime wakes the session at start, from the consumer's unacknowledged window), and the
// runner reads every waiting prompt from the log anyway. Every other doorbell is
// acknowledged as it rings. Holding one per prompt would let a few long queues fill the
// consumer's ack-pending window, so no other session's prompt would ring until they
// drained, nor, after a kill -9, until the dead process's bells timed out.
type runner struct {
	anchor eventlog.Bell
	// rang says a doorbell rang since the runner last began reading the log: what it read
	// may not hold that prompt, so it reads again before it retires.
	rang   bool
	cancel context.CancelCauseFunc // the running turn's
	turn   uint64                  // the running turn's turn.started offset
}

// turnTable holds the runners. Its lock guards only the map and the runners' fields: no I/O
// happens under it, so a doorbell or a stop never waits for the log.
type turnTable struct {
	mu        sync.Mutex
	bySession map[string]*runner
	// stops holds, per session, the turn of the last stop that found no runner running it
	// here. The tap can bring the stop of a turn whose turn.started this process stored
	// before runTurn takes the turn; runTurn then stops it at once.
	stops map[string]uint64
}

// turnState reads what the last event on a session's turn subject says.
func (r *Runtime) turnState(ctx context.Context, session string) (turn.State, error) {
	ev, err := r.log.Last(ctx, eventlog.TurnSubject(session))
	if errors.Is(err, eventlog.ErrNotFound) {
		return turn.State{}, nil
	}
	if err != nil {
		return turn.State{}, err
	}
	st := turn.State{Seq: ev.Offset}
	if ev.Type == protocol.EventTurnStarted {
		st.Started, err = protocol.DecodeEventData[protocol.TurnStarted](ev)
		st.Open, st.Through = true, st.Started.Through
	} else {
		var ended protocol.TurnEnded
		ended, err = protocol.DecodeEventData[protocol.TurnEnded](ev)
		st.Through = ended.Through
	}
	return st, err
}

// onBell is the inbound door: a user message was delivered to this process. A busy runner
// keeps the bell; the prompt waits in the log, where the browser sees it queued.
func (r *Runtime) onBell(ev protocol.Event, bell eventlog.Bell) {
	r.turns.mu.Lock()
	if rn := r.turns.bySession[ev.Session]; rn != nil {
		rn.rang = true
		if rn.anchor == nil {
			rn.anchor = bell
		} else {
			_ = bell.Ack() // the anchor already rings for the session
		}
		r.turns.mu.Unlock()
		return
	}
	rn := &runner{anchor: bell, rang: true}
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

// runSession runs the session's waiting prompts, one turn at a time. It returns when none
// waits, when another live replica runs the session (whose runner then takes the prompts
// from the log), or when the runtime closes. Between its own turns it keeps the queue it
// read and reads only what was stored since; whenever the turn subject does not end where
// its last turn left it, it reads again from the watermark.
func (r *Runtime) runSession(session string, rn *runner) {
	defer r.releaseRunner(session, rn)
	var q turn.Queue
	var kept uint64 // the turn subject's last offset q was kept for; 0: none
	for r.ctx.Err() == nil {
		if !r.awaitLease() {
			return
		}
		st, err := r.turnState(r.ctx, session)
		if err != nil {
			r.retryLater(session, err)
			return
		}
		if st.Open {
			if st.Started.Owner != r.owner && r.ownerAlive(st.Started.Owner) {
				// Another replica runs this session; it reads our prompts from the log.
				r.nakBells(rn)
				return
			}
			// Its runner is gone (or was this process's and failed to record the end, or was
			// stopped here by fencing and nobody took it over). An agent turn that waited on a
			// decision continues here; anything else ends, interrupted.
			if st.Started.Owner != r.owner || r.fencedHere(session, st.Turn()) {
				resumes, pending, err := r.resumable(session, st)
				if err != nil {
					r.retryLater(session, err) // not knowing, never interrupt what could resume
					return
				}
				if resumes {
					r.resume(session, rn, st, pending)
					q, kept = turn.Queue{}, 0 // read the queue again from the watermark
					continue
				}
			}
			r.interrupt(session, st)
			continue
		}
		after := q.LastRead
		if kept == 0 || kept != st.Seq {
			q, after = turn.Queue{}, st.Through
		}
		r.reading(rn)
		evs, err := r.log.Read(r.ctx, session, after)
		if err != nil {
			r.retryLater(session, err)
			return
		}
		q, kept = turn.Read(q, st, evs), st.Seq
		plan := q.Plan(st)
		if plan.Next == nil {
			if r.closeRunner(session, rn) {
				return
			}
			continue // a doorbell rang meanwhile
		}
		next := *plan.Next
		started := protocol.TurnStarted{Prompt: next.Offset, Kind: protocol.TurnAgent, Owner: r.owner, Through: plan.Through}
		var who agent.Agent = r.agent
		if _, isCommand := protocol.ResolveCommand(next.Text); isCommand {
			started.Kind, started.Run = protocol.TurnCommand, commandRunID(next.Offset)
			who = commands{r}
		}
		// The claim holds only while the session ends where it was read: a withdrawal or an
		// edit stored since (which waits on the turn subject in its turn) makes it read
		// again, so a prompt withdrawn is never run, nor an edit's old text (QA round 26).
		seq, dup, err := r.log.PublishWhile(r.ctx, eventlog.TurnSubject(session), eventlog.SessionSubjects(session), max(q.LastRead, st.Seq),
			protocol.EventTurnStarted, started, claimID("turn", next.Offset, r.owner))
		if errors.Is(err, eventlog.ErrConflict) || (err == nil && dup) {
			continue // another runner moved first: read again
		}
		if err != nil {
			r.retryLater(session, err)
			return
		}
		q = q.Started(next.Offset)
		kept = r.runTurn(session, rn, seq, started, func(ctx context.Context) error {
			if started.Kind == protocol.TurnAgent {
				ctx = decision.Surviving(ctx)
			}
			in := agent.Input{Session: session, Prompt: next.Offset, Text: next.Text}
			caps := &runCaps{r: r, session: session, run: started.Run}
			if ws, err := r.turnWorkspace(ctx, session); err == nil {
				in.Workspace, caps.ws = ws.Path, ws
			}
			err := who.Turn(ctx, in, &tools{caps: caps, prompt: next.Offset})
			if err != nil && ctx.Err() == nil {
				slog.Warn("turn failed", "session", session, "prompt", next.Offset, "err", err)
			}
			return err
		})
	}
}

// runTurn does one turn's work and records its end. It returns the offset of its
// turn.ended, 0 when it could not store it. The work's error says it did not finish: an
// agent's turn that did finish (its answer stored) before the runtime closed or fenced
// itself is ended here, not left for another runtime to end with a note that it was
// interrupted under the answer.
func (r *Runtime) runTurn(session string, rn *runner, seq uint64, started protocol.TurnStarted, work func(ctx context.Context) error) uint64 {
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	r.turns.mu.Lock()
	rn.cancel, rn.turn = cancel, seq
	if started.Resumes != 0 {
		rn.turn = started.Resumes // a stop names the turn by its first turn.started
	}
	if stop, ok := r.turns.stops[session]; ok && stop == rn.turn {
		cancel(decision.ErrStopped) // the stop came first
	}
	delete(r.turns.stops, session) // any other names an older turn
	r.turns.mu.Unlock()
	workErr := work(ctx)
	r.turns.mu.Lock()
	rn.cancel, rn.turn = nil, 0
	r.turns.mu.Unlock()
	ended := protocol.TurnEnded{Prompt: started.Prompt, Run: started.Run, Through: started.Through,
		Stopped: errors.Is(context.Cause(ctx), decision.ErrStopped)}
	if (r.ctx.Err() != nil || fenced(ctx)) && !(started.Kind == protocol.TurnAgent && workErr == nil) {
		if started.Kind == protocol.TurnAgent && !ended.Stopped {
			// The runtime is closing (or lost its lease) under an agent's turn: it stays
			// open, for the runtime that finds it (as after a crash): resumed if it waits on a
			// decision, else ended with a note.
			return 0
		}
		// A script cannot resume: the turn did not finish, and nothing will finish it.
		ended.Interrupted = true
	}
	ectx, ecancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer ecancel()
	end, _, err := r.log.PublishAfter(ectx, eventlog.TurnSubject(session), seq, protocol.EventTurnEnded, ended, "")
	if err != nil && !errors.Is(err, eventlog.ErrConflict) {
		slog.Warn("could not record the end of a turn", "session", session, "err", err)
	}
	return end
}

// interrupt ends a turn whose runner is gone, settling its run, so the thread stops waiting:
// a script's run is settled with a note that offers to run it again (its Starlark state was
// in the memory of the server that stopped), an agent's turn gets a notice, and the
// decisions the turn left pending end as orphaned. It reports false when the turn had
// already ended.
func (r *Runtime) interrupt(session string, st turn.State) bool {
	if now, err := r.turnState(r.ctx, session); err == nil && (now.Seq != st.Seq || !now.Open) {
		return false // it ended meanwhile: settling its run again would be a lie
	}
	id := strconv.FormatUint(st.Turn(), 10)
	if st.Started.Run != "" {
		key := runKey(st.Started.Run)
		p, text := i18n.EnglishPhrase("run_restarted")
		r.appendEvent(session, protocol.EventRunSettled, protocol.RunSettled{Run: st.Started.Run,
			Error: text, ErrorPhrase: &p}, "settled-"+key)
	} else if st.Started.Kind == protocol.TurnAgent {
		text, _ := i18n.English.Phrase(i18n.PhraseCodeTurnInterrupted, nil)
		r.appendEvent(session, protocol.EventAgentMessage, protocol.Message{Text: text, From: protocol.FromParley,
			Phrase: &protocol.Phrase{Code: i18n.PhraseCodeTurnInterrupted}}, "interrupted-"+id)
	}
	ended := protocol.TurnEnded{Prompt: st.Started.Prompt, Run: st.Started.Run, Through: st.Through, Interrupted: true}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := r.log.PublishAfter(ctx, eventlog.TurnSubject(session), st.Seq, protocol.EventTurnEnded, ended, "")
	if errors.Is(err, eventlog.ErrConflict) {
		return false
	}
	if err != nil {
		slog.Warn("could not end an interrupted turn", "session", session, "err", err)
		return true
	}
	// Its questions can never be answered to anyone now.
	if pending, err := r.registry.Pending(ctx, session); err == nil {
		for _, d := range pending {
			if d.Offset > st.Turn() {
				r.registry.End(ctx, session, d.ID, d.Offset, protocol.ReasonOrphaned)
			}
		}
	}
	return true
}

// resumable reports whether an open agent turn whose runtime went away continues on this
// one: it waited on decisions still pending, or on ones answered since that nothing acted on
// (answeredUnacted). It returns the pending ones. Any other turn (a script, a function, an
// agent streaming or running a tool) cannot continue.
func (r *Runtime) resumable(session string, st turn.State) (bool, []protocol.Decision, error) {
	if r.opts.NoAgent || st.Started.Kind != protocol.TurnAgent {
		return false, nil, nil
	}
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	pending, err := r.registry.Pending(ctx, session)
	if err != nil {
		return false, nil, err
	}
	pending = slices.DeleteFunc(pending, func(d protocol.Decision) bool { return d.Offset <= st.Turn() })
	if len(pending) > 0 {
		return true, pending, nil
	}
	evs, err := r.log.Read(ctx, session, st.Turn()-1)
	if err != nil {
		return false, nil, err
	}
	return answeredUnacted(session, evs), nil, nil
}

// resume takes over an agent turn whose runtime went away while it waited on decisions (or
// on answers nobody acted on): a turn.started naming the turn it continues, stored only if
// the turn subject still ends at the old one (so one runtime takes it), then the agent runs
// again with Resume set and waits for the same decisions.
func (r *Runtime) resume(session string, rn *runner, st turn.State, pending []protocol.Decision) {
	started := st.Started
	started.Owner, started.Resumes = r.owner, st.Turn()
	seq, dup, err := r.log.PublishAfter(r.ctx, eventlog.TurnSubject(session), st.Seq, protocol.EventTurnStarted, started,
		claimID("resume", st.Seq, r.owner))
	if err != nil || dup {
		return // another runtime moved first, or the log failed: read again
	}
	slog.Info("resuming a turn that waits on a decision", "session", session, "turn", started.Resumes, "pending", len(pending))
	r.runTurn(session, rn, seq, started, func(ctx context.Context) error {
		ctx = decision.Surviving(ctx)
		text := ""
		if ev, err := r.log.Get(ctx, started.Prompt); err == nil {
			if m, err := ev.DecodeMessage(); err == nil {
				text = m.Text
			}
		}
		// Edited while it waited: the turn runs the new text (prompt.edited).
		if evs, err := r.log.Read(ctx, session, started.Prompt); err == nil {
			if t, ok := protocol.Edits(evs)[started.Prompt]; ok {
				text = t
			}
		}
		in := agent.Input{Session: session, Prompt: started.Prompt, Text: text, Resume: true}
		caps := &runCaps{r: r, session: session, run: started.Run}
		if ws, err := r.turnWorkspace(ctx, session); err == nil {
			in.Workspace, caps.ws = ws.Path, ws
		}
		t := &tools{caps: caps, prompt: started.Prompt}
		if evs, err := r.log.Read(ctx, session, started.Resumes-1); err == nil {
			t.continueFrom(evs)
			t.adopt = adoptable(session, evs)
		} else {
			for _, d := range pending {
				t.adopt = append(t.adopt, &decision.Resumable{Decision: d})
			}
		}
		err := r.agent.Turn(ctx, in, t)
		if err != nil && ctx.Err() == nil {
			slog.Warn("resumed turn failed", "session", session, "prompt", started.Prompt, "err", err)
		}
		t.withdrawUnused(ctx)
		return err
	})
}

// sweepTurns finds the open turns whose runner is gone. With an agent, the session's runner
// here settles each (it resumes an agent turn that waited on a decision, ends the rest as
// interrupted) and then runs the waiting prompts; without one, they are ended here.
func (r *Runtime) sweepTurns() {
	_, turns := r.open.snapshot()
	for session, t := range turns {
		if t.started.Owner == r.owner || r.ownerAlive(t.started.Owner) {
			continue
		}
		if !r.opts.NoAgent {
			r.wake(session)
			continue
		}
		if !r.interrupt(session, turn.State{Seq: t.seq, Open: true, Started: t.started, Through: t.started.Through}) {
			r.open.dropTurn(session, t.seq)
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
	return r.alive(ctx, owner)
}

// reading marks the moment the runner begins a read of the log: a doorbell that rings
// after it may name a prompt the read misses.
func (r *Runtime) reading(rn *runner) {
	r.turns.mu.Lock()
	rn.rang = false
	r.turns.mu.Unlock()
}

// nakBells hands the anchor back, to ring again in a second: another replica runs the
// session now, and if it goes away between two turns, the anchor is what wakes the session.
func (r *Runtime) nakBells(rn *runner) {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	if rn.anchor != nil {
		_ = rn.anchor.NakWithDelay(time.Second)
	}
	rn.anchor = nil
}

// closeRunner retires the runner when no doorbell rang since its last read of the log,
// which found nothing waiting: every prompt so far has started, so the anchor is
// acknowledged.
func (r *Runtime) closeRunner(session string, rn *runner) bool {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	if rn.rang {
		return false // look once more: its prompt may be newer than that read
	}
	if rn.anchor != nil {
		_ = rn.anchor.Ack()
	}
	rn.anchor = nil
	delete(r.turns.bySession, session)
	return true
}

func (r *Runtime) releaseRunner(session string, rn *runner) {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	if r.turns.bySession[session] == rn {
		delete(r.turns.bySession, session)
	}
	// An anchor still held goes back for redelivery (the runtime is closing, or the log failed).
	if rn.anchor != nil {
		_ = rn.anchor.Nak()
	}
	rn.anchor = nil
}

func (r *Runtime) retryLater(session string, err error) {
	if r.ctx.Err() == nil {
		slog.Warn("session runner failed; its prompts will be redelivered", "session", session, "err", err)
	}
}

// keepBells tells JetStream that the anchors are still being worked on, so they are not
// redelivered while their sessions' prompts wait in the queue.
func (r *Runtime) keepBells() {
	r.turns.mu.Lock()
	defer r.turns.mu.Unlock()
	for _, rn := range r.turns.bySession {
		if rn.anchor != nil {
			_ = rn.anchor.InProgress()
		}
	}
}

// startFunctionTurn claims the session's turn for a function run and starts it; the
// session's waiting prompts follow it. It refuses when a turn is running. The session is
// reserved in the table first and the log is read and written outside the lock: doorbells
// that ring meanwhile join the reservation, and run after the function (or at once, if the
// claim fails).
func (r *Runtime) startFunctionTurn(ctx context.Context, session, run string, work func(ctx context.Context)) error {
	r.turns.mu.Lock()
	if r.turns.bySession[session] != nil {
		r.turns.mu.Unlock()
		return ErrBusy
	}
	rn := &runner{}
	r.turns.bySession[session] = rn
	r.turns.mu.Unlock()

	seq, started, err := r.claimFunctionTurn(ctx, session, run)
	if err != nil {
		// Hand the reservation back; prompts that rang meanwhile still run.
		r.goAsync(func() { r.runSession(session, rn) })
		return err
	}
	r.goAsync(func() {
		r.runTurn(session, rn, seq, started, func(ctx context.Context) error { work(ctx); return nil })
		r.runSession(session, rn)
	})
	return nil
}

// claimFunctionTurn writes the function's turn.started, if no live runner holds the turn.
// Every prompt waiting now stays waiting: the watermark stays below the lowest of them.
func (r *Runtime) claimFunctionTurn(ctx context.Context, session, run string) (uint64, protocol.TurnStarted, error) {
	st, err := r.turnState(ctx, session)
	if err != nil {
		return 0, protocol.TurnStarted{}, err
	}
	if st.Open && r.ownerAlive(st.Started.Owner) {
		return 0, protocol.TurnStarted{}, ErrBusy
	}
	if st.Open {
		r.interrupt(session, st)
		if st, err = r.turnState(ctx, session); err != nil {
			return 0, protocol.TurnStarted{}, err
		}
	}
	evs, err := r.log.Read(ctx, session, st.Through)
	if err != nil {
		return 0, protocol.TurnStarted{}, err
	}
	waiting, lastRead := turn.Waiting(st, evs)
	started := protocol.TurnStarted{Kind: protocol.TurnFunction, Run: run, Owner: r.owner, Through: turn.Watermark(waiting, lastRead)}
	seq, _, err := r.log.PublishAfter(ctx, eventlog.TurnSubject(session), st.Seq, protocol.EventTurnStarted, started, "turn-"+runKey(run))
	if errors.Is(err, eventlog.ErrConflict) {
		return 0, protocol.TurnStarted{}, ErrBusy
	}
	return seq, started, err
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
	if !st.Open || (req.Turn != 0 && req.Turn != st.Turn()) {
		return protocol.StopResponse{}, nil // nothing runs, or not the turn the user saw
	}
	offset, _, err := r.log.Append(ctx, session, protocol.EventStopRequested, protocol.StopRequested{Turn: st.Turn()}, "")
	return protocol.StopResponse{Running: true, Offset: offset}, err
}

// onStop cancels the turn a stop names, if this process runs it and it still runs; a stop
// that finds no runner on its turn is kept for runTurn (turnTable.stops).
func (r *Runtime) onStop(session string, turn uint64) {
	r.turns.mu.Lock()
	var cancel context.CancelCauseFunc
	if rn := r.turns.bySession[session]; rn != nil && rn.turn == turn {
		cancel = rn.cancel
	} else {
		r.turns.stops[session] = turn // for runTurn, if the turn is about to run here
	}
	r.turns.mu.Unlock()
	if cancel != nil {
		cancel(decision.ErrStopped)
	}
}

// appendEvent stores an event the runtime itself produces. The log confirms a slow write
// before it reports one; a write it could not take is retried briefly, then logged.
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

// claimID is the message id of a claim on a session's turn subject. It names the claimer:
// two replicas claiming the same prompt must never share an id, or the loser's retry of a
// write whose answer was lost (a leader election) would be taken by JetStream for a repeat
// of the winner's, and both would run the turn.
func claimID(what string, offset uint64, owner string) string {
	return what + "-" + strconv.FormatUint(offset, 10) + "-" + owner
}

func commandRunID(offset uint64) string { return protocol.CommandRun(offset) }

// ErrNotWaiting is returned for a withdrawal of a prompt that is not waiting for its turn:
// its turn started, it was steered into a turn, or it was withdrawn already.
var ErrNotWaiting = errors.New("this prompt is not waiting: its turn started, or it was withdrawn already")

// WithdrawPrompt takes back a prompt still waiting for its turn: a prompt.withdrawn in the
// log says so, and no turn runs it (turn.Read counts it as taken). The withdrawal and a
// runner's claim of the prompt exclude each other in the log (whileWaiting): whichever is
// stored first wins, and the other is refused (docs/look.md, "The queue").
func (r *Runtime) WithdrawPrompt(ctx context.Context, session string, prompt uint64) (protocol.WithdrawResponse, error) {
	offset, err := r.whileWaiting(ctx, session, prompt, protocol.EventPromptWithdrawn, protocol.PromptWithdrawn{Prompt: prompt},
		"withdrawn-"+strconv.FormatUint(prompt, 10))
	return protocol.WithdrawResponse{Offset: offset}, err
}

// EditPrompt changes the text of a prompt still waiting for its turn, in place: a
// prompt.edited in the log, and the prompt keeps its place in the queue (turn.Read). It is
// refused like a withdrawal once the prompt's turn started (ErrNotWaiting), and a runner
// that read the prompt before the edit was stored reads it again before it runs it.
func (r *Runtime) EditPrompt(ctx context.Context, session string, prompt uint64, req protocol.EditPromptRequest) (protocol.EditResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.EditResponse{}, err
	}
	// An id of its own, so a write retried after a lost ack is stored once, while a later
	// edit back to an earlier text is stored again.
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	offset, err := r.whileWaiting(ctx, session, prompt, protocol.EventPromptEdited, protocol.PromptEdited{Prompt: prompt, Text: req.Text},
		"edited-"+strconv.FormatUint(prompt, 10)+"-"+hex.EncodeToString(id))
	return protocol.EditResponse{Offset: offset}, err
}

// whileWaiting stores a change of a waiting prompt (its withdrawal, its edit) only while it
// waits: the write holds while the turn subject ends where the queue was read, so a turn
// that started meanwhile refuses it (ErrNotWaiting), and a turn's claim read before it is
// refused in its turn (runSession). Before, the check and the write were apart, and a
// withdrawal answered 200 for a prompt that then ran (QA round 26: 15 of 20 under load).
// A turn that ended meanwhile (the one before) is no reason to refuse: it reads again.
func (r *Runtime) whileWaiting(ctx context.Context, session string, prompt uint64, typ protocol.EventType, data any, msgID string) (uint64, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return 0, err
	}
	for range 5 {
		st, waiting, err := r.waiting(ctx, session, prompt)
		if err != nil {
			return 0, err
		}
		if !waiting {
			return 0, fmt.Errorf("prompt %d: %w", prompt, ErrNotWaiting)
		}
		offset, _, err := r.log.PublishWhile(ctx, eventlog.EventsSubject(session), eventlog.TurnSubject(session), st.Seq, typ, data, msgID)
		if !errors.Is(err, eventlog.ErrConflict) {
			return offset, err
		}
	}
	return 0, fmt.Errorf("prompt %d: %w", prompt, ErrNotWaiting)
}

// waiting reports whether prompt is a user message of the session that no turn has taken,
// with the turn state it read.
func (r *Runtime) waiting(ctx context.Context, session string, prompt uint64) (turn.State, bool, error) {
	st, err := r.turnState(ctx, session)
	if err != nil {
		return st, false, err
	}
	evs, err := r.log.Read(ctx, session, st.Through)
	if err != nil {
		return st, false, err
	}
	queue, _ := turn.Waiting(st, evs)
	return st, slices.ContainsFunc(queue, func(p turn.Prompt) bool { return p.Offset == prompt }), nil
}
