// Command wasmpatch writes a go.mod for `go build -modfile` that keeps net/http out of the
// browser's build. go-app and coder/websocket import net/http in the wasm only for server-side code
// (app.Handler, app.LocalDir, websocket.Accept) and for one type in a signature; importing
// it at all links its transport and crypto/tls, whose package initialisers keep them alive:
// about a fifth of app.wasm. The patch leaves go-app's server files out of the wasm build and
// gives websocket's Dial a local Response type; nothing Parley's browser code calls changes.
//
// It also keeps out what the browser links but never needs (docs/wasm-size.md has the
// figures): regexp and the unicode tables behind it (go-app's router compiles a pattern;
// Parley's one pattern route is a plain function in the wasm, app.RouteFunc); crypto/rand
// with the FIPS DRBG, AES, SHA-2/3, MD5 and SHA-1 (go-app's device and broadcast ids come
// from github.com/google/uuid, made here from the browser's crypto.getRandomValues, in the
// same v4 form; go-app's Context.Encrypt/Decrypt, which Parley does not use, answer an
// error in the wasm); and package net (websocket's NetConn, which Parley does not use).
//
// The patched modules are copies of the pinned versions' Go files, made under DIR at build
// time (go build -overlay may not replace files in the module cache); DIR/go.mod is Parley's
// with replace directives to them. Every edit must match the pinned versions' text exactly,
// so a dependency upgrade fails here until the patch is checked against the new version.
//
//	usage: wasmpatch DIR   (writes DIR/go.mod, DIR/go.sum and the patched modules under DIR)
package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

type edit struct {
	old, new string
	n        int // how many times old occurs; it must
}

// prepend is an edit that puts its text in front of the file.
const prepend = ""

type patch struct {
	module, version string
	files           map[string][]edit // existing files, relative to the module
	add             map[string]string // new files
}

// serverOnly leaves a go-app file out of the browser's build.
var serverOnly = []edit{{prepend, "//go:build !wasm\n\n", 1}}

// jsExcluded leaves a websocket file out of the browser's build.
var jsExcluded = []edit{{prepend, "//go:build !js\n\n", 1}}

var patches = []patch{
	{
		module:  "github.com/maxence-charriere/go-app/v10",
		version: "v10.1.11",
		files: map[string][]edit{
			"pkg/app/http.go":     serverOnly,
			"pkg/app/resource.go": serverOnly,
			"pkg/app/crypto.go":   serverOnly,
			// The router keeps a match function, so regexp is linked only when
			// RouteWithRegexp is called; the wasm's session route is app.RouteFunc.
			"pkg/app/route.go": {
				{"regexp       *regexp.Regexp", "match        func(path string) bool", 1},
				{"regexp:       regexp.MustCompile(pattern),", "match:        regexp.MustCompile(pattern).MatchString,", 1},
				{"rwr.regexp.MatchString(path)", "rwr.match(path)", 2},
			},
			"pkg/app/context.go": {
				{"\t\"github.com/google/uuid\"\n", "", 1},
				{"uuid.NewString()", "newUUID()", 1},
			},
			"pkg/app/state.go": {
				{"\t\"github.com/google/uuid\"\n", "", 1},
				{"uuid.NewString()", "newUUID()", 1},
			},
		},
		add: map[string]string{"pkg/app/zz_parley_wasm.go": `//go:build wasm

// Added by Parley's tools/wasmpatch: http.go and resource.go, the server's side, are left
// out of the wasm; this is what the browser's side needs of them. crypto.go is left out
// too, and github.com/google/uuid: both link crypto/rand, with its FIPS DRBG and hashes.

package app

import (
	"strings"
	"syscall/js"

	"github.com/maxence-charriere/go-app/v10/pkg/errors"
)

// RouteFunc associates the paths match accepts with a function that makes the component:
// RouteWithRegexp with a Go function for the pattern, so that regexp is not linked.
func RouteFunc(match func(path string) bool, newComponent func() Composer) {
	routes.mu.Lock()
	defer routes.mu.Unlock()
	routes.routesWithRegexp = append(routes.routesWithRegexp, regexpRoute{match: match, newComponent: newComponent})
}

// newUUID is uuid.NewString: a random (version 4) UUID, from the browser's CSPRNG.
func newUUID() string {
	var u [16]byte
	buf := js.Global().Get("Uint8Array").New(len(u))
	js.Global().Get("crypto").Call("getRandomValues", buf)
	js.CopyBytesToGo(u[:], buf)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant RFC 4122
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 36)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&15])
	}
	return string(b)
}

var errNoCrypto = errors.New("Context.Encrypt and Decrypt are left out of Parley's wasm build (tools/wasmpatch): they would link crypto/rand and AES")

func encrypt(key string, v []byte) ([]byte, error) { return nil, errNoCrypto }

func decrypt(key string, v []byte) ([]byte, error) { return nil, errNoCrypto }

// Handler is the server's; the wasm only names it (GenerateStaticWebsite).
type Handler struct{}

func clientResourceResolver(resourcesLocation string) func(string) string {
	return func(location string) string {
		if remoteLocation(location) || !webLocation(location) {
			return location
		}
		location = strings.Trim(location, "/")
		return resourcesLocation + "/" + strings.TrimPrefix(location, "web/")
	}
}

func remoteLocation(location string) bool {
	return strings.HasPrefix(location, "https://") ||
		strings.HasPrefix(location, "http://")
}

func webLocation(location string) bool {
	return strings.HasPrefix(location, "/web/") ||
		location == "/web" ||
		strings.HasPrefix(location, "web/") ||
		location == "web"
}
`},
	},
	{
		module:  "github.com/coder/websocket",
		version: "v1.8.15",
		files: map[string][]edit{
			// NetConn is the only thing in the wasm that needs package net, whose
			// initialisers (a fake network stack under js) stay alive once imported.
			"netconn.go":    jsExcluded,
			"netconn_js.go": jsExcluded,
			"ws_js.go": {
				{"\t\"net\"\n", "", 1},
				{"net.ErrClosed", "errClosed", 4},
				{"\t\"net/http\"\n", "", 1},
				{"*http.Response", "*Response", 3},
				{"&http.Response{\n\t\t\tStatusCode: http.StatusSwitchingProtocols,", "&Response{\n\t\t\tStatusCode: 101, // Switching Protocols", 1},
				{"func Accept(w http.ResponseWriter, r *http.Request, opts", "func Accept(w, r any, opts", 1},
			},
		},
		add: map[string]string{"zz_parley_js.go": `// Added by Parley's tools/wasmpatch, so that ws_js.go need not import net/http nor net.

package websocket

import "errors"

// Response stands for the *http.Response that Dial returns natively; in the browser it only
// ever says 101 Switching Protocols.
type Response struct{ StatusCode int }

// errClosed stands for net.ErrClosed, with its text, so that ws_js.go need not import net.
var errClosed = errors.New("use of closed network connection")
`},
	},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmpatch DIR   (writes DIR/go.mod and DIR/go.sum)")
		os.Exit(2)
	}
	if err := run(".", os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "wasmpatch:", err)
		os.Exit(1)
	}
}

