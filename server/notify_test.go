package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
	"parley/server"
)

// TestNotificationStream: GET /api/notifications streams, as server-sent events, the
// decision nobody claimed, saying what is asked and where.
func TestNotificationStream(t *testing.T) {
	ts, _ := testServer(t)
	resp := openNotifications(t, ts.URL)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))

	s := createSessionHTTP(t, ts)
	promptHTTP(t, ts, s, `/script confirm('Ship it?')`)
	sc := bufio.NewScanner(resp.Body)
	var event string
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			require.Equal(t, "notification", event)
			var n protocol.Notification
			require.NoError(t, json.Unmarshal([]byte(v), &n))
			assert.Equal(t, s, n.Session)
			assert.Equal(t, "Confirm: Ship it?", n.Title)
			assert.Equal(t, "/s/"+s, n.URL)
			assert.Equal(t, "parley-"+s, n.Tag)
			return
		}
	}
	t.Fatalf("the stream ended without a notification: %v", sc.Err())
}

// TestNotificationRequestsAreChecked: claims and subscriptions with bad ids or endpoints
// are refused with a reason; the push key is served; all of it needs the token.
func TestNotificationRequestsAreChecked(t *testing.T) {
	ts, _ := testServer(t)
	resp, body := postJSON(t, ts.URL+"/api/notifications/seen", `{"session":"a.b","decision":"d"}`)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	assert.Contains(t, string(body), "not a session id")
	resp, body = postJSON(t, ts.URL+"/api/notifications/seen", `{"session":"s","decision":"d","extra":1}`)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))

	resp, body = request(t, http.MethodGet, ts.URL+"/api/push", testkit.Token, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var key protocol.PushKey
	require.NoError(t, json.Unmarshal(body, &key))
	assert.NotEmpty(t, key.PublicKey)

	resp, body = request(t, http.MethodPut, ts.URL+"/api/push/phone", testkit.Token,
		strings.NewReader(`{"endpoint":"http://127.0.0.1:9/x","keys":{"p256dh":"BA","auth":"AA"}}`))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(body), "https")
	resp, _ = request(t, http.MethodPut, ts.URL+"/api/push/phone", testkit.Token,
		strings.NewReader(`{"endpoint":"https://push.invalid/x","expirationTime":null,"keys":{"p256dh":"BA","auth":"AA"}}`))
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "PushSubscription.toJSON() as a browser sends it")

	for _, path := range []string{"/api/notifications", "/api/push"} {
		resp, _ := request(t, http.MethodGet, ts.URL+path, "", nil)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
}

// TestNotificationStreamsEndOnShutdown: a stream runs until its page goes, so shutting down
// ends it (http.Server.Shutdown would wait for it).
func TestNotificationStreamsEndOnShutdown(t *testing.T) {
	ts, _ := testServer(t)
	resp := openNotifications(t, ts.URL)
	ts.Handler.CloseStreams()
	_, err := io.ReadAll(resp.Body)
	assert.NoError(t, err, "the stream ends cleanly")
}

// openNotifications opens the notification stream as a page does; it closes with the test.
func openNotifications(t *testing.T, base string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/api/notifications", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testkit.Token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return resp
}

// TestNotificationRoutesWithoutANotifier: a server given no notifier and no push answers
// their routes with a 503 that says so, and serves the rest.
func TestNotificationRoutesWithoutANotifier(t *testing.T) {
	rt := testserver.Start(t, testserver.Options{}).Runtime
	b, err := server.LoadBundle(testkit.WebFolder(t))
	require.NoError(t, err)
	bare := httptest.NewServer(server.New(rt, testkit.Token, b).Handler())
	t.Cleanup(bare.Close)
	c := testkit.Client{T: t, Base: bare.URL, Token: testkit.Token}
	for path, code := range map[string]string{"/api/notifications": "notifications_off", "/api/push": "push_off"} {
		resp, body := c.Get(path)
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, path)
		assert.Equal(t, code, testkit.ErrorOf(t, body).Code, path)
	}
	resp, body := c.Get("/api/sessions")
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
}
