//go:build !wasm

package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/protocol"
	"parley/runtime"
)

// These tests serve two workspaces, alpha (the default) and beta, each with its own files,
// function, example and skill, over real HTTP on embedded JetStream.

// twoFolders makes alpha and beta.
func twoFolders(t *testing.T) (alpha, beta string) {
	t.Helper()
	root := t.TempDir()
	for name, text := range map[string]string{
		"alpha/a.txt":                     "from alpha",
		"alpha/.parley/functions/fa.star": "def main(args):\n    return read(\"a.txt\")\n",
		"alpha/.parley/skills/sa.md":      "# Alpha's skill\n",
		"beta/b.txt":                      "from beta",
		"beta/.parley/functions/fb.star":  "def main(args):\n    return read(\"b.txt\")\n",
		"beta/.parley/examples/eb.star":   "# Beta's example.\nsend(read(\"b.txt\"))\n",
		"beta/.parley/skills/sb.md":       "# Beta's skill\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return filepath.Join(root, "alpha"), filepath.Join(root, "beta")
}

// serveWorkspaces serves the folders from the JetStream in data until stop.
func serveWorkspaces(t *testing.T, data string, folders ...string) (ts *httptest.Server, rt *runtime.Runtime, stop func()) {
	t.Helper()
	emb, err := runtime.StartEmbedded(data)
	require.NoError(t, err)
	rt, err = runtime.New(context.Background(), emb.Conn, runtime.Options{Workspaces: folders, Exclusive: true})
	require.NoError(t, err)
	b, err := loadBundle(stubBundle(t))
	require.NoError(t, err)
	handlers := newServer(rt, testToken, b)
	ts = httptest.NewServer(handlers.routes())
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		ts.Close()
		handlers.sockets.closeAll()
		rt.Close()
		emb.Close()
	}
	t.Cleanup(stop)
	return ts, rt, stop
}

func createIn(t *testing.T, ts *httptest.Server, workspace string) protocol.SessionInfo {
	t.Helper()
	resp, data := postJSON(t, ts.URL+"/api/sessions", protocol.CreateSessionRequest{Workspace: workspace})
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
	return decodeAs[protocol.SessionInfo](t, data)
}

func lastAgentText(t *testing.T, evs []protocol.Event) string {
	t.Helper()
	msgs := eventsOfType(evs, protocol.EventAgentMessage)
	require.NotEmpty(t, msgs)
	m, err := msgs[len(msgs)-1].DecodeMessage()
	require.NoError(t, err)
	return m.Text
}

func lastSettledOf(t *testing.T, evs []protocol.Event) protocol.RunSettled {
	t.Helper()
	settled := eventsOfType(evs, protocol.EventRunSettled)
	require.NotEmpty(t, settled)
	rs, err := protocol.DecodeEventData[protocol.RunSettled](settled[len(settled)-1])
	require.NoError(t, err)
	return rs
}

