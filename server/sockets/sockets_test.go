package sockets

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"parley/internal/testkit"
)

// keepAliveServer accepts sockets that keepAlive pings every few milliseconds, counting the
// pongs and the peers found gone.
func keepAliveServer(t *testing.T, pongs, gone *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OnPongReceived: func(context.Context, []byte) { pongs.Add(1) }})
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		keepAlive(ctx, c, func() { gone.Add(1); cancel() }, 5*time.Millisecond, 200*time.Millisecond)
		for { // the server's reads see the pongs
			if _, _, err := c.Reader(ctx); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestKeepAlivePingsAPeerThatAnswers: a peer that answers is pinged again and again, and never
// taken for gone.
func TestKeepAlivePingsAPeerThatAnswers(t *testing.T) {
	var pongs, gone atomic.Int32
	srv := keepAliveServer(t, &pongs, &gone)
	c, _, err := websocket.Dial(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	go func() { _, _, _ = c.Reader(context.Background()) }() // answers pings while it waits
	testkit.Eventually(t, func() bool { return pongs.Load() >= 3 }, "three pings answered")
	if n := gone.Load(); n != 0 {
		t.Fatalf("gone was called %d times while the peer answered", n)
	}
}

// TestKeepAliveNoticesAPeerThatVanished: a peer that is connected but answers nothing (a
// browser whose machine slept) is noticed by the first ping left without a pong.
func TestKeepAliveNoticesAPeerThatVanished(t *testing.T) {
	var pongs, gone atomic.Int32
	srv := keepAliveServer(t, &pongs, &gone)
	addr := strings.TrimPrefix(srv.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", resp, err)
	}
	// It reads nothing more, so no ping is answered.
	testkit.Eventually(t, func() bool { return gone.Load() == 1 }, "the unanswered ping noticed")
	if n := pongs.Load(); n != 0 {
		t.Fatalf("%d pongs from a peer that sent none", n)
	}
}
