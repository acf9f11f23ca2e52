// Package turn decides, from a session's log alone, which prompt runs next. It is pure: the
// runner reads the log and the session's turn subject, calls Next, and does what it says.
// The order in which doorbells arrive never matters: after a restart, JetStream redelivers
// the prompts it never delivered first and the unacknowledged ones only after their ack
// wait, so a choice made from bells would skip the older ones. See docs/runtime.md.
package turn

import (
	"slices"

	"parley/protocol"
)

// State is what the last event on a session's turn subject says.
type State struct {
	// Seq is that event's offset; 0 when no turn was ever recorded.
	Seq uint64
	// Open says a turn has started and not ended.
	Open bool
	// Started is the open turn's turn.started.
	Started protocol.TurnStarted
	// Through is the watermark of the last turn event: every prompt at or below it started.
	Through uint64
}

// Turn names the open turn: the offset of its first turn.started, which a resumed turn
// keeps (a stop names the turn by it).
func (s State) Turn() uint64 {
	if s.Started.Resumes != 0 {
		return s.Started.Resumes
	}
	return s.Seq
}

// Prompt is a user message no turn has started yet.
type Prompt struct {
	Offset uint64
	Text   string
	Steer  bool
}

// Plan is what runs next.
type Plan struct {
	// Next is the prompt to start, nil when none waits.
	Next *Prompt
	// Rest wait behind Next, in the order they will run.
	Rest []Prompt
	// Through is the watermark to record in Next's turn.started.
	Through uint64
}

// Next chooses what runs next from st and evs, the session's events after st.Through in log
// order (all of them when st.Seq is 0). It does not look at st.Open: the caller settles an
// open turn first.
func Next(st State, evs []protocol.Event) Plan {
	return Read(Queue{}, st, evs).Plan(st)
}

// Waiting returns the prompts in evs that no turn.started names, in the order they will run
// (steered ones first, then log order), and the offset of the last event read (st.Through
// when evs is empty).
func Waiting(st State, evs []protocol.Event) ([]Prompt, uint64) {
	q := Read(Queue{}, st, evs)
	return q.ordered(), max(q.LastRead, st.Through)
}

// Queue is what a runner knows of a session's waiting prompts between turns, so each turn
// reads only what was stored since the last one: a burst of n prompts costs n reads of a few
// events, not n reads of the whole queue. It is valid only while the turn subject still ends
// where the runner left it; the runner starts from an empty Queue otherwise.
type Queue struct {
	// Waiting are the prompts no turn.started names yet, in log order.
	Waiting []Prompt
	// LastRead is the offset of the last event folded in.
	LastRead uint64
}

// Read folds evs, the session's events after q.LastRead (or after st.Through for an empty
// queue), into q.
//
// A session whose turn subject is empty (st.Seq 0) may come from before turns were recorded:
// its agent answered every prompt with an agent.message and no turn.started. The prompts
// before its last agent.message were answered then and do not wait. In any later session an
// agent.message is only ever written inside a turn, after its turn.started, so st.Seq is
// not 0 there.
func Read(q Queue, st State, evs []protocol.Event) Queue {
	waiting := slices.Clone(q.Waiting)
	started := map[uint64]bool{}
	for _, ev := range evs {
		if ev.Offset <= q.LastRead {
			continue
		}
		q.LastRead = ev.Offset
		// A prompt steered into the turn that ran when it came is taken as if its own turn
		// had started; one the person took back before its turn never runs.
		if p, ok := ev.TakenPrompt(); ok {
			started[p] = true
			continue
		}
		switch ev.Type {
		case protocol.EventPromptEdited:
			// Changed by the person before its turn: it keeps its place, with the new text.
			if pe, err := protocol.DecodeEventData[protocol.PromptEdited](ev); err == nil {
				if i := slices.IndexFunc(waiting, func(p Prompt) bool { return p.Offset == pe.Prompt }); i >= 0 {
					waiting[i].Text = pe.Text
				}
			}
		case protocol.EventUserMessage:
			if m, err := ev.DecodeMessage(); err == nil && ev.Offset > st.Through {
				waiting = append(waiting, Prompt{Offset: ev.Offset, Text: m.Text, Steer: m.Mode == protocol.ModeSteer})
			}
		case protocol.EventAgentMessage:
			if st.Seq == 0 {
				waiting = waiting[:0] // answered by the agent from before turns
			}
		}
	}
	if len(started) > 0 {
		waiting = slices.DeleteFunc(waiting, func(p Prompt) bool { return started[p.Offset] })
	}
	q.Waiting = waiting
	return q
}

// ordered is the waiting prompts in the order they run: steered ones first, then log order.
func (q Queue) ordered() []Prompt {
	out := slices.Clone(q.Waiting)
	slices.SortStableFunc(out, func(a, b Prompt) int { return protocol.RunOrder(a.Steer, b.Steer) })
	return out
}

// Plan chooses what runs next.
func (q Queue) Plan(st State) Plan {
	waiting, lastRead := q.ordered(), max(q.LastRead, st.Through)
	if len(waiting) == 0 {
		return Plan{Through: lastRead}
	}
	next, rest := waiting[0], waiting[1:]
	return Plan{Next: &next, Rest: rest, Through: Watermark(rest, lastRead)}
}

// Started is the queue once p has started.
func (q Queue) Started(p uint64) Queue {
	q.Waiting = slices.DeleteFunc(slices.Clone(q.Waiting), func(w Prompt) bool { return w.Offset == p })
	return q
}

// Watermark is the offset through which every prompt has started, once the waiting ones are
// those in queue and everything through lastRead has been read.
func Watermark(queue []Prompt, lastRead uint64) uint64 {
	if len(queue) == 0 {
		return lastRead
	}
	low := queue[0].Offset
	for _, p := range queue {
		low = min(low, p.Offset)
	}
	return low - 1
}

// Steerable returns the prompts of evs that a running turn takes at its next step: those
// sent with steer that neither a turn.started nor a prompt.steered names, in log order.
// A slash command is never steered: it is not for the model, and runs as its own turn.
func Steerable(evs []protocol.Event) []Prompt {
	var out []Prompt
	taken := map[uint64]bool{}
	for _, ev := range evs {
		if p, ok := ev.TakenPrompt(); ok {
			taken[p] = true
			continue
		}
		switch ev.Type {
		case protocol.EventUserMessage:
			m, err := ev.DecodeMessage()
			if err != nil || m.Mode != protocol.ModeSteer {
				continue
			}
			if _, command := protocol.ResolveCommand(m.Text); command {
				continue
			}
			out = append(out, Prompt{Offset: ev.Offset, Text: m.Text, Steer: true})
		}
	}
	edits := protocol.Edits(evs)
	for i := range out {
		if text, ok := edits[out[i].Offset]; ok {
			out[i].Text = text
		}
	}
	return slices.DeleteFunc(out, func(p Prompt) bool { return taken[p.Offset] })
}
