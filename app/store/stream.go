package store

import (
	"slices"
	"strings"

	"parley/protocol"
)

// A model's message streams into the thread from two sources: the stored agent.draft
// checkpoints (what a reload replays) and the socket's live deltas (what happens now). Both
// say where their text begins, so the entry holds the longest text they agree on, with no
// gap and no duplicate; the closing agent.message replaces it whole.

// streaming returns the entry of stream id, adding it at offset when create is set.
func (t *Thread) streaming(id string, offset uint64, create bool) *Message {
	if m := t.find("stream:" + id); m != nil {
		return m
	}
	if !create {
		return nil
	}
	t.add("stream:"+id, Message{Offset: offset, Role: RoleAgent, Stream: id, Status: StatusStreaming})
	t.open = append(t.open, id)
	return &t.Messages[len(t.Messages)-1]
}

func (t *Thread) draft(ev protocol.Event) {
	d, err := protocol.DecodeEventData[protocol.AgentDraft](ev)
	if err != nil || d.Stream == "" {
		return
	}
	m := t.streaming(d.Stream, ev.Offset, true)
	if m.Status != StatusStreaming {
		return
	}
	// A draft is a delta that was stored. Its time is the message's until the message closes:
	// one that a restart cuts off keeps the time its last words were stored.
	if t.grow(m, protocol.Delta{Stream: d.Stream, Pos: d.Pos, Text: d.Text}) && ev.At > 0 {
		m.At = ev.At
	}
}

// grow continues a streaming entry's text with d (protocol.Delta.Fold's rule) in a buffer of
// its own, so a token costs its bytes, not a copy of the whole message: in the browser every
// copy is garbage, and a collection blocks the page's one thread for tens of milliseconds.
func (t *Thread) grow(m *Message, d protocol.Delta) bool {
	end := d.Pos + len(d.Text)
	if d.Pos > len(m.Text) || end <= len(m.Text) {
		return false
	}
	if t.bufs == nil {
		t.bufs = map[string]*strings.Builder{}
	}
	b := t.bufs[m.Stream]
	if b == nil {
		b = &strings.Builder{}
		b.WriteString(m.Text)
		t.bufs[m.Stream] = b
	}
	b.WriteString(d.Text[len(m.Text)-d.Pos:])
	m.Text = b.String()
	return true
}

// Live folds a live delta into its streaming message, and reports whether the thread
// changed. A delta of a message that has closed, or that starts beyond what the entry holds,
// changes nothing (a draft fills such a hole, and the next delta carries on).
func (t *Thread) Live(d protocol.Delta) bool {
	m := t.streaming(d.Stream, 0, d.Pos == 0)
	if m == nil || m.Status != StatusStreaming {
		return false
	}
	if !t.grow(m, d) {
		return false
	}
	t.Rev++
	return true
}

// closeStream puts an agent.message in place of its streaming entry, and reports whether
// there was one.
func (t *Thread) closeStream(ev protocol.Event) bool {
	msg, err := ev.DecodeMessage()
	if err != nil || msg.Stream == "" {
		return false
	}
	m := t.streaming(msg.Stream, 0, false)
	if m == nil {
		return false
	}
	m.Offset, m.At, m.Text, m.Status, m.From = ev.Offset, ev.At, msg.Text, "", msg.From
	t.open = slices.DeleteFunc(t.open, func(id string) bool { return id == msg.Stream })
	delete(t.bufs, msg.Stream)
	return true
}

// endStreams marks what a turn left generating as interrupted (its server went away), and
// tool calls left without a result likewise.
func (t *Thread) endStreams() {
	for _, id := range t.open {
		if m := t.find("stream:" + id); m != nil && m.Status == StatusStreaming {
			m.Status = StatusInterrupted
		}
		delete(t.bufs, id)
	}
	t.open = nil
	for k, i := range t.entry {
		if m := &t.Messages[i]; m.Role == RoleTool && m.Status == StatusRunning && len(k) > 5 && k[:5] == "tool:" {
			m.Status, m.Result = StatusInterrupted, "No result: the turn ended before this call finished"
		}
	}
}

func (t *Thread) toolCalled(ev protocol.Event) {
	tc, err := protocol.DecodeEventData[protocol.ToolCalled](ev)
	if err != nil {
		return
	}
	for _, c := range tc.Calls {
		t.add("tool:"+c.ID, Message{Offset: ev.Offset, Role: RoleTool, ID: c.ID, Title: c.Name, Detail: c.Arguments, Status: StatusRunning})
	}
}

func (t *Thread) toolResult(ev protocol.Event) {
	r, err := protocol.DecodeEventData[protocol.ToolResult](ev)
	if err != nil {
		return
	}
	m := t.find("tool:" + r.Call)
	if m == nil || m.Status != StatusRunning {
		return
	}
	m.Status, m.Result = StatusDone, r.Text
	if r.Error {
		m.Status = StatusFailed
	}
}

// toolProgress keeps a call's newest progress; it may come after the call's result.
func (t *Thread) toolProgress(ev protocol.Event) {
	p, err := protocol.DecodeEventData[protocol.ToolProgress](ev)
	if err != nil {
		return
	}
	m := t.find("tool:" + p.Call)
	switch {
	case m == nil, m.Progress != nil && p.Progress < m.Progress.Progress:
	case p.Name != "" && p.Name != m.Title:
		// Another call's, of the same id: models reuse ids such as "call_0" from turn to turn,
		// and a stopped call's server went on reporting into the next call's card (QA round 26).
	case m.Status == StatusInterrupted:
		// The turn ended under it: its card says "No result", and its server's late steps
		// do not move a bar that will never finish.
	default:
		m.Progress = &p
	}
}

// toolOutput appends a running call's output to its receipt. Stderr is marked line by
// line, so the one text still says which stream wrote what.
func (t *Thread) toolOutput(ev protocol.Event) {
	o, err := protocol.DecodeEventData[protocol.ToolOutput](ev)
	if err != nil {
		return
	}
	m := t.find("tool:" + o.Call)
	if m == nil {
		return
	}
	if o.Granted != nil {
		m.Granted = append(m.Granted, GrantedLine{GrantedCall: *o.Granted})
	}
	var b strings.Builder
	b.WriteString(m.Output)
	for _, c := range o.Chunks {
		if c.Stream != protocol.StreamStderr {
			b.WriteString(c.Text)
			continue
		}
		for text := c.Text; text != ""; {
			line := text
			if i := strings.IndexByte(text, '\n'); i >= 0 {
				line = text[:i+1]
			}
			text = text[len(line):]
			if at := b.Len(); at == 0 || b.String()[at-1] == '\n' {
				b.WriteString("stderr: ")
			}
			b.WriteString(line)
		}
	}
	m.Output = b.String()
	if len(m.Output) > maxRunDetail {
		cut := len(m.Output) - maxRunDetail
		for cut < len(m.Output) && m.Output[cut]&0xC0 == 0x80 {
			cut++
		}
		m.Output = "…" + m.Output[cut:]
	}
	m.OutputCut = m.OutputCut || o.Truncated
}

// Streaming returns the entry of a message still being generated.
func (t *Thread) Streaming(id string) (Message, bool) {
	if m := t.find("stream:" + id); m != nil && m.Status == StatusStreaming {
		return *m, true
	}
	return Message{}, false
}
