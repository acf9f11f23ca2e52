package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the module root, two folders up from this package.
const root = "../.."

// TestPatchesMatchThePinnedSource applies every edit to the pinned version's file in the
// module cache, as the wasm build does, and checks what it leaves.
func TestPatchesMatchThePinnedSource(t *testing.T) {
	for _, p := range patches {
		dir, err := moduleDir(root, p.module, p.version)
		if err != nil {
			t.Fatalf("%s: %v", p.module, err)
		}
		for name, edits := range p.files {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatalf("%s@%s: %v", p.module, p.version, err)
			}
			got, err := p.apply(name, string(src), edits)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range edits {
				switch {
				case e.old == prepend:
					if !strings.HasPrefix(got, e.new) {
						t.Errorf("%s %s does not start with %q", p.module, name, e.new)
					}
				case !strings.Contains(e.new, e.old) && strings.Contains(got, e.old):
					t.Errorf("%s %s still holds %q", p.module, name, e.old)
				}
			}
		}
		for name := range p.add {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				t.Errorf("%s@%s already has %s: the added file would replace it", p.module, p.version, name)
			}
		}
	}
}

// TestMismatchFailsLoudly: a pinned file that changed under the patch stops it, naming the
// module, the file, the text and how often it occurs, rather than patching half of it.
func TestMismatchFailsLoudly(t *testing.T) {
	p := patch{module: "example.com/m", version: "v1.2.3"}
	edits := []edit{{"net/http", "", 1}}
	for _, tc := range []struct{ name, text, want string }{
		{"gone", "package m\n", `example.com/m@v1.2.3 ws.go: "net/http" occurs 0 times, want 1`},
		{"twice", "net/http net/http", `"net/http" occurs 2 times, want 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.apply("ws.go", tc.text, edits)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("apply = %q, %v; want an error holding %q", got, err, tc.want)
			}
		})
	}
	if _, err := moduleDir(root, patches[0].module, "v0.0.1"); err == nil || !strings.Contains(err.Error(), "check it against the new version") {
		t.Errorf("a version other than the pinned one: err = %v", err)
	}
}

// TestRunIsIdempotent: a second run over the first one's output writes the same tree, so
// `make wasm` and `make vet` can both run it in any order.
func TestRunIsIdempotent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wasm-deps")
	if err := run(root, dir); err != nil {
		t.Fatal(err)
	}
	first := tree(t, dir)
	if err := run(root, dir); err != nil {
		t.Fatal(err)
	}
	second := tree(t, dir)
	if len(first) != len(second) {
		t.Fatalf("first run wrote %d files, the second %d", len(first), len(second))
	}
	for name, data := range first {
		if !bytes.Equal(data, second[name]) {
			t.Errorf("%s differs between runs", name)
		}
	}
	gomod := string(first["go.mod"])
	for _, p := range patches {
		if !strings.Contains(gomod, "replace "+p.module+" "+p.version+" => ") {
			t.Errorf("go.mod does not replace %s %s", p.module, p.version)
		}
		if _, ok := first[filepath.Join(p.module, "go.mod")]; !ok {
			t.Errorf("%s's go.mod was not copied", p.module)
		}
	}
}

func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
