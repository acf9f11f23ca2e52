// Package server is Parley's HTTP surface: the API and the event socket behind the access
// token, and the browser bundle. It asks the runtime to do things and answers in protocol
// types; flags, the data folder and the listener are the main package's (docs/architecture.md).
package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
	"parley/runtime"
)

// TokenCookie carries the access token after the first visit, so the page, its requests and
// its socket are authorised without the token in every URL.
const TokenCookie = "parley_token"

// Runtime is what the server asks of the agent runtime; *runtime.Runtime is the one.
type Runtime interface {
	ListSessions(ctx context.Context) ([]protocol.SessionInfo, error)
	CreateSession(ctx context.Context, req protocol.CreateSessionRequest) (protocol.SessionInfo, error)
	Session(ctx context.Context, id string) (protocol.SessionInfo, error)
	SendPrompt(ctx context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error)
	StopTurn(ctx context.Context, session string, req protocol.StopRequest) (protocol.StopResponse, error)
	PendingDecisions(ctx context.Context, session string) (protocol.DecisionList, error)
	Reply(ctx context.Context, session, decision string, reply protocol.ReplyRequest) (protocol.ReplyResponse, error)
	ListGrants(ctx context.Context, workspaceID string) (protocol.GrantList, error)
	RevokeGrant(ctx context.Context, workspaceID, id string) error
	ListCommands(workspaceID string) (protocol.CommandList, error)
	ListFunctions(workspaceID string) (protocol.FunctionList, error)
	RunFunction(ctx context.Context, name string, req protocol.RunFunctionRequest) (protocol.RunFunctionResponse, error)
	SearchFiles(workspaceID, q string, limit int) (protocol.FileList, error)
	ListSkills(workspaceID string) (protocol.SkillList, error)
	Workspaces() protocol.WorkspaceList
	// Head is the offset of a session's last event, 0 for none.
	Head(ctx context.Context, session string) (uint64, error)
	// Follow streams a session's events after an offset, stored ones then live ones.
	Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error)
}

var _ Runtime = (*runtime.Runtime)(nil)

// Server holds what the HTTP handlers share.
type Server struct {
	rt      Runtime
	token   string
	bundle  *Bundle
	sockets sockets
	origin  *http.CrossOriginProtection
}

// New serves rt behind token, with the browser bundle b.
func New(rt Runtime, token string, b *Bundle) *Server {
	return &Server{rt: rt, token: token, bundle: b, origin: http.NewCrossOriginProtection()}
}

// CloseSockets closes every open socket with "going away". http.Server.Shutdown leaves
// hijacked connections alone: register this with RegisterOnShutdown, and clients reconnect
// at once.
func (s *Server) CloseSockets() { s.sockets.closeAll() }

// route is one endpoint of the API.
type route struct {
	pattern string // a ServeMux pattern with its method
	handler http.HandlerFunc
}

// api is every endpoint behind the token. A table, so a test can hold each state-changing
// one to the origin rule.
func (s *Server) api() []route {
	return []route{
		{"GET /api/sessions", s.listSessions},
		{"POST /api/sessions", s.createSession},
		{"GET /api/sessions/{id}", s.getSession},
		{"GET /api/sessions/{id}/events", s.listEvents},
		{"POST /api/sessions/{id}/prompt", s.sendPrompt},
		{"POST /api/sessions/{id}/stop", s.stopTurn},
		{"GET /api/sessions/{id}/decisions", s.listDecisions},
		{"GET /api/decisions", s.listDecisions},
		{"POST /api/sessions/{id}/decisions/{decision}", s.replyDecision},
		{"GET /api/grants", s.listGrants},
		{"DELETE /api/grants/{grant}", s.revokeGrant},
		{"GET /api/commands", s.listCommands},
		{"GET /api/functions", s.listFunctions},
		{"POST /api/functions/{name}/run", s.runFunction},
		{"GET /api/files", s.listFiles},
		{"GET /api/skills", s.listSkills},
		{"GET /api/workspaces", s.listWorkspaces},
		{"/api/", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotFound, "not_found", r.Method+" "+r.URL.Path+" is not part of the API")
		}},
		{"GET /ws", s.socket},
	}
}

