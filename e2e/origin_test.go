package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// TestAnotherPortCannotActAsTheUser: every port of 127.0.0.1 is the same site, so a page a
// dev server serves on another port gets Parley's cookie sent along with its requests. A
// no-cors fetch from it, the kind a browser sends without asking Parley first, must not run
// anything; the same request from Parley's own page does.
func TestAnotherPortCannotActAsTheUser(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t) // the browser has the cookie now
	require.Zero(t, runsStarted(t, srv))

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><title>another app on this machine</title><p>hello`)
	}))
	defer other.Close()
	do(t, ctx, 20*time.Second, chromedp.Navigate(other.URL))
	forged := `fetch(` + strconv.Quote(srv.base()+"/api/functions/greet/run") + `, {method: "POST", mode: "no-cors",
		credentials: "include", headers: {"Content-Type": "text/plain"}, body: JSON.stringify({args: {name: "Eve"}})})
		.then(r => r.type, e => "failed: " + e)`
	require.Equal(t, "opaque", get(t, ctx, chromedp.Evaluate[string](forged, chromedp.EvalAwaitPromise)), "the request was sent")
	require.Never(t, func() bool { return runsStarted(t, srv) > 0 }, time.Second, 50*time.Millisecond,
		"a page of another origin ran a function as the user")

	// The check can fail: from Parley's own page, with the cookie, the function runs.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/"), waitReady())
	own := `fetch("/api/functions/greet/run", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({args: {name: "Ada"}})}).then(r => r.status)`
	require.Equal(t, http.StatusAccepted, get(t, ctx, chromedp.Evaluate[int](own, chromedp.EvalAwaitPromise)))
	require.Eventually(t, func() bool { return runsStarted(t, srv) == 1 }, 10*time.Second, 50*time.Millisecond)
}

// runsStarted counts run.started events in every session, read over the API.
func runsStarted(t *testing.T, srv *server) int {
	t.Helper()
	var list protocol.SessionList
	apiGet(t, srv, "/api/sessions", &list)
	n := 0
	for _, s := range list.Sessions {
		var page protocol.EventPage
		apiGet(t, srv, "/api/sessions/"+s.ID+"/events?limit="+strconv.Itoa(protocol.MaxEventPage), &page)
		for _, ev := range page.Events {
			if ev.Type == protocol.EventRunStarted {
				n++
			}
		}
	}
	return n
}

// apiGet reads an API answer with the bearer token.
func apiGet(t *testing.T, srv *server, path string, out any) {
	t.Helper()
	resp, data := httpAPI(t, srv).Get(path)
	require.Equal(t, http.StatusOK, resp.StatusCode, path)
	require.NoError(t, json.Unmarshal(data, out))
}
