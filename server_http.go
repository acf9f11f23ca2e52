//go:build !wasm

package main

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"parley/protocol"
	"parley/runtime"
)

// tokenCookie carries the access token after the first visit, so the page, its requests and
// its socket are authorised without the token in every URL.
const tokenCookie = "parley_token"

// server holds what the HTTP handlers share.
type server struct {
	rt      *runtime.Runtime
	token   string
	bundle  *bundle
	sockets sockets
}

func newServer(rt *runtime.Runtime, token string, b *bundle) *server {
	return &server{rt: rt, token: token, bundle: b}
}

// routes is the whole HTTP surface: the API and the socket behind the token, the wasm
// precompressed, and everything else to go-app (pages, manifest, service worker, /web).
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /api/sessions", s.authorised(http.HandlerFunc(s.listSessions)))
	mux.Handle("POST /api/sessions", s.authorised(http.HandlerFunc(s.createSession)))
	mux.Handle("GET /api/sessions/{id}", s.authorised(http.HandlerFunc(s.getSession)))
	mux.Handle("POST /api/sessions/{id}/prompt", s.authorised(http.HandlerFunc(s.sendPrompt)))
	mux.Handle("POST /api/sessions/{id}/stop", s.authorised(http.HandlerFunc(s.stopTurn)))
	mux.Handle("GET /api/sessions/{id}/decisions", s.authorised(http.HandlerFunc(s.listDecisions)))
	mux.Handle("GET /api/decisions", s.authorised(http.HandlerFunc(s.listDecisions)))
	mux.Handle("POST /api/sessions/{id}/decisions/{decision}", s.authorised(http.HandlerFunc(s.replyDecision)))
	mux.Handle("GET /api/grants", s.authorised(http.HandlerFunc(s.listGrants)))
	mux.Handle("DELETE /api/grants/{grant}", s.authorised(http.HandlerFunc(s.revokeGrant)))
	mux.Handle("GET /api/commands", s.authorised(http.HandlerFunc(s.listCommands)))
	mux.Handle("GET /api/functions", s.authorised(http.HandlerFunc(s.listFunctions)))
	mux.Handle("POST /api/functions/{name}/run", s.authorised(http.HandlerFunc(s.runFunction)))
	mux.Handle("GET /api/files", s.authorised(http.HandlerFunc(s.listFiles)))
	mux.Handle("GET /api/skills", s.authorised(http.HandlerFunc(s.listSkills)))
	mux.Handle("GET /api/workspaces", s.authorised(http.HandlerFunc(s.listWorkspaces)))
	mux.Handle("/api/", s.authorised(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", r.Method+" "+r.URL.Path+" is not part of the API")
	})))
	mux.Handle("GET /ws", s.authorised(http.HandlerFunc(s.socket)))
	mux.HandleFunc("GET /web/app.wasm", s.bundle.serveWasm)
	mux.HandleFunc("GET /web/{$}", http.NotFound) // go-app's file server would list the folder
	mux.Handle("/", s.acceptTokenLink(s.bundle.app))
	return securityHeaders(mux)
}

// authorised admits a request that carries the token as a bearer header or the cookie.
func (s *server) authorised(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hasToken(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
			writeError(w, http.StatusUnauthorized, "unauthorized",
				"missing or wrong access token: open the address Parley printed at start, or send Authorization: Bearer <token>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *server) hasToken(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		return tokenEqual(strings.TrimPrefix(h, "Bearer "), s.token)
	}
	if c, err := r.Cookie(tokenCookie); err == nil {
		return tokenEqual(c.Value, s.token)
	}
	return false
}

// acceptTokenLink turns the printed ?token= link into a cookie and redirects to the same
// page without it, so the token leaves the address bar and the history.
func (s *server) acceptTokenLink(next http.Handler) http.Handler {
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
			Name:     tokenCookie,
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

func (s *server) listSessions(w http.ResponseWriter, r *http.Request) {
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

func (s *server) createSession(w http.ResponseWriter, r *http.Request) {
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

func (s *server) getSession(w http.ResponseWriter, r *http.Request) {
	info, err := s.rt.Session(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}

func (s *server) sendPrompt(w http.ResponseWriter, r *http.Request) {
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

// fail answers a runtime error: the person's mistakes with their own status, the rest as 500
// without internals.
func (s *server) fail(w http.ResponseWriter, err error) {
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
		slog.Error("request failed", "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the server could not do this; it is logged, and retrying may help")
	}
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
