package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/components"
)

// Bundle is the browser side: go-app's handler plus the wasm, served precompressed.
type Bundle struct {
	dir     string
	version string // a hash of app.wasm: a rebuild is never served stale
	rawSize int64
	app     *app.Handler
}

// LoadBundle reads web/app.wasm's identity. `make build` writes the wasm and its .br and .gz
// twins; without the wasm there is nothing for a browser to run.
func LoadBundle(dir string) (*Bundle, error) {
	wasm := filepath.Join(dir, "app.wasm")
	f, err := os.Open(wasm)
	if err != nil {
		return nil, fmt.Errorf("%s is missing: build it with `make build` (or run `make run`): %w", wasm, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", wasm, err)
	}
	b := &Bundle{dir: dir, version: hex.EncodeToString(h.Sum(nil))[:16], rawSize: n}
	b.app = components.Handler(b.version, strconv.FormatInt(n, 10))
	return b, nil
}

// Version identifies the wasm being served: a hash of its bytes.
func (b *Bundle) Version() string { return b.version }

// serveWasm serves app.wasm as brotli or gzip when the browser accepts it and the
// precompressed twin exists, else raw.
func (b *Bundle) serveWasm(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/wasm")
	h.Set("Vary", "Accept-Encoding")
	h.Set("Cache-Control", "no-cache")
	etag := `"` + b.version + `"`
	h.Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	name := filepath.Join(b.dir, "app.wasm")
	for _, enc := range []struct{ token, ext string }{{"br", ".br"}, {"gzip", ".gz"}} {
		if !acceptsEncoding(r.Header.Get("Accept-Encoding"), enc.token) {
			continue
		}
		if _, err := os.Stat(name + enc.ext); err == nil {
			h.Set("Content-Encoding", enc.token)
			name += enc.ext
			break
		}
	}
	f, err := os.Open(name)
	if err != nil {
		http.Error(w, "app.wasm is missing: rebuild with `make build`", http.StatusNotFound)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = io.Copy(w, f)
}

// acceptsEncoding reports whether an Accept-Encoding header admits token (q=0 refuses it).
func acceptsEncoding(header, token string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), token) {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