// run writes the patched modules, go.mod and go.sum under dir, from the module at root.
// It starts from an empty dir and the module cache's files every time, so running it twice
// gives the same tree.
func run(root, dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	gomod = append(gomod, "\n// Written by tools/wasmpatch for the browser's build.\n"...)
	for _, p := range patches {
		modDir, err := moduleDir(root, p.module, p.version)
		if err != nil {
			return err
		}
		out := filepath.Join(dir, p.module)
		if err := copyGo(modDir, out); err != nil {
			return err
		}
		for name, edits := range p.files {
			src, err := os.ReadFile(filepath.Join(modDir, name))
			if err != nil {
				return err
			}
			text, err := p.apply(name, string(src), edits)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
				return err
			}
		}
		for name, text := range p.add {
			if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
				return err
			}
		}
		gomod = fmt.Appendf(gomod, "replace %s %s => %s\n", p.module, p.version, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), gomod, 0o644); err != nil {
		return err
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644)
}

// apply makes the edits to text, a file of p's module. An edit whose text does not occur
// exactly as often as it says is an error: the pinned file changed, and the patch must be
// checked against it rather than applied half.
func (p patch) apply(name, text string, edits []edit) (string, error) {
	for _, e := range edits {
		if e.old == prepend {
			text = e.new + text
			continue
		}
		if n := strings.Count(text, e.old); n != e.n {
			return "", fmt.Errorf("%s@%s %s: %q occurs %d times, want %d", p.module, p.version, name, e.old, n, e.n)
		}
		text = strings.ReplaceAll(text, e.old, e.new)
	}
	return text, nil
}

// moduleDir is where the build of the module at root reads module's files, which must be
// at version.
func moduleDir(root, module, version string) (string, error) {
	goTool := os.Getenv("GO")
	if goTool == "" {
		goTool = "go"
	}
	cmd := exec.Command(goTool, "list", "-m", "-f", "{{.Version}} {{.Dir}}", module)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", module, err)
	}
	v, d, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if v != version {
		return "", fmt.Errorf("%s is at %s, but the patch is for %s: check it against the new version", module, v, version)
	}
	if d == "" {
		// A fresh machine (make run on a clean clone) has not downloaded it yet.
		dl := exec.Command(goTool, "mod", "download", "-json", module+"@"+version)
		dl.Dir = root
		out, err := dl.Output()
		var got struct{ Dir, Error string }
		if jerr := json.Unmarshal(out, &got); jerr != nil || got.Dir == "" {
			return "", fmt.Errorf("%s@%s is not in the module cache, and go mod download failed: %v %s", module, version, err, got.Error)
		}
		d = got.Dir
	}
	return d, nil
}

// copyGo copies a module's go.mod and non-test Go files: all the build reads of it.
func copyGo(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if name != "go.mod" && (!strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go")) {
			return nil
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(to, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
}
