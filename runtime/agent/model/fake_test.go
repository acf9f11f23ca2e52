package model_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/testkit"

	openai "github.com/sashabaranov/go-openai"
)

// fakeServer is a scripted OpenAI-compatible Chat Completions server on 127.0.0.1: each
// request takes the next reply of its script, and streams it the way local servers do at
// their worst. It records every request.
type fakeServer struct {
	*httptest.Server
	t        *testing.T
	mu       sync.Mutex
	replies  []reply
	requests []openai.ChatCompletionRequest
	auth     []string
	at       []time.Time
	// models is the body of GET /v1/models ("" answers 404); listed counts those requests.
	models string
	listed int
}

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

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	f := &fakeServer{t: t, replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// URL is the base URL a client is given.
func (f *fakeServer) base() string { return f.Server.URL + "/v1" }

func (f *fakeServer) add(r ...reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, r...)
}

func (f *fakeServer) requestsSoFar() []openai.ChatCompletionRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), f.requests...)
}

func (f *fakeServer) times() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.at...)
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		f.mu.Lock()
		body := f.models
		f.listed++
		f.mu.Unlock()
		if body == "" {
			http.Error(w, `{"error":{"message":"no model list here"}}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.at = append(f.at, time.Now())
	if len(f.replies) == 0 {
		f.mu.Unlock()
		f.t.Errorf("the model was called %d times; the script has fewer replies", len(f.requests))
		http.Error(w, `{"error":{"message":"no scripted reply"}}`, http.StatusInternalServerError)
		return
	}
	rep := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()

	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if rep.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		fmt.Fprint(w, rep.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	for range rep.keepAlive {
		fmt.Fprint(w, ": keep-alive\n\n")
	}
	for _, c := range rep.chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		flusher.Flush()
		if rep.gap > 0 {
			time.Sleep(rep.gap)
		}
	}
	if rep.hold != nil {
		select {
		case <-rep.hold:
		case <-r.Context().Done():
			return
		}
	}
	if rep.cut {
		panic(http.ErrAbortHandler) // closes the connection mid-body, as a crashed server does
	}
	if !rep.noDone {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
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
