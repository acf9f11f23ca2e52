package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/components"
	"parley/protocol"
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

// falseBoolean is an HTML boolean attribute written as ="false". go-app's pre-render writes
// every attribute with its value, Selected(false) as selected="false"; a browser reads any
// value of a boolean attribute as true, so the page shown before the wasm ran had its last
// option selected and its enabled controls disabled.
var falseBoolean = regexp.MustCompile(`\s(?:allowfullscreen|async|autofocus|autoplay|checked|controls|default|defer|disabled|formnovalidate|hidden|inert|ismap|itemscope|loop|multiple|muted|nomodule|novalidate|open|playsinline|readonly|required|reversed|selected)="false"`)

// withoutFalseBooleans serves go-app's answers, pre-rendered in the browser's language
// (page), with the pages' false booleans left out. seeds (nil for none) gives a session's
// page its newest window, pre-rendered and written into the page (seed.go).
func (b *Bundle) withoutFalseBooleans(seeds func(*http.Request) *protocol.Seed) http.Handler {
	inLocale := b.page()
	appJS := b.appJS(inLocale)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/app.js" {
			appJS.ServeHTTP(w, r)
			return
		}
		var script []byte
		if seeds != nil {
			if seed := seeds(r); seed != nil {
				if s, err := seedScript(seed); err == nil {
					script, r = s, withSeed(r, seed)
				}
			}
		}
		rec := &pageRecorder{ResponseWriter: w}
		inLocale.ServeHTTP(rec, r)
		if !rec.html {
			return
		}
		page := falseBoolean.ReplaceAll(rec.body.Bytes(), nil)
		if script != nil {
			// Its messages as the wasm draws them (deformat.go), and one person's: no cache,
			// the browser's or another's, may keep it (docs/seed.md).
			page = insertSeed(deformatBody(page), script)
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Del("ETag")
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.WriteHeader(rec.status)
		_, _ = w.Write(page)
	})
}

// pageRecorder holds back an HTML answer until it is whole; any other passes straight on.
type pageRecorder struct {
	http.ResponseWriter
	status  int
	html    bool
	decided bool
	body    bytes.Buffer
}

func (p *pageRecorder) decide() {
	if !p.decided {
		p.decided = true
		p.html = strings.HasPrefix(p.Header().Get("Content-Type"), "text/html")
	}
}

func (p *pageRecorder) WriteHeader(status int) {
	p.decide()
	if p.html {
		p.status = status
		return
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *pageRecorder) Write(data []byte) (int, error) {
	if !p.decided {
		p.WriteHeader(http.StatusOK)
	}
	if p.html {
		return p.body.Write(data)
	}
	return p.ResponseWriter.Write(data)
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
