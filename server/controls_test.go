package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
	"parley/runtime/agent/model"
)

// modelEndpoint lists two models, as GET <url>/models does; it answers nothing else.
func modelEndpoint(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"small","object":"model"},{"id":"large","object":"model","context_length":131072}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestModelsAndTheSessionsModel(t *testing.T) {
	ts := testserver.Start(t, testserver.Options{Model: model.Config{URL: modelEndpoint(t), Model: "small", Window: 32768}})
	s := createSessionHTTP(t, ts)

	resp, data := request(t, http.MethodGet, ts.URL+"/api/models", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	list := testkit.DecodeAs[protocol.ModelList](t, data)
	assert.Equal(t, protocol.ModelList{Configured: true, Default: "small", Window: 32768,
		Models: []protocol.ModelInfo{{ID: "small"}, {ID: "large", Window: 131072}}}, list)

	cases := []struct {
		name, body string
		status     int
		code       string
		contains   string
	}{
		{"a listed model", `{"model":"large"}`, http.StatusOK, "", `"offset":`},
		{"not listed", `{"model":"huge"}`, http.StatusUnprocessableEntity, "no_model", `it lists \"small\", \"large\"`},
		{"empty", `{"model":" "}`, http.StatusUnprocessableEntity, "invalid", "GET /api/models lists"},
		{"two lines", `{"model":"a\nb"}`, http.StatusUnprocessableEntity, "invalid", "control character"},
		{"an unknown field", `{"model":"large","x":1}`, http.StatusBadRequest, "bad_request", "unknown field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, data := postJSON(t, ts.URL+"/api/sessions/"+s+"/model", c.body)
			assert.Equal(t, c.status, resp.StatusCode, string(data))
			assert.Contains(t, string(data), c.contains)
			if c.code != "" {
				assert.Equal(t, c.code, testkit.ErrorOf(t, data).Code)
			}
		})
	}
	resp, data = postJSON(t, ts.URL+"/api/sessions/nosuchsession/model", `{"model":"large"}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, string(data))

	evs, err := ts.Events(t.Context(), s, 0)
	require.NoError(t, err)
	set := testkit.OfType(evs, protocol.EventSessionModel)
	require.Len(t, set, 1, "only the valid choice is recorded")
	m, err := protocol.DecodeEventData[protocol.SessionModel](set[0])
	require.NoError(t, err)
	assert.Equal(t, "large", m.Model)
}

func TestModelsWithoutAnEndpoint(t *testing.T) {
	ts, _ := testServer(t)
	resp, data := request(t, http.MethodGet, ts.URL+"/api/models", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.JSONEq(t, `{"configured":false,"models":[]}`, string(data))

	s := createSessionHTTP(t, ts)
	resp, data = postJSON(t, ts.URL+"/api/sessions/"+s+"/model", `{"model":"x"}`)
	assert.Equal(t, http.StatusConflict, resp.StatusCode)
	assert.Contains(t, testkit.ErrorOf(t, data).Error, "start Parley with -model-url")
}

func TestPermissionsHandler(t *testing.T) {
	ts, rt := testServer(t)
	s := createSessionHTTP(t, ts)
	cases := []struct {
		name, body string
		status     int
		contains   string
	}{
		{"allow edits", `{"mode":"edits"}`, http.StatusOK, `"offset":`},
		{"unknown", `{"mode":"yolo"}`, http.StatusUnprocessableEntity, `unknown mode \"yolo\": use \"ask\"`},
		{"missing", `{}`, http.StatusUnprocessableEntity, "unknown mode"},
		{"not JSON", `mode=ask`, http.StatusBadRequest, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, data := postJSON(t, ts.URL+"/api/sessions/"+s+"/permissions", c.body)
			assert.Equal(t, c.status, resp.StatusCode, string(data))
			assert.Contains(t, string(data), c.contains)
		})
	}
	mode, err := rt.PermissionMode(t.Context(), s)
	require.NoError(t, err)
	assert.Equal(t, protocol.PermissionEdits, mode, "the valid request took effect; the bad ones did not")

	resp, data := postJSON(t, ts.URL+"/api/sessions/nosuchsession/permissions", `{"mode":"ask"}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, string(data))
	resp, _ = request(t, http.MethodPost, ts.URL+"/api/sessions/"+s+"/permissions", "", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "behind the token")
}
