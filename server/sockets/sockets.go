// Package sockets keeps a process's open WebSockets so that shutdown can close them:
// http.Server.Shutdown leaves hijacked connections alone, so they are closed here with
// "going away", and clients reconnect at once. The runtime's socket and the edge's relay
// both use it.
package sockets

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"parley/protocol"
)

// Set is the open sockets; its zero value is ready.
type Set struct {
	mu   sync.Mutex
	open map[*websocket.Conn]struct{}
}

// Track adds c; the returned func removes it.
func (s *Set) Track(c *websocket.Conn) (untrack func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = map[*websocket.Conn]struct{}{}
	}
	s.open[c] = struct{}{}
	return func() {
		s.mu.Lock()
		delete(s.open, c)
		s.mu.Unlock()
	}
}

// CloseAll closes every open socket with "going away".
func (s *Set) CloseAll() {
	s.mu.Lock()
	conns := make([]*websocket.Conn, 0, len(s.open))
	for c := range s.open {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close(websocket.StatusGoingAway, "the server is restarting")
	}
}

// Accept upgrades the request to a socket the set tracks until done is called; done also
// closes it. Accept checks the Origin, when a browser sends one, against this host, so
// another site cannot ride the cookie into the socket. Its read limit is lifted: the caller
// reads frames over the protocol's limit and drains them, so they never cost memory and
// never close the socket. Each frame leaves in one write (frameWriter). On an error Accept
// has answered the request.
func (s *Set) Accept(w http.ResponseWriter, r *http.Request) (c *websocket.Conn, done func(), err error) {
	c, err = websocket.Accept(frameHijacker{w}, r, nil) // a frame in one write
	if err != nil {
		return nil, nil, err
	}
	c.SetReadLimit(-1)
	untrack := s.Track(c)
	return c, func() { untrack(); c.CloseNow() }, nil
}

// Keep-alive: a ping every PingEvery, each given WriteTimeout for its pong.
const (
	PingEvery    = 20 * time.Second
	WriteTimeout = 10 * time.Second
)

// KeepAlive pings c every PingEvery until ctx ends, so a peer that vanished without
// closing is noticed: the first unanswered ping calls gone (which should end the socket's
// work), and no more follow. It returns at once: a timer waits between pings, not a
// goroutine, so a thousand idle sockets cost a thousand timers rather than a thousand stacks;
// a ping runs in the timer's own goroutine while it waits for its pong.
func KeepAlive(ctx context.Context, c *websocket.Conn, gone func()) {
	keepAlive(ctx, c, gone, PingEvery, WriteTimeout)
}

func keepAlive(ctx context.Context, c *websocket.Conn, gone func(), every, timeout time.Duration) {
	var t *time.Timer
	armed := make(chan struct{}) // t is set
	t = time.AfterFunc(every, func() {
		<-armed
		if ctx.Err() != nil {
			return
		}
		pctx, cancel := context.WithTimeout(ctx, timeout)
		err := c.Ping(pctx)
		cancel()
		if err != nil {
			gone()
			return
		}
		t.Reset(every)
	})
	close(armed)
	context.AfterFunc(ctx, func() { t.Stop() })
}

// ReadFrame reads c's next message, bounded as a client's frame is: the excess of one over
// protocol.MaxFrameBytes is drained, so the next message starts clean, and the read fails
// with protocol.ErrFrameTooLarge.
func ReadFrame(ctx context.Context, c *websocket.Conn) (websocket.MessageType, []byte, error) {
	typ, rd, err := c.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(rd, protocol.MaxFrameBytes+1))
	if err != nil {
		return 0, nil, err
	}
	if len(data) > protocol.MaxFrameBytes {
		if _, err := io.Copy(io.Discard, rd); err != nil {
			return 0, nil, err
		}
		return typ, nil, protocol.ErrFrameTooLarge
	}
	return typ, data, nil
}
