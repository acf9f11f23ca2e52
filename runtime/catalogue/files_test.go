package catalogue

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// tree writes files (a name ending in "/" is a folder) under a new temporary root, with
// modification times one minute apart in the order given, the last the newest.
func tree(t testing.TB, names ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	at := time.Now().Add(-time.Hour)
	for _, name := range names {
		p := filepath.Join(root, filepath.FromSlash(name))
		if name[len(name)-1] == '/' {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(name), 0o644))
		at = at.Add(time.Minute)
		require.NoError(t, os.Chtimes(p, at, at))
	}
	return root
}

func paths(list protocol.FileList) []string {
	out := []string{}
	for _, f := range list.Files {
		p := f.Path
		if f.Dir {
			p += "/"
		}
		out = append(out, p)
	}
	return out
}

func search(t *testing.T, root, q string, limit int) protocol.FileList {
	t.Helper()
	list, err := NewFiles(root, time.Now).Search(q, limit)
	require.NoError(t, err)
	return list
}

func TestSearchFilesRanks(t *testing.T) {
	root := tree(t,
		"main.go",
		"domain/x.txt",
		"cmd/remain.go",
		"docs/main-notes.md",
		"internal/server/mainloop/a.go",
		"m/a/i/n.txt",
		"zzz.go",
	)
	cases := []struct {
		name, q string
		want    []string
	}{
		{"base prefix, then base substring, then path substring, then subsequence", "main", []string{
			"main.go",                       // the base name starts with "main"
			"docs/main-notes.md",            //   a longer path after a shorter one
			"internal/server/mainloop/",     //   folders are listed too
			"domain/",                       // the base name holds "main"
			"cmd/remain.go",                 //
			"domain/x.txt",                  // the path holds "main"
			"internal/server/mainloop/a.go", //
			"m/a/i/n.txt",                   // m…a…i…n in order
		}},
		{"case-insensitive", "MAIN.GO", []string{"main.go", "cmd/remain.go", "internal/server/mainloop/a.go"}},
		{"a slash in the query matches across folders", "m/a", []string{
			"m/a/", "m/a/i/", "m/a/i/n.txt", "cmd/remain.go", "internal/server/mainloop/a.go",
		}},
		{"no match", "qqq", []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := search(t, root, c.q, 50)
			assert.Equal(t, c.want, paths(got))
			assert.False(t, got.Truncated)
		})
	}
}

func TestSearchFilesEmptyQueryListsRecentFilesFirst(t *testing.T) {
	root := tree(t, "old.txt", "a/middle.txt", "new.txt", "empty/")
	got := search(t, root, "", 50)
	assert.Equal(t, []string{"new.txt", "a/middle.txt", "old.txt"}, paths(got), "files only, newest first")
}

func TestSearchFilesTruncates(t *testing.T) {
	var names []string
	for i := range 30 {
		names = append(names, fmt.Sprintf("f%02d.txt", i))
	}
	root := tree(t, names...)
	got := search(t, root, "f", 5)
	assert.Equal(t, []string{"f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt"}, paths(got))
	assert.True(t, got.Truncated)

	got = search(t, root, "f2", 50)
	assert.Len(t, got.Files, 12, "f20…f29, then f02 and f12 as subsequences")
	assert.Equal(t, "f02.txt", got.Files[10].Path)
	assert.False(t, got.Truncated)

	got = search(t, root, "", 1000)
	assert.Len(t, got.Files, 30, "a limit over the maximum is the maximum")
}

// TestSearchFilesLeavesOut: what a listing passes over, and what a query then finds.
func TestSearchFilesLeavesOut(t *testing.T) {
	cases := []struct {
		name      string
		files     []string
		gitignore string   // written to the root's .gitignore when set
		want      []string // the listing of the empty query, in any order
		q         string
		found     []string // what q finds
	}{
		{
			name: "hidden and vendored folders",
			files: []string{
				"src/app.js",
				".git/config",
				".git/objects/ab/cdef",
				".parley/skills/review.md",
				".cache/app.js",
				"node_modules/left-pad/app.js",
				"src/node_modules/x/app.js",
				".env",
			},
			want: []string{"src/app.js", ".env"}, // dot-files stay; dot-folders and node_modules go
			q:    "app", found: []string{"src/app.js"},
		},
		{
			name: "a simple .gitignore",
			files: []string{
				"keep.go",
				"debug.log",
				"sub/trace.log",
				"build/out.bin",
				"sub/build/keep-me.txt",
				"docs/build",
				"dist/app.js",
				"sub/dist/app.js",
				"gen/deep/x.pb.go",
				"important.log",
			},
			gitignore: "# comment\n\n*.log\n!important.log\n/build/\ndocs/build\n**/dist\ngen/**/x.pb.go\n",
			want: []string{
				".gitignore",
				"keep.go",
				"sub/build/keep-me.txt", // "/build/" is anchored at the root
				"gen/deep/x.pb.go",      // an inner "**" is not supported: the pattern is skipped
			},
			q: "important", found: []string{}, // "!important.log" is not supported: *.log still ignores it
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := tree(t, c.files...)
			if c.gitignore != "" {
				require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte(c.gitignore), 0o644))
			}
			assert.ElementsMatch(t, c.want, paths(search(t, root, "", 50)))
			assert.Equal(t, c.found, paths(search(t, root, c.q, 50)))
		})
	}
}

