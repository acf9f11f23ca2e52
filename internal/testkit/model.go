package testkit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Model is a scripted OpenAI-compatible Chat Completions server on 127.0.0.1, a fake of a
// service outside the project: each request takes the next Reply of its script and streams
// it as server-sent events. It records what it was sent, so a test can read what reached
// the model (a rejection's words as a tool's error text).
type Model struct {
	*httptest.Server
	t        testing.TB
	mu       sync.Mutex
	replies  []Reply
	requests []openai.ChatCompletionRequest
	auth     []string
	at       []time.Time
	models   string // the body of GET /v1/models; "" answers 404
	listed   int
	called   chan int // the number of the request just received
}

// Reply is one scripted answer: chunks, each flushed as it is written, or an error answer
// (Status, Header, Body). The flags make it misbehave as real servers do at their worst.
// A Hold step waits until the test releases it (or the client goes away: a Stop).
type Reply struct {
	Steps  []Step
	Status int               // non-zero: an error answer with Body
	Header map[string]string // extra headers (Retry-After)
	Body   string
	// KeepAlive comment lines come first, as a server sends them while it reads a long prompt.
	KeepAlive int
	NoDone    bool // leave out the final [DONE]
	Cut       bool // abort the connection after the steps: a stream cut mid-message
}

// Step is a chunk's SSE payload, or a wait. Sent, if set, is told when the chunk was
// flushed to the client (a benchmark's start); Pause waits after it, as a model's pace.
type Step struct {
	Chunk string
	Hold  chan struct{}
	Sent  func(time.Time)
	Pause time.Duration
}

// NewModel starts the fake; it stops with the test.
func NewModel(t testing.TB, replies ...Reply) *Model {
	m := &Model{t: t, replies: replies, called: make(chan int, 64)}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

// Base is the URL to give -model-url.
func (m *Model) Base() string { return m.URL + "/v1" }

// Add appends replies to the script.
func (m *Model) Add(r ...Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = append(m.replies, r...)
}

// Requests are what the model was sent so far.
func (m *Model) Requests() []openai.ChatCompletionRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), m.requests...)
}

// Auth is the Authorization header of each request so far.
func (m *Model) Auth() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.auth...)
}

// Times are when each request arrived.
func (m *Model) Times() []time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]time.Time(nil), m.at...)
}

// ListModels sets the body GET /v1/models answers ("" answers 404, as many servers do).
func (m *Model) ListModels(body string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.models = body
}

// Listed counts the GET /v1/models requests.
func (m *Model) Listed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.listed
}

// Called delivers the number (from 1) of each request as it arrives.
func (m *Model) Called() <-chan int { return m.called }

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		m.mu.Lock()
		body := m.models
		m.listed++
		m.mu.Unlock()
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
	m.mu.Lock()
	m.requests = append(m.requests, req)
	m.auth = append(m.auth, r.Header.Get("Authorization"))
	m.at = append(m.at, time.Now())
	n := len(m.requests)
	if len(m.replies) == 0 {
		m.mu.Unlock()
		m.t.Errorf("the model was called %d times; the script has fewer replies", n)
		http.Error(w, `{"error":{"message":"no scripted reply"}}`, http.StatusInternalServerError)
		return
	}
	rep := m.replies[0]
	m.replies = m.replies[1:]
	m.mu.Unlock()
	select {
	case m.called <- n:
	default:
	}

	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		fmt.Fprint(w, rep.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	for range rep.KeepAlive {
		fmt.Fprint(w, ": keep-alive\n\n")
	}
	flusher.Flush()
	for _, s := range rep.Steps {
		if s.Hold != nil {
			select {
			case <-s.Hold:
			case <-r.Context().Done():
				return
			}
			continue
		}
		fmt.Fprintf(w, "data: %s\n\n", s.Chunk)
		flusher.Flush()
		if s.Sent != nil {
			s.Sent(time.Now())
		}
		if s.Pause > 0 {
			select {
			case <-time.After(s.Pause):
			case <-r.Context().Done():
				return
			}
		}
	}
	if rep.Cut {
		panic(http.ErrAbortHandler) // closes the connection mid-body, as a crashed server does
	}
	if !rep.NoDone {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// StreamChunk is one chunk of a Chat Completions stream as servers write it; usage, when
// given, rides on it (a last chunk with no choices carries only the usage).
func StreamChunk(choices []openai.ChatCompletionStreamChoice, usage *openai.Usage) string {
	b, err := json.Marshal(openai.ChatCompletionStreamResponse{ID: "c1", Object: "chat.completion.chunk", Model: "test", Choices: choices, Usage: usage})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// ToolCallChunk is one piece of a tool call; a nil index leaves the index out, as some
// local servers do.
func ToolCallChunk(index *int, id, name, args string) string {
	return StreamChunk([]openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{
		ToolCalls: []openai.ToolCall{{Index: index, ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}}}}, nil)
}

func chunk(choices []openai.ChatCompletionStreamChoice) string { return StreamChunk(choices, nil) }

// TextChunk is a piece of the assistant's text.
func TextChunk(s string) Step {
	return Step{Chunk: chunk([]openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{Content: s}}})}
}

// Finish ends a message with a finish_reason ("stop", "tool_calls").
func Finish(reason string) Step {
	return Step{Chunk: chunk([]openai.ChatCompletionStreamChoice{{FinishReason: openai.FinishReason(reason)}})}
}

// Text is a reply that streams words one chunk each, then stops.
func Text(s string) Reply {
	var r Reply
	for _, w := range strings.SplitAfter(s, " ") {
		if w != "" {
			r.Steps = append(r.Steps, TextChunk(w))
		}
	}
	r.Steps = append(r.Steps, Finish("stop"))
	return r
}

// Call is one tool call of a scripted message; Args is sent in two pieces, as servers split
// them.
type Call struct {
	ID, Name string
	Args     any
}

// Calls is a reply of tool calls.
func Calls(cs ...Call) Reply {
	var r Reply
	for i, c := range cs {
		b, err := json.Marshal(c.Args)
		if err != nil {
			panic(err)
		}
		args := string(b)
		half := len(args) / 2
		r.Steps = append(r.Steps,
			toolChunk(i, c.ID, c.Name, args[:half]),
			toolChunk(i, "", "", args[half:]))
	}
	r.Steps = append(r.Steps, Finish("tool_calls"))
	return r
}

func toolChunk(i int, id, name, args string) Step {
	return Step{Chunk: ToolCallChunk(&i, id, name, args)}
}

// ToolTexts are the tool results the model was sent in request i (from 0), in order, with
// their call ids: what a tool's error text said.
func ToolTexts(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			out = append(out, m.ToolCallID+": "+m.Content)
		}
	}
	return out
}
