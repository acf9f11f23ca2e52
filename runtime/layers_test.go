package runtime

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers are the runtime's import rules, by folder: what each part may not import directly.
// The folders say the architecture; these keep it from eroding.
var layers = []struct {
	dir    string
	may    func(path string) bool
	reason string
}{
	{"turn", func(p string) bool { return p == "parley/protocol" || p == "slices" },
		"what runs next is a pure function of the log"},
	{"agent", func(p string) bool {
		return !strings.HasPrefix(p, "github.com/nats-io/") && p != "parley/runtime/eventlog"
	},
		"an agent reaches the world through Tools only"},
	{"catalogue", func(p string) bool {
		return !strings.HasPrefix(p, "github.com/nats-io/") && p != "parley/runtime/eventlog"
	},
		"catalogues are read from the workspace, not the log"},
	{".", func(p string) bool {
		return !strings.HasPrefix(p, "parley/app") && !strings.HasPrefix(p, "parley/components")
	},
		"the runtime is server code: the browser reaches it over the wire only"},
}

func TestRuntimeLayers(t *testing.T) {
	fset := token.NewFileSet()
	for _, l := range layers {
		files, err := filepath.Glob(filepath.Join(l.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", l.dir, err)
		}
		if l.dir == "." {
			more, _ := filepath.Glob("*/*.go")
			files = append(files, more...)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !l.may(p) {
					t.Errorf("%s imports %s: %s", file, p, l.reason)
				}
			}
		}
	}
}
