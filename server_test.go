//go:build !wasm

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/socket"
	"parley/protocol"
	"parley/runtime"
)

const testToken = "test-token"

// testServer runs the real handlers over real HTTP on 127.0.0.1, with embedded JetStream.
func testServer(t testing.TB) (*httptest.Server, *runtime.Runtime) {
	ts, rt, _ := testServerWithHandlers(t)
	return ts, rt
}

func testServerWithHandlers(t testing.TB) (*httptest.Server, *runtime.Runtime, *server) {
	t.Helper()
	emb, err := runtime.StartEmbedded(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(emb.Close)
	rt, err := runtime.New(context.Background(), emb.Conn, runtime.Options{Workspace: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(rt.Close)

	b, err := loadBundle(stubBundle(t))
	require.NoError(t, err)
	handlers := newServer(rt, testToken, b)
	ts := httptest.NewServer(handlers.routes())
	t.Cleanup(ts.Close)
	t.Cleanup(handlers.sockets.closeAll)
	return ts, rt, handlers
}

func request(t *testing.T, method, url, token string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, data
}

func errorOf(t *testing.T, data []byte) protocol.ErrorResponse {
	t.Helper()
	var e protocol.ErrorResponse
	require.NoError(t, json.Unmarshal(data, &e), string(data))
	return e
}

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
				req.AddCookie(&http.Cookie{Name: tokenCookie, Value: c.cookie})
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, c.want, resp.StatusCode)
			if c.want == http.StatusUnauthorized {
				assert.Contains(t, errorOf(t, data).Error, "access token")
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
		if c.Name == tokenCookie {
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
	req.AddCookie(&http.Cookie{Name: tokenCookie, Value: testToken})
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
			e := errorOf(t, data)
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

func dial(t *testing.T, ts *httptest.Server, header http.Header) *websocket.Conn {
	t.Helper()
	if header == nil {
		header = http.Header{}
	}
	header.Set("Authorization", "Bearer "+testToken)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", &websocket.DialOptions{HTTPHeader: header})
	require.NoError(t, err)
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

func readServerFrame(t *testing.T, conn *websocket.Conn) protocol.ServerFrame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := conn.Read(ctx)
	require.NoError(t, err)
	var f protocol.ServerFrame
	require.NoError(t, json.Unmarshal(data, &f))
	return f
}

func write(t *testing.T, conn *websocket.Conn, typ websocket.MessageType, data []byte) {
	t.Helper()
	require.NoError(t, conn.Write(context.Background(), typ, data))
}

func TestSocketSubscribesAfterAnOffset(t *testing.T) {
	ts, rt := testServer(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	first, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "one", AttemptID: "1"})
	require.NoError(t, err)

	conn := dial(t, ts, nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`","after":`+itoa(first.Offset)+`}`))
	sub := readServerFrame(t, conn)
	assert.Equal(t, protocol.FrameSubscribed, sub.Type)
	turn := readServerFrame(t, conn)
	require.Equal(t, protocol.FrameEvent, turn.Type)
	assert.Equal(t, protocol.EventTurnStarted, turn.Event.Type, "only what follows the offset")
	assert.Greater(t, turn.Event.Offset, first.Offset)
	assert.Equal(t, protocol.EventAgentMessage, readServerFrame(t, conn).Event.Type)
	assert.Equal(t, protocol.EventTurnEnded, readServerFrame(t, conn).Event.Type)

	live, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "two", AttemptID: "2"})
	require.NoError(t, err)
	got := readServerFrame(t, conn)
	assert.Equal(t, live.Offset, got.Event.Offset)
	assert.Equal(t, protocol.EventTurnStarted, readServerFrame(t, conn).Event.Type)
	assert.Equal(t, protocol.EventAgentMessage, readServerFrame(t, conn).Event.Type)
}

func TestSocketSurvivesBadFrames(t *testing.T) {
	ts, rt := testServer(t)
	s, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	conn := dial(t, ts, nil)

	bad := []struct {
		name     string
		typ      websocket.MessageType
		data     []byte
		contains string
	}{
		{"not JSON", websocket.MessageText, []byte(`hello`), "not a valid JSON"},
		{"unknown type", websocket.MessageText, []byte(`{"type":"dance"}`), "unknown frame type"},
		{"no type", websocket.MessageText, []byte(`{}`), `no "type"`},
		{"bad session id", websocket.MessageText, []byte(`{"type":"subscribe","session":"a.*"}`), "not a session id"},
		{"binary", websocket.MessageBinary, []byte{1, 2, 3}, "binary"},
		{"oversized", websocket.MessageText, bytes.Repeat([]byte("x"), 1<<20), "larger than"},
		{"unknown session", websocket.MessageText, []byte(`{"type":"subscribe","session":"nosuch"}`), "no such session"},
	}
	for _, c := range bad {
		write(t, conn, c.typ, c.data)
		f := readServerFrame(t, conn)
		require.Equal(t, protocol.FrameError, f.Type, c.name)
		assert.Contains(t, f.Error.Error, c.contains, c.name)
	}

	// The socket is still up and still works.
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`"}`))
	assert.Equal(t, protocol.FrameSubscribed, readServerFrame(t, conn).Type)
	assert.Equal(t, protocol.EventSessionCreated, readServerFrame(t, conn).Event.Type)
}

