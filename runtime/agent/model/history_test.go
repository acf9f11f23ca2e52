package model

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

// What the model reads of a session's log (conversation): edited prompts, prompts sent
// again after a failure, and prompts queued while a turn ran.

// sessionLog builds a session's log in order, each event at the next offset from 1 and its
// data encoded as the log stores it, so a test spells a conversation, not its offsets.
type sessionLog []protocol.Event

// add stores an event and returns its offset.
func (l *sessionLog) add(typ protocol.EventType, data any) uint64 {
	raw, _ := json.Marshal(data)
	offset := uint64(len(*l) + 1)
	*l = append(*l, protocol.Event{Offset: offset, Type: typ, Data: raw})
	return offset
}

// prompt stores the user's prompt text and returns its offset, which names its turn.
func (l *sessionLog) prompt(text string) uint64 {
	return l.add(protocol.EventUserMessage, protocol.Message{Text: text})
}

// start stores the start of prompt's agent turn.
func (l *sessionLog) start(prompt uint64) {
	l.add(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: prompt, Kind: protocol.TurnAgent})
}

// answer stores a message of the agent, or of Parley when m.From says so.
func (l *sessionLog) answer(m protocol.Message) { l.add(protocol.EventAgentMessage, m) }

// end stores the end of prompt's turn.
func (l *sessionLog) end(prompt uint64) {
	l.add(protocol.EventTurnEnded, protocol.TurnEnded{Prompt: prompt})
}

// turn stores a whole agent turn: the prompt text, its start, the answer m and its end.
func (l *sessionLog) turn(text string, m protocol.Message) {
	prompt := l.prompt(text)
	l.start(prompt)
	l.answer(m)
	l.end(prompt)
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

// TestHistoryReadsAnEditedPrompt: a prompt edited while it waited (prompt.edited) is said to
// the model with its last text, at its own place; an edit stored after a prompt's turn
// started (a race past the runtime's refusal) changes nothing.
func TestHistoryReadsAnEditedPrompt(t *testing.T) {
	var session sessionLog
	first := session.prompt("first")
	session.start(first)
	session.answer(protocol.Message{Text: "one"})
	second := session.prompt("second")
	session.add(protocol.EventPromptEdited, protocol.PromptEdited{Prompt: second, Text: "second, edited"})
	session.add(protocol.EventPromptEdited, protocol.PromptEdited{Prompt: second, Text: "second, edited again"})
	session.add(protocol.EventPromptEdited, protocol.PromptEdited{Prompt: first, Text: "not for a started one"})
	session.end(first)
	session.start(second)
	assert.Equal(t, []string{"user: first", "assistant: one", "user: second, edited again"}, said(second, session))
}

// TestHistorySaysARetriedPromptOnce: a failed turn's notice says "send your prompt again";
// the prompt sent again after it is the same request, so the model reads it once, not twice
// in one user message (QA round 10, agent #2). A different prompt after a failure joins the
// failed one, marked as sent earlier with no answer, and itself as the one to answer now
// (QA round 21: joined bare, "never mind, just say hello" read as a request of both); the
// same words said again after an answer are said again.
func TestHistorySaysARetriedPromptOnce(t *testing.T) {
	notice := protocol.Message{From: "parley", Text: "The model server failed (500). Send your prompt again to retry."}
	var session sessionLog
	session.turn("fix the parser", notice)
	session.turn("fix the parser", notice)
	session.turn("fix the parser", protocol.Message{Text: "Fixed."})
	session.turn("fix the parser", notice)
	last := session.prompt("and the lexer")
	session.start(last)
	assert.Equal(t, []string{
		"user: fix the parser",
		"assistant: Fixed.",
		"user: [Sent earlier, with no answer:]\nfix the parser\n\n[Now:]\nand the lexer",
	}, said(last, session))
}

// TestARefusedPromptIsNotSaidAgain: a prompt the server refused for what it held (too long
// for its window, or a 400) is not said again with the next prompt, which would be refused
// the same way, and every prompt after it (QA round 26); one that failed for the moment
// (a 5xx) still is, as its retry.
func TestARefusedPromptIsNotSaidAgain(t *testing.T) {
	full := protocol.Message{From: "parley", Text: "The conversation no longer fits…",
		Phrase: &protocol.Phrase{Code: "model_context_full+said", Args: []string{"http://x/v1", "maximum context length"}}}
	refused := protocol.Message{From: "parley", Text: "refused (400)", Phrase: &protocol.Phrase{Code: "model_refused", Args: []string{"http://x/v1", "400"}}}
	failed := protocol.Message{From: "parley", Text: "failed (500)", Phrase: &protocol.Phrase{Code: "model_failed_5xx", Args: []string{"http://x/v1", "500"}}}
	var session sessionLog
	session.turn("hello", protocol.Message{Text: "Hi."})
	session.turn("HUGE log paste", full)
	session.turn("a bad one", refused)
	session.turn("flaky", failed)
	last := session.prompt("just say hi")
	session.start(last)
	assert.Equal(t, []string{
		"user: hello",
		"assistant: Hi.",
		"user: [Sent earlier, with no answer:]\nflaky\n\n[Now:]\njust say hi",
	}, said(last, session))
}

// TestHistorySaysAQueuedPromptAfterTheAnswer: a prompt sent while a turn ran is stored
// before that turn's answer, yet the model must read it after the answer, where its own turn
// started: joined to the running turn's prompt, the request ended with the assistant's
// message and the queued prompt went unanswered (QA round 10, agent #1).
func TestHistorySaysAQueuedPromptAfterTheAnswer(t *testing.T) {
	var session sessionLog
	running := session.prompt("write a long answer")
	session.start(running)
	first := session.prompt("first queued")
	second := session.prompt("second queued")
	session.answer(protocol.Message{Text: "A long answer.", Stream: "s1"})
	session.end(running)
	session.start(first)
	firstStarted := len(session)
	session.answer(protocol.Message{Text: "One.", Stream: "s2"})
	session.end(first)
	// The first queued prompt's turn: its turn.started is stored.
	assert.Equal(t, []string{"user: write a long answer", "assistant: A long answer.", "user: first queued"},
		said(first, session[:firstStarted]))
	// The second's, before its turn.started is read: it is said last.
	assert.Equal(t, []string{"user: write a long answer", "assistant: A long answer.", "user: first queued",
		"assistant: One.", "user: second queued"}, said(second, session))
}
