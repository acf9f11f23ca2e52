// Package edge is the thin server of `parley -upstream URL`: it serves /api/ and /ws by
// passing them on to a Parley runtime elsewhere, with the runtime's token, while the browser
// talks to this one origin with the edge's own token (server.Front keeps the bundle, the
// token link, the cookie and the origin rule). HTTP goes through httputil.ReverseProxy; the
// socket is relayed frame by frame between two coder/websocket connections. The design is
// docs/edge.md.
package edge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"parley/protocol"
	"parley/server/sockets"
)

// Defaults of Options.
const (
	DefaultDialTimeout     = 5 * time.Second
	DefaultResponseTimeout = 2 * time.Minute
)

const (
	// upstreamReadLimit bounds one frame from the runtime: the browser's own limit
	// (app/socket), so what the edge relays is what a browser takes straight from a runtime.
	upstreamReadLimit = 8 << 20
)

// Options configure a Proxy.
type Options struct {
	// Upstream is the runtime's address: http:// or https://, host and port.
	Upstream string
	// Token is the runtime's access token, presented as a bearer token on every request and
	// socket. A browser never sees it.
	Token string
	// DialTimeout bounds connecting to the runtime; ResponseTimeout bounds the wait for an
	// answer's headers once connected. Zero is the default.
	DialTimeout, ResponseTimeout time.Duration
}

// Proxy passes /api/ and /ws on to the runtime. It is an http.Handler for server.Front.
type Proxy struct {
	up      *url.URL
	ws      string // the runtime's /ws address, ws:// or wss://
	token   string
	opts    Options
	client  *http.Client
	http    *httputil.ReverseProxy
	sockets sockets.Set
}

// ParseUpstream checks an -upstream value: an http or https address with a host and
// nothing after the port but, at most, a path to mount under.
func ParseUpstream(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("upstream %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("upstream %q: give the runtime's address as http://host:port or https://host:port", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		// Said without what followed the host: it may be a password (QA round 22: the error
		// printed it back).
		return nil, fmt.Errorf("upstream %q: only a scheme, a host and a port; the token goes in PARLEY_UPSTREAM_TOKEN or -upstream-token-file", u.Scheme+"://…@"+u.Host+"/…")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// New makes a proxy to o.Upstream. It does not connect: a runtime that is down when the
// edge starts is answered for as at any other time.
func New(o Options) (*Proxy, error) {
	up, err := ParseUpstream(o.Upstream)
	if err != nil {
		return nil, err
	}
	if o.Token == "" {
		return nil, errors.New("no upstream token: set PARLEY_UPSTREAM_TOKEN or name a file holding it with -upstream-token-file")
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.ResponseTimeout <= 0 {
		o.ResponseTimeout = DefaultResponseTimeout
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: o.DialTimeout, KeepAlive: 30 * time.Second}).DialContext
	tr.ResponseHeaderTimeout = o.ResponseTimeout
	tr.MaxIdleConnsPerHost = 64
	ws := *up
	ws.Scheme = map[string]string{"http": "ws", "https": "wss"}[up.Scheme]
	ws.Path += "/ws"
	p := &Proxy{up: up, ws: ws.String(), token: o.Token, opts: o, client: &http.Client{Transport: tr}}
	p.http = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      tr,
		ModifyResponse: modifyResponse,
		ErrorHandler:   p.httpError,
	}
	return p, nil
}

// ServeHTTP passes an admitted request on: the socket to the relay, the rest to the
// reverse proxy.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ws" {
		p.socket(w, r)
		return
	}
	p.http.ServeHTTP(w, r)
}

// CloseSockets closes every relayed socket with "going away", as server.CloseSockets does:
// http.Server.Shutdown leaves hijacked connections alone.
func (p *Proxy) CloseSockets() { p.sockets.CloseAll() }

// Check asks the runtime for its workspaces with the token: nil when it answers, else why
// not, in words for the edge's log at start.
func (p *Proxy) Check(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.up.String()+"/api/workspaces", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return errRefused
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the runtime answered %s", resp.Status)
	}
	return nil
}

// rewrite addresses the request to the runtime with its token. The browser's credentials
// (its cookie or bearer, both the edge's token) stop here.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.up)
	pr.SetXForwarded()
	pr.Out.Header.Del("Cookie")
	pr.Out.Header.Set("Authorization", "Bearer "+p.token)
}

// headersOfTheEdge are set by the edge itself on every answer (server.Front): the
// runtime's copies are dropped, not doubled.
var headersOfTheEdge = []string{"Set-Cookie", "Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy"}

// errRefused is the runtime refusing the edge's token: the edge's configuration is wrong,
// which a browser's 401 would misstate as its own token being wrong.
var errRefused = errors.New("the runtime refused the upstream token: check PARLEY_UPSTREAM_TOKEN or the file named by -upstream-token-file")

func modifyResponse(resp *http.Response) error {
	for _, h := range headersOfTheEdge {
		resp.Header.Del(h)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return errRefused
	}
	return nil
}

// failure words what went wrong with the runtime for the person in the browser; the
// cause, with the runtime's address, goes to the edge's log only.
type failure struct {
	status int // 502 or 504
	code   string
	text   string
}

