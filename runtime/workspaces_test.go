package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/gate"
)

func TestWorkspaceIDs(t *testing.T) {
	cases := []struct {
		name string
		dirs []string
		want []string
	}{
		{"base names lower-cased", []string{"/src/Parley", "/home/ada/notes"}, []string{"parley", "notes"}},
		{"made URL-safe", []string{"/w/My Project (v2)", "/w/été", "/w/a.b_c"}, []string{"my-project-v2", "t", "a-b_c"}},
		{"nothing left", []string{"/w/...", "/"}, []string{"workspace", "workspace-2"}},
		{"same names de-duplicated in order", []string{"/a/app", "/b/app", "/c/App", "/d/app-2"}, []string{"app", "app-2", "app-3", "app-2-2"}},
		{"only the first may be default", []string{"/x/default", "/y/default"}, []string{"default", "default-2"}},
		{"default is the first's alias", []string{"/x/main", "/y/Default"}, []string{"main", "default-2"}},
		{"long names cut", []string{"/" + strings.Repeat("x", 80)}, []string{strings.Repeat("x", 48)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := workspaceIDs(c.dirs)
			assert.Equal(t, c.want, got)
			for _, id := range got {
				assert.True(t, protocol.ValidSessionID(id), id)
			}
		})
	}
}

// twoWorkspaces makes folders alpha and beta, each with a file, a function and a skill of its
// own, and a runtime serving both (alpha the default) on the JetStream in dir.
func twoWorkspaces(t *testing.T, dir string) (a, b string, emb *Embedded, rt *Runtime) {
	t.Helper()
	root := testkit.Folder(t, map[string]string{
		"Alpha/a.txt":                     "from alpha",
		"Alpha/go.mod":                    "module alpha\n",
		"Alpha/.parley/functions/fa.star": "TITLE = \"FA\"\ndef main(args):\n    return read(\"a.txt\")\n",
		"Alpha/.parley/skills/sa.md":      "# Alpha's skill\n",
		"beta/b.txt":                      "from beta",
		"beta/.parley/functions/fb.star":  "TITLE = \"FB\"\ndef main(args):\n    return read(\"b.txt\")\n",
		"beta/.parley/examples/eb.star":   "# Beta's example.\nsend(read(\"b.txt\"))\n",
		"beta/.parley/skills/sb.md":       "# Beta's skill\n",
	})
	a, b = filepath.Join(root, "Alpha"), filepath.Join(root, "beta")
	emb, rt = startIn(t, dir, a, b)
	return a, b, emb, rt
}

// servingTwo is twoWorkspaces on a store of its own, stopped when the test ends.
func servingTwo(t *testing.T) (a, b string, rt *Runtime) {
	t.Helper()
	a, b, emb, rt := twoWorkspaces(t, t.TempDir())
	t.Cleanup(func() { stop(emb, rt) })
	return a, b, rt
}

func startIn(t *testing.T, dir string, workspaces ...string) (*Embedded, *Runtime) {
	t.Helper()
	return startWith(t, dir, Options{Workspaces: workspaces, Exclusive: true})
}

