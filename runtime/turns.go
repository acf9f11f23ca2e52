package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"parley/protocol"
)

// A turn is the work one prompt starts: an agent reply, a slash command's run, or a function
// run. A session runs one turn at a time; prompts that arrive meanwhile wait in its queue
// (mode queue) or go to the front of it (mode steer, when the running turn cannot take them
// itself). Stopping a turn cancels its context, which aborts its pending decisions.

// ErrBusy is returned when a session already runs a turn and the request cannot wait.
var ErrBusy = errors.New("this session is already running something: stop it or wait for it to finish")

type queuedPrompt struct {
	offset uint64
	text   string
}

type turn struct {
	prompt uint64
	run    string
	cancel context.CancelCauseFunc
	queue  []queuedPrompt
}

type turnTable struct {
	mu        sync.Mutex
	bySession map[string]*turn
}

// onPrompt is the inbound door: every user message passes here once, in log order per
// session.
func (r *Runtime) onPrompt(ev protocol.Event, m protocol.Message) {
	r.turns.mu.Lock()
	if t := r.turns.bySession[ev.Session]; t != nil {
		q := queuedPrompt{offset: ev.Offset, text: m.Text}
		if m.Mode == protocol.ModeSteer {
			// No turn kind here reads prompts mid-flight yet (the offline agent answers at
			// once; scripts have no inbox), so steering means "next": ahead of the queue.
			t.queue = append([]queuedPrompt{q}, t.queue...)
		} else {
			t.queue = append(t.queue, q)
		}
		offsets := queueOffsets(t.queue)
		r.turns.mu.Unlock()
		r.appendEvent(ev.Session, protocol.EventTurnQueue, protocol.TurnQueue{Prompts: offsets}, "queue-"+strconv.FormatUint(ev.Offset, 10))
		return
	}
	t := &turn{prompt: ev.Offset}
	r.turns.bySession[ev.Session] = t
	r.turns.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.runTurns(ev.Session, t, queuedPrompt{offset: ev.Offset, text: m.Text})
	}()
}

func queueOffsets(q []queuedPrompt) []uint64 {
	out := make([]uint64, len(q))
	for i, p := range q {
		out[i] = p.offset
	}
	return out
}

// runTurns runs a prompt's turn, then the queued ones, until the queue is empty.
func (r *Runtime) runTurns(session string, t *turn, p queuedPrompt) {
	for {
		r.runPrompt(session, t, p)
		r.turns.mu.Lock()
		if len(t.queue) == 0 {
			delete(r.turns.bySession, session)
			r.turns.mu.Unlock()
			return
		}
		p, t.queue = t.queue[0], t.queue[1:]
		t.prompt = p.offset
		offsets := queueOffsets(t.queue)
		r.turns.mu.Unlock()
		r.appendEvent(session, protocol.EventTurnQueue, protocol.TurnQueue{Prompts: offsets}, "dequeue-"+strconv.FormatUint(p.offset, 10))
	}
}

// runPrompt runs one prompt's turn. The one resolver decides whether it is a command, so the
// door and "does this start an agent turn" can never disagree.
func (r *Runtime) runPrompt(session string, t *turn, p queuedPrompt) {
	ctx, cancel := context.WithCancelCause(r.ctx)
	r.turns.mu.Lock()
	t.cancel, t.run = cancel, ""
	r.turns.mu.Unlock()
	defer cancel(nil)

	id := strconv.FormatUint(p.offset, 10)
	cmd, isCommand := protocol.ResolveCommand(p.text)
	started := protocol.TurnStarted{Prompt: p.offset, Kind: protocol.TurnAgent}
	if isCommand {
		started.Kind = protocol.TurnCommand
		started.Run = commandRunID(p.offset)
	}
	r.appendEvent(session, protocol.EventTurnStarted, started, "turn-"+id)
	if isCommand {
		r.turns.mu.Lock()
		t.run = started.Run
		r.turns.mu.Unlock()
		r.runCommand(ctx, session, p.offset, cmd)
	} else {
		r.agentReply(session, p)
	}
	ended := protocol.TurnEnded{Prompt: p.offset, Run: started.Run, Stopped: errors.Is(context.Cause(ctx), errStopped)}
	r.appendEvent(session, protocol.EventTurnEnded, ended, "turn-ended-"+id)
}

// runFunctionTurn runs a function as a session's turn, refusing when one is running.
func (r *Runtime) startFunctionTurn(session, run string, work func(ctx context.Context)) error {
	r.turns.mu.Lock()
	if r.turns.bySession[session] != nil {
		r.turns.mu.Unlock()
		return ErrBusy
	}
	ctx, cancel := context.WithCancelCause(r.ctx)
	t := &turn{run: run, cancel: cancel}
	r.turns.bySession[session] = t
	r.turns.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer cancel(nil)
		r.appendEvent(session, protocol.EventTurnStarted, protocol.TurnStarted{Kind: protocol.TurnFunction, Run: run}, "turn-"+run)
		work(ctx)
		r.appendEvent(session, protocol.EventTurnEnded, protocol.TurnEnded{Run: run, Stopped: errors.Is(context.Cause(ctx), errStopped)}, "turn-ended-"+run)
		r.turns.mu.Lock()
		if len(t.queue) == 0 {
			delete(r.turns.bySession, session)
			r.turns.mu.Unlock()
			return
		}
		p := t.queue[0]
		t.queue = t.queue[1:]
		t.prompt = p.offset
		offsets := queueOffsets(t.queue)
		r.turns.mu.Unlock()
		r.appendEvent(session, protocol.EventTurnQueue, protocol.TurnQueue{Prompts: offsets}, "dequeue-"+strconv.FormatUint(p.offset, 10))
		r.runTurns(session, t, p)
	}()
	return nil
}

// StopTurn asks whoever runs the session's turn to stop it: the request is an event, so the
// replica that runs the turn sees it through its tap.
func (r *Runtime) StopTurn(ctx context.Context, session string) (uint64, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return 0, err
	}
	offset, _, err := r.log.Append(ctx, session, protocol.EventStopRequested, struct{}{}, "")
	return offset, err
}

// onStop cancels the session's turn if this process runs it.
func (r *Runtime) onStop(session string) {
	r.turns.mu.Lock()
	t := r.turns.bySession[session]
	var cancel context.CancelCauseFunc
	if t != nil {
		cancel = t.cancel
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
