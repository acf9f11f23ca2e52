package server_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime"
	"parley/server"
)

func TestAPIRequiresTheToken(t *testing.T) {
	ts, _ := testServer(t)
	cases := []struct {
		name   string
		path   string
		token  string
		cookie string
		want   int
		scheme string // "Bearer" unless said
	}{
		{"no token", "/api/sessions", "", "", http.StatusUnauthorized, ""},
		{"wrong bearer", "/api/sessions", "nope", "", http.StatusUnauthorized, ""},
		{"bearer", "/api/sessions", testToken, "", http.StatusOK, ""},
		{"cookie", "/api/sessions", "", testToken, http.StatusOK, ""},
		{"wrong cookie", "/api/sessions", "", "nope", http.StatusUnauthorized, ""},
		{"socket without token", "/ws", "", "", http.StatusUnauthorized, ""},
		{"unknown api path still guarded", "/api/nope", "", "", http.StatusUnauthorized, ""},
		{"unknown api path", "/api/nope", testToken, "", http.StatusNotFound, ""},
		{"the scheme in lower case", "/api/sessions", testToken, "", http.StatusOK, "bearer"},
		{"another scheme", "/api/sessions", testToken, "", http.StatusUnauthorized, "Basic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+c.path, nil)
			if c.token != "" {
				req.Header.Set("Authorization", cmp.Or(c.scheme, "Bearer")+" "+c.token)
			}
			if c.cookie != "" {
				req.AddCookie(&http.Cookie{Name: server.TokenCookie, Value: c.cookie})
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, c.want, resp.StatusCode)
			if c.want == http.StatusUnauthorized {
				require.Contains(t, testkit.ErrorOf(t, data).Error, "access token")
			}
		})
	}
}

func TestTokenLinkSetsTheCookieAndLeavesTheAddressBar(t *testing.T) {
	ts, _ := testServer(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(ts.URL + "/s/abc?token=" + testToken + "&x=1")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/s/abc?x=1", resp.Header.Get("Location"))
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == server.TokenCookie {
			cookie = c
		}
	}
	require.NotNil(t, cookie)
	require.Equal(t, testToken, cookie.Value)
	require.True(t, cookie.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, cookie.SameSite)

	resp, err = client.Get(ts.URL + "/?token=wrong")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/html", "a person reads this")
	require.Contains(t, string(page), "Open the address Parley printed")

	// An old link in a browser that already has access just goes where it points.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/s/abc?token=old", nil)
	req.AddCookie(&http.Cookie{Name: server.TokenCookie, Value: testToken})
	resp, err = client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/s/abc", resp.Header.Get("Location"))

	resp, err = client.Get(ts.URL + "/web/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "no listing of the bundle folder")
}

func TestRequestsRejectBadInputClearly(t *testing.T) {
	ts, _ := testServer(t)
	resp, data := request(t, http.MethodPost, ts.URL+"/api/sessions", testToken, `{}`)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	s := testkit.DecodeAs[protocol.SessionInfo](t, data)
	prompt := ts.URL + "/api/sessions/" + s.ID + "/prompt"

	cases := []struct {
		name     string
		url      string
		body     string
		status   int
		contains string
		field    string
	}{
		{"malformed JSON", prompt, `{"text":`, http.StatusBadRequest, "request body", ""},
		{"unknown field", prompt, `{"text":"hi","attemptId":"a","colour":1}`, http.StatusBadRequest, "unknown field", ""},
		{"two values", prompt, `{"text":"hi","attemptId":"a"} {}`, http.StatusBadRequest, "more than one", ""},
		{"empty prompt", prompt, `{"text":"  ","attemptId":"a"}`, http.StatusUnprocessableEntity, "empty", "text"},
		{"no attempt id", prompt, `{"text":"hi"}`, http.StatusUnprocessableEntity, "attempt id", "attemptId"},
		{"NUL byte", prompt, `{"text":"a\u0000b","attemptId":"a"}`, http.StatusUnprocessableEntity, "NUL byte (U+0000) at byte 1: remove it", "text"},
		{"NUL byte in a title", ts.URL + "/api/sessions", `{"title":"a\u0000"}`, http.StatusUnprocessableEntity, "NUL byte", "title"},
		{"bad mode", prompt, `{"text":"hi","attemptId":"a","mode":"shout"}`, http.StatusUnprocessableEntity, "unknown mode", "mode"},
		{"oversized body", prompt, `{"text":"` + strings.Repeat("x", protocol.MaxRequestBytes) + `","attemptId":"a"}`, http.StatusRequestEntityTooLarge, "larger than", ""},
		{"oversized prompt", prompt, `{"text":"` + strings.Repeat("x", protocol.MaxPromptBytes+1) + `","attemptId":"a"}`, http.StatusUnprocessableEntity, "limit", "text"},
		{"no such session", ts.URL + "/api/sessions/nosuch/prompt", `{"text":"hi","attemptId":"a"}`, http.StatusNotFound, "no such session", ""},
		{"session id with a dot", ts.URL + "/api/sessions/a.b/prompt", `{"text":"hi","attemptId":"a"}`, http.StatusNotFound, "no such session", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, data := request(t, http.MethodPost, c.url, testToken, c.body)
			assertRefused(t, resp, data, c.status, "", c.contains, c.field)
		})
	}

	// Nothing was stored by the rejected requests, and a good one still works.
	resp, data = request(t, http.MethodPost, prompt, testToken, `{"text":"hi","attemptId":"ok"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	sent := testkit.DecodeAs[protocol.SendPromptResponse](t, data)
	resp, data = request(t, http.MethodPost, prompt, testToken, `{"text":"hi","attemptId":"ok"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	again := testkit.DecodeAs[protocol.SendPromptResponse](t, data)
	require.Equal(t, sent.Offset, again.Offset)
	require.True(t, again.Duplicate, "a retried attempt is stored once")
}

func TestWasmIsServedPrecompressed(t *testing.T) {
	ts, _ := testServer(t)
	cases := []struct{ accept, encoding, body string }{
		{"gzip, deflate, br, zstd", "br", "br"},
		{"gzip", "gzip", "gz"},
		{"br;q=0, gzip", "gzip", "gz"},
		{"", "", "raw-wasm-bytes"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/web/app.wasm", nil)
		req.Header.Set("Accept-Encoding", c.accept)
		// A transport that leaves the body alone, so we see what was sent.
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, c.encoding, resp.Header.Get("Content-Encoding"), c.accept)
		require.Equal(t, c.body, string(body), c.accept)
		require.Equal(t, "application/wasm", resp.Header.Get("Content-Type"))
		require.Contains(t, resp.Header.Get("Vary"), "Accept-Encoding")
	}
}

func TestBundleIdentityFollowsTheWasm(t *testing.T) {
	web := testkit.WebFolder(t)
	first, err := server.LoadBundle(web)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(web, "app.wasm"), []byte("rebuilt-wasm"), 0o644))
	second, err := server.LoadBundle(web)
	require.NoError(t, err)
	require.NotEqual(t, first.Version(), second.Version(), "a rebuild gets a new version, so it is never served stale")

	_, err = server.LoadBundle(t.TempDir())
	require.ErrorContains(t, err, "make build")
}

