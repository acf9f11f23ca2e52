package server_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// TestRenameAndArchiveOverHTTP: PATCH renames a session and archives it; an archived session
// leaves the list but its address still answers; bad bodies get field errors.
func TestRenameAndArchiveOverHTTP(t *testing.T) {
	ts, id := testSession(t)
	promptHTTP(t, ts, id, "/script send('hi')\nsend('more')")
	url := ts.URL + "/api/sessions/" + id
	list := func() []protocol.SessionInfo {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions", testToken, "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return testkit.DecodeAs[protocol.SessionList](t, data).Sessions
	}
	require.Len(t, list(), 1)
	assert.Equal(t, "send('hi')", list()[0].Title, "a script is titled by its code's first line")

	resp, data := request(t, http.MethodPatch, url, testToken, `{"title":"  Greeting test  "}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Equal(t, "Greeting test", testkit.DecodeAs[protocol.SessionInfo](t, data).Title)
	assert.Equal(t, "Greeting test", list()[0].Title)

	for _, bad := range []struct{ body, field string }{
		{`{"title":"   "}`, "title"},
		{`{"title":"two\nlines"}`, "title"},
		{`{}`, "title"},
	} {
		resp, data := request(t, http.MethodPatch, url, testToken, bad.body)
		assertRefused(t, resp, data, http.StatusUnprocessableEntity, "invalid", "", bad.field)
	}
	resp, data = request(t, http.MethodPatch, ts.URL+"/api/sessions/nosuch", testToken, `{"archived":true}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, string(data))

	resp, data = request(t, http.MethodPatch, url, testToken, `{"archived":true}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Empty(t, list(), "an archived session is not listed")
	resp, data = request(t, http.MethodGet, url, testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, testkit.DecodeAs[protocol.SessionInfo](t, data).Archived)

	// The archived list holds it; restored, it is listed again and the archived list is empty.
	archived := func() []protocol.SessionInfo {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions?archived=true", testToken, "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return testkit.DecodeAs[protocol.SessionList](t, data).Sessions
	}
	require.Len(t, archived(), 1)
	assert.Equal(t, id, archived()[0].ID)
	resp, data = request(t, http.MethodPatch, url, testToken, `{"archived":false}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Len(t, list(), 1, "restored: listed again")
	assert.Empty(t, archived())
	resp, data = request(t, http.MethodGet, ts.URL+"/api/sessions?archived=maybe", testToken, "")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(data))
}

