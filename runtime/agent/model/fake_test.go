package model_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"parley/internal/testkit"

	openai "github.com/sashabaranov/go-openai"
)

// fakeServer is testkit's scripted OpenAI-compatible server on 127.0.0.1, driven by this
// package's terse replies: it streams the way local servers do at their worst and records
// every request.
type fakeServer struct{ *testkit.Model }

// reply is one scripted answer.
type reply struct {
	status int               // non-zero: an error answer with body
	header map[string]string // extra headers (Retry-After)
	body   string
	chunks []string      // SSE data payloads, each written and flushed
	noDone bool          // leave out the final [DONE]
	cut    bool          // abort the connection after the chunks: a stream cut mid-message
	hold   chan struct{} // after the chunks, wait for it (or the client going away)
	gap    time.Duration // between chunks
	// keepAlive comment lines come first, as a server sends them while it reads a long prompt
	keepAlive int
}

func (r reply) script() testkit.Reply {
	out := testkit.Reply{Status: r.status, Header: r.header, Body: r.body, KeepAlive: r.keepAlive, NoDone: r.noDone, Cut: r.cut}
	for _, c := range r.chunks {
		out.Steps = append(out.Steps, testkit.Step{Chunk: c, Pause: r.gap})
	}
	if r.hold != nil {
		out.Steps = append(out.Steps, testkit.Step{Hold: r.hold})
	}
	return out
}

func scripts(rs []reply) []testkit.Reply {
	out := make([]testkit.Reply, len(rs))
	for i, r := range rs {
		out[i] = r.script()
	}
	return out
}

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	return &fakeServer{Model: testkit.NewModel(t, scripts(replies)...)}
}

// base is the URL a client is given.
func (f *fakeServer) base() string { return f.Base() }

func (f *fakeServer) add(r ...reply)                                { f.Add(scripts(r)...) }
func (f *fakeServer) requestsSoFar() []openai.ChatCompletionRequest { return f.Requests() }
func (f *fakeServer) times() []time.Time                            { return f.Times() }

// last is the server's last request, once it was asked n times in all: most tests check
// what the model was sent last, after counting the rounds.
func (f *fakeServer) last(t *testing.T, n int) openai.ChatCompletionRequest {
	t.Helper()
	reqs := f.requestsSoFar()
	if len(reqs) != n {
		t.Fatalf("the model server was asked %d times, want %d", len(reqs), n)
	}
	return reqs[n-1]
}

// Chunks, written as servers write them.

// chunk is a stream chunk as servers write it.
func chunk(choices []openai.ChatCompletionStreamChoice, usage *openai.Usage) string {
	return testkit.StreamChunk(choices, usage)
}

func textChunk(s string) string {
	return chunk([]openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{Content: s}}}, nil)
}

func finishChunk(reason openai.FinishReason) string {
	return chunk([]openai.ChatCompletionStreamChoice{{FinishReason: reason}}, nil)
}

// usageChunk is the last chunk of a stream asked to include usage: no choices at all.
func usageChunk() string {
	return chunk([]openai.ChatCompletionStreamChoice{}, &openai.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15})
}

// toolChunk is one piece of a tool call; index nil leaves the index out.
func toolChunk(index *int, id, name, args string) string {
	return testkit.ToolCallChunk(index, id, name, args)
}

func idx(i int) *int { return &i }

// text streams s a few bytes per chunk, then stop and the usage.
func text(s string) reply {
	var chunks []string
	for len(s) > 0 {
		n := min(3, len(s))
		chunks = append(chunks, textChunk(s[:n]))
		s = s[n:]
	}
	return reply{chunks: append(chunks, finishChunk(openai.FinishReasonStop), usageChunk())}
}

// call is one tool call of a scripted message.
type call struct {
	id, name, args string
}

// calls streams tool calls with their arguments in 4-byte pieces; indexes says how each
// piece names its call: "index" (the spec), "none" (no index), "minus" (-1).
func calls(indexes string, cs ...call) reply {
	var chunks []string
	for i, c := range cs {
		var at *int
		switch indexes {
		case "index":
			at = idx(i)
		case "minus":
			at = idx(-1)
		}
		chunks = append(chunks, toolChunk(at, c.id, c.name, ""))
		// The pieces after the first carry no id: without an index, a piece with neither
		// continues the latest call.
		for a := c.args; len(a) > 0; {
			n := min(4, len(a))
			chunks = append(chunks, toolChunk(at, "", "", a[:n]))
			a = a[n:]
		}
	}
	return reply{chunks: append(chunks, finishChunk(openai.FinishReasonToolCalls), usageChunk())}
}

func jsonArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// lastMessages is what the model was sent in request i, as role: content lines.
func roles(req openai.ChatCompletionRequest) string {
	var out []string
	for _, m := range req.Messages {
		line := m.Role
		if len(m.ToolCalls) > 0 {
			var names []string
			for _, c := range m.ToolCalls {
				names = append(names, c.Function.Name)
			}
			line += "[" + strings.Join(names, ",") + "]"
		}
		out = append(out, line)
	}
	return strings.Join(out, " ")
}

func jsonRaw(v any) (json.RawMessage, error) { return json.Marshal(v) }
