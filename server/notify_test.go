package server_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// TestNotificationStream: GET /api/notifications streams, as server-sent events, the
// decision nobody claimed, saying what is asked and where.
func TestNotificationStream(t *testing.T) {
	ts, _ := testServer(t)
	resp := openNotifications(t, ts.URL)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))

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
			n := testkit.DecodeAs[protocol.Notification](t, []byte(v))
			require.Equal(t, s, n.Session)
			require.Equal(t, "Confirm: Ship it?", n.Title)
			require.Equal(t, "/s/"+s, n.URL)
			require.Equal(t, "parley-"+s, n.Tag)
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
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	require.Contains(t, string(body), "not a session id")
	resp, body = postJSON(t, ts.URL+"/api/notifications/seen", `{"session":"s","decision":"d","extra":1}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))

	resp, body = request(t, http.MethodGet, ts.URL+"/api/push", testkit.Token, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotEmpty(t, testkit.DecodeAs[protocol.PushKey](t, body).PublicKey)

	resp, body = request(t, http.MethodPut, ts.URL+"/api/push/phone", testkit.Token,
		`{"endpoint":"http://127.0.0.1:9/x","keys":{"p256dh":"BA","auth":"AA"}}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, string(body), "https")
	resp, _ = request(t, http.MethodPut, ts.URL+"/api/push/phone", testkit.Token,
		`{"endpoint":"https://push.invalid/x","expirationTime":null,"keys":{"p256dh":"BA","auth":"AA"}}`)
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "PushSubscription.toJSON() as a browser sends it")

	for _, path := range []string{"/api/notifications", "/api/push"} {
		resp, _ := request(t, http.MethodGet, ts.URL+path, "", "")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
}

// TestNotificationStreamsEndOnShutdown: a stream runs until its page goes, so shutting down
// ends it (http.Server.Shutdown would wait for it).
func TestNotificationStreamsEndOnShutdown(t *testing.T) {
	ts, _ := testServer(t)
	resp := openNotifications(t, ts.URL)
	ts.Handler.CloseStreams()
	_, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "the stream ends cleanly")
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
	_, rt := testServer(t)
	c := serveRuntime(t, rt)
	for path, code := range map[string]string{"/api/notifications": "notifications_off", "/api/push": "push_off"} {
		resp, body := c.Get(path)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, path)
		require.Equal(t, code, testkit.ErrorOf(t, body).Code, path)
	}
	resp, body := c.Get("/api/sessions")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
}
