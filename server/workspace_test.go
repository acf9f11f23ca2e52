package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
)

// These tests drive the workspace catalogues over real HTTP, as the composer's client does.

func TestFilesEndpoint(t *testing.T) {
	ts, rt := testServer(t)
	testkit.WriteTree(t, rt.Workspace(), map[string]string{
		"server.go":              "",
		"cmd/serving/main.go":    "",
		"docs/observer.md":       "",
		"src/s/e/r/v.txt":        "",
		".git/server.go":         "",
		"node_modules/server.js": "",
	})
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "server-secret.go"), nil, 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(rt.Workspace(), "linked")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "server-secret.go"), filepath.Join(rt.Workspace(), "server-link.go")))

	c := clientOf(ts)
	list, err := c.ListFiles(context.Background(), "SERV", 0)
	require.NoError(t, err)
	require.Equal(t, []string{
		"server.go",           // the base name starts with the query
		"cmd/serving",         // a folder, also a prefix, but a longer path
		"docs/observer.md",    // the base name holds it
		"cmd/serving/main.go", // the path holds it
		"src/s/e/r/v.txt",     // s…e…r…v in order
	}, filePaths(list), "no .git, no node_modules, nothing through or to a link that leaves")
	require.True(t, list.Files[1].Dir)
	require.False(t, list.Truncated)

	list, err = c.ListFiles(context.Background(), "serv", 2)
	require.NoError(t, err)
	require.Equal(t, []string{"server.go", "cmd/serving"}, filePaths(list))
	require.True(t, list.Truncated)

	resp, data := request(t, http.MethodGet, ts.URL+"/api/files", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	all := testkit.DecodeAs[protocol.FileList](t, data)
	require.ElementsMatch(t, []string{"server.go", "cmd/serving/main.go", "docs/observer.md", "src/s/e/r/v.txt"}, filePaths(all),
		"no query lists files, newest first")

	resp, data = request(t, http.MethodGet, ts.URL+"/api/files?q=nothing-like-it", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(data), `"files":[]`, "an empty list is [], not null")
}

