// Package wasmsize measures the browser's bundle, web/app.wasm, against its budget, and says
// what it is made of (docs/wasm-size.md).
//
// The shipped wasm is stripped (-ldflags=-s -w). The same build without -s keeps a "name"
// section that names each function, with the same code otherwise, so Contributors can add
// up the code of each package. Data (type descriptors, strings, the function tables) has no
// names in a wasm and is reported as one line.
package wasmsize

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/andybalholm/brotli"
)

// Budget is what web/app.wasm may weigh, brotli -q 11, as the server sends it.
const Budget = 1_600_000

// Package is one Go package's share of the code section.
type Package struct {
	Name  string // import path, as the linker spells it ("parley/components/inputbar")
	Code  int    // bytes of function bodies
	Gzip  int    // those bodies alone, gzip -9: a rough share of the compressed bundle
	Funcs int
}

// Breakdown is what a wasm module is made of.
type Breakdown struct {
	Total    int       // the whole file
	Code     int       // the code section
	Data     int       // the data section
	DataGzip int       // the data section alone, gzip -9
	Names    int       // the name section (absent from the shipped, stripped build)
	Packages []Package // largest code first
	Funcs    []Func    // every function, largest first
}

// Func is one function's body in the code section.
type Func struct {
	Name string // as the linker writes it ("parley_components_inputbar.__Bar_.Render")
	Code int
}

// Contributors parses a wasm module built without -s and adds up its code by package;
// packages are the import paths the program links (go list -deps), to name them exactly.
func Contributors(wasm []byte, packages []string) (Breakdown, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) {
		return Breakdown{}, errors.New("not a wasm module")
	}
	b := Breakdown{Total: len(wasm)}
	var (
		imported int      // functions imported: the name section counts them first
		bodies   [][]byte // the code section's function bodies, in order
		names    = map[int]string{}
	)
	r := reader{b: wasm, p: 8}
	for r.p < len(wasm) {
		id := r.byte()
		size := r.uint()
		if r.err != nil || size > len(wasm)-r.p {
			return Breakdown{}, errors.New("a section runs past the end of the module")
		}
		s := reader{b: wasm[:r.p+size], p: r.p}
		switch id {
		case 0:
			if s.string() == "name" {
				b.Names = size
				s.names(names)
			}
		case 2:
			imported = s.imports()
		case 10:
			b.Code = size
			for n := s.uint(); n > 0 && s.err == nil; n-- {
				l := s.uint()
				if s.err != nil || l > len(s.b)-s.p {
					return Breakdown{}, errors.New("a function body runs past the code section")
				}
				bodies = append(bodies, s.b[s.p:s.p+l])
				s.p += l
			}
		case 11:
			b.Data = size
			b.DataGzip = gzipped(wasm[r.p : r.p+size])
		}
		if s.err != nil {
			return Breakdown{}, fmt.Errorf("section %d: %w", id, s.err)
		}
		r.p += size
	}
	if len(names) == 0 {
		return Breakdown{}, errors.New("the module has no function names: build it without -ldflags=-s")
	}
	pkgOf := newPackager(packages)
	byPkg := map[string]*Package{}
	code := map[string]*bytes.Buffer{}
	for i, body := range bodies {
		pkg := pkgOf.of(names[imported+i])
		p := byPkg[pkg]
		if p == nil {
			p = &Package{Name: pkg}
			byPkg[pkg] = p
			code[pkg] = &bytes.Buffer{}
		}
		p.Code += len(body)
		p.Funcs++
		code[pkg].Write(body)
		b.Funcs = append(b.Funcs, Func{Name: names[imported+i], Code: len(body)})
	}
	sort.SliceStable(b.Funcs, func(i, j int) bool { return b.Funcs[i].Code > b.Funcs[j].Code })
	for name, p := range byPkg {
		p.Gzip = gzipped(code[name].Bytes())
		b.Packages = append(b.Packages, *p)
	}
	sort.Slice(b.Packages, func(i, j int) bool {
		if b.Packages[i].Code != b.Packages[j].Code {
			return b.Packages[i].Code > b.Packages[j].Code
		}
		return b.Packages[i].Name < b.Packages[j].Name
	})
	return b, nil
}

// packager names the package of a function as Go's wasm linker names it: the symbol with
// every character but letters, digits, "_" and "." written as "_"
// ("parley_components_inputbar.__Bar_.Render" for parley/components/inputbar.(*Bar).Render).
type packager map[string]string // mangled import path → import path

