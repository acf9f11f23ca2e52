package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/components"
	"parley/internal/testkit"
	"parley/protocol"
	"parley/server"
)

// The seed (docs/seed.md): a session's page, asked for with the token, carries the session's
// newest window, pre-rendered and as JSON.

const seedOpen = `<script type="application/json" id="` + server.SeedElementID + `">`

// seedIn is the seed a page carries, and whether it carries one.
func seedIn(t *testing.T, page string) (protocol.Seed, bool) {
	t.Helper()
	start := strings.Index(page, seedOpen)
	if start < 0 {
		return protocol.Seed{}, false
	}
	rest := page[start+len(seedOpen):]
	end := strings.Index(rest, "</script>")
	require.GreaterOrEqual(t, end, 0, "the seed's element is closed")
	var seed protocol.Seed
	require.NoError(t, json.Unmarshal([]byte(rest[:end]), &seed), "the seed is JSON")
	return seed, true
}

// bodyOf is the page's body: what the pre-render shows.
func bodyOf(page string) string {
	if i := strings.Index(page, "<body"); i >= 0 {
		return page[i:]
	}
	return ""
}

// getPage asks for a page with a header set (nil: none), as a browser does.
func getPage(t *testing.T, url string, header http.Header) (*http.Response, string) {
	t.Helper()
	resp, body := testkit.Client{T: t}.Do(http.MethodGet, url, nil, header)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	return resp, string(body)
}

// TestASessionsPageIsSeededWithItsNewestWindow: with the token (bearer or cookie), a short
// session's page shows its messages in the pre-rendered thread and carries its whole log as
// the seed, no-store; without it, the page is the layout alone, as before.
func TestASessionsPageIsSeededWithItsNewestWindow(t *testing.T) {
	ts, id := testSession(t)
	promptHTTP(t, ts, id, "seeded prompt")
	all := testkit.WaitEvents(t, ts.Events, id, "answered", testkit.TurnsEnded(1))
	reply := fold(all).Messages[1].Text
	require.Contains(t, reply, "No model is configured")
	reply = "No model is configured" // the reply's first words: it is drawn as markdown

	for name, header := range map[string]http.Header{
		"bearer": {"Authorization": {"Bearer " + testToken}},
		"cookie": {"Cookie": {server.TokenCookie + "=" + testToken}},
	} {
		t.Run(name, func(t *testing.T) {
			resp, page := getPage(t, ts.URL+"/s/"+id, header)
			assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"), "one person's page")
			seed, ok := seedIn(t, page)
			require.True(t, ok, "the page carries its seed")
			assert.Equal(t, id, seed.Session)
			assert.Equal(t, protocol.Window{}, seed.Window, "a short session's window is its whole log")
			assert.Equal(t, all, seed.Events, "the seed is the log, in order")
			assert.Equal(t, all[len(all)-1].Offset, seed.Last())
			body := bodyOf(page)
			assert.Contains(t, body, "seeded prompt", "the pre-rendered thread shows the prompt")
			assert.Contains(t, body, reply, "and the reply")
			assert.Equal(t, len(page), int(resp.ContentLength))
		})
	}

	// A browser that kept the page from before it had the token asks whether it changed:
	// go-app's ETag is the build's, so it would be told no, and show the page without the seed.
	plain, _ := getPage(t, ts.URL+"/s/"+id, nil)
	etag := plain.Header.Get("ETag")
	require.NotEmpty(t, etag)
	resp, page := getPage(t, ts.URL+"/s/"+id, http.Header{"Authorization": {"Bearer " + testToken}, "If-None-Match": {etag}})
	_, ok := seedIn(t, page)
	assert.True(t, ok, "a seeded page is made anew, not 'not modified'")
	assert.Empty(t, resp.Header.Get("ETag"), "and is never revalidated")

	for name, header := range map[string]http.Header{
		"no token":     nil,
		"wrong bearer": {"Authorization": {"Bearer nope"}},
		"wrong cookie": {"Cookie": {server.TokenCookie + "=nope"}},
	} {
		t.Run(name, func(t *testing.T) {
			resp, page := getPage(t, ts.URL+"/s/"+id, header)
			_, ok := seedIn(t, page)
			assert.False(t, ok, "no seed without the token")
			assert.NotContains(t, page, "seeded prompt", "nothing of the session")
			assert.NotContains(t, page, reply)
			assert.NotEqual(t, "no-store", resp.Header.Get("Cache-Control"))
		})
	}
}

