package model

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

func idx(i int) *int { return &i }

func piece(index *int, id, name, args string) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{
		ToolCalls: []openai.ToolCall{{Index: index, ID: id, Function: openai.FunctionCall{Name: name, Arguments: args}}}}}}}
}

func TestAccumulatorGathersToolCallsFromQuirkyStreams(t *testing.T) {
	cases := []struct {
		name   string
		chunks []openai.ChatCompletionStreamResponse
		want   []protocol.ToolCall
	}{
		{"split arguments by index", []openai.ChatCompletionStreamResponse{
			piece(idx(0), "a", "read_file", ""), piece(idx(0), "", "", `{"pa`), piece(idx(0), "", "", `th":"x"}`),
		}, []protocol.ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}}},
		{"interleaved by index", []openai.ChatCompletionStreamResponse{
			piece(idx(0), "a", "f", ""), piece(idx(1), "b", "g", ""), piece(idx(1), "", "", `{"y"`), piece(idx(0), "", "", `{"x"`),
			piece(idx(0), "", "", `:1}`), piece(idx(1), "", "", `:2}`),
		}, []protocol.ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}, {ID: "b", Name: "g", Arguments: `{"y":2}`}}},
		{"no index: by id", []openai.ChatCompletionStreamResponse{
			piece(nil, "a", "f", `{"x"`), piece(nil, "b", "g", `{"y"`), piece(nil, "a", "", `:1}`), piece(nil, "b", "", `:2}`),
		}, []protocol.ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}, {ID: "b", Name: "g", Arguments: `{"y":2}`}}},
		{"index -1 and no id: continues the latest", []openai.ChatCompletionStreamResponse{
			piece(idx(-1), "a", "f", ""), piece(idx(-1), "", "", `{}`), piece(idx(-1), "b", "g", ""), piece(idx(-1), "", "", `{"z":0}`),
		}, []protocol.ToolCall{{ID: "a", Name: "f", Arguments: `{}`}, {ID: "b", Name: "g", Arguments: `{"z":0}`}}},
		{"one index reused for two ids", []openai.ChatCompletionStreamResponse{
			piece(idx(0), "a", "f", `{}`), piece(idx(0), "b", "g", `{}`),
		}, []protocol.ToolCall{{ID: "a", Name: "f", Arguments: `{}`}, {ID: "b", Name: "g", Arguments: `{}`}}},
		{"name repeated on every piece", []openai.ChatCompletionStreamResponse{
			piece(idx(0), "a", "f", `{"x"`), piece(idx(0), "a", "f", `:1}`),
		}, []protocol.ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}}},
		{"no ids at all get ids", []openai.ChatCompletionStreamResponse{
			piece(idx(0), "", "f", `{}`), piece(idx(1), "", "g", `{}`),
		}, []protocol.ToolCall{{ID: "call_0", Name: "f", Arguments: `{}`}, {ID: "call_1", Name: "g", Arguments: `{}`}}},
		{"a repeated id is made unique", []openai.ChatCompletionStreamResponse{
			piece(idx(0), "x", "f", `{}`), piece(idx(1), "", "g", `{}`), piece(idx(1), "x", "", ``),
		}, []protocol.ToolCall{{ID: "x", Name: "f", Arguments: `{}`}, {ID: "call_1", Name: "g", Arguments: `{}`}}},
		{"legacy function_call", []openai.ChatCompletionStreamResponse{
			{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{FunctionCall: &openai.FunctionCall{Name: "f", Arguments: `{"a"`}}}}},
			{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{FunctionCall: &openai.FunctionCall{Arguments: `:1}`}}}}},
		}, []protocol.ToolCall{{ID: "call_0", Name: "f", Arguments: `{"a":1}`}}},
		{"an empty piece is dropped", []openai.ChatCompletionStreamResponse{piece(idx(0), "", "", "")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a accumulator
			for _, ch := range c.chunks {
				a.add(ch)
			}
			assert.Equal(t, c.want, a.toolCalls())
		})
	}
}

