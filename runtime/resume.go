package runtime

import (
	"context"
	"errors"
	"slices"
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
			t.began = nil
		case protocol.EventToolsRunning:
			if r, err := protocol.DecodeEventData[protocol.ToolsRunning](ev); err == nil {
				t.began = append(t.began, r.Pass)
			}
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
				t.notices.Add(1)
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

// adoptable are the decisions a resumed turn's next questions take the place of, oldest
// first: those asked since its last tool.called (the calls it runs again) that are pending,
// answered, or timed out. The model's message may have asked several things in a row (two
// ask_user calls); the ones answered before the restart give their answers again rather
// than asking twice. Aborted ones are left out: nobody answered them.
func adoptable(session string, evs []protocol.Event) []*decision.Resumable {
	from := uint64(0)
	for _, ev := range evs {
		if ev.Type == protocol.EventToolCalled {
			from = ev.Offset
		}
	}
	var out []*decision.Resumable
	index := map[string]int{}
	var accepted []*decision.Resumable // approvals accepted, no question asked since
	for _, ev := range evs {
		if ev.Offset <= from {
			continue
		}
		switch ev.Type {
		case protocol.EventToolsRunning:
			// Written ahead of the calls an approval let through: they began, or may have.
			for _, a := range accepted {
				a.Acted = true
			}
			accepted = nil
		case protocol.EventQuestionAsked:
			if qa, err := ev.DecodeQuestionAsked(); err == nil {
				// Asked after an approval was accepted: the call it allowed was running (a log
				// written before tools.running was).
				for _, a := range accepted {
					a.Acted = true
				}
				accepted = nil
				index[qa.ID] = len(out)
				out = append(out, &decision.Resumable{Decision: protocol.Decision{Session: session, Offset: ev.Offset, QuestionAsked: qa}})
			}
		case protocol.EventQuestionReplied:
			if r, err := ev.DecodeQuestionReplied(); err == nil && r.Action == protocol.ActionAccept {
				if i, ok := index[r.ID]; ok && out[i] != nil && out[i].Request.Kind == protocol.KindApproval {
					accepted = append(accepted, out[i])
				}
			}
		case protocol.EventQuestionRejected:
			if r, err := ev.DecodeQuestionRejected(); err == nil && r.Reason != protocol.ReasonTimeout {
				if i, ok := index[r.ID]; ok {
					out[i] = nil
				}
			}
		}
	}
	return slices.DeleteFunc(out, func(d *decision.Resumable) bool { return d == nil })
}

// answeredUnacted says a turn whose runtime went away can go on from answers nobody acted
// on: the calls of the model's last message have no results yet, and a decision they asked
// was answered (or timed out) after the runtime stopped reading, with no tools.running
// after an accepted approval. On a cluster a person answers on the replica they are on, so
// an approval given in the second after the turn's owner was killed is stored while nobody
// waits for it (QA round 23); resuming hands it to the calls run again.
func answeredUnacted(session string, evs []protocol.Event) bool {
	open := 0 // the last message's calls without a result
	for _, ev := range evs {
		switch ev.Type {
		case protocol.EventToolCalled:
			if c, err := protocol.DecodeEventData[protocol.ToolCalled](ev); err == nil {
				open = len(c.Calls)
			}
		case protocol.EventToolResult:
			open = max(0, open-1)
		}
	}
	if open == 0 {
		return false
	}
	return slices.ContainsFunc(adoptable(session, evs), func(d *decision.Resumable) bool { return !d.Acted })
}

// acted takes the first decision left if it is an approval that was accepted and acted on
// before the restart (Resumable.Acted), and says so: the resumed call it belongs to does not
// run again on that old answer (QA round 21 P1: a function's command ran twice, the second
// time unasked, because its confirm after the command was still pending at the kill -9).
func (t *tools) acted() bool {
	if len(t.adopt) == 0 || !t.adopt[0].Acted {
		return false
	}
	t.adopt[0].Take()
	t.adopt = t.adopt[1:]
	return true
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
	reason := protocol.ReasonWithdrawn
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, decision.ErrStopped):
		reason = protocol.ReasonStopped // stopped before it asked them again
	case errors.Is(cause, decision.ErrShutdown):
		return // the turn stays open for the next runtime, and so do they
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, d := range t.adopt {
		if !d.Used() {
			t.caps.r.registry.End(ctx, d.Session, d.ID, d.Offset, reason)
		}
	}
	t.adopt = nil
}
