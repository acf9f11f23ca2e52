package model

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

// What the model reads of a session's log (conversation): edited prompts, prompts sent
// again after a failure, and prompts queued while a turn ran.

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
	assert.Equal(t, []string{"user: first", "assistant: one", "user: second, edited again"}, said(4, evs))
}

// logEvent is an event of the log at offset, its data encoded.
func logEvent(offset uint64, typ protocol.EventType, data any) protocol.Event {
	raw, _ := json.Marshal(data)
	return protocol.Event{Offset: offset, Type: typ, Data: raw}
}

// said is what the model reads for prompt's turn, after the system prompt: "role: content"
// a message.
func said(prompt uint64, evs []protocol.Event) []string {
	var out []string
	for _, m := range conversation("sys", prompt, evs)[1:] {
		out = append(out, m.Role+": "+m.Content)
	}
	return out
}

// TestHistorySaysARetriedPromptOnce: a failed turn's notice says "send your prompt again";
// the prompt sent again after it is the same request, so the model reads it once, not twice
// in one user message (QA round 10, agent #2). A different prompt after a failure still
// joins the failed one, and the same words said again after an answer are said again.
func TestHistorySaysARetriedPromptOnce(t *testing.T) {
	ev := logEvent
	notice := protocol.Message{From: "parley", Text: "The model server failed (500). Send your prompt again to retry."}
	evs := []protocol.Event{
		ev(1, protocol.EventUserMessage, protocol.Message{Text: "fix the parser"}),
		ev(2, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent}),
		ev(3, protocol.EventAgentMessage, notice),
		ev(4, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 1}),
		ev(5, protocol.EventUserMessage, protocol.Message{Text: "fix the parser"}),
		ev(6, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 5, Kind: protocol.TurnAgent}),
		ev(7, protocol.EventAgentMessage, notice),
		ev(8, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 5}),
		ev(9, protocol.EventUserMessage, protocol.Message{Text: "fix the parser"}),
		ev(10, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 9, Kind: protocol.TurnAgent}),
		ev(11, protocol.EventAgentMessage, protocol.Message{Text: "Fixed."}),
		ev(12, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 9}),
		ev(13, protocol.EventUserMessage, protocol.Message{Text: "fix the parser"}),
		ev(14, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 13, Kind: protocol.TurnAgent}),
		ev(15, protocol.EventAgentMessage, notice),
		ev(16, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 13}),
		ev(17, protocol.EventUserMessage, protocol.Message{Text: "and the lexer"}),
		ev(18, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 17, Kind: protocol.TurnAgent}),
	}
	assert.Equal(t, []string{
		"user: fix the parser",
		"assistant: Fixed.",
		"user: fix the parser\n\nand the lexer",
	}, said(17, evs))
}

// TestHistorySaysAQueuedPromptAfterTheAnswer: a prompt sent while a turn ran is stored
// before that turn's answer, yet the model must read it after the answer, where its own turn
// started: joined to the running turn's prompt, the request ended with the assistant's
// message and the queued prompt went unanswered (QA round 10, agent #1).
func TestHistorySaysAQueuedPromptAfterTheAnswer(t *testing.T) {
	ev := logEvent
	evs := []protocol.Event{
		ev(1, protocol.EventUserMessage, protocol.Message{Text: "write a long answer"}),
		ev(2, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent}),
		ev(3, protocol.EventUserMessage, protocol.Message{Text: "first queued"}),
		ev(4, protocol.EventUserMessage, protocol.Message{Text: "second queued"}),
		ev(5, protocol.EventAgentMessage, protocol.Message{Text: "A long answer.", Stream: "s1"}),
		ev(6, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 1}),
		ev(7, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 3, Kind: protocol.TurnAgent}),
		ev(8, protocol.EventAgentMessage, protocol.Message{Text: "One.", Stream: "s2"}),
		ev(9, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 3}),
	}
	// The first queued prompt's turn: its turn.started is stored.
	assert.Equal(t, []string{"user: write a long answer", "assistant: A long answer.", "user: first queued"},
		said(3, evs[:7]))
	// The second's, before its turn.started is read: it is said last.
	assert.Equal(t, []string{"user: write a long answer", "assistant: A long answer.", "user: first queued",
		"assistant: One.", "user: second queued"}, said(4, evs))
}
