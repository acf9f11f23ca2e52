package model

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

// TestHistoryReadsAnEditedPrompt: a prompt edited while it waited (prompt.edited) is said to
// the model with its last text, at its own place; an edit stored after a prompt's turn
// started (a race past the runtime's refusal) changes nothing.
func TestHistoryReadsAnEditedPrompt(t *testing.T) {
	ev := logEvent
	evs := []protocol.Event{
		ev(1, protocol.EventUserMessage, protocol.Message{Text: "first"}),
		ev(2, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent}),
		ev(3, protocol.EventAgentMessage, protocol.Message{Text: "one"}),
		ev(4, protocol.EventUserMessage, protocol.Message{Text: "second"}),
		ev(5, protocol.EventPromptEdited, protocol.PromptEdited{Prompt: 4, Text: "second, edited"}),
		ev(6, protocol.EventPromptEdited, protocol.PromptEdited{Prompt: 4, Text: "second, edited again"}),
		ev(7, protocol.EventPromptEdited, protocol.PromptEdited{Prompt: 1, Text: "not for a started one"}),
		ev(8, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 1}),
		ev(9, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 4, Kind: protocol.TurnAgent}),
	}
	var said []string
	for _, m := range conversation("sys", 4, evs)[1:] {
		said = append(said, m.Role+": "+m.Content)
	}
	assert.Equal(t, []string{"user: first", "assistant: one", "user: second, edited again"}, said)
}

// logEvent is an event of the log at offset, its data encoded.
func logEvent(offset uint64, typ protocol.EventType, data any) protocol.Event {
	raw, _ := json.Marshal(data)
	return protocol.Event{Offset: offset, Type: typ, Data: raw}
}
