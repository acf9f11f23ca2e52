package model

import (
	"strconv"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"parley/protocol"
)

// accumulator gathers one streamed completion from its chunks, as local servers send them:
//   - a tool call's arguments in many pieces;
//   - a tool call's index missing or -1 (then its id says which call a piece belongs to, and
//     a piece with neither continues the latest call);
//   - one index reused for calls with different ids (a new id is a new call);
//   - the name repeated on every piece;
//   - a last chunk holding only the usage, with no choices;
//   - finish_reason stop even though the message has tool calls.
type accumulator struct {
	text    strings.Builder
	calls   []*callParts
	byIndex map[int]*callParts
	byID    map[string]*callParts
	finish  openai.FinishReason
	usage   *openai.Usage
}

type callParts struct {
	id, name string
	args     strings.Builder
}

// add takes one chunk and returns the text it adds.
func (a *accumulator) add(chunk openai.ChatCompletionStreamResponse) string {
	if chunk.Usage != nil {
		a.usage = chunk.Usage
	}
	var text string
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue // only one completion is asked for; a server that sends more is ignored
		}
		if ch.Delta.Content != "" {
			text += ch.Delta.Content
			a.text.WriteString(ch.Delta.Content)
		}
		for _, tc := range ch.Delta.ToolCalls {
			a.addCall(tc)
		}
		if fc := ch.Delta.FunctionCall; fc != nil {
			// The legacy single function call some servers still send.
			a.addCall(openai.ToolCall{Function: *fc})
		}
		if ch.FinishReason != "" && ch.FinishReason != openai.FinishReasonNull {
			a.finish = ch.FinishReason
		}
	}
	return text
}

// MaxReplyBytes bounds one model message: its text and its calls' names and arguments. The
// message is one event in the log, and NATS carries at most 1 MiB in one (with JSON's
// escapes, a quarter of that in text leaves room); it is also sent back to the model with
// every later prompt of the session.
const MaxReplyBytes = 256 << 10

// size is how much of the message has arrived: its text and its calls.
func (a *accumulator) size() int {
	n := a.text.Len()
	for _, c := range a.calls {
		n += len(c.id) + len(c.name) + c.args.Len()
	}
	return n
}

// cut shortens the message's text to at most max bytes (at a character's start) once it
// outgrew max, and returns the part of added, the text the last chunk added, that is
// kept. The calls are dropped: a cut message's calls are not run.
func (a *accumulator) cut(max int, added string) string {
	a.calls, a.byIndex, a.byID = nil, nil, nil
	text := a.text.String()
	if len(text) <= max {
		return added
	}
	keep := max
	for keep > 0 && !utf8.RuneStart(text[keep]) {
		keep--
	}
	before := len(text) - len(added) // where added began
	a.text.Reset()
	a.text.WriteString(text[:keep])
	if keep <= before {
		return ""
	}
	return text[before:keep]
}

func (a *accumulator) addCall(tc openai.ToolCall) {
	if a.byIndex == nil {
		a.byIndex, a.byID = map[int]*callParts{}, map[string]*callParts{}
	}
	var c *callParts
	indexed := tc.Index != nil && *tc.Index >= 0
	switch {
	case indexed:
		c = a.byIndex[*tc.Index]
		if c != nil && tc.ID != "" && c.id != "" && tc.ID != c.id {
			c = a.byID[tc.ID] // the index was reused for another call
		}
	case tc.ID != "":
		c = a.byID[tc.ID]
	case len(a.calls) > 0:
		c = a.calls[len(a.calls)-1]
	}
	if c == nil {
		c = &callParts{}
		a.calls = append(a.calls, c)
	}
	if indexed {
		a.byIndex[*tc.Index] = c
	}
	if tc.ID != "" && c.id == "" {
		c.id = tc.ID
		a.byID[tc.ID] = c
	}
	if tc.Function.Name != "" && c.name == "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(tc.Function.Arguments)
}

// toolCalls returns the calls gathered, in order. A call the server gave no id gets one, so
// its result can answer it; a piece with no name and no arguments is dropped.
func (a *accumulator) toolCalls() []protocol.ToolCall {
	var out []protocol.ToolCall
	seen := map[string]bool{}
	for i, c := range a.calls {
		if c.name == "" && strings.TrimSpace(c.args.String()) == "" {
			continue
		}
		id := c.id
		if id == "" || seen[id] {
			id = "call_" + strconv.Itoa(i)
		}
		seen[id] = true
		out = append(out, protocol.ToolCall{ID: id, Name: c.name, Arguments: c.args.String()})
	}
	return out
}