func (p *Proxy) classify(err error) failure {
	var ne net.Error
	switch {
	case errors.Is(err, errRefused):
		return failure{http.StatusBadGateway, "upstream_refused",
			"the Parley runtime behind this server refused this server's credentials; its operator must set the runtime's token for the edge (PARLEY_UPSTREAM_TOKEN or -upstream-token-file)"}
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return failure{http.StatusGatewayTimeout, "upstream_timeout",
			fmt.Sprintf("the Parley runtime behind this server did not answer within %s; it may be overloaded: try again in a moment", p.timeoutOf(err))}
	}
	return failure{http.StatusBadGateway, "upstream_unreachable",
		"the Parley runtime behind this server is not reachable; it may be restarting: try again in a moment"}
}

// timeoutOf is the limit that err ran into: connecting, or waiting for an answer.
func (p *Proxy) timeoutOf(err error) time.Duration {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return p.opts.DialTimeout
	}
	return p.opts.ResponseTimeout
}

func (p *Proxy) httpError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the browser left; nobody reads an answer
	}
	f := p.classify(err)
	slog.Warn("upstream request failed", "upstream", p.up.String(), "method", r.Method, "path", r.URL.Path, "status", f.status, "err", err)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(f.status)
	_ = json.NewEncoder(w).Encode(protocol.ErrorResponse{Error: f.text, Code: f.code})
}

// socket relays one browser socket to one runtime socket, frame by frame. The Origin is
// checked here, by Accept: the runtime sees the edge's connection, with a bearer token and
// no Origin, which it accepts.
func (p *Proxy) socket(w http.ResponseWriter, r *http.Request) {
	// Frames over the protocol's limit are drained in relayUp and answered as the runtime
	// answers them.
	down, release, err := p.sockets.Accept(w, r)
	if err != nil {
		return // Accept has answered
	}
	defer release()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	dctx, dcancel := context.WithTimeout(ctx, p.opts.DialTimeout+p.opts.ResponseTimeout)
	up, resp, err := websocket.Dial(dctx, p.ws, &websocket.DialOptions{
		HTTPClient: p.client,
		HTTPHeader: http.Header{"Authorization": {"Bearer " + p.token}},
	})
	dcancel()
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusUnauthorized {
			err = errRefused
		}
		f := p.classify(err)
		slog.Warn("upstream socket failed", "upstream", p.ws, "err", err)
		// The browser's follower has sent its subscribe and reads the answer: an error frame
		// in words, which the page shows while it retries.
		sendError(ctx, down, f.code, f.text)
		_ = down.Close(websocket.StatusTryAgainLater, "the runtime is not reachable")
		return
	}
	defer up.CloseNow()
	up.SetReadLimit(upstreamReadLimit)

	done := make(chan side, 2)
	go func() { done <- relayDown(ctx, up, down) }()
	go func() { done <- relayUp(ctx, down, up) }()
	go sockets.KeepAlive(ctx, down, cancel) // a vanished browser releases its runtime socket; the runtime pings the edge in its turn
	var first side
	select {
	case first = <-done:
	case <-ctx.Done():
		return
	}
	cancel()
	if first.upstream {
		// The runtime closed (a restart says "going away") or broke: the browser gets the
		// same close, or "going away" for a broken link, and reconnects from its last offset.
		code, reason := websocket.CloseStatus(first.err), ""
		var ce websocket.CloseError
		if errors.As(first.err, &ce) {
			reason = ce.Reason
		}
		if code == -1 || code == websocket.StatusNoStatusRcvd || code == websocket.StatusAbnormalClosure {
			code, reason = websocket.StatusGoingAway, "the runtime behind this server went away; reconnect"
		}
		_ = down.Close(code, reason)
		return
	}
	_ = up.Close(websocket.StatusNormalClosure, "")
}

// side is how a relay direction ended: upstream says the runtime's side failed or closed.
type side struct {
	upstream bool
	err      error
}

// relayDown copies the runtime's frames to the browser as they are.
func relayDown(ctx context.Context, up, down *websocket.Conn) side {
	for {
		typ, data, err := up.Read(ctx)
		if err != nil {
			return side{upstream: true, err: err}
		}
		if err := write(ctx, down, typ, data); err != nil {
			return side{err: err}
		}
	}
}

// relayUp copies the browser's frames to the runtime, bounded as the runtime bounds them:
// one over protocol.MaxFrameBytes is drained and answered with the runtime's own error.
func relayUp(ctx context.Context, down, up *websocket.Conn) side {
	for {
		typ, data, err := sockets.ReadFrame(ctx, down)
		if errors.Is(err, protocol.ErrFrameTooLarge) {
			sendError(ctx, down, "bad_frame", err.Error())
			continue
		}
		if err != nil {
			return side{err: err}
		}
		if err := write(ctx, up, typ, data); err != nil {
			return side{upstream: true, err: err}
		}
	}
}

func write(ctx context.Context, c *websocket.Conn, typ websocket.MessageType, data []byte) error {
	wctx, cancel := context.WithTimeout(ctx, sockets.WriteTimeout)
	defer cancel()
	return c.Write(wctx, typ, data)
}

func sendError(ctx context.Context, c *websocket.Conn, code, text string) {
	b, _ := json.Marshal(protocol.ServerFrame{Type: protocol.FrameError, Error: &protocol.ErrorResponse{Error: text, Code: code}})
	_ = write(ctx, c, websocket.MessageText, b)
}
