package toolbox

import (
	"context"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"parley/protocol"
)

// OutputRecorder is what a turn's tools implement to show a tool call's output while it runs
// (the runtime's tools store it as tool.output). Tools that do not implement it get the
// result only, as before.
type OutputRecorder interface {
	ToolOutput(ctx context.Context, o protocol.ToolOutput) error
}

// Bounds of a call's streamed output. The process's own reader (runtime/script's sink)
// already coalesces writes into lines every 50 ms; these bound what reaches the log, which
// every socket of the session replays: at most one event per OutputEvery while the call
// runs, each at most OutputEventBytes, and OutputStreamBytes in all. What goes beyond is
// still in the result the model reads (up to the script host's output limit); the thread is
// told the stream was cut.
const (
	OutputEvery       = 250 * time.Millisecond
	OutputEventBytes  = 16 << 10
	OutputStreamBytes = 64 << 10
)

// streamer carries one call's output to an OutputRecorder, off the process's reader: emit
// never blocks on the log, so a slow store cannot stall the process on a full pipe.
type streamer struct {
	rec        OutputRecorder
	ctx        context.Context // the turn's; the final flush outlives its cancel briefly
	call, name string

	mu        sync.Mutex
	pending   []protocol.OutputChunk
	accepted  int  // bytes taken for streaming so far
	truncated bool // the stream was cut at OutputStreamBytes
	noted     bool // the cut was sent
	closed    bool

	wake chan struct{}
	stop chan struct{}
	done chan struct{}
}

func startOutput(ctx context.Context, rec OutputRecorder, call, name string) *streamer {
	s := &streamer{rec: rec, ctx: ctx, call: call, name: name,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

// emit takes text a stream wrote; it is called by the process's reader, one call at a time.
func (s *streamer) emit(stream, text string) {
	s.mu.Lock()
	if s.closed || s.truncated || text == "" {
		s.mu.Unlock()
		return
	}
	if room := OutputStreamBytes - s.accepted; len(text) > room {
		text = text[:runeCut(text, room)]
		s.truncated = true
	}
	s.accepted += len(text)
	if n := len(s.pending); n > 0 && s.pending[n-1].Stream == stream {
		s.pending[n-1].Text += text
	} else if text != "" {
		s.pending = append(s.pending, protocol.OutputChunk{Stream: stream, Text: text})
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// close sends what is left and waits until it is stored, so a call's output events come
// before its result in the log.
func (s *streamer) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.done
}

func (s *streamer) loop() {
	defer close(s.done)
	var last time.Time
	for {
		select {
		case <-s.wake:
		case <-s.stop:
			s.flushAll()
			return
		}
		if wait := time.Until(last.Add(OutputEvery)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-s.stop:
				t.Stop()
				s.flushAll()
				return
			}
		}
		s.flush(s.ctx)
		last = time.Now()
	}
}

// flushAll sends everything pending at the end of the call, in events of at most
// OutputEventBytes. A stopped turn's context is done: what the process wrote before the
// stop is still worth showing, so it gets a short grace.
func (s *streamer) flushAll() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	for s.flush(ctx) {
	}
}

// flush sends one event of at most OutputEventBytes; it reports whether anything is left.
func (s *streamer) flush(ctx context.Context) bool {
	s.mu.Lock()
	var out []protocol.OutputChunk
	n := 0
	for len(s.pending) > 0 && n < OutputEventBytes {
		c := s.pending[0]
		if room := OutputEventBytes - n; len(c.Text) > room {
			cut := runeCut(c.Text, room)
			if cut == 0 {
				break
			}
			out = append(out, protocol.OutputChunk{Stream: c.Stream, Text: c.Text[:cut]})
			s.pending[0].Text = c.Text[cut:]
			n += cut
			break
		}
		out = append(out, c)
		n += len(c.Text)
		s.pending = s.pending[1:]
	}
	note := s.truncated && !s.noted && len(s.pending) == 0
	if note {
		s.noted = true
	}
	left := len(s.pending) > 0
	s.mu.Unlock()
	if len(out) == 0 && !note {
		return false
	}
	if err := s.rec.ToolOutput(ctx, protocol.ToolOutput{Call: s.call, Name: s.name, Chunks: out, Truncated: note}); err != nil {
		slog.Warn("could not record a tool's output", "call", s.call, "err", err)
		return false // the result still carries it; a store that fails now is not retried per chunk
	}
	return left
}

// runeCut is the longest prefix of s of at most n bytes that ends on a rune boundary.
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