// Handler is the whole HTTP surface: the API and the socket behind the token, the wasm
// precompressed, and everything else to go-app (pages, manifest, service worker, /web).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.api() {
		mux.Handle(r.pattern, s.authorised(r.handler))
	}
	mux.HandleFunc("GET /web/app.wasm", s.bundle.serveWasm)
	mux.HandleFunc("GET /web/{$}", http.NotFound) // go-app's file server would list the folder
	mux.Handle("/", s.acceptTokenLink(s.bundle.app))
	return securityHeaders(mux)
}

// authorised admits a request that carries the token as a bearer header or the cookie.
//
// A browser sends the cookie with requests from any page of the same site, and every port
// of 127.0.0.1 is the same site: a change that rides the cookie must come from Parley's own
// pages, so it is checked for its origin. A bearer token is sent only by code that holds
// it, so it is not checked; nor are reads, which another origin cannot see.
func (s *Server) authorised(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		by := s.credential(r)
		if by == noToken {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
			writeError(w, http.StatusUnauthorized, "unauthorized",
				"missing or wrong access token: open the address Parley printed at start, or send Authorization: Bearer <token>")
			return
		}
		if by == byCookie {
			if err := s.origin.Check(r); err != nil {
				writeError(w, http.StatusForbidden, "cross_origin", crossOriginMessage(r))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// crossOriginMessage says why a cookie request was refused, naming what the browser said.
func crossOriginMessage(r *http.Request) string {
	from := r.Header.Get("Origin")
	if from == "" {
		from = "a page of another origin (Sec-Fetch-Site: " + r.Header.Get("Sec-Fetch-Site") + ")"
	}
	return "refused: this request came from " + from + ", not from Parley's own pages at " + r.Host +
		"; Parley takes changes signed by its cookie only from its own origin. A script should send Authorization: Bearer <token>"
}

type credential int

const (
	noToken credential = iota
	byBearer
	byCookie
)

func (s *Server) credential(r *http.Request) credential {
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		if tokenEqual(strings.TrimPrefix(h, "Bearer "), s.token) {
			return byBearer
		}
		return noToken
	}
	if c, err := r.Cookie(TokenCookie); err == nil && tokenEqual(c.Value, s.token) {
		return byCookie
	}
	return noToken
}

func (s *Server) hasToken(r *http.Request) bool { return s.credential(r) != noToken }

func tokenEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// acceptTokenLink turns the printed ?token= link into a cookie and redirects to the same
// page without it, so the token leaves the address bar and the history.
func (s *Server) acceptTokenLink(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		t := q.Get("token")
		if t == "" {
			next.ServeHTTP(w, r)
			return
		}
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		if !tokenEqual(t, s.token) {
			if s.hasToken(r) {
				// An old link in a browser that already has access: just go there.
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
			writeWrongLinkPage(w)
			return
		}
		http.SetCookie(w, &http.Cookie{
			Name:     TokenCookie,
			Value:    s.token,
			Path:     "/",
			MaxAge:   int((400 * 24 * time.Hour).Seconds()),
			HttpOnly: true,
			SameSite: http.SameSiteStrictMode,
			Secure:   r.TLS != nil,
		})
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
	})
}

const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
	"worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// writeWrongLinkPage answers a browser that followed a link with a wrong token: a person
// reads this, so it is a page, not JSON.
func writeWrongLinkPage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Parley: wrong link</title>
<link rel="stylesheet" href="/web/parley.css"></head><body><main class="gate">
<h1>This link does not open Parley</h1>
<p>Its access token is wrong or out of date. Open the address Parley printed in its terminal
when it started; it ends with <code>?token=</code> followed by the token.</p>
</main></body></html>`)
}

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		// The page runs only its own scripts and wasm, and talks only to this origin: text
		// from an agent that slipped into markup could still not load or send anything.
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		next.ServeHTTP(w, r)
	})
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.rt.ListSessions(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	if list == nil {
		list = []protocol.SessionInfo{}
	}
	writeJSON(w, http.StatusOK, protocol.SessionList{Sessions: list})
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	req, ok := readRequest[protocol.CreateSessionRequest](w, r)
	if !ok {
		return
	}
	info, err := s.rt.CreateSession(r.Context(), req)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, info)
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	info, err := s.rt.Session(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}

// listEvents answers a page of a session's log after an offset: what a socket would replay,
// for a caller that holds no socket (a script, a test). It reads through Follow and stops at
// the page's end, so a page costs its own length, not the session's.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	session := r.PathValue("id")
	query := r.URL.Query()
	after, limit := uint64(0), protocol.DefaultEventPage
	if raw := query.Get("after"); raw != "" {
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil || n > protocol.MaxOffset {
			writeError(w, http.StatusBadRequest, "bad_after",
				"after "+strconv.Quote(raw)+" is not an offset: give the last offset you have, or 0 (or nothing) for the start")
			return
		}
		after = n
	}
	if raw := query.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > protocol.MaxEventPage {
			writeError(w, http.StatusBadRequest, "bad_limit",
				"limit "+strconv.Quote(raw)+" is not a whole number from 1 to "+strconv.Itoa(protocol.MaxEventPage)+
					"; leave it out for "+strconv.Itoa(protocol.DefaultEventPage))
			return
		}
		limit = n
	}
	if _, err := s.rt.Session(r.Context(), session); err != nil {
		s.fail(w, err)
		return
	}
	head, err := s.rt.Head(r.Context(), session)
	if err != nil {
		s.fail(w, err)
		return
	}
	if after > head {
		// As on the socket: offsets only grow, so this after is of another log.
		writeError(w, http.StatusBadRequest, "after_past_end", fmt.Sprintf(
			"after %d is past the end of session %s (its last offset is %d): your copy is not of this log; read again from after=0", after, session, head))
		return
	}
	page := protocol.EventPage{Events: []protocol.Event{}, Next: after, Head: head}
	if after < head {
		ctx, cancel := context.WithTimeout(r.Context(), eventPageTimeout)
		defer cancel()
		events, errc, err := s.rt.Follow(ctx, session, after)
		if err != nil {
			s.fail(w, err)
			return
		}
		for len(page.Events) < limit && page.Next < head {
			select {
			case ev, ok := <-events:
				if !ok {
					s.fail(w, errors.Join(errors.New("the log ended the read early"), ctx.Err()))
					return
				}
				page.Events = append(page.Events, ev)
				page.Next = ev.Offset
			case err := <-errc:
				s.fail(w, err)
				return
			case <-ctx.Done():
				s.fail(w, ctx.Err()) // a deadline answers 503: the store is slow
				return
			}
		}
	}
	writeJSON(w, http.StatusOK, page)
}

// eventPageTimeout bounds one page's read: the events are stored, so only a slow store
// takes longer.
const eventPageTimeout = 10 * time.Second

func (s *Server) sendPrompt(w http.ResponseWriter, r *http.Request) {
	req, ok := readRequest[protocol.SendPromptRequest](w, r)
	if !ok {
		return
	}
	resp, err := s.rt.SendPrompt(r.Context(), r.PathValue("id"), req)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// readRequest reads a bounded body and decodes it with the protocol's validation. On
// failure it has already answered.
func readRequest[T protocol.Request](w http.ResponseWriter, r *http.Request) (T, bool) {
	var zero T
	// Only JSON: a browser sends text/plain (or a form) from any page without asking the
	// server first, so a body of another type is also how a forged request would arrive.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		got := r.Header.Get("Content-Type")
		if got == "" {
			got = "none"
		}
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"the body must be JSON sent with Content-Type: application/json (this request's Content-Type: "+got+")")
		return zero, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, protocol.MaxRequestBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "request body larger than "+kib(protocol.MaxRequestBytes))
		return zero, false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "could not read the request body: "+err.Error())
		return zero, false
	}
	req, err := protocol.DecodeRequest[T](body)
	if err != nil {
		writeDecodeError(w, err)
		return zero, false
	}
	return req, true
}

func writeDecodeError(w http.ResponseWriter, err error) {
	var verr *protocol.ValidationError
	if errors.As(err, &verr) {
		writeJSON(w, http.StatusUnprocessableEntity, protocol.ErrorResponse{Error: err.Error(), Code: "invalid", Fields: verr.Fields})
		return
	}
	writeError(w, http.StatusBadRequest, "bad_request", err.Error())
}

// fail answers a runtime error: the person's mistakes with their own status, a store too
// slow or away to confirm as 503 with Retry-After, and the rest as 500 without internals.
func (s *Server) fail(w http.ResponseWriter, err error) {
	var verr *protocol.ValidationError
	switch {
	case errors.Is(err, runtime.ErrNoSession):
		writeError(w, http.StatusNotFound, "no_session", "no such session: it may have been deleted, or the link is wrong")
	case errors.Is(err, runtime.ErrNoDecision):
		writeError(w, http.StatusNotFound, "no_decision", "no such question in this session: the link is wrong, or it belongs to another session")
	case errors.Is(err, runtime.ErrNoGrant):
		writeError(w, http.StatusNotFound, "no_grant", "no such grant: it may already be revoked")
	case errors.Is(err, runtime.ErrNoFunction):
		writeError(w, http.StatusNotFound, "no_function", err.Error()+": GET /api/functions lists the ones there are")
	case errors.Is(err, protocol.ErrAlreadyAnswered):
		writeError(w, http.StatusConflict, "already_answered", err.Error())
	case errors.Is(err, runtime.ErrAttemptReused):
		writeError(w, http.StatusConflict, "attempt_reused", err.Error())
	case errors.Is(err, runtime.ErrFunctionBroken):
		writeError(w, http.StatusUnprocessableEntity, "function_broken", err.Error())
	case errors.Is(err, runtime.ErrNoWorkspace):
		writeError(w, http.StatusBadRequest, "no_workspace", err.Error())
	case errors.Is(err, runtime.ErrBusy):
		writeError(w, http.StatusConflict, "busy", err.Error())
	case errors.As(err, &verr):
		writeDecodeError(w, err)
	default:
		if wait, ok := retryAfter(err); ok {
			// The write may have been stored all the same: a 500 would report a failure for
			// it. Every change carries an id (the attempt id, the decision) that makes a
			// retry safe, so the answer is "retry", never "failed".
			slog.Warn("store unavailable", "err", err)
			w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
			writeError(w, http.StatusServiceUnavailable, "unavailable",
				"Parley's event store did not answer in time, so this was not confirmed: retry in a moment. "+
					"A retried prompt (same attempt id) or reply is stored once")
			return
		}
		slog.Error("request failed", "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the server could not do this; it is logged, and retrying may help")
	}
}

// defaultRetryAfter is the wait a 503 suggests when the error names none.
const defaultRetryAfter = 2 * time.Second

// retryAfter reports whether err means the store was too slow or away to say whether a
// call took effect, and how long to wait before retrying. An error with a RetryAfter
// method (the runtime's "unavailable, retry") says so itself; the others are NATS's and
// JetStream's timeouts and absences.
func retryAfter(err error) (time.Duration, bool) {
	var hint interface{ RetryAfter() time.Duration }
	if errors.As(err, &hint) {
		return max(hint.RetryAfter(), time.Second), true
	}
	var apiErr *jetstream.APIError
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrNoResponders),
		errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, jetstream.ErrAsyncPublishTimeout),
		// JetStream answers 503 while its cluster elects a leader (error 10008).
		errors.As(err, &apiErr) && apiErr.Code == http.StatusServiceUnavailable:
		return defaultRetryAfter, true
	}
	return 0, false
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, protocol.ErrorResponse{Error: msg, Code: code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func kib(n int) string { return strconv.Itoa(n/1024) + " KiB" }
