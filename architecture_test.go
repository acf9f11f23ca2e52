//go:build !wasm

package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// purePackages hold the machines and the wire protocol. They run in the browser, in the
// server and under `go test` alike, so they know nothing of any of them.
var purePackages = []string{"machine", "slash", "protocol", "markdown", "i18n"}

// forbiddenImports are what a pure package may not reach, directly or through a dependency:
// the browser, go-app, the network, processes.
var forbiddenImports = []string{"syscall/js", "github.com/maxence-charriere/go-app", "net", "os/exec"}

// clockReads are the calls that read or wait on the real clock. Time arrives inside events.
var clockReads = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "Tick": true, "NewTimer": true, "NewTicker": true, "AfterFunc": true}

func isForbidden(path string) bool {
	for _, f := range forbiddenImports {
		if path == f || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}

// TestPurePackagesStayPure is the line docs/architecture.md draws ("Dependency rules"):
// machine/, slash/, protocol/ and markdown/ import nothing of the browser, go-app or the
// network, and never read the clock.
func TestPurePackagesStayPure(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range purePackages {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			timeName := ""
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if isForbidden(p) {
					t.Errorf("%s imports %s", path, p)
				}
				if p == "time" {
					timeName = "time"
					if imp.Name != nil {
						timeName = imp.Name.Name
					}
				}
			}
			if timeName == "" {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == timeName && clockReads[sel.Sel.Name] {
					t.Errorf("%s: time.%s reads the clock; pass time in an event", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("go", "list", "-deps", "./"+root+"/...").Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s/...: %v", root, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if isForbidden(dep) {
				t.Errorf("./%s/... depends on %s", root, dep)
			}
		}
	}
}

// TestPurityCheckCatchesViolations proves the check above can fail.
func TestPurityCheckCatchesViolations(t *testing.T) {
	for _, p := range []string{"syscall/js", "net/http", "net", "github.com/maxence-charriere/go-app/v10/pkg/app"} {
		if !isForbidden(p) {
			t.Errorf("%s should be forbidden", p)
		}
	}
	for _, p := range []string{"network", "netip", "encoding/json", "unicode/utf16"} {
		if isForbidden(p) {
			t.Errorf("%s should be allowed", p)
		}
	}
}

// module is the import path every Parley package starts with.
const module = "parley"

// layerRule forbids the packages under from to reach the packages under to, directly or
// through other Parley packages. Paths are relative to the module; a path covers its
// subpackages. Only non-test imports count: a test may start a real server.
type layerRule struct {
	from, to []string
	why      string
}

// layers are the dependency rules of docs/architecture.md ("Dependency rules"), one per
// line of the diagram there.
var layers = []layerRule{
	{
		from: []string{"runtime"},
		to:   []string{"app", "components"},
		why:  "runtime is the server's side and speaks only protocol types; the browser's wiring and views build for wasm and reach the runtime over the wire",
	},
	{
		from: []string{"components", "app"},
		to:   []string{"runtime"},
		why:  "the browser reaches the runtime only over the wire (app/api requests, the app/socket follower), so the bundle never links server code and the runtime may run in another process",
	},
	{
		from: []string{"app"},
		to:   []string{"components"},
		why:  "components build on app; an import back would make the wiring depend on the views it wires",
	},
	{
		from: []string{"machine", "slash", "protocol", "markdown"},
		to:   []string{"app", "components", "runtime"},
		why:  "the pure cores are the bottom layer: the views, the wiring and the server build on them, never the reverse",
	},
}

func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if p := module + "/" + d; path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// layerViolations checks an import graph (package → its direct imports) against rules and
// returns one message per package that breaks a rule, naming the chain of imports that
// reaches the forbidden package and the reason the rule exists.
func layerViolations(graph map[string][]string, rules []layerRule) []string {
	var out []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, rule := range rules {
		for _, p := range pkgs {
			if !under(p, rule.from) {
				continue
			}
			if chain := importChain(graph, p, func(q string) bool { return under(q, rule.to) }); chain != nil {
				out = append(out, fmt.Sprintf("%s imports %s: %s", p, strings.Join(chain[1:], " → "), rule.why))
			}
		}
	}
	return out
}

// importChain returns the shortest chain of Parley imports from p to a package bad accepts,
// or nil. A breadth-first search, so the chain named is the most direct one.
func importChain(graph map[string][]string, p string, bad func(string) bool) []string {
	prev := map[string]string{p: ""}
	queue := []string{p}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		for _, next := range graph[q] {
			if next != module && !strings.HasPrefix(next, module+"/") {
				continue
			}
			if _, seen := prev[next]; seen {
				continue
			}
			prev[next] = q
			if bad(next) {
				var chain []string
				for at := next; at != ""; at = prev[at] {
					chain = append(chain, at)
				}
				slices.Reverse(chain)
				return chain
			}
			queue = append(queue, next)
		}
	}
	return nil
}

// importGraph lists the module's packages and their direct imports, natively and for the
// browser's build (whose files behind build tags import other things), merged.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	for _, goos := range []struct{ os, arch string }{{"", ""}, {"js", "wasm"}} {
		cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
		cmd.Env = os.Environ()
		if goos.os != "" {
			cmd.Env = append(cmd.Env, "GOOS="+goos.os, "GOARCH="+goos.arch)
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list ./...: %v", goos.os, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			for _, imp := range f[1:] {
				if !slices.Contains(graph[f[0]], imp) {
					graph[f[0]] = append(graph[f[0]], imp)
				}
			}
			if _, ok := graph[f[0]]; !ok {
				graph[f[0]] = nil
			}
		}
	}
	return graph
}

// TestLayers holds the dependency rules between the folders.
func TestLayers(t *testing.T) {
	graph := importGraph(t)
	for _, dir := range []string{"runtime", "components", "app", "machine", "slash", "protocol"} {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(graph)), func(p string) bool { return under(p, []string{dir}) }) {
			t.Errorf("go list found no package under %s/: a rule about it would check nothing", dir)
		}
	}
	for _, v := range layerViolations(graph, layers) {
		t.Error(v)
	}
}

// TestLayerCheckCatchesViolations proves the check above can fail, and that it names the
// chain of imports and the reason.
func TestLayerCheckCatchesViolations(t *testing.T) {
	graph := map[string][]string{
		"parley/components/inputbar": {"fmt", "parley/app/hub"},
		"parley/app/hub":             {"parley/protocol", "parley/runtime/gate"},
		"parley/runtime/gate":        {"parley/protocol"},
		"parley/runtime/log":         {"parley/components/composer"},
		"parley/components/composer": {"parley/protocol"},
		"parley/protocol":            {"encoding/json"},
		"parley/runtimeish":          {"parley/app/hub"}, // a name that only starts like runtime
		"parley":                     {"parley/runtime/gate", "parley/components/inputbar"},
	}
	got := layerViolations(graph, layers)
	want := []string{
		"parley/runtime/log imports parley/components/composer: " + layers[0].why,
		"parley/app/hub imports parley/runtime/gate: " + layers[1].why,
		"parley/components/inputbar imports parley/app/hub → parley/runtime/gate: " + layers[1].why,
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\ngot  %q\nwant %q", got, want)
	}
	if v := layerViolations(map[string][]string{"parley/runtime/log": {"parley/protocol"}, "parley/protocol": nil}, layers); v != nil {
		t.Errorf("a clean graph has violations: %q", v)
	}
}
