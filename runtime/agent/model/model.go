// Package model is the model agent: an agent.Agent that runs the tool loop against any
// OpenAI-compatible Chat Completions endpoint (a hosted one, or a local server such as
// Ollama, llama.cpp's, vLLM or LM Studio), through github.com/sashabaranov/go-openai.
//
// A turn rebuilds the conversation from the session's log (see conversation), streams the
// model's answer into a checkpointed message (agent.Conversation's Stream), records the tool
// calls of each message (tool.called), runs them through the toolbox, where everything that
// changes something passes the gate as one batch, records their results (tool.result) and
// asks the model again, until it answers without a tool call.
//
// A generation is never retried in a way that could run a tool twice: there are no
// client-side retries, and the only repeat is a 429's, once, before any token arrived and
// before any tool of the turn ran. Every failure ends the turn with a notice in the thread
// that says what happened and what to do, and the session stays usable.
package model

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"parley/i18n"
	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/agent/toolbox"
	"parley/runtime/catalogue"
	"parley/runtime/script"
)

// Config is a model endpoint and the loop's bounds. The caller fills it (the server from its
// flags and environment); the key never comes from a flag.
type Config struct {
	// URL is the endpoint's base URL, ending where /chat/completions is appended
	// (http://127.0.0.1:11434/v1 for Ollama).
	URL string
	// Model names the model a session uses until it picks another (session.model).
	Model string
	// Window is the context window, in tokens, the controls row counts against when the
	// endpoint's model list does not say it (-model-window).
	Window int
	// Key is the API key, sent as a bearer token when not empty.
	Key string
	// HTTPClient makes the requests (default: one with a 10 s connect timeout and no overall
	// timeout, since a stream may run for minutes). It must not retry: a repeated request is
	// a repeated generation. (Go's own transport repeats a POST only when none of it was
	// sent, which is safe.)
	HTTPClient *http.Client
	// Limits bound the tools (file reads, processes); zero fields take script's defaults.
	Limits script.Limits
	// MaxSteps bounds the model calls of one turn (default 30).
	MaxSteps int
	// MaxMistakes is how many rounds in a row may consist only of calls the model got wrong
	// (an unknown tool, arguments that are not JSON) before the turn ends (default 3).
	MaxMistakes int
	// MaxRetryAfter is the longest Retry-After of a 429 that is waited for (default 30 s).
	MaxRetryAfter time.Duration
	// StreamIdle is how long a request may go without a byte from the model server (its
	// headers, a token, a keep-alive line) before it is given up (default 5 min): a server
	// that went silent mid-stream held the session and its queue until a restart (QA
	// round 22). It is long because a local model on a CPU may read a long prompt for
	// minutes before its first token, and not every server sends keep-alives meanwhile.
	StreamIdle time.Duration
	// System replaces the default system prompt.
	System string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Extra, if set, gives a workspace's tools from elsewhere (its MCP servers), offered
	// after the built-in ones and passing the same gate.
	Extra func(workspace string) toolbox.Extra
}

// Agent is the model agent.
type Agent struct {
	cfg    Config
	models listing
}

var _ agent.Agent = (*Agent)(nil)

// New returns the agent for an endpoint.
func New(cfg Config) *Agent {
	cfg.MaxSteps = cmp.Or(cfg.MaxSteps, 30)
	cfg.MaxMistakes = cmp.Or(cfg.MaxMistakes, 3)
	cfg.MaxRetryAfter = cmp.Or(cfg.MaxRetryAfter, 30*time.Second)
	cfg.StreamIdle = cmp.Or(cfg.StreamIdle, 5*time.Minute)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Transport: &http.Transport{
			Proxy:       http.ProxyFromEnvironment,
			DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		}}
	}
	return &Agent{cfg: cfg}
}

// Config returns the agent's configuration (its key included).
func (a *Agent) Config() Config { return a.cfg }

