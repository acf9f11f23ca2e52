package server

import (
	"crypto/subtle"
	"io"
	"net/http"
	"strings"
	"time"
)

// Who may call: the token as a bearer header or the cookie the printed link sets, where a
// change signed by the cookie may come from, and the headers every answer carries.

// TokenCookie carries the access token after the first visit, so the page, its requests and
// its socket are authorised without the token in every URL.
const TokenCookie = "parley_token"

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
	// The scheme's name is case-insensitive (RFC 9110 §11.1): "bearer" is Bearer.
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		if tokenEqual(strings.TrimSpace(token), s.token) {
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
