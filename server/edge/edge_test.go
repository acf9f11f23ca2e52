package edge_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
	"parley/server"
	"parley/server/edge"
)

// These tests run a real runtime (testserver: the handlers on embedded JetStream) and an
// edge in front of it on 127.0.0.1, and call the edge as the browser and scripts do.

const edgeToken = "edge-token"

// startEdge serves an edge of upstream presenting upstreamToken; it closes at cleanup.
func startEdge(t *testing.T, upstream, upstreamToken string, o edge.Options) (*httptest.Server, *edge.Proxy) {
	t.Helper()
	o.Upstream, o.Token = upstream, upstreamToken
	p, err := edge.New(o)
	require.NoError(t, err)
	b, err := server.LoadBundle(testkit.WebFolder(t))
	require.NoError(t, err)
	es := httptest.NewServer(server.Front(edgeToken, b, p))
	t.Cleanup(func() { es.Close(); p.CloseSockets() })
	return es, p
}

func edgeClient(t *testing.T, es *httptest.Server) testkit.Client {
	return testkit.Client{T: t, Base: es.URL, Token: edgeToken}
}

// edgeSession starts a runtime and an edge in front of it, and creates a session through
// the edge (req is the request's body).
func edgeSession(t *testing.T, req any) (*testserver.Server, testkit.Client, protocol.SessionInfo) {
	t.Helper()
	ts := testserver.Start(t, testserver.Options{})
	es, _ := startEdge(t, ts.URL, testkit.Token, edge.Options{})
	c := edgeClient(t, es)
	resp, body := c.Post("/api/sessions", req)
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
	return ts, c, testkit.DecodeAs[protocol.SessionInfo](t, body)
}

func readFrame(t *testing.T, conn *websocket.Conn) protocol.ServerFrame {
	t.Helper()
	return testkit.ReadFrame(t, conn)
}

// upstreamFailed checks that the edge answers an API request with status and code, in words
// that hold words, and a socket's subscribe with an error frame of the same code. It returns
// the request's answer, its error and the socket, for what a test checks further.
func upstreamFailed(t *testing.T, c testkit.Client, status int, code, words string) (*http.Response, protocol.ErrorResponse, *websocket.Conn) {
	t.Helper()
	resp, body := c.Get("/api/sessions")
	assert.Equal(t, status, resp.StatusCode, string(body))
	e := testkit.ErrorOf(t, body)
	assert.Equal(t, code, e.Code)
	assert.Contains(t, e.Error, words)

	conn := c.Dial(nil)
	testkit.WriteFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: "s", Batch: true})
	f := readFrame(t, conn)
	require.Equal(t, protocol.FrameError, f.Type, "%+v", f)
	assert.Equal(t, code, f.Error.Code)
	return resp, e, conn
}

// TestEdgeServesTheRuntime: a session made, prompted and followed through the edge with the
// edge's token; the runtime's token does not open the edge, nor the edge's the runtime.
func TestEdgeServesTheRuntime(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{})
	es, _ := startEdge(t, ts.URL, testkit.Token, edge.Options{})
	c := edgeClient(t, es)

	resp, body := c.Post("/api/sessions", protocol.CreateSessionRequest{Title: "through the edge"})
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
	info := testkit.DecodeAs[protocol.SessionInfo](t, body)
	assert.NotEmpty(t, resp.Header.Get("Content-Security-Policy"))
	assert.Len(t, resp.Header.Values("X-Frame-Options"), 1, "the edge's security headers, not doubled by the runtime's")

	conn, _ := c.Subscribe(info.ID, 0)
	resp, body = c.Post("/api/sessions/"+info.ID+"/prompt", protocol.SendPromptRequest{Text: "hello edge", AttemptID: "edge-1"})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	sent := testkit.DecodeAs[protocol.SendPromptResponse](t, body)
	var got []protocol.Event
	for len(got) == 0 || got[len(got)-1].Type != protocol.EventTurnEnded {
		f := readFrame(t, conn)
		if f.Event != nil {
			got = append(got, *f.Event)
		}
		got = append(got, f.Events...)
	}
	stored, err := ts.Events(t.Context(), info.ID, 0)
	require.NoError(t, err)
	var want, have []uint64
	for _, ev := range stored {
		want = append(want, ev.Offset)
	}
	for _, ev := range got {
		have = append(have, ev.Offset)
	}
	assert.Equal(t, want, have, "every stored event, once, in order")
	assert.Contains(t, have, sent.Offset)

	// Tokens do not cross: the edge takes only its own, the runtime only its own.
	resp, body = testkit.Client{T: t, Base: es.URL, Token: testkit.Token}.Get("/api/sessions")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, string(body))
	resp, body = testkit.Client{T: t, Base: ts.URL, Token: edgeToken}.Get("/api/sessions")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, string(body))
	assert.NotContains(t, string(body), testkit.Token)
}

