package server_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

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
	ts, _ := testServer(t)
	s := createSessionHTTP(t, ts)
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