// TestWithdrawAWaitingPrompt: a prompt queued behind a running turn is withdrawn; the log
// records it, no turn ever runs it, and the prompts after it still run. A prompt that
// started, or was withdrawn already, cannot be.
func TestWithdrawAWaitingPrompt(t *testing.T) {
	ts, s := testSession(t)
	first := promptHTTP(t, ts, s, "/script ok = confirm('Go on?')")
	d := waitDecisions(t, ts, s, 1)[0]
	second := promptHTTP(t, ts, s, "/script send('the withdrawn one ran')")
	third := promptHTTP(t, ts, s, "/script send('third ran')")
	url := func(p uint64) string {
		return ts.URL + "/api/sessions/" + s + "/prompts/" + strconv.FormatUint(p, 10) + "/withdraw"
	}

	resp, data := request(t, http.MethodPost, url(second), testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	withdrawn := testkit.DecodeAs[protocol.WithdrawResponse](t, data)
	assert.Greater(t, withdrawn.Offset, second)

	for _, p := range []uint64{second, first} {
		resp, data := request(t, http.MethodPost, url(p), testToken, "")
		assertRefused(t, resp, data, http.StatusConflict, "not_waiting", "not waiting", "")
	}
	resp, data = request(t, http.MethodPost, ts.URL+"/api/sessions/"+s+"/prompts/x/withdraw", testToken, "")
	assertRefused(t, resp, data, http.StatusBadRequest, "bad_prompt", "not an offset", "")

	replyHTTP(t, ts, s, d.ID, `{"action":"accept","content":true}`)
	c := testkit.Client{T: t, Token: testToken, Base: ts.URL}
	var texts []string
	require.Eventually(t, func() bool {
		texts = texts[:0]
		started := map[uint64]bool{}
		for _, ev := range eventPage(t, c, s, "?limit=1000").Events {
			switch ev.Type {
			case protocol.EventAgentMessage:
				m, _ := ev.DecodeMessage()
				texts = append(texts, m.Text)
			case protocol.EventTurnStarted:
				ts, _ := protocol.DecodeEventData[protocol.TurnStarted](ev)
				started[ts.Prompt] = true
			}
		}
		assert.False(t, started[second], "no turn ran the withdrawn prompt")
		return started[third] && len(texts) > 0 && texts[len(texts)-1] == "third ran"
	}, 20*time.Second, 50*time.Millisecond)
	assert.NotContains(t, texts, "the withdrawn one ran")
}

func eventPage(t *testing.T, c testkit.Client, session, query string) protocol.EventPage {
	t.Helper()
	resp, data := c.Get("/api/sessions/" + session + "/events" + query)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	require.Contains(t, string(data), `"events":[`, "an empty page is [], not null")
	return testkit.DecodeAs[protocol.EventPage](t, data)
}

// TestEventsArePagedByOffset: GET /api/sessions/{id}/events gives over HTTP what a socket
// replays, page by page, with no gap and no duplicate.
func TestEventsArePagedByOffset(t *testing.T) {
	ts, _ := testServer(t)
	c := ts.Client(t)
	s := createSessionHTTP(t, ts)
	promptHTTP(t, ts, s, "one")
	promptHTTP(t, ts, s, "two")
	all := testkit.WaitEvents(t, ts.Events, s, "both answered", testkit.TurnsEnded(2))
	require.GreaterOrEqual(t, len(all), 9, "created, then user, turn, agent and end twice")

	whole := eventPage(t, c, s, "")
	assert.Equal(t, all, whole.Events, "no parameters: from the start, one default page")
	assert.Equal(t, all[len(all)-1].Offset, whole.Next)
	assert.Equal(t, whole.Next, whole.Head, "nothing more")
	assert.Equal(t, protocol.EventSessionCreated, whole.Events[0].Type)

	var paged []protocol.Event
	after := uint64(0)
	for range len(all) {
		p := eventPage(t, c, s, "?limit=2&after="+strconv.FormatUint(after, 10))
		require.LessOrEqual(t, len(p.Events), 2)
		paged = append(paged, p.Events...)
		if p.Next == p.Head {
			break
		}
		require.Greater(t, p.Next, after, "each page moves on")
		after = p.Next
	}
	assert.Equal(t, all, paged, "pages join into the log, no gap, no duplicate")

	mid := eventPage(t, c, s, "?after="+strconv.FormatUint(all[3].Offset, 10))
	assert.Equal(t, all[4:], mid.Events, "only what follows the offset")
	end := eventPage(t, c, s, "?after="+strconv.FormatUint(whole.Head, 10))
	assert.Empty(t, end.Events)
	assert.Equal(t, whole.Head, end.Next, "an empty page keeps the offset")
}

func TestEventsRejectBadInputClearly(t *testing.T) {
	ts, s := testSession(t)
	head := eventPage(t, ts.Client(t), s, "").Head
	cases := []struct {
		name, session, query string
		status               int
		code, says           string
	}{
		{"after not a number", s, "?after=last", http.StatusBadRequest, "bad_after", `after "last" is not an offset`},
		{"negative after", s, "?after=-1", http.StatusBadRequest, "bad_after", "not an offset"},
		{"after past the end", s, "?after=" + strconv.FormatUint(head+100, 10), http.StatusBadRequest, "after_past_end", "its last offset is " + strconv.FormatUint(head, 10)},
		{"limit zero", s, "?limit=0", http.StatusBadRequest, "bad_limit", "whole number from 1 to 1000"},
		{"limit too big", s, "?limit=1001", http.StatusBadRequest, "bad_limit", "leave it out for 100"},
		{"limit not a number", s, "?limit=all", http.StatusBadRequest, "bad_limit", "whole number"},
		{"unknown session", "nosuch", "", http.StatusNotFound, "no_session", "no such session"},
		{"session id with a dot", "a.b", "", http.StatusNotFound, "no_session", "no such session"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, data := ts.Client(t).Get("/api/sessions/" + c.session + "/events" + c.query)
			assert.Equal(t, c.status, resp.StatusCode, string(data))
			e := testkit.ErrorOf(t, data)
			assert.Equal(t, c.code, e.Code)
			assert.Contains(t, e.Error, c.says)
		})
	}
	resp, _ := testkit.Client{T: t, Base: ts.URL}.Get("/api/sessions/" + s + "/events")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "behind the token")
}

// TestTheSessionListFollowsAnotherReplica: two servers on one NATS, as replicas are. A page's
// long poll on the first (GET /api/sessions?wait=<version>) holds until the session index
// changes and answers with the list then: a session made through the second is in it, with
// no reload and no polling. A bad version is refused.
func TestTheSessionListFollowsAnotherReplica(t *testing.T) {
	a, b := twoReplicas(t)
	ctx := t.Context()

	first, err := clientOf(a).SessionList(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, first.Sessions)
	woke := make(chan protocol.SessionList, 1)
	go func() {
		l, err := clientOf(a).SessionList(ctx, &first.Version)
		assert.NoError(t, err)
		woke <- l
	}()
	select {
	case <-woke:
		t.Fatal("the long poll answered before anything changed")
	case <-time.After(300 * time.Millisecond):
	}
	id := createSessionHTTP(t, b)
	got := testkit.Recv(t, woke, "the long poll on one server did not answer when the other made a session")
	require.Len(t, got.Sessions, 1)
	assert.Equal(t, id, got.Sessions[0].ID)
	assert.NotEqual(t, first.Version, got.Version)

	resp, data := request(t, http.MethodGet, a.URL+"/api/sessions?wait=soon", testToken, "")
	assertRefused(t, resp, data, http.StatusBadRequest, "bad_request", "?wait= must be the version", "")
}