func TestSocketRefusesAnotherOrigin(t *testing.T) {
	ts, _ := testServer(t)
	header := http.Header{"Origin": {"http://evil.example"}, "Authorization": {"Bearer " + testToken}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", &websocket.DialOptions{HTTPHeader: header})
	require.Error(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	same := http.Header{"Origin": {ts.URL}}
	dial(t, ts, same) // the page's own origin is welcome
}

func TestClosingTheSocketReleasesItsConsumer(t *testing.T) {
	ts, rt := testServer(t)
	s, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	base := consumers(t, rt)
	conn := dial(t, ts, nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`"}`))
	readServerFrame(t, conn)
	// One shared feed, once the socket's catch-up read of the replay is over.
	assert.Eventually(t, func() bool { return consumers(t, rt) == base+1 }, 5*time.Second, 20*time.Millisecond)
	conn.Close(websocket.StatusNormalClosure, "bye")
	// The session's feed lingers a moment for a reload, then lets its consumer go.
	assert.Eventually(t, func() bool { return consumers(t, rt) == base }, 10*time.Second, 20*time.Millisecond)
}

func consumers(t *testing.T, rt *runtime.Runtime) int {
	t.Helper()
	n, err := rt.Log().Consumers(context.Background())
	require.NoError(t, err)
	return n
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

func TestConfigFlagsAndEnvironment(t *testing.T) {
	env := map[string]string{"PARLEY_ADDR": "127.0.0.1:9999", "PARLEY_DATA": "/tmp/d", "PARLEY_NATS": "nats://x:4222", "PARLEY_TOKEN": "t", "PARLEY_DECISION_TIMEOUT": "1h"}
	getenv := func(k string) string { return env[k] }
	c, err := parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	cwd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, config{Addr: "127.0.0.1:9999", Data: "/tmp/d", NATS: "nats://x:4222", Workspaces: []string{cwd}, Token: "t", DecisionTimeout: time.Hour, ScriptMemory: 256 << 20, Web: "web"}, c,
		"the current directory is the one workspace")

	ws := t.TempDir()
	c, err = parseConfig([]string{"-addr", ":1", "-workspace", ws}, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, ":1", c.Addr, "a flag beats its environment twin")
	assert.Equal(t, []string{ws}, c.Workspaces)

	c, err = parseConfig(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", c.Addr, "localhost by default")
	assert.Equal(t, []string{cwd}, c.Workspaces)
	assert.Equal(t, 10*time.Minute, c.DecisionTimeout)

	for _, bad := range []string{"soon", "0s", "48h"} {
		_, err = parseConfig([]string{"-decision-timeout", bad}, getenv, io.Discard)
		assert.ErrorContains(t, err, "between 1s and 24h", bad)
	}

	_, err = parseConfig([]string{"stray"}, getenv, io.Discard)
	assert.ErrorContains(t, err, "unexpected argument")

	env["PARLEY_SCRIPT_MEMORY"] = "1GiB"
	c, err = parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(1<<30), c.ScriptMemory)
	c, err = parseConfig([]string{"-script-memory", "512M"}, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(512<<20), c.ScriptMemory, "a flag beats its environment twin")
	for _, bad := range []string{"256", "lots", "1MiB", "2TiB", "9999999999999GiB"} {
		_, err = parseConfig([]string{"-script-memory", bad}, getenv, io.Discard)
		assert.ErrorContains(t, err, "between 64MiB and 1TiB", bad)
	}
}

func TestConfigTakesSeveralWorkspaces(t *testing.T) {
	one, two, three := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"PARLEY_WORKSPACE": one + string(filepath.ListSeparator) + two + string(filepath.ListSeparator)}
	getenv := func(k string) string { return env[k] }

	c, err := parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{one, two}, c.Workspaces, "the environment's list, in order; an empty entry is skipped")

	c, err = parseConfig([]string{"-workspace", three, "-workspace", one}, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{three, one}, c.Workspaces, "flags replace the environment's list")

	t.Chdir(two)
	c, err = parseConfig([]string{"-workspace", ".", "-workspace", "../" + filepath.Base(three)}, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{two, filepath.Join(filepath.Dir(two), filepath.Base(three))}, c.Workspaces, "made absolute")

	file := filepath.Join(one, "notes.txt")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"-workspace", one, "-workspace", filepath.Join(one, "gone")}, "workspace " + filepath.Join(one, "gone") + ": no such folder"},
		{[]string{"-workspace", file}, "not a folder"},
		{[]string{"-workspace", ""}, "empty folder"},
	} {
		_, err := parseConfig(c.args, getenv, io.Discard)
		assert.ErrorContains(t, err, c.says, c.args)
	}
	env["PARLEY_WORKSPACE"] = "/no/such/parley/folder"
	_, err = parseConfig(nil, getenv, io.Discard)
	assert.ErrorContains(t, err, "/no/such/parley/folder: no such folder")
}