func TestShellUsesLocalIconsAndTheRawWasmLength(t *testing.T) {
	ts, _ := testServer(t)
	resp, manifest := request(t, http.MethodGet, ts.URL+"/manifest.webmanifest", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(manifest), "/web/icon-192.png")
	require.Contains(t, string(manifest), "/web/icon-512.png")
	require.NotContains(t, string(manifest), "://", "no icon from another host")

	resp, js := request(t, http.MethodGet, ts.URL+"/app.js", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	// The loader counts decompressed bytes, so it needs the raw length.
	require.Contains(t, string(js), `goappWasmContentLength = "`+strconv.Itoa(len("raw-wasm-bytes"))+`"`)

	resp, page := request(t, http.MethodGet, ts.URL+"/", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(page), `id="composer-input"`, "the page is pre-rendered")
	require.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval'")
}

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
		"POST /api/sessions":                                {"POST", "/api/sessions", `{}`, []int{http.StatusCreated}},
		"POST /api/sessions/{id}/prompt":                    {"POST", "/api/sessions/" + session + "/prompt", `{"text":"hi","attemptId":"ATTEMPT"}`, []int{http.StatusOK}},
		"PATCH /api/sessions/{id}":                          {"PATCH", "/api/sessions/" + session, `{"title":"t"}`, []int{http.StatusOK}},
		"POST /api/sessions/{id}/prompts/{prompt}/withdraw": {"POST", "/api/sessions/" + session + "/prompts/1/withdraw", "", []int{http.StatusConflict}},
		"POST /api/sessions/{id}/prompts/{prompt}/edit":     {"POST", "/api/sessions/" + session + "/prompts/1/edit", `{"text":"changed"}`, []int{http.StatusConflict}},
		"POST /api/sessions/{id}/stop":                      {"POST", "/api/sessions/" + session + "/stop", `{}`, []int{http.StatusOK, http.StatusAccepted}},
		"POST /api/sessions/{id}/decisions/{decision}":      {"POST", "/api/sessions/" + session + "/decisions/nosuch", `{"action":"decline"}`, []int{http.StatusNotFound}},
		"DELETE /api/grants/{grant}":                        {"DELETE", "/api/grants/nosuch", "", []int{http.StatusNotFound}},
		"POST /api/functions/{name}/run":                    {"POST", "/api/functions/greet/run", `{"args":{"name":"Ada"}}`, []int{http.StatusAccepted}},
		// A decision never asked: let through, it is told so (404).
		"POST /api/sessions/{id}/decisions/{decision}/retry": {"POST", "/api/sessions/" + session + "/decisions/nosuch/retry", "", []int{http.StatusNotFound}},
		// No model endpoint in this server: a request let through is told so (409).
		"POST /api/sessions/{id}/model":       {"POST", "/api/sessions/" + session + "/model", `{"model":"m"}`, []int{http.StatusConflict}},
		"POST /api/sessions/{id}/permissions": {"POST", "/api/sessions/" + session + "/permissions", `{"mode":"ask"}`, []int{http.StatusOK}},
		// No MCP server is configured: a request let through is told there is no such one.
		"POST /api/mcp/reconnect":      {"POST", "/api/mcp/reconnect?server=nosuch", "", []int{http.StatusNotFound}},
		"POST /api/notifications/seen": {"POST", "/api/notifications/seen", `{"session":"` + session + `","decision":"d1"}`, []int{http.StatusNoContent}},
		"PUT /api/push/{device}": {"PUT", "/api/push/phone", `{"endpoint":"https://push.invalid/x","keys":{"p256dh":"BA","auth":"AA"}}`,
			[]int{http.StatusNoContent}},
		"DELETE /api/push/{device}": {"DELETE", "/api/push/phone", "", []int{http.StatusNoContent}},
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
				require.Equal(t, http.StatusForbidden, resp.StatusCode, string(data))
				e := testkit.ErrorOf(t, data)
				require.Equal(t, "cross_origin", e.Code)
				require.Contains(t, e.Error, "not from Parley's own pages at "+u.Host)
				require.Contains(t, e.Error, "Authorization: Bearer")
				if o := f.header.Get("Origin"); o != "" {
					require.Contains(t, e.Error, o, "names where it came from")
				}
			})
		}
		if c.body != "" {
			t.Run(pattern+"/cookie, own origin, text/plain", func(t *testing.T) {
				resp, data := send(t, c, false, http.Header{"Origin": {ts.URL}, "Sec-Fetch-Site": {"same-origin"}, "Content-Type": {"text/plain"}})
				require.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, string(data))
				e := testkit.ErrorOf(t, data)
				require.Equal(t, "unsupported_media_type", e.Code)
				require.Contains(t, e.Error, "Content-Type: application/json (this request's Content-Type: text/plain)")
			})
			t.Run(pattern+"/bearer, no Content-Type", func(t *testing.T) {
				resp, data := send(t, c, true, nil)
				require.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, string(data))
				require.Contains(t, testkit.ErrorOf(t, data).Error, "this request's Content-Type: none")
			})
		}
	}
	require.Len(t, sessionsOf(t, ts.URL), sessionsBefore, "no refused request created a session")
	require.Equal(t, headBefore, headOf(), "no refused request wrote to the session")

	for pattern, c := range routes {
		t.Run(pattern+"/cookie, own page", func(t *testing.T) {
			resp, data := send(t, c, false, http.Header{"Origin": {ts.URL}, "Sec-Fetch-Site": {"same-origin"}, "Content-Type": {"application/json"}})
			require.Contains(t, c.ok, resp.StatusCode, string(data))
		})
		t.Run(pattern+"/cookie, no browser headers", func(t *testing.T) {
			// Not a browser (curl with the cookie): it holds the token, like a bearer.
			resp, data := send(t, c, false, http.Header{"Content-Type": {"application/json"}})
			require.Contains(t, c.ok, resp.StatusCode, string(data))
		})
		t.Run(pattern+"/bearer, any Origin", func(t *testing.T) {
			resp, data := send(t, c, true, http.Header{"Origin": {"http://evil.example"}, "Sec-Fetch-Site": {"cross-site"}, "Content-Type": {"application/json"}})
			require.Contains(t, c.ok, resp.StatusCode, string(data))
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
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func sessionsOf(t *testing.T, base string) []protocol.SessionInfo {
	t.Helper()
	resp, data := testkit.Client{T: t, Base: base, Token: testkit.Token}.Get("/api/sessions")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	return testkit.DecodeAs[protocol.SessionList](t, data).Sessions
}

// failingRuntime answers every prompt with err; the methods it does not override are never
// called by these tests (the embedded nil interface would panic).
type failingRuntime struct {
	server.Runtime
	err error
}

func (f failingRuntime) SendPrompt(context.Context, string, protocol.SendPromptRequest) (protocol.SendPromptResponse, error) {
	return protocol.SendPromptResponse{}, f.err
}

// unavailable is the shape of the runtime's "unavailable, retry" error: it names its wait.
type unavailable struct{ wait time.Duration }

func (u unavailable) Error() string             { return "the log is busy" }
func (u unavailable) RetryAfter() time.Duration { return u.wait }

// TestSlowStoreAnswers503: a write whose outcome the store did not confirm in time may
// have been stored, so it is never reported as failed (500): the answer is 503 with
// Retry-After, and the words say a retry is safe.
func TestSlowStoreAnswers503(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		retryAfter string
	}{
		{"deadline", fmt.Errorf("append user.message: %w", context.DeadlineExceeded), http.StatusServiceUnavailable, "2"},
		{"nats timeout", fmt.Errorf("append user.message: %w", nats.ErrTimeout), http.StatusServiceUnavailable, "2"},
		{"no stream response", fmt.Errorf("append: %w", jetstream.ErrNoStreamResponse), http.StatusServiceUnavailable, "2"},
		{"jetstream electing", fmt.Errorf("append: %w", &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}), http.StatusServiceUnavailable, "2"},
		{"the runtime's own, with a wait", fmt.Errorf("send: %w", unavailable{1500 * time.Millisecond}), http.StatusServiceUnavailable, "2"},
		{"the runtime's own, no wait", unavailable{}, http.StatusServiceUnavailable, "1"},
		{"the event log unconfirmed", fmt.Errorf("send prompt: %w", runtime.ErrUnavailable), http.StatusServiceUnavailable, "2"},
		{"anything else", errors.New("disk on fire"), http.StatusInternalServerError, ""},
		{"a person's mistake keeps its status", fmt.Errorf("session x: %w", runtime.ErrNoSession), http.StatusNotFound, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, data := serveRuntime(t, failingRuntime{err: c.err}).Post("/api/sessions/s1/prompt",
				protocol.SendPromptRequest{Text: "hi", AttemptID: "a1"})
			require.Equal(t, c.status, resp.StatusCode, string(data))
			require.Equal(t, c.retryAfter, resp.Header.Get("Retry-After"))
			e := testkit.ErrorOf(t, data)
			if c.status == http.StatusServiceUnavailable {
				require.Equal(t, "unavailable", e.Code)
				require.Contains(t, e.Error, "retry in a moment")
				require.Contains(t, e.Error, "same attempt id")
			}
			require.NotContains(t, e.Error, "disk on fire", "no internals")
		})
	}
}

