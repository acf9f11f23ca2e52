package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	rt "runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"parley/protocol"
	"parley/runtime"
	"parley/server/sockets"
)

// socket serves /ws: a client subscribes to one session after the last offset it saw and
// receives exactly the events that follow, then live ones; and a client that sends "watch"
// receives the session list's and the approvals queue's versions as they move (watch). A bad
// frame gets an error frame; the socket stays open and the subscription, if any, goes on.
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	conn, done, err := s.sockets.Accept(w, r) // checks the Origin
	if err != nil {
		return // Accept has answered
	}
	defer done()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sc := &socketConn{conn: conn, rt: s.rt, frames: &s.frames}
	sockets.KeepAlive(ctx, conn, cancel) // a client that vanished releases its subscription
	defer sc.unsubscribe()
	var watching sync.WaitGroup
	defer watching.Wait() // after cancel: the watch ends with the socket
	defer cancel()

	for {
		frame, err := readFrame(ctx, conn)
		if errors.Is(err, protocol.ErrFrameTooLarge) || isDecodeError(err) {
			sc.sendError(ctx, "bad_frame", err.Error())
			continue
		}
		if err != nil {
			return // closed or failed
		}
		switch frame.Type {
		case protocol.FrameSubscribe:
			sc.subscribe(ctx, frame.Session, frame.After, frame.Batch, frame.Tail)
		case protocol.FrameUnsubscribe:
			sc.unsubscribe()
		case protocol.FrameWatch:
			if !sc.watching {
				sc.watching = true
				watching.Go(func() { sc.watch(ctx) })
			}
		}
	}
}

type decodeError struct{ error }

func isDecodeError(err error) bool {
	var d decodeError
	return errors.As(err, &d)
}

// readFrame reads one text frame, bounded by MaxFrameBytes (sockets.ReadFrame).
func readFrame(ctx context.Context, conn *websocket.Conn) (protocol.ClientFrame, error) {
	typ, data, err := sockets.ReadFrame(ctx, conn)
	if err != nil {
		return protocol.ClientFrame{}, err
	}
	if typ != websocket.MessageText {
		return protocol.ClientFrame{}, decodeError{errors.New("binary frames are not part of the protocol: send JSON text")}
	}
	f, err := protocol.DecodeClientFrame(data)
	if err != nil {
		return protocol.ClientFrame{}, decodeError{err}
	}
	return f, nil
}

// socketConn is one client's socket and its current subscription.
type socketConn struct {
	conn   *websocket.Conn
	rt     Runtime
	frames *frameCache

	mu   sync.Mutex
	stop context.CancelFunc // ends the current subscription
	done chan struct{}      // closed when its pump has returned

	watching bool // it sent "watch" (the read loop's own)
}

// versionsHold is how long a watch waits for a version to move before it looks again: the
// watermarks wake it, and the look heals a wake-up that could be missed.
const versionsHold = queueHold

// watch sends the session index's and the approvals queue's versions at once, then each time
// one moves, until ctx ends ("versions" frames): the page's live session list and approvals
// count, each of which held an HTTP request before (GET ?wait=), and a browser keeps six
// connections to a server over HTTP/1.1. The page reads what moved with a plain GET.
func (c *socketConn) watch(ctx context.Context) {
	seen := c.rt.Versions(ctx, protocol.Versions{}, 0)
	for {
		v := seen
		if err := c.send(ctx, protocol.ServerFrame{Type: protocol.FrameVersions, Versions: &v}); err != nil {
			_ = c.conn.Close(websocket.StatusGoingAway, "write failed")
			return
		}
		for v == seen {
			if v = c.rt.Versions(ctx, seen, versionsHold); ctx.Err() != nil {
				return
			}
		}
		seen = v
	}
}

func (c *socketConn) send(ctx context.Context, f protocol.ServerFrame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return c.write(ctx, b)
}