func TestWorkspacesAndSessionsOverHTTP(t *testing.T) {
	alpha, beta := twoFolders(t)
	ts, _, _ := serveWorkspaces(t, t.TempDir(), alpha, beta)
	c := clientOf(ts, ts.URL)
	ctx := context.Background()

	list, err := c.ListWorkspaces(ctx)
	require.NoError(t, err)
	assert.Equal(t, []protocol.Workspace{
		{ID: "alpha", Name: "alpha", Path: alpha, Default: true},
		{ID: "beta", Name: "beta", Path: beta},
	}, list, "in flag order, the first the default")

	for id, want := range map[string]string{"": "alpha", "default": "alpha", "alpha": "alpha", "beta": "beta"} {
		info := createIn(t, ts, id)
		assert.Equal(t, want, info.WorkspaceID, id)
		assert.True(t, info.Blank, "a blank session bound to it")
	}
	resp, data := postJSON(t, ts.URL+"/api/sessions", `{"workspace":"gamma"}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(data))
	e := errorOf(t, data)
	assert.Equal(t, "no_workspace", e.Code)
	assert.Contains(t, e.Error, `"gamma": the workspaces are alpha, beta`)
}

func TestCataloguesPerWorkspaceOverHTTP(t *testing.T) {
	alpha, beta := twoFolders(t)
	ts, _, _ := serveWorkspaces(t, t.TempDir(), alpha, beta)
	c := clientOf(ts, ts.URL)
	ctx := context.Background()

	own := func(fns []protocol.Function) []string {
		var out []string
		for _, fn := range fns {
			if fn.Source != "builtin" {
				out = append(out, fn.Name)
			}
		}
		return out
	}
	fns, err := c.ListFunctions(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"fa"}, own(fns), "no parameter: the default workspace")
	fns, err = c.ListFunctionsIn(ctx, "beta")
	require.NoError(t, err)
	assert.Equal(t, []string{"fb"}, own(fns))
	fns, err = c.ListFunctionsIn(ctx, "default")
	require.NoError(t, err)
	assert.Equal(t, []string{"fa"}, own(fns))

	files, err := c.ListFilesIn(ctx, "beta", "txt", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"b.txt"}, filePaths(files))
	files, err = c.ListFiles(ctx, "txt", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.txt"}, filePaths(files))

	skills, err := c.ListSkillsIn(ctx, "beta")
	require.NoError(t, err)
	require.Len(t, skills, 1)
	assert.Equal(t, "sb", skills[0].Name)
	skills, err = c.ListSkills(ctx)
	require.NoError(t, err)
	require.Len(t, skills, 1)
	assert.Equal(t, "sa", skills[0].Name)

	hasEB := func(list protocol.CommandList) bool {
		for _, e := range list.Examples {
			if e.Name == "eb" {
				return true
			}
		}
		return false
	}
	cmds, err := c.ListCommandsIn(ctx, "beta")
	require.NoError(t, err)
	assert.True(t, hasEB(cmds))
	cmds, err = c.ListCommands(ctx)
	require.NoError(t, err)
	assert.False(t, hasEB(cmds))

	for _, path := range []string{"/api/functions", "/api/files?q=a", "/api/skills", "/api/commands", "/api/grants"} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		resp, data := request(t, http.MethodGet, ts.URL+path+sep+"workspace=gamma", testToken, nil)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, path)
		e := errorOf(t, data)
		assert.Equal(t, "no_workspace", e.Code, path)
		assert.Contains(t, e.Error, "the workspaces are alpha, beta", path)
	}
	_, err = c.ListSkillsIn(ctx, "gamma")
	var apiErr *api.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusBadRequest, apiErr.Status)
}

func TestFunctionRunsInItsWorkspaceOverHTTP(t *testing.T) {
	alpha, beta := twoFolders(t)
	ts, rt, _ := serveWorkspaces(t, t.TempDir(), alpha, beta)
	c := clientOf(ts, ts.URL)
	ctx := context.Background()

	resp, data := postJSON(t, ts.URL+"/api/functions/fb/run?workspace=beta", `{}`)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, string(data))
	run := decodeAs[protocol.RunFunctionResponse](t, data)
	evs := waitEvents(t, rt, run.Session, "fb ends", turnsEnded(1))
	assert.Equal(t, "from beta", lastSettledOf(t, evs).Result)
	resp, data = request(t, http.MethodGet, ts.URL+"/api/sessions/"+run.Session, testToken, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "beta", decodeAs[protocol.SessionInfo](t, data).WorkspaceID, "a new session in the named workspace")

	out, err := c.RunFunction(ctx, "fb", protocol.RunFunctionRequest{Workspace: "beta"})
	require.NoError(t, err, "the body's field works as the parameter does")
	waitEvents(t, rt, out.Session, "fb ends", turnsEnded(1))

	// In an existing session, the session's workspace decides.
	sb := createIn(t, ts, "beta")
	out, err = c.RunFunction(ctx, "fb", protocol.RunFunctionRequest{Session: sb.ID})
	require.NoError(t, err)
	evs = waitEvents(t, rt, sb.ID, "fb ends", turnsEnded(1))
	assert.Equal(t, "from beta", lastSettledOf(t, evs).Result)

	for _, c := range []struct {
		name, url, body string
		status          int
		code            string
	}{
		{"alpha's function in beta", "/api/functions/fa/run?workspace=beta", `{}`, http.StatusNotFound, "no_function"},
		{"alpha's function in a beta session", "/api/functions/fa/run", `{"session":"` + sb.ID + `"}`, http.StatusNotFound, "no_function"},
		{"unknown workspace", "/api/functions/fb/run?workspace=gamma", `{}`, http.StatusBadRequest, "no_workspace"},
		{"unknown workspace in the body", "/api/functions/fb/run", `{"workspace":"gamma"}`, http.StatusBadRequest, "no_workspace"},
		{"parameter and body differ", "/api/functions/fb/run?workspace=beta", `{"workspace":"alpha"}`, http.StatusBadRequest, "workspace_conflict"},
		{"another workspace than the session's", "/api/functions/fb/run?workspace=alpha", `{"session":"` + sb.ID + `"}`, http.StatusUnprocessableEntity, "invalid"},
	} {
		resp, data := postJSON(t, ts.URL+c.url, c.body)
		assert.Equal(t, c.status, resp.StatusCode, "%s: %s", c.name, data)
		assert.Equal(t, c.code, errorOf(t, data).Code, c.name)
	}
}

func TestScriptsAndGrantsStayInTheirWorkspaceOverHTTP(t *testing.T) {
	alpha, beta := twoFolders(t)
	ts, rt, _ := serveWorkspaces(t, t.TempDir(), alpha, beta)
	sa, sb := createIn(t, ts, "alpha"), createIn(t, ts, "beta")

	// read() and list() see beta, and nothing of alpha, by a relative or an absolute path.
	promptHTTP(t, ts, sb.ID, "/script send(read('b.txt') + ' | ' + ', '.join(list('.')))")
	evs := waitEvents(t, rt, sb.ID, "read ends", turnsEnded(1))
	assert.Equal(t, "from beta | .parley/, b.txt", lastAgentText(t, evs))
	promptHTTP(t, ts, sb.ID, "/script send(read('../alpha/a.txt'))")
	evs = waitEvents(t, rt, sb.ID, "escape ends", turnsEnded(2))
	assert.Contains(t, lastSettledOf(t, evs).Error, "leaves the workspace")
	promptHTTP(t, ts, sb.ID, "/script send(read('"+filepath.Join(alpha, "a.txt")+"'))")
	evs = waitEvents(t, rt, sb.ID, "absolute escape ends", turnsEnded(3))
	assert.Contains(t, lastSettledOf(t, evs).Error, "leaves the workspace")
	promptHTTP(t, ts, sb.ID, "/example eb")
	evs = waitEvents(t, rt, sb.ID, "example ends", turnsEnded(4))
	assert.Equal(t, "from beta", lastAgentText(t, evs), "beta's own example")

	// "Always" for pwd in alpha: alpha's grant, which beta does not see.
	promptHTTP(t, ts, sa.ID, "/script send(run(['pwd']).stdout.strip())")
	d := waitDecisions(t, ts, sa.ID, 1)[0]
	require.Equal(t, "Approve, and always for this command", d.Request.Options[1].Label)
	replyHTTP(t, ts, sa.ID, d.ID, `{"action":"accept","content":{"option":1}}`)
	evs = waitEvents(t, rt, sa.ID, "pwd in alpha ends", turnsEnded(1))
	assert.Equal(t, alpha, lastAgentText(t, evs), "run() starts in alpha")

	grantsOf := func(query string) []protocol.Grant {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/grants"+query, testToken, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
		return decodeAs[protocol.GrantList](t, data).Grants
	}
	require.Len(t, grantsOf(""), 1)
	require.Len(t, grantsOf("?workspace=alpha"), 1)
	assert.Equal(t, alpha, grantsOf("")[0].Workspace)
	assert.Empty(t, grantsOf("?workspace=beta"))

	promptHTTP(t, ts, sa.ID, "/script send(run(['pwd']).stdout.strip())")
	evs = waitEvents(t, rt, sa.ID, "granted pwd ends", turnsEnded(2))
	assert.Equal(t, alpha, lastAgentText(t, evs), "alpha's grant lets it run without asking")

	promptHTTP(t, ts, sb.ID, "/script send(run(['pwd']).stdout.strip())")
	d = waitDecisions(t, ts, sb.ID, 1)[0]
	assert.Equal(t, "Allow running pwd?", d.Request.Message, "beta asks: alpha's grant is not beta's")
	replyHTTP(t, ts, sb.ID, d.ID, `{"action":"accept","content":{"option":0}}`)
	evs = waitEvents(t, rt, sb.ID, "pwd in beta ends", turnsEnded(5))
	assert.Equal(t, beta, lastAgentText(t, evs), "run() starts in beta")
	assert.Empty(t, grantsOf("?workspace=beta"), "approved once: no grant")

	resp, _ := request(t, http.MethodDelete, ts.URL+"/api/grants/"+grantsOf("")[0].ID+"?workspace=beta", testToken, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "not beta's grant")
	resp, _ = request(t, http.MethodDelete, ts.URL+"/api/grants/"+grantsOf("")[0].ID, testToken, nil)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "found in the workspace that holds it")
	assert.Empty(t, grantsOf("?workspace=alpha"))
}

func TestWorkspaceBindingsSurviveARestartOverHTTP(t *testing.T) {
	alpha, beta := twoFolders(t)
	data := t.TempDir()
	ts, _, stop := serveWorkspaces(t, data, alpha, beta)
	sb := createIn(t, ts, "beta")
	sd := createIn(t, ts, "default")
	stop()

	ts, rt, _ := serveWorkspaces(t, data, alpha, beta)
	for id, want := range map[string]string{sb.ID: "beta", sd.ID: "alpha"} {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions/"+id, testToken, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
		assert.Equal(t, want, decodeAs[protocol.SessionInfo](t, data).WorkspaceID)
	}
	promptHTTP(t, ts, sb.ID, "/script send(read('b.txt'))")
	evs := waitEvents(t, rt, sb.ID, "read ends", turnsEnded(1))
	assert.Equal(t, "from beta", lastAgentText(t, evs))
}