func TestServerRefusesAFolderGivenTwice(t *testing.T) {
	ws := t.TempDir()
	err := run(context.Background(), config{Addr: "127.0.0.1:0", Data: t.TempDir(), Workspaces: []string{ws, ws + "/."}, Web: stubBundle(t)}, io.Discard)
	assert.ErrorContains(t, err, "given twice")
}

func TestTokenIsKeptAcrossStarts(t *testing.T) {
	dir := t.TempDir()
	first, err := loadToken(dir, "")
	require.NoError(t, err)
	assert.Len(t, first, 48)
	again, err := loadToken(dir, "")
	require.NoError(t, err)
	assert.Equal(t, first, again)
	info, err := os.Stat(filepath.Join(dir, "token"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	set, err := loadToken(dir, "chosen")
	require.NoError(t, err)
	assert.Equal(t, "chosen", set)
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestFollowerResumesWithoutGapOrDuplicate drives the browser's follower natively: the link
// drops mid-session and it resumes after the last offset it saw.
func TestFollowerResumesWithoutGapOrDuplicate(t *testing.T) {
	ts, rt, handlers := testServerWithHandlers(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)

	events := make(chan protocol.Event, 100)
	states := make(chan socket.State, 100)
	f := &socket.Follower{
		URL:     "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws",
		Session: s.ID,
		Header:  http.Header{"Authorization": {"Bearer " + testToken}},
		OnEvent: func(ev protocol.Event) { events <- ev },
		OnState: func(st socket.State) { states <- st },
	}
	go f.Run(ctx)
	waitState := func(want socket.Status) {
		t.Helper()
		for {
			select {
			case st := <-states:
				if st.Status == want {
					return
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("never %v", want)
			}
		}
	}
	next := func() protocol.Event {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
		}
		return protocol.Event{}
	}
	waitState(socket.Live)
	assert.Equal(t, protocol.EventSessionCreated, next().Type)

	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "before", AttemptID: "1"})
	require.NoError(t, err)
	assert.Equal(t, protocol.EventUserMessage, next().Type)
	assert.Equal(t, protocol.EventTurnStarted, next().Type)
	assert.Equal(t, protocol.EventAgentMessage, next().Type)
	assert.Equal(t, protocol.EventTurnEnded, next().Type)

	handlers.sockets.closeAll()
	waitState(socket.Reconnecting)
	_, err = rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "while away", AttemptID: "2"})
	require.NoError(t, err)
	f.RetryNow()
	waitState(socket.Live)
	away := next()
	assert.Equal(t, protocol.EventUserMessage, away.Type, "the resumed stream starts right after the last event seen")
	m, _ := away.DecodeMessage()
	assert.Equal(t, "while away", m.Text)
	assert.Equal(t, protocol.EventTurnStarted, next().Type)
	assert.Equal(t, protocol.EventAgentMessage, next().Type)
	assert.Equal(t, protocol.EventTurnEnded, next().Type)
	select {
	case ev := <-events:
		t.Fatalf("unexpected event %+v", ev)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestFollowerStopsOnAnUnknownSession(t *testing.T) {
	ts, _ := testServer(t)
	states := make(chan socket.State, 10)
	f := &socket.Follower{
		URL:     "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws",
		Session: "nosuch",
		Header:  http.Header{"Authorization": {"Bearer " + testToken}},
		OnState: func(st socket.State) { states <- st },
	}
	done := make(chan struct{})
	go func() { f.Run(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the follower kept retrying a session that does not exist")
	}
	var last socket.State
	for len(states) > 0 {
		last = <-states
	}
	assert.Equal(t, socket.Failed, last.Status)
	assert.Contains(t, last.Error, "no such session")
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{250 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for n, w := range want {
		assert.Equal(t, w, socket.Backoff(n), "attempt %d", n)
	}
}

// stubBundle is a web folder whose wasm and its twins are short, recognisable strings.
func stubBundle(t testing.TB) string {
	t.Helper()
	web := t.TempDir()
	for name, body := range map[string]string{"app.wasm": "raw-wasm-bytes", "app.wasm.br": "br", "app.wasm.gz": "gz"} {
		require.NoError(t, os.WriteFile(filepath.Join(web, name), []byte(body), 0o644))
	}
	return web
}

// TestRunOnAnExternalNATS starts the whole server on a NATS server of its own (the -nats
// flag), and checks that sessions land in that server's JetStream.
func TestRunOnAnExternalNATS(t *testing.T) {
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	ns.Start()
	defer ns.Shutdown()
	require.True(t, ns.ReadyForConnections(5*time.Second))

	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, config{Addr: "127.0.0.1:0", Data: t.TempDir(), NATS: ns.ClientURL(), Workspaces: []string{t.TempDir()}, Web: stubBundle(t)}, out)
	}()
	var link string
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(out.String(), "\n") {
			if i := strings.Index(line, "http://"); i >= 0 {
				link = strings.TrimSpace(line[i:])
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond)
	u, err := url.Parse(link)
	require.NoError(t, err)
	token := u.Query().Get("token")
	require.NotEmpty(t, token, "the printed address carries the token")

	resp, data := request(t, http.MethodPost, "http://"+u.Host+"/api/sessions", token, strings.NewReader(`{"title":"external"}`))
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))

	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	stream, err := js.Stream(context.Background(), runtime.StreamName)
	require.NoError(t, err, "the event stream lives in the external server")
	info, err := stream.Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, uint64(1), info.State.Msgs, "session.created")

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestBundleIdentityFollowsTheWasm(t *testing.T) {
	web := stubBundle(t)
	first, err := loadBundle(web)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(web, "app.wasm"), []byte("rebuilt-wasm"), 0o644))
	second, err := loadBundle(web)
	require.NoError(t, err)
	assert.NotEqual(t, first.version, second.version, "a rebuild gets a new version, so it is never served stale")
	assert.Equal(t, int64(len("rebuilt-wasm")), second.rawSize)

	_, err = loadBundle(t.TempDir())
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

