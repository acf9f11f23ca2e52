package runtime

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

func TestOpenSetFollowsTheLog(t *testing.T) {
	ev := func(offset uint64, session string, typ protocol.EventType, data any) protocol.Event {
		raw, _ := json.Marshal(data)
		return protocol.Event{Session: session, Offset: offset, Type: typ, Data: raw}
	}
	o := newOpenSet()
	steps := []struct {
		ev        protocol.Event
		decisions []string
		turns     []string
	}{
		{ev(1, "a", protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 0, Owner: "x"}), nil, []string{"a"}},
		{ev(2, "a", protocol.EventQuestionAsked, protocol.QuestionAsked{ID: "q1", Owner: "x"}), []string{"q1"}, []string{"a"}},
		{ev(3, "b", protocol.EventQuestionAsked, protocol.QuestionAsked{ID: "q2", Owner: "y"}), []string{"q1", "q2"}, []string{"a"}},
		{ev(4, "a", protocol.EventQuestionReplied, protocol.QuestionReplied{ID: "q1"}), []string{"q2"}, []string{"a"}},
		{ev(5, "b", protocol.EventQuestionRejected, protocol.QuestionRejected{ID: "q2"}), nil, []string{"a"}},
		{ev(6, "a", protocol.EventAgentMessage, protocol.Message{Text: "x"}), nil, []string{"a"}},
		{ev(7, "a", protocol.EventTurnEnded, protocol.TurnEnded{}), nil, nil},
	}
	for _, s := range steps {
		o.apply(s.ev)
		d, tr := o.snapshot()
		var gotD, gotT []string
		for id := range d {
			gotD = append(gotD, id)
		}
		for id := range tr {
			gotT = append(gotT, id)
		}
		assert.ElementsMatch(t, s.decisions, gotD, "after %d", s.ev.Offset)
		assert.ElementsMatch(t, s.turns, gotT, "after %d", s.ev.Offset)
	}

	// A stale entry is dropped only if it is still the one the sweep saw.
	o.apply(ev(8, "c", protocol.EventQuestionAsked, protocol.QuestionAsked{ID: "q3"}))
	o.dropDecision("q3", 7)
	d, _ := o.snapshot()
	assert.Contains(t, d, "q3")
	o.dropDecision("q3", 8)
	d, _ = o.snapshot()
	assert.NotContains(t, d, "q3")
}