// pumpWriter writes a subscription's frames. One timer of its own bounds each write, where
// a context with a deadline would cost every write an allocation, a timer and two
// registrations (coder/websocket watches the context of each write). A write that outlasts
// sockets.WriteTimeout closes the socket, as the context's expiry would.
type pumpWriter struct {
	conn  *websocket.Conn
	timer *time.Timer

	turn    *time.Timer // hands its turn on when a write waits on its client
	holding atomic.Bool // it holds a turn
}

func newPumpWriter(conn *websocket.Conn) *pumpWriter {
	t := time.AfterFunc(time.Hour, func() { _ = conn.CloseNow() })
	t.Stop()
	w := &pumpWriter{conn: conn, timer: t}
	w.turn = time.AfterFunc(time.Hour, w.release)
	w.turn.Stop()
	return w
}

// batches are the pumps' buffers for what they take: the pumps write by turns, so a few
// buffers serve a thousand sockets, where one each (up to batchEvents events) was
// allocated anew whenever a wake-up brought a socket more than it kept.
var batches = sync.Pool{New: func() any { b := make([]protocol.Event, 0, batchEvents); return &b }}

// writeTurns are the turns the process's pumps take to write (a token each).
var writeTurns = make(chan struct{}, writers())

func writers() int {
	if n, err := strconv.Atoi(os.Getenv("PARLEY_FANOUT_WRITERS")); err == nil {
		return max(n, 1)
	}
	return max(1, rt.GOMAXPROCS(0)-1)
}

var turnsOff = os.Getenv("PARLEY_FANOUT_WRITERS") == "0"

// turnHold is how long a write may keep its turn: past it, the write waits on its client
// (a full socket) and the next pump goes.
const turnHold = time.Millisecond

func (w *pumpWriter) takeTurn() {
	if turnsOff {
		return
	}
	writeTurns <- struct{}{}
	w.holding.Store(true)
	w.turn.Reset(turnHold)
}

func (w *pumpWriter) endTurn() {
	if turnsOff {
		return
	}
	w.turn.Stop()
	w.release()
}

func (w *pumpWriter) release() {
	if w.holding.CompareAndSwap(true, false) {
		<-writeTurns
	}
}

var errWriteTimeout = errors.New("the client took too long to read a frame")

func (w *pumpWriter) write(b []byte) error {
	w.timer.Reset(sockets.WriteTimeout)
	err := w.conn.Write(context.Background(), websocket.MessageText, b)
	if !w.timer.Stop() && err == nil {
		err = errWriteTimeout // it closed the socket as the write ended
	}
	return err
}

func (w *pumpWriter) send(f protocol.ServerFrame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return w.write(b)
}

// sendEvents sends events in one frame, each encoded once for every socket that sends it.
func (c *socketConn) sendEvents(w *pumpWriter, evs []protocol.Event) error {
	b, err := c.frames.frame(evs)
	if err != nil {
		return err
	}
	return w.write(b)
}

// sendBatch sends events a socket took at once: to a client that subscribed with batch, in
// as few frames as the batch limits allow (a socket that keeps up sends each wake-up's
// events in one write, and one that fell behind catches up in a few large ones); to one that
// did not, a frame each.
func (c *socketConn) sendBatch(w *pumpWriter, evs []protocol.Event, batched bool) error {
	for len(evs) > 0 {
		n := 1
		if batched {
			for size := len(evs[0].Data); n < len(evs) && n < batchEvents && size < batchBytes; n++ {
				size += len(evs[n].Data)
			}
		}
		if err := c.sendEvents(w, evs[:n]); err != nil {
			return err
		}
		evs = evs[n:]
	}
	return nil
}

// sendPrelude sends a window's prelude: events before its start, in log order.
func (c *socketConn) sendPrelude(w *pumpWriter, prelude []protocol.Event, batched bool) error {
	if batched {
		return c.sendEvents(w, prelude)
	}
	for _, ev := range prelude {
		if err := c.sendEvents(w, []protocol.Event{ev}); err != nil {
			return err
		}
	}
	return nil
}

func (c *socketConn) write(ctx context.Context, b []byte) error {
	wctx, cancel := context.WithTimeout(ctx, sockets.WriteTimeout)
	defer cancel()
	return c.conn.Write(wctx, websocket.MessageText, b)
}

