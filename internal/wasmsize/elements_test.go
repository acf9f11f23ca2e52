package wasmsize

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// typedElements are the go-app element builders the browser's code may call. Every other
// element is app.Elem(tag): a typed one brings its whole method set into the wasm (its
// attributes and events, about 15 KB of code each), which nineteen rarely used ones did
// until round 27 (−300 KB raw, −31 KB brotli; docs/wasm-size.md). These are used often, or
// need what only their type sets as a property rather than an attribute (an input's value).
var typedElements = []string{"A", "Button", "Div", "Input", "Option", "Select", "Span", "Textarea"}

// TestBrowserCodeBuildsRareElementsUntyped holds that rule over components/ and app/.
func TestBrowserCodeBuildsRareElementsUntyped(t *testing.T) {
	elements := goAppElements(t)
	root := filepath.Join("..", "..")
	for _, dir := range []string{"components", "app"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, v := range typedElementCalls(t, path, src, elements) {
				t.Errorf("%s: use app.Elem(%q): a typed element brings its method set into the wasm (docs/wasm-size.md)", v.at, strings.ToLower(v.name))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestTypedElementCallsAreFound proves the check above can fail.
func TestTypedElementCallsAreFound(t *testing.T) {
	src := "package x\nimport \"github.com/maxence-charriere/go-app/v10/pkg/app\"\nfunc f() { _ = app.Div(); _ = app.Section().Body(app.Elem(\"nav\")); _ = app.Nav() }\n"
	var got []string
	for _, v := range typedElementCalls(t, "x.go", []byte(src), map[string]bool{"Div": true, "Section": true, "Nav": true}) {
		got = append(got, v.name)
	}
	if !slices.Equal(got, []string{"Section", "Nav"}) {
		t.Errorf("found %q, want Section and Nav", got)
	}
}

type elementCall struct{ at, name string }

// typedElementCalls are the calls in src of a go-app element builder (elements) that is not
// one of typedElements.
func typedElementCalls(t *testing.T, path string, src []byte, elements map[string]bool) []elementCall {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []elementCall
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) > 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "app" && elements[sel.Sel.Name] && !slices.Contains(typedElements, sel.Sel.Name) {
			out = append(out, elementCall{fset.Position(call.Pos()).String(), sel.Sel.Name})
		}
		return true
	})
	return out
}

// goAppElements are go-app's element builders: the functions of its generated HTML file that
// take nothing and return an HTML… interface.
func goAppElements(t *testing.T) map[string]bool {
	t.Helper()
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/maxence-charriere/go-app/v10").Output()
	if err != nil {
		t.Fatalf("finding go-app: %v", err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(strings.TrimSpace(string(dir)), "pkg", "app", "html_gen.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	elements := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Type.Params.NumFields() > 0 || fn.Type.Results.NumFields() != 1 {
			continue
		}
		if res, ok := fn.Type.Results.List[0].Type.(*ast.Ident); ok && strings.HasPrefix(res.Name, "HTML") {
			elements[fn.Name.Name] = true
		}
	}
	if !elements["Div"] || !elements["Section"] {
		t.Fatalf("read %d element builders from go-app, without Div or Section: its generated file changed", len(elements))
	}
	return elements
}