func TestWorkspacesAreListedAndBindSessions(t *testing.T) {
	a, b, emb, rt := twoWorkspaces(t, t.TempDir())
	defer stop(emb, rt)
	ctx := context.Background()

	assert.Equal(t, protocol.WorkspaceList{Workspaces: []protocol.Workspace{
		{ID: "alpha", Name: "Alpha", Path: a, Default: true},
		{ID: "beta", Name: "beta", Path: b},
	}}, rt.Workspaces())
	assert.Equal(t, a, rt.Workspace())

	for id, want := range map[string]string{"": "alpha", "default": "alpha", "alpha": "alpha", "beta": "beta"} {
		s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Workspace: id})
		require.NoError(t, err, id)
		assert.Equal(t, want, s.WorkspaceID, id)
		got, err := rt.Session(ctx, s.ID)
		require.NoError(t, err)
		assert.Equal(t, s, got)
	}
	_, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Workspace: "gamma"})
	assert.ErrorIs(t, err, ErrNoWorkspace)
	assert.ErrorContains(t, err, `"gamma": the workspaces are alpha, beta`)

	for _, call := range []func() error{
		func() error { _, err := rt.ListFunctions("gamma"); return err },
		func() error { _, err := rt.ListCommands("gamma"); return err },
		func() error { _, err := rt.ListSkills("gamma"); return err },
		func() error { _, err := rt.SearchFiles("gamma", "", 5); return err },
		func() error { _, err := rt.ListGrants(ctx, "gamma"); return err },
		func() error { return rt.RevokeGrant(ctx, "gamma", "g1") },
	} {
		assert.ErrorIs(t, call(), ErrNoWorkspace)
	}

	_, err = New(ctx, emb.Conn, Options{Workspaces: []string{a, b, a + "/."}})
	assert.ErrorContains(t, err, "given twice")
	_, err = New(ctx, emb.Conn, Options{Workspaces: []string{a, filepath.Join(b, "gone")}})
	assert.ErrorContains(t, err, "gone")
}

func TestCataloguesArePerWorkspace(t *testing.T) {
	_, _, rt := servingTwo(t)

	functions := func(id string) []string {
		list, err := rt.ListFunctions(id)
		require.NoError(t, err)
		var out []string
		for _, fn := range list.Functions {
			if fn.Source != "builtin" {
				out = append(out, fn.Name)
			}
		}
		return out
	}
	assert.Equal(t, []string{"fa"}, functions(""))
	assert.Equal(t, []string{"fa"}, functions("default"))
	assert.Equal(t, []string{"fb"}, functions("beta"))

	skills, err := rt.ListSkills("beta")
	require.NoError(t, err)
	require.Len(t, skills.Skills, 1)
	assert.Equal(t, "sb", skills.Skills[0].Name)

	files, err := rt.SearchFiles("beta", "txt", 10)
	require.NoError(t, err)
	require.Len(t, files.Files, 1)
	assert.Equal(t, "b.txt", files.Files[0].Path)
	files, err = rt.SearchFiles("", "txt", 10)
	require.NoError(t, err)
	require.Len(t, files.Files, 1)
	assert.Equal(t, "a.txt", files.Files[0].Path)

	hasExample := func(id string) bool {
		list, err := rt.ListCommands(id)
		require.NoError(t, err)
		for _, e := range list.Examples {
			if e.Name == "eb" {
				return true
			}
		}
		return false
	}
	assert.True(t, hasExample("beta"))
	assert.False(t, hasExample("alpha"))
}

