package runtime

import (
	"context"
	"sync"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/eventlog"
)

// openSet is this instance's view of what is open across the log: pending decisions and
// running turns, each with the owner that holds it. It is seeded once at start from the last
// event of every decision and turn subject, then kept by the tap, so a sweep every few
// seconds costs what is open, not every decision ever asked. Entries can be stale for a
// moment (a seed that raced an outcome); the sweep's writes are conditional on the subject's
// last sequence, so a stale entry does nothing and is dropped.
type openSet struct {
	mu        sync.Mutex
	decisions map[string]decision.Open // by decision id
	turns     map[string]openTurn      // by session
}

type openTurn struct {
	seq     uint64
	started protocol.TurnStarted
}

func newOpenSet() *openSet {
	return &openSet{decisions: map[string]decision.Open{}, turns: map[string]openTurn{}}
}

// seed reads what is open now. The tap must already run, so nothing opened after the read is
// missed.
func (o *openSet) seed(ctx context.Context, log *eventlog.Log) error {
	for _, filter := range []string{eventlog.DecisionSubjects(""), eventlog.TurnSubjects} {
		lasts, err := log.LastPerSubject(ctx, filter)
		if err != nil {
			return err
		}
		for _, ev := range lasts {
			o.apply(ev)
		}
	}
	return nil
}

// apply folds one event.
func (o *openSet) apply(ev protocol.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch ev.Type {
	case protocol.EventQuestionAsked:
		if qa, err := ev.DecodeQuestionAsked(); err == nil {
			o.decisions[qa.ID] = decision.Open{Session: ev.Session, Seq: ev.Offset, Owner: qa.Owner}
		}
	case protocol.EventQuestionReplied, protocol.EventQuestionRejected:
		if id, ok := ev.EndedDecision(); ok {
			delete(o.decisions, id)
		}
	case protocol.EventTurnStarted:
		if ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev); err == nil {
			o.turns[ev.Session] = openTurn{seq: ev.Offset, started: ts}
		}
	case protocol.EventTurnEnded:
		delete(o.turns, ev.Session)
	}
}

func (o *openSet) snapshot() (map[string]decision.Open, map[string]openTurn) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := make(map[string]decision.Open, len(o.decisions))
	for k, v := range o.decisions {
		d[k] = v
	}
	t := make(map[string]openTurn, len(o.turns))
	for k, v := range o.turns {
		t[k] = v
	}
	return d, t
}

// dropDecision forgets an entry the log says is no longer open.
func (o *openSet) dropDecision(id string, seq uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d, ok := o.decisions[id]; ok && d.Seq == seq {
		delete(o.decisions, id)
	}
}

func (o *openSet) dropTurn(session string, seq uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if t, ok := o.turns[session]; ok && t.seq == seq {
		delete(o.turns, session)
	}
}