// sendFailure answers a subscribe the log could not serve: an unknown session, a store too
// slow (retry soon), or something logged.
func (c *socketConn) sendFailure(ctx context.Context, session, what string, err error) {
	switch _, slow := retryAfter(err); {
	case errors.Is(err, runtime.ErrNoSession):
		c.sendError(ctx, "no_session", "no such session "+session+": it may have been deleted, or the link is wrong")
	case slow:
		slog.Warn("subscribe: store unavailable", "session", session, "err", err)
		c.sendError(ctx, "unavailable", "could not "+what+": the event store did not answer in time; subscribe again in a moment")
	default:
		slog.Error("subscribe", "session", session, "err", err)
		c.sendError(ctx, "internal", "could not "+what+"; it is logged, and subscribing again may help")
	}
}

func (c *socketConn) sendError(ctx context.Context, code, msg string) {
	_ = c.send(ctx, protocol.ServerFrame{Type: protocol.FrameError, Error: &protocol.ErrorResponse{Error: msg, Code: code}})
}

// unsubscribe ends the current subscription and waits for its pump, so no event of it can
// follow a later "subscribed".
func (c *socketConn) unsubscribe() {
	c.mu.Lock()
	stop, done := c.stop, c.done
	c.stop, c.done = nil, nil
	c.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// replaying is a replay under way: its chunks in order, then err once chunks is closed.
type replaying struct {
	chunks chan []protocol.Event
	err    error
}

// replayAhead is how many chunks a replay may read ahead of the socket's writes.
const replayAhead = 16

// replay starts handing the session's stored events in (from, head] to the pump, read from
// what this process keeps of the session or from the log (Runtime.Replay). It ends with ctx.
func (c *socketConn) replay(ctx context.Context, session string, from, head uint64) *replaying {
	r := &replaying{chunks: make(chan []protocol.Event, replayAhead)}
	if from >= head {
		close(r.chunks)
		return r
	}
	go func() {
		defer close(r.chunks)
		r.err = c.rt.Replay(ctx, session, from, head, func(evs []protocol.Event) error {
			select {
			case r.chunks <- evs:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return r
}

func (c *socketConn) subscribe(ctx context.Context, session string, after uint64, batched bool, tail int) {
	c.unsubscribe()
	sctx, stop := context.WithCancel(ctx)
	// Read before following: whatever is stored up to head is replayed, and a client can
	// tell history from what happens now (the composer does not act on old questions). A
	// head that could not be read is an error frame, never "subscribed": with a wrong head
	// the client would take old questions for new ones.
	head, err := c.rt.Head(sctx, session)
	if err != nil {
		stop()
		c.sendFailure(ctx, session, "read where this session's log ends", err)
		return
	}
	if after > head {
		// Offsets only grow, so a client never saw one past the head: its offsets belong to
		// another log (a reset data folder, another server). Clamping would splice this log
		// onto what it holds; it must start again from 0. An unknown session has head 0
		// too, and is told so instead.
		stop()
		if _, err := c.rt.Session(ctx, session); err != nil {
			c.sendFailure(ctx, session, "find this session", err)
			return
		}
		c.sendError(ctx, "after_past_end", fmt.Sprintf(
			"after %d is past the end of session %s (its last offset is %d): your copy is not of this log; subscribe again with after 0", after, session, head))
		return
	}
	// A tail: the replay starts at the newest window's start, after its prelude
	// (runtime/window.go), so opening a long session does not cost its whole log.
	var window *protocol.Window
	var prelude []protocol.Event
	from := after
	if tail > 0 && after == 0 {
		w, pre, err := c.rt.Window(sctx, session, 0, tail)
		if err != nil {
			stop()
			c.sendFailure(ctx, session, "find the newest part of this session", err)
			return
		}
		window, prelude = &w, pre
		if w.From > 0 {
			from = w.From - 1
		}
	}
	// The replay of what is stored up to the head starts now, beside the rest of the
	// subscribe (the live deltas, the feed, "subscribed"): its read of the log, when this
	// process keeps too little of the session, overlaps theirs.
	replay := c.replay(sctx, session, from, head)
	// Live deltas from before this point are not needed: what they said is in the drafts
	// the replay holds, and the next delta carries everything since the last of them.
	live, err := c.rt.Live(sctx, session)
	if err != nil {
		stop()
		c.sendFailure(ctx, session, "follow this session's live messages", err)
		return
	}
	// The feed from the head on; what is stored up to it is replayed first (below), from
	// what this process keeps of the session, else the log in one read.
	sub, err := c.rt.Subscribe(sctx, session, head)
	if err != nil {
		stop()
		c.sendFailure(ctx, session, "follow this session", err)
		return
	}
	done := make(chan struct{})
	c.mu.Lock()
	c.stop, c.done = stop, done
	c.mu.Unlock()
	if err := c.send(ctx, protocol.ServerFrame{Type: protocol.FrameSubscribed, Session: session, After: after, Head: head, Window: window}); err != nil {
		stop()
		sub.Close()
		close(done)
		return
	}
	go func() {
		defer close(done)
		defer stop() // a replay still reading ends with the pump
		defer sub.Close()
		sync := newLiveSync(from, head)
		sync.frames = c.frames
		w := newPumpWriter(c.conn)
		defer w.timer.Stop()
		defer w.endTurn()
		if len(prelude) > 0 {
			if err := c.sendPrelude(w, prelude, batched); err != nil {
				_ = c.conn.Close(websocket.StatusGoingAway, "write failed")
				return
			}
		}
		sendDeltas := func(ds []protocol.Delta) bool {
			for i := range ds {
				if err := w.send(protocol.ServerFrame{Type: protocol.FrameDelta, Session: session, Delta: &ds[i]}); err != nil {
					_ = c.conn.Close(websocket.StatusGoingAway, "write failed")
					return false
				}
			}
			return true
		}
		// The replay, (from, head], then the feed after head: nothing between, nothing twice.
		for evs := range replay.chunks {
			if err := c.sendBatch(w, evs, batched); err != nil {
				_ = c.conn.Close(websocket.StatusGoingAway, "write failed")
				return
			}
			for _, ev := range evs {
				if !sendDeltas(sync.event(ev)) {
					return
				}
			}
		}
		if err := replay.err; err != nil {
			if sctx.Err() == nil {
				slog.Error("replay", "session", session, "err", err)
				_ = c.conn.Close(websocket.StatusInternalError, "the event log failed; reconnect")
			}
			return
		}
		for {
			select {
			case <-sub.Ready():
				// Everything that waits, at once: the feed wakes its sockets once per batch
				// of events, and each takes its share in one write.
				w.takeTurn()
				bp := batches.Get().(*[]protocol.Event)
				batch, err := sub.Take((*bp)[:0], batchEvents)
				*bp = batch
				sent := c.sendBatch(w, batch, batched) == nil
				if !sent {
					_ = c.conn.Close(websocket.StatusGoingAway, "write failed")
				}
				for _, ev := range batch {
					if sent && !sendDeltas(sync.event(ev)) {
						sent = false
					}
				}
				clear(batch) // hold no event's data past its send
				batches.Put(bp)
				if !sent {
					return
				}
				w.endTurn()
				switch {
				case err == nil:
				case errors.Is(err, runtime.ErrSlow):
					// This socket fell behind the session's feed and was dropped from it, so it
					// never slows the others: the follower reconnects from its last offset.
					c.sendError(ctx, "slow", err.Error())
					_ = c.conn.Close(websocket.StatusTryAgainLater, "fell behind; reconnect to catch up")
					return
				case sctx.Err() != nil:
					return
				default:
					slog.Error("follow", "session", session, "err", err)
					_ = c.conn.Close(websocket.StatusInternalError, "the event log failed; reconnect")
					return
				}
			case d := <-live:
				w.takeTurn()
				if !sendDeltas(sync.delta(d)) {
					return
				}
				w.endTurn()
			case <-sctx.Done():
				return
			}
		}
	}()
}
