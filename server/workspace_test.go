package server_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
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
	assert.Equal(t, []string{
		"server.go",           // the base name starts with the query
		"cmd/serving",         // a folder, also a prefix, but a longer path
		"docs/observer.md",    // the base name holds it
		"cmd/serving/main.go", // the path holds it
		"src/s/e/r/v.txt",     // s…e…r…v in order
	}, filePaths(list), "no .git, no node_modules, nothing through or to a link that leaves")
	assert.True(t, list.Files[1].Dir)
	assert.False(t, list.Truncated)

	list, err = c.ListFiles(context.Background(), "serv", 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"server.go", "cmd/serving"}, filePaths(list))
	assert.True(t, list.Truncated)

	resp, data := request(t, http.MethodGet, ts.URL+"/api/files", testToken, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	all := testkit.DecodeAs[protocol.FileList](t, data)
	assert.ElementsMatch(t, []string{"server.go", "cmd/serving/main.go", "docs/observer.md", "src/s/e/r/v.txt"}, filePaths(all),
		"no query lists files, newest first")

	resp, data = request(t, http.MethodGet, ts.URL+"/api/files?q=nothing-like-it", testToken, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(data), `"files":[]`, "an empty list is [], not null")
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
			resp, data := request(t, http.MethodGet, ts.URL+"/api/files?"+c.query, testToken, nil)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(data))
			e := testkit.ErrorOf(t, data)
			assert.Equal(t, c.code, e.Code)
			assert.Contains(t, e.Error, c.says)
		})
	}
	resp, _ := request(t, http.MethodGet, ts.URL+"/api/files?q="+url.QueryEscape(strings.Repeat("é", 100)), testToken, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "200 bytes is allowed")
	resp, _ = request(t, http.MethodGet, ts.URL+"/api/files?limit=200", testToken, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestWorkspaceEndpointsRequireTheToken(t *testing.T) {
	ts, _ := testServer(t)
	for _, path := range []string{"/api/files?q=a", "/api/skills", "/api/workspaces"} {
		resp, data := request(t, http.MethodGet, ts.URL+path, "", nil)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
		assert.Equal(t, "unauthorized", testkit.ErrorOf(t, data).Code, path)
		resp, _ = request(t, http.MethodGet, ts.URL+path, "wrong", nil)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
}

func TestSkillsEndpoint(t *testing.T) {
	ts, rt := testServer(t)
	c := clientOf(ts)
	skills, err := c.ListSkills(context.Background())
	require.NoError(t, err)
	assert.Empty(t, skills, "no .parley/skills folder: no skills")

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
	assert.Equal(t, []string{"a-first", "huge", "review"}, names)
	assert.Equal(t, protocol.Skill{Name: "review", Description: "Review the diff", Body: "# Review the diff\nList the risks.\n"}, skills[2])
	assert.Equal(t, "Say hello", skills[0].Description)
	assert.Contains(t, skills[1].Error, "larger than 16 KiB")
	assert.Empty(t, skills[1].Body)
}

func TestSessionBlankOverHTTP(t *testing.T) {
	ts, _ := testServer(t)
	resp, data := postJSON(t, ts.URL+"/api/sessions", `{}`)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	created := testkit.DecodeAs[protocol.SessionInfo](t, data)
	assert.True(t, created.Blank)
	assert.Contains(t, string(data), `"blank":true`)

	listed := func() protocol.SessionInfo {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions", testToken, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		list := testkit.DecodeAs[protocol.SessionList](t, data).Sessions
		require.Len(t, list, 1)
		return list[0]
	}
	assert.True(t, listed().Blank)

	promptHTTP(t, ts, created.ID, "hello")
	assert.False(t, listed().Blank)
	resp, data = request(t, http.MethodGet, ts.URL+"/api/sessions/"+created.ID, testToken, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.NotContains(t, string(data), `"blank"`, "false is left out")
}