const defaultSystem = "You are a coding agent working for the user through Parley, in the workspace folder %s. " +
	"Use the tools to read, search and change files and to run programs there; paths are relative to the workspace. " +
	"Writes and commands ask the user for approval: if one is rejected, read why and adjust. " +
	"Ask the user with ask_user when only they can decide. Answer in Markdown, briefly."

// Turn runs the loop for one prompt. It returns nil when the turn ended normally or with a
// notice, and the cause when ctx ended (stopped, or the server closing).
func (a *Agent) Turn(ctx context.Context, in agent.Input, tools agent.Tools) error {
	if in.Workspace == "" {
		// script.NewHost would take "" as the server's own folder.
		return a.say(ctx, tools, phrase("turn_no_workspace"))
	}
	host, err := script.NewHost(in.Workspace, a.cfg.Limits)
	if err != nil {
		return a.notice(ctx, tools, "The agent cannot work in this session's workspace: "+err.Error())
	}
	box := toolbox.New(host)
	if a.cfg.Extra != nil {
		box.Extra = a.cfg.Extra(host.Workspace)
	}
	if starting, ok := box.Extra.(toolbox.StartingExtra); ok {
		// A turn resumed as the server starts would find its MCP servers still connecting:
		// their tools missing, an approved call "not connected" and its approval withdrawn
		// (QA round 22). It waits for them a while; one slower than that is "not connected".
		wctx, cancel := context.WithTimeout(ctx, extraStartWait)
		_ = starting.WaitReady(wctx)
		cancel()
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
	}
	evs, err := tools.History(ctx)
	if err != nil {
		return a.notice(ctx, tools, "The agent could not read this session's history: "+err.Error())
	}
	system := a.cfg.System
	if system == "" {
		system = fmt.Sprintf(defaultSystem, host.Workspace)
	}
	var msgs []openai.ChatCompletionMessage
	var pending []protocol.ToolCall
	if in.Resume {
		msgs, pending = resumed(system, in.Prompt, evs)
	} else {
		msgs = conversation(system, in.Prompt, evs)
	}
	refs := newReferences(ctx, host, catalogue.Skills(host.Workspace).Skills, tools)
	refs.expandAll(msgs)
	// The session's own choice of model (session.model), else the configured one.
	cfg := a.cfg
	cfg.Model = sessionModel(evs, a.cfg.Model)
	defs := openaiTools(box.Defs())

	toolRan, mistakes := false, 0
	// runCalls runs one message's calls and records their results; end, when set, ends the
	// turn with it.
	runCalls := func(calls []protocol.ToolCall) (end error, stop bool) {
		toolRan = true // from here a repeat could run something twice
		results, wrong, runErr := box.Run(ctx, tools, calls)
		// What ran is recorded even when the turn ends here (stopped in the middle of a batch).
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, res := range results {
			if err := tools.Result(rctx, res); err != nil {
				return a.say(ctx, tools, phrase("agent_no_record_result", err.Error())), true
			}
			msgs = append(msgs, toolMessage(res))
		}
		if ctx.Err() != nil {
			return context.Cause(ctx), true
		}
		if runErr != nil {
			return a.say(ctx, tools, phrase("turn_ended", runErr.Error())), true
		}
		if wrong == len(results) {
			if mistakes++; mistakes >= a.cfg.MaxMistakes {
				return a.say(ctx, tools, phrase("agent_tools_wrong", strconv.Itoa(mistakes))), true
			}
		} else {
			mistakes = 0
		}
		return nil, false
	}
	if len(pending) > 0 {
		// A resumed turn: the calls its runtime was waiting to run, their decision still open.
		if end, stop := runCalls(pending); stop {
			return end
		}
	}
	for range a.cfg.MaxSteps {
		if s, ok := tools.(agent.Steering); ok {
			steered, err := s.Steered(ctx)
			if err != nil {
				return a.notice(ctx, tools, "The agent could not read the prompts steered into this turn: "+err.Error())
			}
			for _, text := range steered {
				msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: refs.expand(text)})
			}
		}
		step, err := a.generate(ctx, cfg.Model, msgs, defs, tools, !toolRan)
		if step.usage != nil {
			recordUsage(ctx, tools, cfg.Model, *step.usage)
		}
		if ctx.Err() != nil {
			return context.Cause(ctx) // stopped: the text so far is stored
		}
		if err != nil {
			p := failurePhrase(err, cfg, step.text != "")
			if toolRan {
				p = i18n.AfterToolsRan(p) // "send it again" could run a command twice
			}
			return a.say(ctx, tools, p)
		}
		reply := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: step.text}
		if len(step.calls) == 0 {
			if step.finish == openai.FinishReasonLength {
				return a.say(ctx, tools, phrase("model_cut_at_limit"))
			}
			return nil
		}
		if err := tools.Called(ctx, protocol.ToolCalled{Stream: step.stream, Calls: step.calls}); err != nil {
			return a.say(ctx, tools, phrase("agent_no_record_calls", err.Error()))
		}
		for _, c := range step.calls {
			reply.ToolCalls = append(reply.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		}
		msgs = append(msgs, reply)
		if end, stop := runCalls(step.calls); stop {
			return end
		}
	}
	return a.say(ctx, tools, phrase("turn_max_steps", strconv.Itoa(a.cfg.MaxSteps)))
}

