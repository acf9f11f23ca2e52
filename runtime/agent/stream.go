package agent

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/protocol"
)

// Conversation is what an agent that holds a conversation (the model loop) needs beyond
// Say, Ask and Authorize: the session's log to rebuild the conversation from, a streamed
// message, notices, and a record of its tool calls. Everything it stores lands in the log.
type Conversation interface {
	// History is the session's log so far, oldest first: the conversation a turn continues.
	History(ctx context.Context) ([]protocol.Event, error)
	// Stream opens the agent's next message, written as it is generated.
	Stream(ctx context.Context) MessageWriter
	// Notice posts a note from Parley, not the agent's words: why the turn could not go on.
	// The model never reads notices back.
	Notice(ctx context.Context, text string) error
	// NoticePhrase (NoticePhraser) is Notice of Parley's fixed words, by their phrase.
	// Called records the tool calls of one model message, before they run.
	Called(ctx context.Context, calls protocol.ToolCalled) error
	// Result records what one tool call returned to the model.
	Result(ctx context.Context, res protocol.ToolResult) error
}

// NoticePhraser is the hook for a notice in Parley's fixed words: the tools that implement it
// store its phrase beside its English, so each page says it in its locale (docs/i18n.md).
type NoticePhraser interface {
	NoticePhrase(ctx context.Context, text string, p protocol.Phrase) error
}

// Steering is the hook for prompts sent with steer while a turn runs: an agent whose tools
// implement it takes them between steps (after the current tool results), not after the
// turn. The runtime's tools implement it (runtime/conversation.go).
type Steering interface {
	// Steered returns the prompts steered into the running turn since the last call, and
	// marks them as taken (so they start no turn of their own).
	Steered(ctx context.Context) ([]string, error)
}

// MessageWriter is one message being generated.
type MessageWriter interface {
	// Delta adds generated text: it goes live at once and into the log at the next
	// checkpoint, never one event per token.
	Delta(text string)
	// Close stores the whole message and returns the stream's id; a message with no text
	// stores nothing. Text after Close is dropped.
	Close(ctx context.Context) (string, error)
}

// Store appends an event to the session's log under a message id (key) that a repeat of the
// same write reuses.
type Store func(ctx context.Context, typ protocol.EventType, data any, key string) error

// Checkpoint policy: a draft once this much text or time has gathered since the last one.
const (
	CheckpointBytes = 4 << 10
	CheckpointEvery = 2 * time.Second
)

// Writer is the MessageWriter a runtime hands out: it keeps the text, stores an agent.draft
// checkpoint of what is new every CheckpointBytes or CheckpointEvery, and the whole message
// as agent.message on Close. Its zero value is not usable: set ID, Store and Now.
type Writer struct {
	// ID names the stream; drafts are stored under draft-<ID>-<seq>, the message under
	// message-<ID>.
	ID    string
	Store Store
	Now   func() time.Time
	// Live, if set, gets the message's text since the last checkpoint after every delta (the
	// socket's path; never stored). The whole tail, not the delta alone: a reader that joins
	// mid-stream (a reload) then needs only the stored drafts and the next Live call to hold
	// the message with no gap, and the tail stays bounded by the checkpoint policy.
	Live func(d protocol.Delta)
	// Ctx bounds the checkpoints' writes.
	Ctx context.Context

	mu     sync.Mutex
	text   strings.Builder
	saved  int // bytes of text already in drafts
	seq    int
	last   time.Time
	closed bool
	err    error // the first failed checkpoint, reported by Close
}

// Delta adds text, storing a checkpoint when one is due.
func (w *Writer) Delta(text string) {
	if text == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.last.IsZero() {
		w.last = w.Now()
	}
	// Positions are bytes of the text as JSON carries it, so it must be valid UTF-8 here
	// (json.Marshal would widen a stray byte into U+FFFD and shift every later position).
	w.text.WriteString(strings.ToValidUTF8(text, "\uFFFD"))
	if w.Live != nil {
		all := w.text.String()
		w.Live(protocol.Delta{Stream: w.ID, Pos: w.saved, Text: all[w.saved:]})
	}
	if now := w.Now(); w.text.Len()-w.saved >= CheckpointBytes || now.Sub(w.last) >= CheckpointEvery {
		w.checkpoint(now)
	}
}

// checkpoint stores the text since the last draft. Called with w.mu held.
func (w *Writer) checkpoint(now time.Time) {
	all := w.text.String()
	w.seq++
	d := protocol.AgentDraft{Stream: w.ID, Seq: w.seq, Pos: w.saved, Text: all[w.saved:]}
	ctx := w.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if err := w.Store(ctx, protocol.EventAgentDraft, d, "draft-"+w.ID+"-"+strconv.Itoa(w.seq)); err != nil {
		if w.err == nil {
			w.err = err
		}
		w.seq-- // the same piece grows and is tried again at the next checkpoint
		return
	}
	w.saved, w.last = len(all), now
}

// Tail is what Live was last given: the text since the last checkpoint. ok is false once the
// message is closed (its agent.message holds it all) or before any text.
func (w *Writer) Tail() (d protocol.Delta, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.text.Len() == 0 {
		return protocol.Delta{}, false
	}
	all := w.text.String()
	return protocol.Delta{Stream: w.ID, Pos: w.saved, Text: all[w.saved:]}, true
}

// Text is the message so far.
func (w *Writer) Text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// Close stores the message whole. A failed checkpoint before it does not fail it: the
// message replaces the drafts.
func (w *Writer) Close(ctx context.Context) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.ID, nil
	}
	w.closed = true
	if w.text.Len() == 0 {
		return "", nil
	}
	msg := protocol.Message{Text: w.text.String(), Stream: w.ID}
	if err := w.Store(ctx, protocol.EventAgentMessage, msg, "message-"+w.ID); err != nil {
		return w.ID, err
	}
	return w.ID, nil
}