func TestFilesEndpointRejectsBadInput(t *testing.T) {
	ts, _ := testServer(t)
	cases := []struct {
		name, query, code, says string
	}{
		{"limit not a number", "limit=ten", "bad_limit", "whole number from 1 to 200"},
		{"limit zero", "limit=0", "bad_limit", "whole number from 1 to 200"},
		{"limit negative", "limit=-3", "bad_limit", "whole number"},
		{"limit over the maximum", "limit=201", "bad_limit", "from 1 to 200"},
		{"query too long", "q=" + strings.Repeat("a", protocol.MaxFileQueryBytes+1), "bad_query", "the limit is 200"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, data := request(t, http.MethodGet, ts.URL+"/api/files?"+c.query, testToken, "")
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(data))
			e := testkit.ErrorOf(t, data)
			require.Equal(t, c.code, e.Code)
			require.Contains(t, e.Error, c.says)
		})
	}
	resp, _ := request(t, http.MethodGet, ts.URL+"/api/files?q="+url.QueryEscape(strings.Repeat("é", 100)), testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, "200 bytes is allowed")
	resp, _ = request(t, http.MethodGet, ts.URL+"/api/files?limit=200", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestWorkspaceEndpointsRequireTheToken(t *testing.T) {
	ts, _ := testServer(t)
	for _, path := range []string{"/api/files?q=a", "/api/skills", "/api/workspaces"} {
		resp, data := request(t, http.MethodGet, ts.URL+path, "", "")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
		require.Equal(t, "unauthorized", testkit.ErrorOf(t, data).Code, path)
		resp, _ = request(t, http.MethodGet, ts.URL+path, "wrong", "")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
}

func TestSkillsEndpoint(t *testing.T) {
	ts, rt := testServer(t)
	c := clientOf(ts)
	skills, err := c.ListSkills(context.Background())
	require.NoError(t, err)
	require.Empty(t, skills, "no .parley/skills folder: no skills")

	testkit.WriteTree(t, rt.Workspace(), map[string]string{
		".parley/skills/review.md":   "# Review the diff\nList the risks.\n",
		".parley/skills/a-first.md":  "\nSay hello\n",
		".parley/skills/huge.md":     strings.Repeat("z", protocol.MaxSkillBytes+1),
		".parley/skills/example.md":  "# shadows /example",
		".parley/skills/no good.md":  "# a space in the name",
		".parley/skills/readme.txt":  "not a skill",
		".parley/skills/sub/deep.md": "not at the top",
	})
	skills, err = c.ListSkills(context.Background())
	require.NoError(t, err)
	var names []string
	for _, s := range skills {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"a-first", "huge", "review"}, names)
	require.Equal(t, protocol.Skill{Name: "review", Description: "Review the diff", Body: "# Review the diff\nList the risks.\n"}, skills[2])
	require.Equal(t, "Say hello", skills[0].Description)
	require.Contains(t, skills[1].Error, "larger than 16 KiB")
	require.Empty(t, skills[1].Body)
}

func TestSessionBlankOverHTTP(t *testing.T) {
	ts, _ := testServer(t)
	resp, data := postJSON(t, ts.URL+"/api/sessions", `{}`)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	created := testkit.DecodeAs[protocol.SessionInfo](t, data)
	require.True(t, created.Blank)
	require.Contains(t, string(data), `"blank":true`)

	listed := func() protocol.SessionInfo {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions", testToken, "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		list := testkit.DecodeAs[protocol.SessionList](t, data).Sessions
		require.Len(t, list, 1)
		return list[0]
	}
	require.True(t, listed().Blank)

	promptHTTP(t, ts, created.ID, "hello")
	require.False(t, listed().Blank)
	resp, data = request(t, http.MethodGet, ts.URL+"/api/sessions/"+created.ID, testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotContains(t, string(data), `"blank"`, "false is left out")
}

// These tests serve two workspaces, alpha (the default) and beta, each with its own files,
// function, example and skill, over real HTTP on embedded JetStream.

// serveWorkspaces serves the folders from the JetStream in data.
func serveWorkspaces(t *testing.T, data string, folders ...string) *testserver.Server {
	t.Helper()
	return testserver.Start(t, testserver.Options{Data: data, Workspaces: folders, Exclusive: true})
}

func TestWorkspacesAndSessionsOverHTTP(t *testing.T) {
	alpha, beta := testkit.TwoWorkspaces(t)
	ts := serveWorkspaces(t, t.TempDir(), alpha, beta)
	c := clientOf(ts)
	ctx := context.Background()

	list, err := c.ListWorkspaces(ctx)
	require.NoError(t, err)
	require.Equal(t, []protocol.Workspace{
		{ID: "alpha", Name: "alpha", Path: alpha, Default: true},
		{ID: "beta", Name: "beta", Path: beta},
	}, list, "in flag order, the first the default")

	for id, want := range map[string]string{"": "alpha", "default": "alpha", "alpha": "alpha", "beta": "beta"} {
		info := createIn(t, ts, id)
		require.Equal(t, want, info.WorkspaceID, id)
		require.True(t, info.Blank, "a blank session bound to it")
	}
	resp, data := postJSON(t, ts.URL+"/api/sessions", `{"workspace":"gamma"}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(data))
	e := testkit.ErrorOf(t, data)
	require.Equal(t, "no_workspace", e.Code)
	require.Contains(t, e.Error, `"gamma": the workspaces are alpha, beta`)
}

func TestCataloguesPerWorkspaceOverHTTP(t *testing.T) {
	alpha, beta := testkit.TwoWorkspaces(t)
	ts := serveWorkspaces(t, t.TempDir(), alpha, beta)
	c := clientOf(ts)
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
	require.Equal(t, []string{"fa"}, own(fns), "no parameter: the default workspace")
	fns, err = c.ListFunctionsIn(ctx, "beta")
	require.NoError(t, err)
	require.Equal(t, []string{"fb"}, own(fns))
	fns, err = c.ListFunctionsIn(ctx, "default")
	require.NoError(t, err)
	require.Equal(t, []string{"fa"}, own(fns))

	files, err := c.ListFilesIn(ctx, "beta", "txt", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"b.txt"}, filePaths(files))
	files, err = c.ListFiles(ctx, "txt", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, filePaths(files))

	skills, err := c.ListSkillsIn(ctx, "beta")
	require.NoError(t, err)
	require.Len(t, skills, 1)
	require.Equal(t, "sb", skills[0].Name)
	skills, err = c.ListSkills(ctx)
	require.NoError(t, err)
	require.Len(t, skills, 1)
	require.Equal(t, "sa", skills[0].Name)

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
	require.True(t, hasEB(cmds))
	cmds, err = c.ListCommands(ctx)
	require.NoError(t, err)
	require.False(t, hasEB(cmds))

	for _, path := range []string{"/api/functions", "/api/files?q=a", "/api/skills", "/api/commands", "/api/grants"} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		resp, data := request(t, http.MethodGet, ts.URL+path+sep+"workspace=gamma", testToken, "")
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, path)
		e := testkit.ErrorOf(t, data)
		require.Equal(t, "no_workspace", e.Code, path)
		require.Contains(t, e.Error, "the workspaces are alpha, beta", path)
	}
	_, err = c.ListSkillsIn(ctx, "gamma")
	var apiErr *api.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	require.Equal(t, http.StatusBadRequest, apiErr.Status)
}

func TestFunctionRunsInItsWorkspaceOverHTTP(t *testing.T) {
	alpha, beta := testkit.TwoWorkspaces(t)
	ts := serveWorkspaces(t, t.TempDir(), alpha, beta)
	c := clientOf(ts)
	ctx := context.Background()

	resp, data := postJSON(t, ts.URL+"/api/functions/fb/run?workspace=beta", `{}`)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, string(data))
	run := testkit.DecodeAs[protocol.RunFunctionResponse](t, data)
	evs := testkit.WaitEvents(t, ts.Events, run.Session, "fb ends", testkit.TurnsEnded(1))
	require.Equal(t, "from beta", testkit.LastSettled(t, evs).Result)
	resp, data = request(t, http.MethodGet, ts.URL+"/api/sessions/"+run.Session, testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "beta", testkit.DecodeAs[protocol.SessionInfo](t, data).WorkspaceID, "a new session in the named workspace")

	out, err := c.RunFunction(ctx, "fb", protocol.RunFunctionRequest{Workspace: "beta"})
	require.NoError(t, err, "the body's field works as the parameter does")
	testkit.WaitEvents(t, ts.Events, out.Session, "fb ends", testkit.TurnsEnded(1))

	// In an existing session, the session's workspace decides.
	sb := createIn(t, ts, "beta")
	out, err = c.RunFunction(ctx, "fb", protocol.RunFunctionRequest{Session: sb.ID})
	require.NoError(t, err)
	evs = testkit.WaitEvents(t, ts.Events, sb.ID, "fb ends", testkit.TurnsEnded(1))
	require.Equal(t, "from beta", testkit.LastSettled(t, evs).Result)

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
		require.Equal(t, c.status, resp.StatusCode, "%s: %s", c.name, data)
		require.Equal(t, c.code, testkit.ErrorOf(t, data).Code, c.name)
	}
}

func TestScriptsAndGrantsStayInTheirWorkspaceOverHTTP(t *testing.T) {
	alpha, beta := testkit.TwoWorkspaces(t)
	ts := serveWorkspaces(t, t.TempDir(), alpha, beta)
	sa, sb := createIn(t, ts, "alpha"), createIn(t, ts, "beta")

	// read() and list() see beta, and nothing of alpha, by a relative or an absolute path.
	promptHTTP(t, ts, sb.ID, "/script send(read('b.txt') + ' | ' + ', '.join(list('.')))")
	evs := testkit.WaitEvents(t, ts.Events, sb.ID, "read ends", testkit.TurnsEnded(1))
	require.Equal(t, "from beta | .parley/, b.txt", testkit.LastAgentText(t, evs))
	promptHTTP(t, ts, sb.ID, "/script send(read('../alpha/a.txt'))")
	evs = testkit.WaitEvents(t, ts.Events, sb.ID, "escape ends", testkit.TurnsEnded(2))
	require.Contains(t, testkit.LastSettled(t, evs).Error, "leaves the workspace")
	promptHTTP(t, ts, sb.ID, "/script send(read('"+filepath.Join(alpha, "a.txt")+"'))")
	evs = testkit.WaitEvents(t, ts.Events, sb.ID, "absolute escape ends", testkit.TurnsEnded(3))
	require.Contains(t, testkit.LastSettled(t, evs).Error, "leaves the workspace")
	promptHTTP(t, ts, sb.ID, "/example eb")
	evs = testkit.WaitEvents(t, ts.Events, sb.ID, "example ends", testkit.TurnsEnded(4))
	require.Equal(t, "from beta", testkit.LastAgentText(t, evs), "beta's own example")

	// "Always" for pwd in alpha: alpha's grant, which beta does not see.
	promptHTTP(t, ts, sa.ID, "/script send(run(['pwd']).stdout.strip())")
	d := waitDecisions(t, ts, sa.ID, 1)[0]
	require.Equal(t, "Approve, and always for this command", d.Request.Options[1].Label)
	replyHTTP(t, ts, sa.ID, d.ID, `{"action":"accept","content":{"option":1}}`)
	evs = testkit.WaitEvents(t, ts.Events, sa.ID, "pwd in alpha ends", testkit.TurnsEnded(1))
	require.Equal(t, alpha, testkit.LastAgentText(t, evs), "run() starts in alpha")

	grantsOf := func(query string) []protocol.Grant {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/grants"+query, testToken, "")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
		return testkit.DecodeAs[protocol.GrantList](t, data).Grants
	}
	require.Len(t, grantsOf(""), 1)
	require.Len(t, grantsOf("?workspace=alpha"), 1)
	require.Equal(t, alpha, grantsOf("")[0].Workspace)
	require.Empty(t, grantsOf("?workspace=beta"))

	promptHTTP(t, ts, sa.ID, "/script send(run(['pwd']).stdout.strip())")
	evs = testkit.WaitEvents(t, ts.Events, sa.ID, "granted pwd ends", testkit.TurnsEnded(2))
	require.Equal(t, alpha, testkit.LastAgentText(t, evs), "alpha's grant lets it run without asking")

	promptHTTP(t, ts, sb.ID, "/script send(run(['pwd']).stdout.strip())")
	d = waitDecisions(t, ts, sb.ID, 1)[0]
	require.Equal(t, "Allow running pwd?", d.Request.Message, "beta asks: alpha's grant is not beta's")
	replyHTTP(t, ts, sb.ID, d.ID, `{"action":"accept","content":{"option":0}}`)
	evs = testkit.WaitEvents(t, ts.Events, sb.ID, "pwd in beta ends", testkit.TurnsEnded(5))
	require.Equal(t, beta, testkit.LastAgentText(t, evs), "run() starts in beta")
	require.Empty(t, grantsOf("?workspace=beta"), "approved once: no grant")

	resp, _ := request(t, http.MethodDelete, ts.URL+"/api/grants/"+grantsOf("")[0].ID+"?workspace=beta", testToken, "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "not beta's grant")
	resp, _ = request(t, http.MethodDelete, ts.URL+"/api/grants/"+grantsOf("")[0].ID, testToken, "")
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "found in the workspace that holds it")
	require.Empty(t, grantsOf("?workspace=alpha"))
}

func TestWorkspaceBindingsSurviveARestartOverHTTP(t *testing.T) {
	alpha, beta := testkit.TwoWorkspaces(t)
	data := t.TempDir()
	ts := serveWorkspaces(t, data, alpha, beta)
	sb := createIn(t, ts, "beta")
	sd := createIn(t, ts, "default")
	ts.Stop()

	ts = serveWorkspaces(t, data, alpha, beta)
	for id, want := range map[string]string{sb.ID: "beta", sd.ID: "alpha"} {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions/"+id, testToken, "")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
		require.Equal(t, want, testkit.DecodeAs[protocol.SessionInfo](t, data).WorkspaceID)
	}
	promptHTTP(t, ts, sb.ID, "/script send(read('b.txt'))")
	evs := testkit.WaitEvents(t, ts.Events, sb.ID, "read ends", testkit.TurnsEnded(1))
	require.Equal(t, "from beta", testkit.LastAgentText(t, evs))
}