// TestPreRenderedPagesHaveNoFalseBooleans: the page a browser shows before the wasm runs has
// its controls as they are. go-app writes Selected(false) as selected="false", which a
// browser reads as selected: the language picker showed the last language, the permission
// picker its last mode, and an enabled select was disabled. And a session's address is
// pre-rendered as the session's page, not the empty page's hero.
func TestPreRenderedPagesHaveNoFalseBooleans(t *testing.T) {
	ts, s := testSession(t)
	for _, path := range []string{"/", "/s/" + s, "/approvals"} {
		resp, body := request(t, http.MethodGet, ts.URL+path, testToken, "")
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		page := string(body)
		require.Contains(t, page, `id="sidebar"`, "%s: the page is the pre-rendered one", path)
		require.NotRegexp(t, `\s(selected|disabled|hidden|checked)="false"`, page, path)
		require.Equal(t, len(body), int(resp.ContentLength), "%s: the length is the page's", path)
		if path == "/s/"+s {
			require.NotContains(t, page, "main-hero", "a session's address is laid out as the session, not the empty page")
		}
		if path == "/" {
			continue // the hero's controls row is drawn by the wasm
		}
		options := regexp.MustCompile(`<option[^>]*>[^<]*</option>`).FindAllString(page[strings.Index(page, `id="locale-pick"`):], 2)
		require.Len(t, options, 2, path)
		require.Contains(t, options[0], " selected", "%s: English is the language", path)
		require.NotContains(t, options[1], "selected", path)
	}
}