// say posts a notice in Parley's fixed words (by its phrase, where the tools keep phrases)
// and ends the turn.
func (a *Agent) say(ctx context.Context, tools agent.Tools, p protocol.Phrase) error {
	text, _ := i18n.English.Phrase(p.Code, p.Args)
	np, ok := tools.(agent.NoticePhraser)
	if !ok {
		return a.notice(ctx, tools, text)
	}
	if err := np.NoticePhrase(ctx, text, p); err != nil {
		return fmt.Errorf("post a notice (%q): %w", text, err)
	}
	return nil
}

// notice posts text and ends the turn. A failure to post it is the turn's error.
func (a *Agent) notice(ctx context.Context, tools agent.Tools, text string) error {
	if err := tools.Notice(ctx, text); err != nil {
		return fmt.Errorf("post a notice (%q): %w", text, err)
	}
	return nil
}

// step is one model message.
type step struct {
	text   string
	stream string // its agent.message's stream id, "" when it had no text
	calls  []protocol.ToolCall
	finish openai.FinishReason
	usage  *openai.Usage // the endpoint's count, when it sent one
}

// recordUsage stores what a call used, for the context ring. A failure to store it costs
// the ring one update, never the turn.
func recordUsage(ctx context.Context, tools agent.Tools, model string, u openai.Usage) {
	rec, ok := tools.(UsageRecorder)
	if !ok {
		return
	}
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = rec.Usage(uctx, protocol.TurnUsage{Model: model, PromptTokens: u.PromptTokens,
		CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens})
}

