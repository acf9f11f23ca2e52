package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

func TestCovers(t *testing.T) {
	status := protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "run", Words: []string{"git", "status"}}
	extra := func(_ []string, w string) bool { return plainArgument(w) && w != "link/out" }
	cases := []struct {
		scope protocol.GrantScope
		tool  string
		words string
		want  bool
	}{
		{protocol.GrantScope{Kind: protocol.GrantExact, Tool: "run", Words: []string{"git", "status"}}, "run", "git status", true},
		{protocol.GrantScope{Kind: protocol.GrantExact, Tool: "run", Words: []string{"git", "status"}}, "run", "git status -s", false},
		{status, "run", "git status", true},
		{status, "run", "git status src/main.go docs", true},
		{status, "run", "git status --short", false}, // options ask again
		{status, "run", "git status --output=/tmp/x", false},
		{status, "run", "git status /etc/passwd", false},
		{status, "run", "git status ../../secret", false},
		{status, "run", "git status ext::sh", false},
		{status, "run", "git status link/out", false}, // a symlink out of the workspace
		{status, "run", "git statusx", false},
		{status, "write", "git status", false},
		{protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "run"}, "run", "rm", false},
		{protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "write", Words: []string{"notes"}}, "write", "notes a.md", true},
		{protocol.GrantScope{Kind: protocol.GrantTool, Tool: "write"}, "write", "a b", true},
		{protocol.GrantScope{Kind: "other", Tool: "run"}, "run", "x", false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, covers(c.scope, c.tool, strings.Fields(c.words), extra), "%+v %s %q", c.scope, c.tool, c.words)
	}
}

func TestNoAlwaysOfferThatWouldAllowAnything(t *testing.T) {
	req := ApprovalRequest([]ToolCall{{Tool: "run", Words: []string{"sh", "-c", "rm -rf /"}, Details: "sh -c 'rm -rf /'"}}, t.TempDir())
	var labels []string
	for _, o := range req.Options {
		labels = append(labels, o.Label)
	}
	require.Equal(t, []string{"Approve", "Approve, and always for this command", "Reject"}, labels)
	root := t.TempDir() // a repository's and a module's root
	testkit.Repository(t, root)
	for _, file := range []string{"go.mod", "package.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, file), nil, 0o644))
	}
	for argv, want := range map[string][]string{
		"git status":              {"git", "status"},
		"git status --short":      {"git", "status"},
		"go test ./...":           {"go", "test"},
		"npm test":                nil, // more words go to whatever the test script is
		"git fetch origin":        nil, // reaches the network and runs what the remote says
		"git config core.x y":     nil,
		"git -c alias.x=!touch x": nil,
		"cat a.txt":               nil, // no subcommand: any file would do
		"make test":               nil, // more words are more targets
		"cargo test":              nil,
		"./git status":            nil, // a file in the workspace can change
		"find . -exec sh":         nil,
		"ls":                      nil,
	} {
		require.Equal(t, want, GrantablePrefix(strings.Fields(argv), root), argv)
	}
	bare := t.TempDir() // not a repository's root: names could reach the one above it
	require.Nil(t, GrantablePrefix([]string{"git", "show", "HEAD"}, bare))
	require.Nil(t, GrantablePrefix([]string{"go", "test", "./..."}, bare))
	require.NoError(t, os.WriteFile(filepath.Join(bare, ".git"), []byte("gitdir: /elsewhere\n"), 0o644))
	require.Nil(t, GrantablePrefix([]string{"git", "show", "HEAD"}, bare), "a .git file points elsewhere")
	empty := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(empty, ".git"), 0o755))
	require.Nil(t, GrantablePrefix([]string{"git", "diff"}, empty), "git skips an empty .git and searches above")
	shared := t.TempDir()
	testkit.Repository(t, shared)
	require.NoError(t, os.WriteFile(filepath.Join(shared, ".git", "objects", "info", "alternates"), []byte("/elsewhere\n"), 0o644))
	require.Nil(t, GrantablePrefix([]string{"git", "show"}, shared), "objects borrowed from another repository")
	linked := t.TempDir()
	testkit.Repository(t, linked)
	require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(linked, ".git", "objects", "pack")))
	require.Nil(t, GrantablePrefix([]string{"git", "show"}, linked), "a linked pack reads another repository")

	// What may vary under a prefix, per program.
	require.NoError(t, os.Symlink("/", filepath.Join(root, "out")))
	for _, c := range []struct {
		prefix, word string
		want         bool
	}{
		{"git show", "3fa30441", true},
		{"git show", "src/a.go", true},
		{"git show", "out/etc/passwd", false},
		{"go test", "./pkg/...", true},
		{"go test", "outer/outer", false}, // an import path
		{"go test", "std", false},
		{"go test", "./testdata/leak", false}, // folders ./... skips
		{"go test", "./_tools", false},
		{"go test", "./pkg/.hidden", false},
		{"npm test", "deploy", false},
		{"make test", "install", false},
	} {
		require.Equal(t, c.want, PrefixArgument(root, strings.Fields(c.prefix), c.word), "%s %s", c.prefix, c.word)
	}
	req = ApprovalRequest([]ToolCall{{Tool: "run", Words: []string{"./tool", "x"}}}, root)
	require.Len(t, req.Options, 2, "no always for a program named by a path")
}
