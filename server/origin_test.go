package server_test

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime"
	"parley/server"
)

// A page on another port of 127.0.0.1 is the same site as Parley, so the browser sends it
// Parley's cookie. These tests forge such requests against every route that changes
// something, and check that only Parley's own pages (or a bearer token) get through.

// change is one state-changing route, with a request that succeeds when it is let through.
type change struct {
	method, path, body string
	ok                 []int // the statuses of a request that got through
}

// changes has an entry for each state-changing route; the test fails on a route without.
func changes(session string) map[string]change {
	return map[string]change{
		"POST /api/sessions":                           {"POST", "/api/sessions", `{}`, []int{http.StatusCreated}},
		"POST /api/sessions/{id}/prompt":               {"POST", "/api/sessions/" + session + "/prompt", `{"text":"hi","attemptId":"ATTEMPT"}`, []int{http.StatusOK}},
		"POST /api/sessions/{id}/stop":                 {"POST", "/api/sessions/" + session + "/stop", `{}`, []int{http.StatusOK, http.StatusAccepted}},
		"POST /api/sessions/{id}/decisions/{decision}": {"POST", "/api/sessions/" + session + "/decisions/nosuch", `{"action":"decline"}`, []int{http.StatusNotFound}},
		"DELETE /api/grants/{grant}":                   {"DELETE", "/api/grants/nosuch", "", []int{http.StatusNotFound}},
		"POST /api/functions/{name}/run":               {"POST", "/api/functions/greet/run", `{"args":{"name":"Ada"}}`, []int{http.StatusAccepted}},
	}
}

func TestEveryChangeComesFromParleysOwnOrigin(t *testing.T) {
	ts, rt := testServer(t)
	s := createSessionHTTP(t, ts)
	routes := changes(s)
	for _, p := range server.Patterns() {
		method, _, _ := strings.Cut(p, " ")
		if method == "GET" || !strings.Contains(p, " ") {
			continue // reads, and the catch-all that only answers 404
		}
		require.Contains(t, routes, p, "a state-changing route without an origin test")
	}
	u, err := url.Parse(ts.URL)
	require.NoError(t, err)
	port, err := strconv.Atoi(u.Port())
	require.NoError(t, err)
	otherPort := "http://127.0.0.1:" + strconv.Itoa(port+1) // the same site, another origin
	cookie := &http.Cookie{Name: server.TokenCookie, Value: testkit.Token}

	send := func(t *testing.T, c change, bearer bool, header http.Header) (*http.Response, []byte) {
		t.Helper()
		body := strings.ReplaceAll(c.body, "ATTEMPT", runtime.NewID())
		req, err := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(body))
		require.NoError(t, err)
		for k, v := range header {
			req.Header[k] = v
		}
		if bearer {
			req.Header.Set("Authorization", "Bearer "+testkit.Token)
		} else {
			req.AddCookie(cookie)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, data
	}
	headOf := func() uint64 {
		h, err := rt.Head(t.Context(), s)
		require.NoError(t, err)
		return h
	}
	sessionsBefore, headBefore := len(sessionsOf(t, ts.URL)), headOf()

	forged := []struct {
		name   string
		header http.Header
	}{
		{"another site's Origin", http.Header{"Origin": {"http://evil.example"}, "Content-Type": {"application/json"}}},
		{"another port, no-cors text/plain, as Chromium sends it", http.Header{
			"Origin": {otherPort}, "Sec-Fetch-Site": {"same-site"}, "Sec-Fetch-Mode": {"no-cors"}, "Content-Type": {"text/plain;charset=UTF-8"}}},
		{"cross-site without Origin", http.Header{"Sec-Fetch-Site": {"cross-site"}, "Content-Type": {"application/json"}}},
	}
	for pattern, c := range routes {
		for _, f := range forged {
			t.Run(pattern+"/cookie, "+f.name, func(t *testing.T) {
				resp, data := send(t, c, false, f.header)
				assert.Equal(t, http.StatusForbidden, resp.StatusCode, string(data))
				e := testkit.ErrorOf(t, data)
				assert.Equal(t, "cross_origin", e.Code)
				assert.Contains(t, e.Error, "not from Parley's own pages at "+u.Host)
				assert.Contains(t, e.Error, "Authorization: Bearer")
				if o := f.header.Get("Origin"); o != "" {
					assert.Contains(t, e.Error, o, "names where it came from")
				}
			})
		}
		if c.body != "" {
			t.Run(pattern+"/cookie, own origin, text/plain", func(t *testing.T) {
				resp, data := send(t, c, false, http.Header{"Origin": {ts.URL}, "Sec-Fetch-Site": {"same-origin"}, "Content-Type": {"text/plain"}})
				assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, string(data))
				e := testkit.ErrorOf(t, data)
				assert.Equal(t, "unsupported_media_type", e.Code)
				assert.Contains(t, e.Error, "Content-Type: application/json (this request's Content-Type: text/plain)")
			})
			t.Run(pattern+"/bearer, no Content-Type", func(t *testing.T) {
				resp, data := send(t, c, true, nil)
				assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, string(data))
				assert.Contains(t, testkit.ErrorOf(t, data).Error, "this request's Content-Type: none")
			})
		}
	}
	assert.Len(t, sessionsOf(t, ts.URL), sessionsBefore, "no refused request created a session")
	assert.Equal(t, headBefore, headOf(), "no refused request wrote to the session")

	for pattern, c := range routes {
		t.Run(pattern+"/cookie, own page", func(t *testing.T) {
			resp, data := send(t, c, false, http.Header{"Origin": {ts.URL}, "Sec-Fetch-Site": {"same-origin"}, "Content-Type": {"application/json"}})
			assert.Contains(t, c.ok, resp.StatusCode, string(data))
		})
		t.Run(pattern+"/cookie, no browser headers", func(t *testing.T) {
			// Not a browser (curl with the cookie): it holds the token, like a bearer.
			resp, data := send(t, c, false, http.Header{"Content-Type": {"application/json"}})
			assert.Contains(t, c.ok, resp.StatusCode, string(data))
		})
		t.Run(pattern+"/bearer, any Origin", func(t *testing.T) {
			resp, data := send(t, c, true, http.Header{"Origin": {"http://evil.example"}, "Sec-Fetch-Site": {"cross-site"}, "Content-Type": {"application/json"}})
			assert.Contains(t, c.ok, resp.StatusCode, string(data))
		})
	}

	// Reads are not changes: another origin's page cannot see the answer anyway.
	req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/sessions", nil)
	require.NoError(t, err)
	req.AddCookie(cookie)
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func sessionsOf(t *testing.T, base string) []protocol.SessionInfo {
	t.Helper()
	resp, data := testkit.Client{T: t, Base: base, Token: testkit.Token}.Get("/api/sessions")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	return testkit.DecodeAs[protocol.SessionList](t, data).Sessions
}