func newPackager(paths []string) packager {
	m := packager{}
	for _, p := range paths {
		m[mangle(p)] = p
	}
	return m
}

func mangle(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// of is the longest known import path that fn starts with, followed by a dot. Functions of
// no known package (the compiler's "type:.eq" helpers, or every function when no paths
// were given) count under what precedes their first dot.
func (m packager) of(fn string) string {
	if fn == "" {
		return "(unnamed)"
	}
	best := ""
	for i := 0; i < len(fn); i++ {
		if fn[i] == '.' {
			if p, ok := m[fn[:i]]; ok {
				best = p
			}
		}
	}
	if best != "" {
		return best
	}
	if strings.HasPrefix(fn, "type_.") {
		return "(type:.eq and .hash functions)"
	}
	if i := strings.IndexByte(fn, '.'); i > 0 {
		return fn[:i]
	}
	return fn
}

// Table writes the sizes and the top n packages, for a person reading a failed check.
func (b Breakdown) Table(n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "module %d bytes: code %d, data %d (gzip alone %d), names %d\n", b.Total, b.Code, b.Data, b.DataGzip, b.Names)
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "code\tgzip alone\tfuncs\t\tpackage")
	for i, p := range b.Packages {
		if i == n {
			break
		}
		fmt.Fprintf(w, "%d\t%d\t%d\t\t%s\n", p.Code, p.Gzip, p.Funcs, p.Name)
	}
	_ = w.Flush()
	return strings.TrimRight(sb.String(), "\n")
}

// BuildFlags are the flags the Makefile's wasm target builds the browser's program with,
// after -modfile=bin/wasm-deps/go.mod (TestBuildFlagsAreTheMakefiles holds them equal).
// Measure drops -s from them, to keep the function names.
var BuildFlags = []string{"-trimpath", "-ldflags=-s -w",
	// Inlining off where nothing runs hot (docs/wasm-size.md): the views but the input bar
	// and the Markdown view, the protocol's types, and the cold app packages; and the input
	// machine, which does run on every key, for room in the budget, with the keystroke
	// budget measured on that build.
	"-gcflags=parley/machine/input=-l",
	"-gcflags=parley/components/...=-l", "-gcflags=parley/components/inputbar=", "-gcflags=parley/components/markdown=",
	"-gcflags=parley/protocol=-l", "-gcflags=parley/app/api=-l", "-gcflags=parley/app/slashhost=-l", "-gcflags=parley/machine/elicit=-l",
	"-gcflags=parley/app/store=-l", "-gcflags=parley/app/socket=-l", "-gcflags=parley/app/hub=-l",
	"-gcflags=parley/app/outbox=-l", "-gcflags=parley/app/elicitation=-l", "-gcflags=parley/machine/outbox=-l", "-gcflags=parley/machine/composer=-l", "-gcflags=parley/i18n=-l", "-gcflags=parley/markdown=-l", "-gcflags=parley/app/locale=-l",
	// and the standard library's cold packages: formatting, number formatting, time, URLs, JSON (a frame's
	// decoding measured the same without inlining); and go-app, whose renders are off a
	// key's path (the input bar writes its textarea itself).
	"-gcflags=fmt=-l", "-gcflags=strconv=-l", "-gcflags=internal/strconv=-l", "-gcflags=time=-l", "-gcflags=net/url=-l", "-gcflags=encoding/json=-l", "-gcflags=reflect=-l",
	"-gcflags=strings=-l", "-gcflags=slices=-l", "-gcflags=sort=-l", "-gcflags=github.com/maxence-charriere/go-app/v10/pkg/app=-l"}

// Measure builds the browser's program at root as `make wasm` does but keeping function
// names (no -s), in dir, and breaks it down. root/bin/wasm-deps must hold the patched
// modules (make wasm writes them: go run ./tools/wasmpatch bin/wasm-deps).
func Measure(root, dir string) (Breakdown, error) {
	out := filepath.Join(dir, "app-named.wasm")
	args := []string{"build", "-modfile=bin/wasm-deps/go.mod"}
	for _, f := range BuildFlags {
		args = append(args, strings.ReplaceAll(f, "-s ", ""))
	}
	if _, err := goTool(root, append(args, "-o", out, ".")...); err != nil {
		return Breakdown{}, err
	}
	list, err := goTool(root, "list", "-modfile=bin/wasm-deps/go.mod", "-deps", ".")
	if err != nil {
		return Breakdown{}, err
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		return Breakdown{}, err
	}
	return Contributors(wasm, strings.Fields(string(list)))
}

