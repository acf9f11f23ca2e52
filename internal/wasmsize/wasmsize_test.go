package wasmsize

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func uleb(n int) []byte { return binary.AppendUvarint(nil, uint64(n)) }

func str(s string) []byte { return append(uleb(len(s)), s...) }

func section(id byte, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(append([]byte{id}, uleb(len(body))...), body...)
}

// module is a wasm module as Go's linker lays one out: imports (a function and a memory),
// three function bodies, data, and the names of all four functions, the import first.
func module(withNames bool) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, section(2, uleb(3),
		str("go"), str("debug"), []byte{0}, uleb(0),
		str("env"), str("mem"), []byte{2, 1}, uleb(1), uleb(2),
		str("env"), str("sp"), []byte{3, 0x7f, 1},
	)...)
	m = append(m, section(10, uleb(3),
		uleb(5), []byte{1, 2, 3, 4, 5},
		uleb(3), []byte{6, 7, 8},
		uleb(10), bytes.Repeat([]byte{9}, 10),
	)...)
	m = append(m, section(11, bytes.Repeat([]byte("data"), 8))...)
	if withNames {
		names := [][]byte{uleb(4)}
		for i, n := range []string{
			"go.debug",
			"parley_components_inputbar.__Bar_.Render",
			"github.com_maxence_charriere_go_app_v10_pkg_app.nodeManager.updateHTML",
			"type_.eq.parley_protocol.Event",
		} {
			names = append(names, uleb(i), str(n))
		}
		sub := bytes.Join(names, nil)
		m = append(m, section(0, str("name"), []byte{1}, uleb(len(sub)), sub)...)
	}
	return m
}

func TestContributorsAddsUpCodeByPackage(t *testing.T) {
	b, err := Contributors(module(true), []string{
		"parley/components", "parley/components/inputbar", "github.com/maxence-charriere/go-app/v10/pkg/app",
	})
	require.NoError(t, err)
	assert.Equal(t, 32, b.Data)
	byName := map[string]Package{}
	for _, p := range b.Packages {
		byName[p.Name] = p
	}
	assert.Equal(t, 5, byName["parley/components/inputbar"].Code, "the longest import path the name starts with")
	assert.Equal(t, 3, byName["github.com/maxence-charriere/go-app/v10/pkg/app"].Code, "a path with dots and dashes, mangled by the linker")
	assert.Equal(t, 10, byName["(type:.eq and .hash functions)"].Code)
	assert.NotContains(t, byName, "parley/components")
	assert.Equal(t, "(type:.eq and .hash functions)", b.Packages[0].Name, "largest first")
	table := b.Table(2)
	assert.Contains(t, table, "parley/components/inputbar")
	assert.NotContains(t, table, "go-app", "only the top 2")
	require.NotEmpty(t, b.Funcs)
	assert.Equal(t, 10, b.Funcs[0].Code, "functions too, largest first")
	total := 0
	for _, f := range b.Funcs {
		total += f.Code
	}
	assert.Equal(t, 18, total, "every function once")
}

func TestContributorsNeedsNames(t *testing.T) {
	_, err := Contributors(module(false), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "without -ldflags=-s")
	_, err = Contributors([]byte("not wasm"), nil)
	assert.Error(t, err)
	m := module(true)
	_, err = Contributors(m[:len(m)-7], nil)
	assert.Error(t, err, "a module cut short")
}

func TestStatReadsTheTwinsAndRefusesStaleOnes(t *testing.T) {
	web := t.TempDir()
	raw := bytes.Repeat([]byte("app.wasm "), 1000)
	write := func(name string, data []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(web, name), data, 0o644))
	}
	var br, gz bytes.Buffer
	w := brotli.NewWriter(&br)
	_, _ = w.Write(raw)
	require.NoError(t, w.Close())
	z := gzip.NewWriter(&gz)
	_, _ = z.Write(raw)
	require.NoError(t, z.Close())
	write("app.wasm", raw)
	write("app.wasm.br", br.Bytes())
	write("app.wasm.gz", gz.Bytes())

	s, err := Stat(web)
	require.NoError(t, err)
	assert.Equal(t, Sizes{Raw: len(raw), Gzip: gz.Len(), Brotli: br.Len()}, s)
	assert.Contains(t, s.String(), "under")

	write("app.wasm", append(raw, '!')) // rebuilt, twins not remade
	_, err = Stat(web)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "make build")

	require.NoError(t, os.Remove(filepath.Join(web, "app.wasm.gz")))
	_, err = Stat(web)
	assert.Error(t, err)
}

func TestSizesSayHowFarFromTheBudget(t *testing.T) {
	over := Sizes{Raw: 9_000_000, Gzip: 2_000_000, Brotli: 1_704_882}
	assert.Equal(t, 104_882, over.Over())
	assert.Contains(t, over.String(), "brotli -q 11 1,704,882; budget 1,600,000 brotli: 104,882 OVER")
	under := Sizes{Brotli: 1_500_000}
	assert.True(t, strings.HasSuffix(under.String(), "100,000 under"), under.String())
}

// Measure must build what `make wasm` ships, less the names: a flag added to the Makefile's
// build (say -gcflags) and not here would measure another program.
func TestBuildFlagsAreTheMakefiles(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	vars := map[string]string{}
	var build string
	for _, line := range strings.Split(string(mk), "\n") {
		if name, value, ok := strings.Cut(line, " := "); ok && strings.HasPrefix(name, "WASM_") {
			vars[name] = value
		}
		if strings.Contains(line, "GOOS=js GOARCH=wasm $(GO) build ") {
			require.Empty(t, build, "one wasm build line in the Makefile")
			build = line
		}
	}
	require.NotEmpty(t, build, "the Makefile's wasm build line")
	// The build line names its flags by variable; a variable names others.
	for range 3 {
		for name, value := range vars {
			build = strings.ReplaceAll(build, "$("+name+")", value)
		}
	}
	build = strings.ReplaceAll(build, `"`, "")
	_, flags, _ := strings.Cut(build, "-modfile=bin/wasm-deps/go.mod ")
	flags, _, _ = strings.Cut(flags, " -o ")
	assert.Equal(t, strings.Join(BuildFlags, " "), flags)
}