func TestSearchFilesDoesNotLeaveTheWorkspace(t *testing.T) {
	outside := tree(t, "secret.txt", "deep/secret2.txt")
	root := tree(t, "real/inside.txt", "loop/")
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "file-out")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "dir-out")))
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "inside.txt"), filepath.Join(root, "file-in")))
	require.NoError(t, os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "dir-in")))
	require.NoError(t, os.Symlink("..", filepath.Join(root, "loop", "up")))
	require.NoError(t, os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "dangling")))

	got := search(t, root, "", 50)
	assert.ElementsMatch(t, []string{"real/inside.txt", "file-in"}, paths(got))
	all := paths(search(t, root, "i", 50))
	assert.Contains(t, all, "dir-in/", "a link to a folder inside is listed as a folder")
	assert.NotContains(t, all, "dir-in/inside.txt", "but not entered")
	for _, p := range paths(search(t, root, "e", 200)) {
		assert.NotContains(t, p, "secret")
		assert.NotContains(t, p, "out")
		assert.NotContains(t, p, "dangling")
	}
}

func TestSearchFilesCachesTheWalk(t *testing.T) {
	root := tree(t, "a.txt")
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	x := NewFiles(root, now)
	list := func() []string {
		got, err := x.Search("", 50)
		require.NoError(t, err)
		return paths(got)
	}
	assert.Equal(t, []string{"a.txt"}, list())

	require.NoError(t, os.WriteFile(filepath.Join(root, "b.txt"), nil, 0o644))
	assert.Equal(t, []string{"a.txt"}, list(), "within the TTL the walk is reused")

	advance(fileIndexTTL)
	assert.Eventually(t, func() bool { return len(list()) == 2 }, 10*time.Second, 5*time.Millisecond,
		"after it a walk in the background brings b.txt")

	require.NoError(t, os.WriteFile(filepath.Join(root, "c.txt"), nil, 0o644))
	advance(fileIndexMaxStale)
	assert.Len(t, list(), 3, "a walk too old to show is replaced before the answer")
}

func TestSearchFilesMissingWorkspace(t *testing.T) {
	_, err := NewFiles(filepath.Join(t.TempDir(), "gone"), time.Now).Search("x", 5)
	assert.Error(t, err)
}

// bigTree makes 50,000 files in a shape like a source tree: 50 packages of 20 folders of 50.
func bigTree(b *testing.B) string {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	require.NoError(b, err)
	for p := range 50 {
		for d := range 20 {
			dir := filepath.Join(root, fmt.Sprintf("pkg%02d", p), fmt.Sprintf("module_%02d", d))
			require.NoError(b, os.MkdirAll(dir, 0o755))
			for f := range 50 {
				require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("file_%02d_handler.go", f)), nil, 0o644))
			}
		}
	}
	return root
}

// BenchmarkFileSearch measures one search of a 50,000-file tree: "cached" is a keystroke
// within the TTL, "walk" one that walks the tree again. Run with
// go test ./runtime/ -run '^$' -bench FileSearch -benchtime 2s
func BenchmarkFileSearch(b *testing.B) {
	root := bigTree(b)
	queries := []string{"", "h", "handler", "pkg07/module_03", "fh49", "zzz"}
	b.Run("cached", func(b *testing.B) {
		frozen := time.Now()
		x := NewFiles(root, func() time.Time { return frozen }) // no walk in the background
		for _, q := range queries {
			b.Run("q="+q, func(b *testing.B) {
				if _, err := x.Search(q, protocol.DefaultFileResults); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for b.Loop() {
					if _, err := x.Search(q, protocol.DefaultFileResults); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			x := NewFiles(root, time.Now)
			list, err := x.Search("handler", protocol.DefaultFileResults)
			if err != nil || len(list.Files) != protocol.DefaultFileResults {
				b.Fatal(err, len(list.Files))
			}
		}
	})
}