func goTool(root string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", args[0], err, stderr.Bytes())
	}
	return out, nil
}

func gzipped(b []byte) int {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = z.Write(b)
	_ = z.Close()
	return buf.Len()
}

// reader reads a wasm module's LEB128 numbers and strings; the first fault sticks in err.
type reader struct {
	b   []byte
	p   int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at byte %d", what, r.p)
	}
	r.p = len(r.b)
}

func (r *reader) byte() byte {
	if r.p >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	c := r.b[r.p]
	r.p++
	return c
}

func (r *reader) uint() int {
	if r.p >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	v, n := binary.Uvarint(r.b[r.p:])
	if n <= 0 || v > 1<<31 {
		r.fail("bad number")
		return 0
	}
	r.p += n
	return int(v)
}

func (r *reader) string() string {
	n := r.uint()
	if r.err != nil || n > len(r.b)-r.p {
		r.fail("a string runs past its section")
		return ""
	}
	s := string(r.b[r.p : r.p+n])
	r.p += n
	return s
}

// imports reads the import section and returns how many functions it imports.
func (r *reader) imports() int {
	funcs := 0
	for n := r.uint(); n > 0 && r.err == nil; n-- {
		r.string() // module
		r.string() // field
		switch r.byte() {
		case 0: // function: its type
			r.uint()
			funcs++
		case 1: // table: reference type, limits
			r.byte()
			r.limits()
		case 2: // memory
			r.limits()
		case 3: // global: value type, mutability
			r.byte()
			r.byte()
		default:
			r.fail("unknown import kind")
		}
	}
	return funcs
}

// limits reads a flag, a minimum and, when the flag's bit 0 says so, a maximum.
func (r *reader) limits() {
	hasMax := r.byte()&1 != 0
	r.uint()
	if hasMax {
		r.uint()
	}
}

// names reads the name section's function names (subsection 1) into names.
func (r *reader) names(names map[int]string) {
	for r.p < len(r.b) && r.err == nil {
		id := r.byte()
		size := r.uint()
		if r.err != nil || size > len(r.b)-r.p {
			r.fail("a name subsection runs past its section")
			return
		}
		end := r.p + size
		if id == 1 {
			for n := r.uint(); n > 0 && r.err == nil; n-- {
				i := r.uint()
				names[i] = r.string()
			}
		}
		r.p = end
	}
}

// Sizes are web/app.wasm's, as built and as sent.
type Sizes struct {
	Raw, Gzip, Brotli int
}

// Over is by how much the brotli bundle is over Budget; zero or less is within it.
func (s Sizes) Over() int { return s.Brotli - Budget }

func (s Sizes) String() string {
	verdict := fmt.Sprintf("%s under", thousands(-s.Over()))
	if s.Over() > 0 {
		verdict = fmt.Sprintf("%s OVER", thousands(s.Over()))
	}
	return fmt.Sprintf("app.wasm: raw %s bytes, gzip -9 %s, brotli -q 11 %s; budget %s brotli: %s",
		thousands(s.Raw), thousands(s.Gzip), thousands(s.Brotli), thousands(Budget), verdict)
}

// Stat reads web's app.wasm and the compressed twins that `make wasm` writes beside it
// (tools/precompress), and checks that both decompress to app.wasm: sizes of a stale twin
// would measure another build.
func Stat(web string) (Sizes, error) {
	raw, err := os.ReadFile(filepath.Join(web, "app.wasm"))
	if err != nil {
		return Sizes{}, fmt.Errorf("%w: run `make build`", err)
	}
	s := Sizes{Raw: len(raw)}
	for _, twin := range []struct {
		ext  string
		size *int
		open func(io.Reader) (io.Reader, error)
	}{
		{".br", &s.Brotli, func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
		{".gz", &s.Gzip, func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
	} {
		name := filepath.Join(web, "app.wasm"+twin.ext)
		packed, err := os.ReadFile(name)
		if err != nil {
			return Sizes{}, fmt.Errorf("%w: run `make build`", err)
		}
		*twin.size = len(packed)
		r, err := twin.open(bytes.NewReader(packed))
		if err == nil {
			var got []byte
			if got, err = io.ReadAll(r); err == nil && !bytes.Equal(got, raw) {
				err = errors.New("it is not app.wasm's")
			}
		}
		if err != nil {
			return Sizes{}, fmt.Errorf("%s: %v: run `make build` (it remakes the twins when app.wasm changes)", name, err)
		}
	}
	return s, nil
}

// thousands writes n with commas: 1,600,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