func TestScriptsWorkInTheSessionsWorkspace(t *testing.T) {
	a, b, rt := servingTwo(t)
	ctx := context.Background()
	s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Workspace: "beta"})
	require.NoError(t, err)

	prompt(t, rt, s.ID, "/script send(read('b.txt'))\nsend(', '.join(list('.')))", protocol.ModeQueue)
	evs := waitFor(t, rt, s.ID, "first turn ends", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 1 })
	assert.Equal(t, []string{"from beta", ".parley/, b.txt"}, testkit.AgentTexts(t, evs))

	for _, reach := range []string{"../Alpha/a.txt", filepath.Join(a, "a.txt")} {
		n := testkit.Count(evs, protocol.EventTurnEnded)
		prompt(t, rt, s.ID, "/script send(read('"+reach+"'))", protocol.ModeQueue)
		evs = waitFor(t, rt, s.ID, "turn ends", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == n+1 })
		rs := testkit.LastSettled(t, evs)
		assert.Contains(t, rs.Error, "leaves the workspace", reach)
	}
	n := testkit.Count(evs, protocol.EventTurnEnded)
	prompt(t, rt, s.ID, "/example eb", protocol.ModeQueue)
	evs = waitFor(t, rt, s.ID, "example ends", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == n+1 })
	assert.Equal(t, "from beta", testkit.AgentTexts(t, evs)[len(testkit.AgentTexts(t, evs))-1], "beta's own example")

	// run() starts in beta; its approval is beta's (no "go test" prefix: beta has no go.mod).
	prompt(t, rt, s.ID, "/script send(run(['pwd']).stdout.strip())", protocol.ModeQueue)
	d := waitPending(t, rt, s.ID, 1)[0]
	assert.Len(t, d.Request.Options, 3, "approve, always this command, reject")
	_, err = rt.Reply(ctx, s.ID, d.ID, pick(0))
	require.NoError(t, err)
	evs = waitFor(t, rt, s.ID, "pwd ends", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == n+2 })
	texts := testkit.AgentTexts(t, evs)
	assert.Equal(t, b, texts[len(texts)-1])

	// A function runs from its session's workspace, and only a function of that workspace.
	resp, err := rt.RunFunction(ctx, "fb", protocol.RunFunctionRequest{Workspace: "beta"})
	require.NoError(t, err)
	evs = waitFor(t, rt, resp.Session, "fb ends", testkit.Has(protocol.EventTurnEnded))
	assert.Equal(t, "from beta", testkit.LastSettled(t, evs).Result)
	made, err := rt.Session(ctx, resp.Session)
	require.NoError(t, err)
	assert.Equal(t, "beta", made.WorkspaceID, "the new session is beta's")

	_, err = rt.RunFunction(ctx, "fa", protocol.RunFunctionRequest{Workspace: "beta"})
	assert.ErrorIs(t, err, ErrNoFunction, "alpha's function is not beta's")
	_, err = rt.RunFunction(ctx, "fa", protocol.RunFunctionRequest{Session: s.ID})
	assert.ErrorIs(t, err, ErrNoFunction, "the session's workspace decides")
	_, err = rt.RunFunction(ctx, "fb", protocol.RunFunctionRequest{Session: s.ID, Workspace: "alpha"})
	var verr *protocol.ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Contains(t, verr.Fields["workspace"], "the session works in beta")
	_, err = rt.RunFunction(ctx, "fb", protocol.RunFunctionRequest{Workspace: "gamma"})
	assert.ErrorIs(t, err, ErrNoWorkspace)

	resp, err = rt.RunFunction(ctx, "fb", protocol.RunFunctionRequest{Session: s.ID, Workspace: "beta"})
	require.NoError(t, err)
	evs = waitFor(t, rt, s.ID, "fb in the session ends", func(evs []protocol.Event) bool {
		return testkit.Count(evs, protocol.EventRunSettled) == testkit.Count(evs, protocol.EventRunStarted) && testkit.Count(evs, protocol.EventTurnEnded) == n+3
	})
	assert.Equal(t, "from beta", testkit.LastSettled(t, evs).Result)
}

func TestGrantsAndGateRulesArePerWorkspace(t *testing.T) {
	_, _, rt := servingTwo(t)
	ctx := context.Background()
	sa, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Workspace: "alpha"})
	require.NoError(t, err)
	sb, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Workspace: "beta"})
	require.NoError(t, err)
	goTest := []gate.ToolCall{{Tool: "run", Words: []string{"go", "test", "./..."}, Details: "go test ./..."}}

	// alpha holds go.mod: the wider "always" is offered there, and not in beta.
	d, done := authorizeAsync(t, ctx, rt, sa.ID, "test:a", goTest)
	require.Len(t, d.Request.Options, 4)
	assert.Equal(t, "Approve, and always for go test on any files", d.Request.Options[2].Label)
	_, err = rt.Reply(ctx, sa.ID, d.ID, pick(2))
	require.NoError(t, err)
	assert.True(t, (<-done).Allowed)

	grants, err := rt.ListGrants(ctx, "alpha")
	require.NoError(t, err)
	require.Len(t, grants.Grants, 1)
	assert.Equal(t, rt.Workspaces().Workspaces[0].Path, grants.Grants[0].Workspace)
	granted := grants.Grants[0].ID
	grants, err = rt.ListGrants(ctx, "beta")
	require.NoError(t, err)
	assert.Empty(t, grants.Grants)

	v, err := rt.Authorize(ctx, sa.ID, "test:a2", []gate.ToolCall{{Tool: "run", Words: []string{"go", "test", "./pkg"}, Details: "go test ./pkg"}})
	require.NoError(t, err)
	assert.True(t, v.Allowed, "alpha's grant covers alpha")

	d, done = authorizeAsync(t, ctx, rt, sb.ID, "test:b", goTest)
	assert.Len(t, d.Request.Options, 3, "asked in beta, without the wider always")
	_, err = rt.Reply(ctx, sb.ID, d.ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
	require.NoError(t, err)
	assert.False(t, (<-done).Allowed)

	assert.ErrorIs(t, rt.RevokeGrant(ctx, "beta", granted), ErrNoGrant, "not beta's to revoke")
	require.NoError(t, rt.RevokeGrant(ctx, "", granted), "found in whichever workspace holds it")
	all, err := rt.ListGrants(ctx, "alpha")
	require.NoError(t, err)
	assert.Empty(t, all.Grants)
}

func TestWorkspaceBindingsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	a, b, emb, rt := twoWorkspaces(t, dir)
	ctx := context.Background()
	sb, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Workspace: "beta"})
	require.NoError(t, err)
	// Sessions as earlier versions indexed them: "default" in another folder, no id at all.
	for _, old := range []protocol.SessionInfo{
		{ID: "legacy-default", Title: "old", Workspace: "/folder/served/no/more", WorkspaceID: "default", Created: 1},
		{ID: "legacy-none", Title: "older", Workspace: b, Created: 2},
		{ID: "unserved", Title: "gone", Workspace: "/folder/served/no/more", WorkspaceID: "more", Created: 3},
	} {
		require.NoError(t, rt.sessions.put(ctx, old))
		_, _, err := rt.log.Append(ctx, old.ID, protocol.EventSessionCreated, protocol.SessionCreated{Title: old.Title, Workspace: old.Workspace}, "")
		require.NoError(t, err)
	}
	stop(emb, rt)

	// The same folders in the other order: bindings follow the folders, not the order.
	emb, rt = startIn(t, dir, b, a)
	defer stop(emb, rt)
	got, err := rt.Session(ctx, sb.ID)
	require.NoError(t, err)
	assert.Equal(t, "beta", got.WorkspaceID)
	assert.Equal(t, b, got.Workspace)

	legacy, err := rt.Session(ctx, "legacy-default")
	require.NoError(t, err)
	assert.Equal(t, "beta", legacy.WorkspaceID, "default names the first workspace")
	none, err := rt.Session(ctx, "legacy-none")
	require.NoError(t, err)
	assert.Equal(t, "beta", none.WorkspaceID, "found by its folder")
	gone, err := rt.Session(ctx, "unserved")
	require.NoError(t, err)
	assert.Equal(t, "more", gone.WorkspaceID, "left as indexed")

	prompt(t, rt, "legacy-default", "/script send(read('b.txt'))", protocol.ModeQueue)
	evs := waitFor(t, rt, "legacy-default", "turn ends", testkit.Has(protocol.EventTurnEnded))
	assert.Equal(t, []string{"from beta"}, testkit.AgentTexts(t, evs))

	prompt(t, rt, "unserved", "/script send('hi')", protocol.ModeQueue)
	evs = waitFor(t, rt, "unserved", "turn ends", testkit.Has(protocol.EventTurnEnded))
	texts := testkit.AgentTexts(t, evs)
	require.Len(t, texts, 1)
	assert.Contains(t, texts[0], "this server does not serve: start Parley with -workspace /folder/served/no/more")
	_, err = rt.RunFunction(ctx, "greet", protocol.RunFunctionRequest{Session: "unserved", Args: raw(map[string]any{"name": "Ada"})})
	assert.ErrorIs(t, err, ErrNoWorkspace)
}