// TestOneParleyPerDataFolder: a second start on the same data folder stops before it runs
// anything, saying which process has it; a start on a busy address starts nothing either.
func TestOneParleyPerDataFolder(t *testing.T) {
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, config{Addr: "127.0.0.1:0", Data: data, Workspaces: []string{t.TempDir()}, Web: stubBundle(t), DecisionTimeout: time.Minute}, out)
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "http://") }, 10*time.Second, 10*time.Millisecond)

	// Were it to start, it would serve until this context ends, and return no error.
	second, stopSecond := context.WithTimeout(context.Background(), 5*time.Second)
	defer stopSecond()
	err := run(second, config{Addr: "127.0.0.1:0", Data: data, Workspaces: []string{t.TempDir()}, Web: stubBundle(t)}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is in use by process "+strconv.Itoa(os.Getpid()))
	assert.Contains(t, err.Error(), "another -data")

	cancel()
	require.NoError(t, <-done)

	// Released at exit: the next start gets it. But not on an address that is taken.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	fresh := t.TempDir()
	err = run(context.Background(), config{Addr: taken.Addr().String(), Data: fresh, Workspaces: []string{t.TempDir()}, Web: stubBundle(t)}, io.Discard)
	assert.ErrorContains(t, err, "listen")
	entries, _ := os.ReadDir(fresh)
	assert.Empty(t, entries, "the data folder was not touched")
}

// TestSocketSaysWhereTheReplayEnds: "subscribed" carries the session's last offset, so a
// client tells the replay of stored events from what happens now.
func TestSocketSaysWhereTheReplayEnds(t *testing.T) {
	ts, rt := testServer(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	head, err := rt.Head(ctx, s.ID)
	require.NoError(t, err)
	require.NotZero(t, head, "session.created is stored")
	p, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "one", AttemptID: "1"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { h, _ := rt.Head(ctx, s.ID); return h > p.Offset }, 5*time.Second, 10*time.Millisecond, "the offline reply is stored")
	head, err = rt.Head(ctx, s.ID)
	require.NoError(t, err)

	conn := dial(t, ts, nil)
	write(t, conn, websocket.MessageText, []byte(`{"type":"subscribe","session":"`+s.ID+`"}`))
	sub := readServerFrame(t, conn)
	require.Equal(t, protocol.FrameSubscribed, sub.Type)
	assert.Equal(t, head, sub.Head)
	var last uint64
	for last < head {
		ev := readServerFrame(t, conn)
		require.Equal(t, protocol.FrameEvent, ev.Type)
		last = ev.Event.Offset
	}
	assert.Equal(t, head, last, "the replay ends exactly at head")

	none, err := rt.Head(ctx, "nosuchsession")
	require.NoError(t, err)
	assert.Zero(t, none)
}
