// Package agent is what answers a prompt: the turn runner calls an Agent once per turn, with
// the prompt and the tools it may use. The offline agent here is the first implementation;
// the slash-command door (runtime's commands.go) is a peer behind the same interface. The
// model adapter (runtime/agent/model) and the MCP client (runtime/mcp) go next to this
// package: the model is another Agent, and MCP's tools reach it through Tools, so every call
// that changes something passes the gate. See docs/runtime.md.
package agent

import (
	"context"
	"strconv"
	"strings"
	"time"

	"parley/i18n"
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

// Phraser is the hook for Parley's own fixed words: tools that implement it store the
// phrase's code beside its English text, so each page shows the words in its locale
// (i18n/phrases.go). The runtime's tools implement it (runtime/commands.go).
type Phraser interface {
	SayPhrase(ctx context.Context, p protocol.Phrase) error
}

// Turn says OfflineReply, by its phrase where the tools keep phrases.
func (Offline) Turn(ctx context.Context, in Input, tools Tools) error {
	if p, ok := tools.(Phraser); ok {
		return p.SayPhrase(ctx, offlinePhrase(in.Text))
	}
	return tools.Say(ctx, OfflineReply(in.Text))
}

// OfflineReply is the offline agent's answer to a prompt, in English.
func OfflineReply(prompt string) string {
	text, _ := i18n.English.Phrase(offlinePhrase(prompt).Code, offlinePhrase(prompt).Args)
	return text
}

func offlinePhrase(prompt string) protocol.Phrase {
	first, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(first); len(r) > 80 {
		first = string(r[:80]) + "…"
	}
	return protocol.Phrase{Code: i18n.PhraseCodeOfflineReply, Args: []string{first}}
}

// SilenceWords says how long a server went without a word, as the notices that give up on it
// say it: whole minutes as "5 min", else seconds, rounded up ("1 s").
func SilenceWords(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	}
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10) + " s"
}
