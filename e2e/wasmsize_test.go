package e2e

import (
	"path/filepath"
	"testing"

	"parley/internal/wasmsize"
)

// TestWasmFitsItsBudget: the bundle the browser downloads, brotli as the server sends it,
// stays within 1.6 MB (issue 13's budget). Over it, the failure lists the packages that
// weigh most, from a build that keeps their names; docs/wasm-size.md says what was kept out
// of the browser and how.
func TestWasmFitsItsBudget(t *testing.T) {
	t.Parallel()
	s, err := wasmsize.Stat(filepath.Join(repoRoot, "web"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Over() <= 0 {
		t.Log(s)
		return
	}
	b, err := wasmsize.Measure(repoRoot, t.TempDir())
	if err != nil {
		t.Fatalf("%s\n(and what it is made of could not be measured: %v)", s, err)
	}
	t.Fatalf("%s\nSee docs/wasm-size.md for what is kept out of the browser and how. The packages with the most code (go run ./tools/wasmsize):\n%s", s, b.Table(30))
}
