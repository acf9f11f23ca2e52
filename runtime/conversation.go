package runtime

import (
	"context"
	"strconv"

	"parley/protocol"
	"parley/runtime/agent"
)

// The agent.Conversation half of a turn's tools: what the model loop stores lands in the
// session's log under ids derived from the prompt, so the same step stored twice is stored
// once, and the next turn rebuilds the conversation from the log.

var _ agent.Tools = (*tools)(nil)

func (t *tools) History(ctx context.Context) ([]protocol.Event, error) {
	return t.caps.r.log.Read(ctx, t.caps.session, 0)
}

func (t *tools) Stream(ctx context.Context) agent.MessageWriter {
	t.streams++
	r, session := t.caps.r, t.caps.session
	return &agent.Writer{
		ID:    strconv.FormatUint(t.prompt, 10) + "-" + strconv.Itoa(t.streams),
		Store: t.store,
		Now:   r.opts.Now,
		Ctx:   ctx,
		Live:  func(d protocol.Delta) { r.publishLive(session, d) },
	}
}

func (t *tools) Notice(ctx context.Context, text string) error {
	t.notices++
	return t.store(ctx, protocol.EventAgentMessage, protocol.Message{Text: text, From: protocol.FromParley},
		"notice-"+strconv.FormatUint(t.prompt, 10)+"-"+strconv.Itoa(t.notices))
}

func (t *tools) Called(ctx context.Context, calls protocol.ToolCalled) error {
	t.called++
	return t.store(ctx, protocol.EventToolCalled, calls, "called-"+strconv.FormatUint(t.prompt, 10)+"-"+strconv.Itoa(t.called))
}

func (t *tools) Result(ctx context.Context, res protocol.ToolResult) error {
	// Counted, not keyed by the call's id: local servers reuse ids like "call_0" every step.
	t.results++
	return t.store(ctx, protocol.EventToolResult, res, "result-"+strconv.FormatUint(t.prompt, 10)+"-"+strconv.Itoa(t.results))
}

func (t *tools) store(ctx context.Context, typ protocol.EventType, data any, key string) error {
	_, _, err := t.caps.r.log.Append(ctx, t.caps.session, typ, data, key)
	return err
}