// TestPagesWithoutASeed: the empty page, another screen, ?history=all (which asks for the
// whole log) and a session that is not there get no seed, with the token too.
func TestPagesWithoutASeed(t *testing.T) {
	ts, id := testSession(t)
	promptHTTP(t, ts, id, "not on other pages")
	testkit.WaitEvents(t, ts.Events, id, "answered", testkit.TurnsEnded(1))
	bearer := http.Header{"Authorization": {"Bearer " + testToken}}
	_, page := getPage(t, ts.URL+"/s/"+id, bearer)
	_, ok := seedIn(t, page)
	require.True(t, ok, "the session's own page is seeded")
	for _, path := range []string{"/", "/approvals", "/s/" + id + "?history=all", "/s/nosuchsession"} {
		resp, page := getPage(t, ts.URL+path, bearer)
		_, ok := seedIn(t, page)
		assert.False(t, ok, path)
		assert.NotContains(t, page, "not on other pages", path)
		assert.NotEqual(t, "no-store", resp.Header.Get("Cache-Control"), path)
	}
}

// TestALongSessionsSeedIsTheSocketsWindow: a session longer than the page's window is seeded
// with exactly what a subscribe with the page's tail sends (the prelude, then the window),
// and the pre-rendered thread shows that window's newest entries.
func TestALongSessionsSeedIsTheSocketsWindow(t *testing.T) {
	ts, _ := testServer(t)
	id, all := seedLong(t, ts)
	tail := components.SeedTail("")
	require.Positive(t, tail)

	sub, sent := subscribeTail(t, ts, id, tail)
	require.True(t, sub.Window.Older, "the session is longer than the window")

	_, page := getPage(t, ts.URL+"/s/"+id, http.Header{"Authorization": {"Bearer " + testToken}})
	seed, ok := seedIn(t, page)
	require.True(t, ok)
	assert.Equal(t, *sub.Window, seed.Window)
	assert.Equal(t, sent, seed.Events, "the seed is what the socket sends for the page's tail")
	assert.Less(t, len(seed.Events), len(all), "a window, not the whole log")
	assert.Equal(t, all[len(all)-1].Offset, seed.Last())
	shown := fold(seed.Events).Messages
	body := bodyOf(page)
	assert.Equal(t, "after the burst 7", shown[len(shown)-2].Text)
	assert.Regexp(t, msgTextDiv("after the burst 7"), body, "the newest prompt is pre-rendered")
	assert.Contains(t, body, `on “after the burst 7” yet`, "and its reply")
	assert.NotRegexp(t, msgTextDiv("one by one 0"), body, "what is before the window is not")
}

// msgTextDiv matches a message's text as the page pre-renders it: go-app writes an element's
// attributes in no fixed order.
func msgTextDiv(text string) *regexp.Regexp {
	return regexp.MustCompile(`<div (class="msg-text" dir="auto"|dir="auto" class="msg-text")>` + regexp.QuoteMeta(text) + `</div>`)
}

// TestASeedCannotCloseItsScript: a message that holds a closing script tag and a script
// stays text: in the seed, escaped so it cannot end the element, and in the thread.
func TestASeedCannotCloseItsScript(t *testing.T) {
	ts, id := testSession(t)
	const evil = `</script><script>alert(1)</script><!-- & "quoted"`
	promptHTTP(t, ts, id, evil)
	testkit.WaitEvents(t, ts.Events, id, "answered", testkit.TurnsEnded(1))
	_, page := getPage(t, ts.URL+"/s/"+id, http.Header{"Authorization": {"Bearer " + testToken}})
	seed, ok := seedIn(t, page)
	require.True(t, ok)
	assert.Equal(t, evil, fold(seed.Events).Messages[0].Text, "the seed holds the text as it was sent")
	assert.NotContains(t, page, "<script>alert(1)", "no script of the message's in the page")
	assert.NotContains(t, page, "alert(1)</script>")
	assert.Equal(t, 1, strings.Count(page, seedOpen), "one seed element")
	start := strings.Index(page, seedOpen) + len(seedOpen)
	end := start + strings.Index(page[start:], "</script>")
	assert.NotContains(t, page[start:end], "<", "nothing in the seed opens a tag")
	assert.Contains(t, bodyOf(page), "&lt;/script&gt;&lt;script&gt;alert(1)", "the thread shows it as text")
}

// TestTheEdgeServesNoSeed: an edge (server.Front) has no runtime: a session's page is the
// layout alone, with the token, and it is served.
func TestTheEdgeServesNoSeed(t *testing.T) {
	ts, id := testSession(t)
	promptHTTP(t, ts, id, "behind the edge")
	testkit.WaitEvents(t, ts.Events, id, "answered", testkit.TurnsEnded(1))
	b, err := server.LoadBundle(testkit.WebFolder(t))
	require.NoError(t, err)
	edge := httptest.NewServer(server.Front(testToken, b, http.NotFoundHandler()))
	t.Cleanup(edge.Close)
	resp, page := getPage(t, edge.URL+"/s/"+id, http.Header{"Authorization": {"Bearer " + testToken}})
	_, ok := seedIn(t, page)
	assert.False(t, ok)
	assert.Contains(t, page, `id="sidebar"`, "the pre-rendered page")
	assert.NotEqual(t, "no-store", resp.Header.Get("Cache-Control"))
}