// TestEdgeTokenLinkAndCookie: the printed link's flow works at the edge as at a runtime,
// and the cookie it sets opens the API through the edge.
func TestEdgeTokenLinkAndCookie(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{})
	es, _ := startEdge(t, ts.URL, testkit.Token, edge.Options{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(es.URL + "/?token=" + edgeToken)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == server.TokenCookie {
			cookie = c
		}
	}
	require.NotNil(t, cookie)
	assert.Equal(t, edgeToken, cookie.Value, "the browser holds the edge's token, never the runtime's")

	req, _ := http.NewRequest(http.MethodGet, es.URL+"/api/workspaces", nil)
	req.AddCookie(cookie)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// A change that rides the cookie from another origin is refused at the edge.
	req, _ = http.NewRequest(http.MethodPost, es.URL+"/api/sessions", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(cookie)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}

// TestEdgeChecksTheSocketOrigin: a socket from another site is refused at the edge, before
// anything reaches the runtime.
func TestEdgeChecksTheSocketOrigin(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{})
	es, _ := startEdge(t, ts.URL, testkit.Token, edge.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Wait)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, testkit.WebSocketURL(es.URL), &websocket.DialOptions{HTTPHeader: http.Header{
		"Authorization": {"Bearer " + edgeToken}, "Origin": {"http://evil.example"}}})
	require.Error(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}

// TestEdgeWithAWrongUpstreamToken: the runtime refuses the edge, and the browser is told
// that the edge's configuration is wrong (502 in words), not that its own token is; the
// socket says the same in an error frame, and the edge still serves the page.
func TestEdgeWithAWrongUpstreamToken(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{})
	es, _ := startEdge(t, ts.URL, "not-the-runtime-token", edge.Options{})
	c := edgeClient(t, es)

	resp, _, _ := upstreamFailed(t, c, http.StatusBadGateway, "upstream_refused", "refused this server's credentials")
	assert.Empty(t, resp.Header.Get("WWW-Authenticate"), "not a 401: the browser's token is right")

	resp, _ = c.Get("/")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the edge stays up and serves the page")
}

// TestEdgeWithTheUpstreamDown: nothing listens at the runtime's address. Requests get 502
// with words, the socket an error frame, and the edge stays up; once the runtime is back on
// the same address, the same edge serves it.
func TestEdgeWithTheUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // a port nobody listens on
	es, _ := startEdge(t, "http://"+addr, testkit.Token, edge.Options{})
	c := edgeClient(t, es)

	_, e, conn := upstreamFailed(t, c, http.StatusBadGateway, "upstream_unreachable", "not reachable")
	assert.NotContains(t, e.Error, addr, "the runtime's address is for the edge's log, not the page")
	_, _, err = conn.Read(t.Context())
	require.Error(t, err)
	assert.Equal(t, websocket.StatusTryAgainLater, websocket.CloseStatus(err), "closed after the error: the follower retries")

	resp, _ := c.Get("/")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the edge serves the page with the runtime down")

	// The runtime comes up at that address: the same edge serves it.
	rt := testserver.Start(t, testserver.Options{})
	back, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	relay := &http.Server{Handler: rt.Handler.Handler()}
	go func() { _ = relay.Serve(back) }()
	t.Cleanup(func() { _ = relay.Close() })
	resp, body := c.Get("/api/sessions")
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
}

// TestEdgeWithASlowUpstream: the runtime's address takes the connection and never answers:
// 504 in words once the edge's wait is over.
func TestEdgeWithASlowUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // held open, never answered
		}
	}()
	es, _ := startEdge(t, "http://"+ln.Addr().String(), testkit.Token, edge.Options{ResponseTimeout: 200 * time.Millisecond})
	upstreamFailed(t, edgeClient(t, es), http.StatusGatewayTimeout, "upstream_timeout", "did not answer within 200ms")
}

// TestEdgeKeepsTheFrameLimit: a frame over the protocol's limit is answered as the runtime
// answers it; the socket and its subscription go on.
func TestEdgeKeepsTheFrameLimit(t *testing.T) {
	_, c, info := edgeSession(t, `{}`)
	_, first := c.Subscribe(info.ID, 0)
	conn, _ := c.Subscribe(info.ID, first.Head) // after what is stored: no replay

	big, _ := json.Marshal(protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: strings.Repeat("x", protocol.MaxFrameBytes)})
	require.NoError(t, conn.Write(t.Context(), websocket.MessageText, big))
	f := readFrame(t, conn)
	require.Equal(t, protocol.FrameError, f.Type, "%+v", f)
	assert.Equal(t, "bad_frame", f.Error.Code)

	resp, body := c.Post("/api/sessions/"+info.ID+"/prompt", protocol.SendPromptRequest{Text: "still here", AttemptID: "limit-1"})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	for {
		f = readFrame(t, conn)
		require.Equal(t, protocol.FrameEvent, f.Type, "%+v", f)
		if f.Event.Type == protocol.EventUserMessage {
			break
		}
	}
}

// TestEdgePassesOnARuntimeRestart: the runtime closing its sockets ("going away", as on
// shutdown) reaches the browser as the same close, so it reconnects at once.
func TestEdgePassesOnARuntimeRestart(t *testing.T) {
	ts, c, info := edgeSession(t, `{}`)
	conn, _ := c.Subscribe(info.ID, 0)
	ts.Handler.CloseSockets()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Wait)
	defer cancel()
	var err error
	for err == nil {
		_, _, err = conn.Read(ctx) // the replay's frames, then the close
	}
	assert.Equal(t, websocket.StatusGoingAway, websocket.CloseStatus(err), "%v", err)
}
