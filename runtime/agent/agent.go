// Package agent is what answers a prompt: the turn runner calls an Agent once per turn, with
// the prompt and the tools it may use. The offline agent here is the first implementation;
// the slash-command door (runtime's commands.go) is a peer behind the same interface. The
// model adapter (runtime/agent/model) and the MCP client (runtime/mcp) go next to this
// package: the model is another Agent, and MCP's tools reach it through Tools, so every call
// that changes something passes the gate. See docs/runtime.md.
package agent

import (
	"context"
	"strings"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// Input is what a turn answers.
type Input struct {
	// Session is the session the turn runs in.
	Session string
	// Prompt is the offset of the user message the turn answers.
	Prompt uint64
	// Text is the prompt as the user wrote it.
	Text string
	// Workspace is the session's folder (absolute, symlinks resolved).
	Workspace string
	// Resume says the turn was started by a runtime that went away while the turn waited on
	// a decision, and this one took it over: the agent continues from the log where the turn
	// was (the decision is still pending, and its Ask or Authorize waits for that one rather
	// than asking again). An agent that cannot resume answers the prompt as if new.
	Resume bool
}

// Tools are what an agent may do during a turn. Everything lands in the session's log.
type Tools interface {
	// Say posts the agent's message in the session. A turn run again after a crash says the
	// same things under the same ids, so nothing is said twice.
	Say(ctx context.Context, text string) error
	// Ask opens a decision and waits for it. A decline or a timeout is an Answer; an abort
	// (the turn was stopped, the question withdrawn) is an error wrapping decision.ErrAborted.
	Ask(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error)
	// Authorize passes tool calls through the gate as one decision.
	Authorize(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error)

	// The model agent's needs; see stream.go.
	Conversation
}

// Agent answers one prompt per call. Its context ends when the turn is stopped (cause
// decision.ErrStopped) or the runtime shuts down (decision.ErrShutdown). An error ends the
// turn; the runner records the end either way.
type Agent interface {
	Turn(ctx context.Context, in Input, tools Tools) error
}

// Offline is the agent when no model is configured: its reply is deterministic and honest
// about what it is.
type Offline struct{}

// Turn says OfflineReply.
func (Offline) Turn(ctx context.Context, in Input, tools Tools) error {
	return tools.Say(ctx, OfflineReply(in.Text))
}

// OfflineReply is the offline agent's answer to a prompt.
func OfflineReply(prompt string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(first); len(r) > 80 {
		first = string(r[:80]) + "…"
	}
	return "No model is configured, so no agent can work on “" + first + "” yet. " +
		"This is Parley's offline agent; it gives the same answer to every prompt.\n\n" +
		"What you can do:\n" +
		"• Keep writing: your messages are stored in this session's log and survive reloads and restarts.\n" +
		"• Start another session from the sidebar.\n" +
		"• Point Parley at a model: any OpenAI-compatible Chat Completions server works, hosted or local. " +
		"For Ollama, start it and run `parley -model-url http://127.0.0.1:11434/v1 -model llama3.2`; " +
		"for another server, give its /v1 URL (llama.cpp's needs --jinja for tools). " +
		"The key comes from the environment only: PARLEY_MODEL_KEY or OPENAI_API_KEY.\n" +
		"• Run `parley -help` to see the flags this build offers."
}
