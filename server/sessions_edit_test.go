package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// TestRenameAndArchiveOverHTTP: PATCH renames a session and archives it; an archived session
// leaves the list but its address still answers; bad bodies get field errors.
func TestRenameAndArchiveOverHTTP(t *testing.T) {
	ts, _ := testServer(t)
	id := createSessionHTTP(t, ts)
	promptHTTP(t, ts, id, "/script send('hi')\nsend('more')")
	url := ts.URL + "/api/sessions/" + id
	list := func() []protocol.SessionInfo {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions", testToken, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return testkit.DecodeAs[protocol.SessionList](t, data).Sessions
	}
	require.Len(t, list(), 1)
	assert.Equal(t, "Script", list()[0].Title, "a command is titled by its name, not its code")

	resp, data := request(t, http.MethodPatch, url, testToken, strings.NewReader(`{"title":"  Greeting test  "}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Equal(t, "Greeting test", testkit.DecodeAs[protocol.SessionInfo](t, data).Title)
	assert.Equal(t, "Greeting test", list()[0].Title)

	for _, bad := range []struct{ body, field string }{
		{`{"title":"   "}`, "title"},
		{`{"title":"two\nlines"}`, "title"},
		{`{}`, "title"},
	} {
		resp, data := request(t, http.MethodPatch, url, testToken, strings.NewReader(bad.body))
		assertRefused(t, resp, data, http.StatusUnprocessableEntity, "invalid", "", bad.field)
	}
	resp, data = request(t, http.MethodPatch, ts.URL+"/api/sessions/nosuch", testToken, strings.NewReader(`{"archived":true}`))
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, string(data))

	resp, data = request(t, http.MethodPatch, url, testToken, strings.NewReader(`{"archived":true}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Empty(t, list(), "an archived session is not listed")
	resp, data = request(t, http.MethodGet, url, testToken, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, testkit.DecodeAs[protocol.SessionInfo](t, data).Archived)

	// The archived list holds it; restored, it is listed again and the archived list is empty.
	archived := func() []protocol.SessionInfo {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions?archived=true", testToken, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return testkit.DecodeAs[protocol.SessionList](t, data).Sessions
	}
	require.Len(t, archived(), 1)
	assert.Equal(t, id, archived()[0].ID)
	resp, data = request(t, http.MethodPatch, url, testToken, strings.NewReader(`{"archived":false}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Len(t, list(), 1, "restored: listed again")
	assert.Empty(t, archived())
	resp, data = request(t, http.MethodGet, ts.URL+"/api/sessions?archived=maybe", testToken, nil)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(data))
}
