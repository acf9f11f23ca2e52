package server_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
	"parley/runtime"
	"parley/server"
)

// These tests drive the handlers as the browser (or a script with the token) does: over
// real HTTP and the real socket, on embedded JetStream. The helpers below are this
// package's own; what other packages' tests share is in testkit.

const testToken = testkit.Token

// assertRefused checks the answer to a refused request: its status, its error's code (""
// for any), a part of its message, and the field its field errors name ("" for none).
func assertRefused(t *testing.T, resp *http.Response, data []byte, status int, code, contains, field string) {
	t.Helper()
	assert.Equal(t, status, resp.StatusCode, string(data))
	e := testkit.ErrorOf(t, data)
	if code != "" {
		assert.Equal(t, code, e.Code)
	}
	assert.Contains(t, e.Error, contains)
	if field != "" {
		assert.NotEmpty(t, e.Fields[field], "field errors name %s: %v", field, e.Fields)
	}
}

// testServer serves one fresh workspace.
func testServer(t testing.TB) (*testserver.Server, *runtime.Runtime) {
	ts := testserver.Start(t, testserver.Options{})
	return ts, ts.Runtime
}

// serveRuntime serves rt, a runtime a test stands in for in part, with a bundle over real
// HTTP until cleanup, and returns a client of it with the token.
func serveRuntime(t *testing.T, rt server.Runtime) testkit.Client {
	t.Helper()
	b, err := server.LoadBundle(testkit.WebFolder(t))
	require.NoError(t, err)
	ts := httptest.NewServer(server.New(rt, testkit.Token, b).Handler())
	t.Cleanup(ts.Close)
	return testkit.Client{T: t, Base: ts.URL, Token: testkit.Token}
}

// request sends body ("" for none) to an absolute url with a bearer token ("" sends
// none); a body goes as application/json, as every client of the API sends it.
func request(t *testing.T, method, url, token, body string) (*http.Response, []byte) {
	t.Helper()
	c := testkit.Client{T: t, Token: token}
	if body == "" {
		return c.Do(method, url, nil, nil)
	}
	return c.Do(method, url, strings.NewReader(body), http.Header{"Content-Type": {"application/json"}})
}

// postJSON posts body (a string as it is, anything else encoded) with the token.
func postJSON(t *testing.T, url string, body any) (*http.Response, []byte) {
	t.Helper()
	return testkit.Client{T: t, Token: testToken}.Post(url, body)
}

// write sends a raw frame, bad ones included.
func write(t *testing.T, conn *websocket.Conn, typ websocket.MessageType, data []byte) {
	t.Helper()
	require.NoError(t, conn.Write(t.Context(), typ, data))
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// testSession serves one fresh workspace with one session in it, created over HTTP.
func testSession(t *testing.T) (*testserver.Server, string) {
	t.Helper()
	ts, _ := testServer(t)
	return ts, createSessionHTTP(t, ts)
}

func createSessionHTTP(t *testing.T, ts *testserver.Server) string {
	t.Helper()
	resp, data := postJSON(t, ts.URL+"/api/sessions", `{}`)
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
	return testkit.DecodeAs[protocol.SessionInfo](t, data).ID
}

func createIn(t *testing.T, ts *testserver.Server, workspace string) protocol.SessionInfo {
	t.Helper()
	resp, data := postJSON(t, ts.URL+"/api/sessions", protocol.CreateSessionRequest{Workspace: workspace})
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
	return testkit.DecodeAs[protocol.SessionInfo](t, data)
}

// promptHTTP sends a prompt as the composer does and returns its offset.
func promptHTTP(t *testing.T, ts *testserver.Server, session, text string) uint64 {
	t.Helper()
	resp, data := postJSON(t, ts.URL+"/api/sessions/"+session+"/prompt",
		protocol.SendPromptRequest{Text: text, AttemptID: runtime.NewID()})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	sent := testkit.DecodeAs[protocol.SendPromptResponse](t, data)
	require.NotZero(t, sent.Offset)
	return sent.Offset
}

// decisionsOf lists a session's pending decisions over HTTP; "" lists every session's.
func decisionsOf(t *testing.T, ts *testserver.Server, session string) []protocol.Decision {
	t.Helper()
	url := ts.URL + "/api/decisions"
	if session != "" {
		url = ts.URL + "/api/sessions/" + session + "/decisions"
	}
	resp, data := request(t, http.MethodGet, url, testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	require.Contains(t, string(data), `"decisions":[`, "an empty list is [], not null")
	return testkit.DecodeAs[protocol.DecisionList](t, data).Decisions
}

// onlyPending requires the session to have one pending decision, and returns it.
func onlyPending(t *testing.T, ts *testserver.Server, session string) protocol.Decision {
	t.Helper()
	list := decisionsOf(t, ts, session)
	require.Len(t, list, 1)
	return list[0]
}

// waitDecisions waits until the list holds n decisions and returns them.
func waitDecisions(t *testing.T, ts *testserver.Server, session string, n int) []protocol.Decision {
	t.Helper()
	var list []protocol.Decision
	testkit.Eventually(t, func() bool {
		list = decisionsOf(t, ts, session)
		return len(list) == n
	}, "waiting for %d pending decisions", n)
	return list
}

func replyURL(ts *testserver.Server, session, decision string) string {
	return ts.URL + "/api/sessions/" + session + "/decisions/" + decision
}

// replyHTTP answers a decision and requires it to be accepted.
func replyHTTP(t *testing.T, ts *testserver.Server, session, decision, body string) protocol.ReplyResponse {
	t.Helper()
	resp, data := postJSON(t, replyURL(ts, session, decision), body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	return testkit.DecodeAs[protocol.ReplyResponse](t, data)
}

// clientOf is the browser's API client, natively, with the token.
func clientOf(ts *testserver.Server) *api.Client {
	return &api.Client{Base: ts.URL, HTTP: ts.HTTPClient(), Header: http.Header{"Authorization": {"Bearer " + testToken}}}
}

func filePaths(list protocol.FileList) []string {
	var out []string
	for _, f := range list.Files {
		out = append(out, f.Path)
	}
	return out
}

// twoReplicas starts two servers on one NATS server, serving one workspace: replicas, as a
// deployment at scale runs them.
func twoReplicas(t *testing.T) (a, b *testserver.Server) {
	ns := testkit.NATSServer(t)
	ws := t.TempDir()
	replica := func() *testserver.Server {
		nc, err := nats.Connect(ns.ClientURL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return testserver.Start(t, testserver.Options{NATS: nc, Workspaces: []string{ws}})
	}
	return replica(), replica()
}
