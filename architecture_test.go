//go:build !wasm

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// purePackages hold the machines and the wire protocol. They run in the browser, in the
// server and under `go test` alike, so they know nothing of any of them.
var purePackages = []string{"machine", "slash", "protocol"}

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

// TestPurePackagesStayPure is the line DESIGN.md draws: machine/, slash/ and protocol/ import
// nothing of the browser, go-app or the network, and never read the clock.
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
