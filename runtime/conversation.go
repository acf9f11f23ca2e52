package runtime

import (
	"context"
	"fmt"
	"strconv"

	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/agent/toolbox"
	"parley/runtime/mcp"
	"parley/runtime/turn"
)

// The agent.Conversation half of a turn's tools: what the model loop stores lands in the
// session's log under ids derived from the prompt, so the same step stored twice is stored
// once, and the next turn rebuilds the conversation from the log.

var (
	_ agent.Tools         = (*tools)(nil)
	_ agent.Steering      = (*tools)(nil)
	_ agent.Phraser       = (*tools)(nil)
	_ agent.NoticePhraser = (*tools)(nil)
)

// Steered hands the running turn the prompts sent with steer since it last looked: each is
// marked taken by a prompt.steered event (under a key of its own, so a repeat stores it
// once), which turn.Read counts as started, so it runs no turn of its own. The model reads
// them at its next step, after the current tool results.
func (t *tools) Steered(ctx context.Context) ([]string, error) {
	after := max(t.steerRead, t.prompt)
	evs, err := t.caps.r.log.Read(ctx, t.caps.session, after)
	if err != nil {
		return nil, fmt.Errorf("read the prompts steered into the turn: %w", err)
	}
	if len(evs) > 0 {
		t.steerRead = evs[len(evs)-1].Offset
	}
	var texts []string
	for _, p := range turn.Steerable(evs) {
		key := "steered-" + strconv.FormatUint(p.Offset, 10)
		if err := t.store(ctx, protocol.EventPromptSteered, protocol.PromptSteered{Prompt: p.Offset, Run: t.caps.run}, key); err != nil {
			return texts, fmt.Errorf("mark prompt %d as steered into the turn: %w", p.Offset, err)
		}
		texts = append(texts, p.Text)
	}
	return texts, nil
}

func (t *tools) History(ctx context.Context) ([]protocol.Event, error) {
	return t.caps.r.log.Read(ctx, t.caps.session, 0)
}

func (t *tools) Stream(ctx context.Context) agent.MessageWriter {
	t.streams++
	r, session := t.caps.r, t.caps.session
	w := &agent.Writer{
		ID:    strconv.FormatUint(t.prompt, 10) + "-" + strconv.Itoa(t.streams),
		Store: t.store,
		Now:   r.opts.Now,
		Ctx:   ctx,
		Live:  func(d protocol.Delta) { r.publishLive(session, d) },
	}
	r.live.open(session, w)
	return &openWriter{Writer: w, done: func() { r.live.close(session, w) }}
}

func (t *tools) Notice(ctx context.Context, text string) error {
	return t.notice(ctx, protocol.Message{Text: text, From: protocol.FromParley})
}

// NoticePhrase posts a notice in Parley's fixed words: English in the text, the phrase beside.
func (t *tools) NoticePhrase(ctx context.Context, text string, p protocol.Phrase) error {
	return t.notice(ctx, protocol.Message{Text: text, From: protocol.FromParley, Phrase: &p})
}

func (t *tools) notice(ctx context.Context, m protocol.Message) error {
	n := t.notices.Add(1)
	return t.store(ctx, protocol.EventAgentMessage, m, "notice-"+strconv.FormatUint(t.prompt, 10)+"-"+strconv.FormatInt(n, 10))
}

func (t *tools) Called(ctx context.Context, calls protocol.ToolCalled) error {
	t.called++
	t.passes, t.began = 0, nil // a new message's calls: the gate's passes count afresh
	return t.store(ctx, protocol.EventToolCalled, calls, "called-"+strconv.FormatUint(t.prompt, 10)+"-"+strconv.Itoa(t.called))
}

func (t *tools) Result(ctx context.Context, res protocol.ToolResult) error {
	// Counted, not keyed by the call's id: local servers reuse ids like "call_0" every step.
	t.results++
	return t.store(ctx, protocol.EventToolResult, res, "result-"+strconv.FormatUint(t.prompt, 10)+"-"+strconv.Itoa(t.results))
}

var (
	_ toolbox.OutputRecorder = (*tools)(nil)
	_ mcp.ProgressRecorder   = (*tools)(nil)
)

// ToolOutput stores a running call's output as tool.output, for the thread (the model reads
// the result). It has no message id: each event is new, and one lost in a crash is a few
// lines the receipt does not show.
func (t *tools) ToolOutput(ctx context.Context, o protocol.ToolOutput) error {
	return t.store(ctx, protocol.EventToolOutput, o, "")
}

// Progress stores a progress notification of a running MCP call as tool.progress. Like
// output it has no message id: every notification is new, and one lost in a crash is only a
// bar's step.
func (t *tools) Progress(ctx context.Context, p protocol.ToolProgress) error {
	return t.store(ctx, protocol.EventToolProgress, p, "")
}

func (t *tools) store(ctx context.Context, typ protocol.EventType, data any, key string) error {
	_, _, err := t.caps.r.log.Append(ctx, t.caps.session, typ, data, key)
	return err
}

// openWriter is a Writer listed among the session's open streams until it closes, so a
// socket that subscribes mid-stream can be told the tail at once (live.go).
type openWriter struct {
	*agent.Writer
	done func()
}

func (w *openWriter) Close(ctx context.Context) (string, error) {
	defer w.done()
	return w.Writer.Close(ctx)
}

var _ agent.Transcripts = (*tools)(nil)

// Transcript reads a session a prompt refers to with an @session chip. Any session of this
// server may be referred to: the person who typed the chip could open it too.
func (t *tools) Transcript(ctx context.Context, session string) (string, []protocol.Event, error) {
	info, err := t.caps.r.Session(ctx, session)
	if err != nil {
		return "", nil, err
	}
	evs, err := t.caps.r.log.Read(ctx, session, 0)
	return info.Title, evs, err
}
