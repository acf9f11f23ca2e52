package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
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
	}{
		{"no token", "/api/sessions", "", "", http.StatusUnauthorized},
		{"wrong bearer", "/api/sessions", "nope", "", http.StatusUnauthorized},
		{"bearer", "/api/sessions", testToken, "", http.StatusOK},
		{"cookie", "/api/sessions", "", testToken, http.StatusOK},
		{"wrong cookie", "/api/sessions", "", "nope", http.StatusUnauthorized},
		{"socket without token", "/ws", "", "", http.StatusUnauthorized},
		{"unknown api path still guarded", "/api/nope", "", "", http.StatusUnauthorized},
		{"unknown api path", "/api/nope", testToken, "", http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+c.path, nil)
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			if c.cookie != "" {
				req.AddCookie(&http.Cookie{Name: server.TokenCookie, Value: c.cookie})
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, c.want, resp.StatusCode)
			if c.want == http.StatusUnauthorized {
				assert.Contains(t, testkit.ErrorOf(t, data).Error, "access token")
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
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/s/abc?x=1", resp.Header.Get("Location"))
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == server.TokenCookie {
			cookie = c
		}
	}
	require.NotNil(t, cookie)
	assert.Equal(t, testToken, cookie.Value)
	assert.True(t, cookie.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, cookie.SameSite)

	resp, err = client.Get(ts.URL + "/?token=wrong")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/html", "a person reads this")
	assert.Contains(t, string(page), "Open the address Parley printed")

	// An old link in a browser that already has access just goes where it points.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/s/abc?token=old", nil)
	req.AddCookie(&http.Cookie{Name: server.TokenCookie, Value: testToken})
	resp, err = client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/s/abc", resp.Header.Get("Location"))

	resp, err = client.Get(ts.URL + "/web/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "no listing of the bundle folder")
}

func TestRequestsRejectBadInputClearly(t *testing.T) {
	ts, _ := testServer(t)
	resp, data := request(t, http.MethodPost, ts.URL+"/api/sessions", testToken, strings.NewReader(`{}`))
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	var s protocol.SessionInfo
	require.NoError(t, json.Unmarshal(data, &s))
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
			resp, data := request(t, http.MethodPost, c.url, testToken, strings.NewReader(c.body))
			assert.Equal(t, c.status, resp.StatusCode)
			e := testkit.ErrorOf(t, data)
			assert.Contains(t, e.Error, c.contains)
			if c.field != "" {
				assert.NotEmpty(t, e.Fields[c.field], "field errors name %s", c.field)
			}
		})
	}

	// Nothing was stored by the rejected requests, and a good one still works.
	resp, data = request(t, http.MethodPost, prompt, testToken, strings.NewReader(`{"text":"hi","attemptId":"ok"}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	var sent protocol.SendPromptResponse
	require.NoError(t, json.Unmarshal(data, &sent))
	resp, data = request(t, http.MethodPost, prompt, testToken, strings.NewReader(`{"text":"hi","attemptId":"ok"}`))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var again protocol.SendPromptResponse
	require.NoError(t, json.Unmarshal(data, &again))
	assert.Equal(t, sent.Offset, again.Offset)
	assert.True(t, again.Duplicate, "a retried attempt is stored once")
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
		assert.Equal(t, c.encoding, resp.Header.Get("Content-Encoding"), c.accept)
		assert.Equal(t, c.body, string(body), c.accept)
		assert.Equal(t, "application/wasm", resp.Header.Get("Content-Type"))
		assert.Contains(t, resp.Header.Get("Vary"), "Accept-Encoding")
	}
}

func TestBundleIdentityFollowsTheWasm(t *testing.T) {
	web := testkit.WebFolder(t)
	first, err := server.LoadBundle(web)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(web, "app.wasm"), []byte("rebuilt-wasm"), 0o644))
	second, err := server.LoadBundle(web)
	require.NoError(t, err)
	assert.NotEqual(t, first.Version(), second.Version(), "a rebuild gets a new version, so it is never served stale")

	_, err = server.LoadBundle(t.TempDir())
	assert.ErrorContains(t, err, "make build")
}

func TestShellUsesLocalIconsAndTheRawWasmLength(t *testing.T) {
	ts, _ := testServer(t)
	resp, manifest := request(t, http.MethodGet, ts.URL+"/manifest.webmanifest", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(manifest), "/web/icon-192.png")
	assert.Contains(t, string(manifest), "/web/icon-512.png")
	assert.NotContains(t, string(manifest), "://", "no icon from another host")

	resp, js := request(t, http.MethodGet, ts.URL+"/app.js", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	// The loader counts decompressed bytes, so it needs the raw length.
	assert.Contains(t, string(js), `goappWasmContentLength = "`+strconv.Itoa(len("raw-wasm-bytes"))+`"`)

	resp, page := request(t, http.MethodGet, ts.URL+"/", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), `id="composer-input"`, "the page is pre-rendered")
	assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval'")
}