func TestAccumulatorTextFinishAndUsage(t *testing.T) {
	var a accumulator
	got := a.add(openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{Content: "Hel"}}}})
	assert.Equal(t, "Hel", got)
	a.add(openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{
		{Delta: openai.ChatCompletionStreamChoiceDelta{Content: "lo"}, FinishReason: openai.FinishReasonStop},
		{Index: 1, Delta: openai.ChatCompletionStreamChoiceDelta{Content: "other choice"}},
	}})
	a.add(openai.ChatCompletionStreamResponse{Usage: &openai.Usage{TotalTokens: 7}}) // no choices
	assert.Equal(t, "Hello", a.text.String())
	assert.Equal(t, openai.FinishReasonStop, a.finish)
	assert.Equal(t, 7, a.usage.TotalTokens)
}

func TestConversationFromTheLog(t *testing.T) {
	var session sessionLog
	session.add(protocol.EventSessionCreated, protocol.SessionCreated{})
	help := session.prompt("/help") // a command's prompt
	session.add(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: help, Kind: protocol.TurnCommand})
	session.answer(protocol.Message{Text: "Commands: …", From: protocol.FromParley})
	read := session.prompt("read a")
	session.start(read)
	session.answer(protocol.Message{Text: "The server at … cannot be reached.", From: protocol.FromParley})
	now := session.prompt("now?") // 8, as its stream "8-1" says
	session.start(now)
	session.add(protocol.EventAgentDraft, protocol.AgentDraft{Stream: "8-1", Seq: 1, Text: "Let"})
	session.answer(protocol.Message{Text: "Let me look.", Stream: "8-1"})
	session.add(protocol.EventToolCalled, protocol.ToolCalled{Stream: "8-1", Calls: []protocol.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "c2", Name: "list_files"}}})
	session.add(protocol.EventToolResult, protocol.ToolResult{Call: "c1", Name: "read_file", Text: "alpha"})
	session.add(protocol.EventToolResult, protocol.ToolResult{Call: "zz", Name: "read_file", Text: "answers nothing"})
	session.answer(protocol.Message{Text: "The server stopped.", From: protocol.FromParley})
	session.prompt("queued, not started")
	again := session.prompt("again") // 17, as its stream "17-2" says
	session.start(again)
	// (a turn's own prompt whose turn.started is not read yet: TestHistorySaysAQueuedPromptAfterTheAnswer)
	session.add(protocol.EventToolCalled, protocol.ToolCalled{Calls: []protocol.ToolCall{{ID: "c1", Name: "list_files", Arguments: `{}`}}})
	session.add(protocol.EventToolResult, protocol.ToolResult{Call: "c1", Name: "list_files", Text: "", Error: true})
	session.add(protocol.EventAgentDraft, protocol.AgentDraft{Stream: "17-2", Seq: 1, Text: "Half a "})
	session.add(protocol.EventAgentDraft, protocol.AgentDraft{Stream: "17-2", Seq: 2, Text: "thought"})
	session.add(protocol.EventTurnEnded, protocol.TurnEnded{Prompt: again, Interrupted: true})
	msgs := conversation("sys", again, session)
	type line struct{ Role, Content, Calls, ID string }
	var got []line
	for _, m := range msgs {
		l := line{Role: m.Role, Content: m.Content, ID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			l.Calls += c.ID + ":" + c.Function.Name + " "
		}
		got = append(got, l)
	}
	assert.Equal(t, []line{
		{Role: "system", Content: "sys"},
		{Role: "user", Content: "[Sent earlier, with no answer:]\nread a\n\n[Now:]\nnow?"},
		{Role: "assistant", Content: "Let me look.", Calls: "c1:read_file c2:list_files "},
		{Role: "tool", Content: "alpha", ID: "c1"},
		{Role: "tool", Content: "error: interrupted before it returned a result", ID: "c2"},
		{Role: "user", Content: "again"},
		{Role: "assistant", Calls: "c1:list_files "},
		{Role: "tool", Content: "error: ", ID: "c1"},
		{Role: "assistant", Content: "Half a thought\n\n[interrupted]"},
	}, got)
}