// generate streams one model message into the thread. A 429 before any token is waited out
// once, when mayRetry (no tool of the turn ran) and the wait it asks is short. The text that
// arrived is stored even when the stream fails or the turn is stopped.
func (a *Agent) generate(ctx context.Context, model string, msgs []openai.ChatCompletionMessage, defs []openai.Tool, tools agent.Tools, mayRetry bool) (step, error) {
	// A request that goes StreamIdle without a byte is given up: every byte read puts the
	// limit off again. The stall is the cause of its context's end, told apart from a Stop.
	sctx, stall := context.WithCancelCause(ctx)
	defer stall(nil)
	idle := time.AfterFunc(a.cfg.StreamIdle, func() { stall(stalled{a.cfg.StreamIdle}) })
	defer idle.Stop()
	doer := &headerDoer{client: a.cfg.HTTPClient, onRead: func() { idle.Reset(a.cfg.StreamIdle) }}
	cc := openai.DefaultConfig(a.cfg.Key)
	cc.BaseURL = strings.TrimRight(a.cfg.URL, "/")
	cc.HTTPClient = doer
	// Lines that are not data (": keep-alive" comments while a long prompt is read) count
	// against this; go-openai's 300 fails a slow local server's stream.
	cc.EmptyMessagesLimit = emptyLinesLimit
	client := openai.NewClientWithConfig(cc)
	req := openai.ChatCompletionRequest{
		Model:         model,
		Messages:      msgs,
		Tools:         defs,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	stream, err := client.CreateChatCompletionStream(sctx, req)
	// A 429, or a 503 that says when to come back (Retry-After: a server loading its model, or
	// shedding load), is waited out once.
	if code := status(err); err != nil && (code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable) {
		if wait, ok := doer.retryAfter(a.cfg.Now()); ok && (wait > a.cfg.MaxRetryAfter || !mayRetry) {
			err = askedWait{err, wait}
		} else if ok && mayRetry {
			if wait >= sayWaitFrom {
				// Up to half a minute with nothing moving reads as a hang: say why, and when.
				secs := strconv.Itoa(int((wait + time.Second - 1) / time.Second))
				said := phrase("model_rate_wait", a.cfg.URL, secs)
				if code == http.StatusServiceUnavailable {
					said = phrase("model_busy_wait", a.cfg.URL, secs)
				}
				if err := a.say(ctx, tools, said); err != nil {
					return step{}, err
				}
			}
			if werr := sleep(ctx, wait); werr != nil {
				return step{}, werr
			}
			idle.Reset(a.cfg.StreamIdle) // the wait was asked for, not a silence
			stream, err = client.CreateChatCompletionStream(sctx, req)
		}
	}
	if err != nil {
		if cause := context.Cause(sctx); ctx.Err() == nil && errors.As(cause, new(stalled)) {
			return step{}, fmt.Errorf("%w: %v", errCut, cause)
		}
		return step{}, err
	}
	defer stream.Close()

	w := tools.Stream(ctx)
	var acc accumulator
	var recvErr error
	tooLong := false
	for {
		chunk, err := stream.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				recvErr = err
			}
			break
		}
		text := acc.add(chunk)
		if acc.size() > MaxReplyBytes {
			// Read no further: what is kept must fit one event of the log (QA round 24: a
			// 5 MB reply streamed for 74 s, then failed to store in NATS's words).
			text = acc.cut(MaxReplyBytes, text)
			tooLong = true
		}
		if text != "" {
			w.Delta(text)
		}
		if tooLong {
			break
		}
	}
	// Stored even when stopped: the user saw it arrive.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	id, err := w.Close(sctx)
	if err != nil {
		return step{}, fmt.Errorf("store the model's message: %w", err)
	}
	st := step{text: acc.text.String(), stream: id, calls: acc.toolCalls(), finish: acc.finish, usage: acc.usage}
	switch {
	case ctx.Err() != nil:
		return st, context.Cause(ctx)
	case tooLong:
		return st, errTooLong
	case errors.As(context.Cause(sctx), new(stalled)):
		return st, fmt.Errorf("%w: %v", errCut, context.Cause(sctx))
	case recvErr != nil && serverText(recvErr) != "":
		return st, recvErr // an error event mid-stream: the server's words
	case recvErr != nil:
		return st, fmt.Errorf("%w: %v", errCut, recvErr)
	case acc.finish == "":
		return st, errCut
	}
	return st, nil
}

// extraStartWait bounds a turn's wait for its MCP servers to finish connecting: a server
// started with npx takes a second or three; one still starting after this is not waited for.
const extraStartWait = 10 * time.Second

// sayWaitFrom is the shortest wait for a 429 that the thread is told of: a shorter one passes
// like a slow answer.
const sayWaitFrom = 2 * time.Second

// emptyLinesLimit bounds the non-data lines of one stream; go-openai keeps them in memory
// (to read an error body from), so it stays bounded.
const emptyLinesLimit = 100_000

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func openaiTools(defs []toolbox.Def) []openai.Tool {
	out := make([]openai.Tool, len(defs))
	for i, d := range defs {
		out[i] = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: d.Name, Description: d.Description, Parameters: d.Parameters}}
	}
	return out
}
