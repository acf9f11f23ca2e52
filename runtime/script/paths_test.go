package script

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"parley/protocol"
	"parley/runtime/gate"
)

// workspaceWithFiles returns a host whose workspace holds a.txt, sub/b.txt, a symlink in
// to sub, and symlinks out to a directory outside the workspace.
func workspaceWithFiles(t *testing.T, limits Limits) (h *Host, outside string) {
	t.Helper()
	h = newTestHost(t, limits)
	outside = t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644))
	must(os.WriteFile(filepath.Join(h.Workspace, "a.txt"), []byte("alpha"), 0o644))
	must(os.Mkdir(filepath.Join(h.Workspace, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(h.Workspace, "sub", "b.txt"), []byte("beta"), 0o644))
	must(os.Symlink("sub", filepath.Join(h.Workspace, "in")))
	must(os.Symlink(outside, filepath.Join(h.Workspace, "out")))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(h.Workspace, "out-file")))
	must(os.Symlink(filepath.Join(outside, "planted"), filepath.Join(h.Workspace, "dangling")))
	return h, outside
}

func TestReadAndList(t *testing.T) {
	h, _ := workspaceWithFiles(t, Limits{})
	caps := &fakeCaps{}
	for src, want := range map[string]string{
		`result = read("a.txt")`:                         "alpha",
		`result = read("sub/b.txt")`:                     "beta",
		`result = read("in/b.txt")`:                      "beta",
		`result = read("sub/../a.txt")`:                  "alpha",
		`result = read("` + h.Workspace + `/sub/b.txt")`: "beta",
		`result = list()`:                                `["a.txt","dangling","in","out","out-file","sub/"]`,
		`result = list("sub")`:                           `["b.txt"]`,
		`result = list(dir = "in")`:                      `["b.txt"]`,
		`result = list(".")[-1]`:                         "sub/",
	} {
		if out := mustExec(t, h, caps, src); out != want {
			t.Errorf("%s: %q; want %q", src, out, want)
		}
	}
	if len(caps.authorized()) != 0 {
		t.Error("reading asked for approval")
	}
}

func TestPathsLeavingTheWorkspaceAreRefused(t *testing.T) {
	h, outside := workspaceWithFiles(t, Limits{})
	for _, src := range []string{
		`read("../etc/passwd")`,
		`read("sub/../../x")`,
		`read("/etc/passwd")`,
		`read("` + outside + `/secret")`,
		`read("out/secret")`,
		`read("out-file")`,
		`list("..")`,
		`list("out")`,
		`list("/")`,
		`write("../x", "y")`,
		`write("out/new", "y")`,
		`write("/tmp/x", "y")`,
		`write("dangling", "planted")`,
		`write("out-file", "y")`,
	} {
		caps := &fakeCaps{}
		err := execErr(t, h, caps, src)
		wantContains(t, err.Error(), "the path leaves the workspace", "script:1:")
		if len(caps.authorized()) != 0 {
			t.Errorf("%s: asked for approval of a path that leaves the workspace", src)
		}
	}
	err := execErr(t, h, &fakeCaps{}, `read("../etc/passwd")`)
	wantContains(t, err.Error(), `Error in read: "../etc/passwd": the path leaves the workspace`)

	// A dangling symlink out is followed as far as its target goes: out.
	if _, err := os.Stat(filepath.Join(outside, "planted")); !os.IsNotExist(err) {
		t.Errorf("a write through a symlink landed outside: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	h, _ := workspaceWithFiles(t, Limits{ReadBytes: 4})
	for src, want := range map[string]string{
		`read("a.txt")`:   `Error in read: "a.txt": the file is over the 4 bytes read limit`,
		`read("nope")`:    `Error in read: "nope": no such file or directory`,
		`read("sub")`:     `Error in read: "sub": it is a directory`,
		`read("")`:        `Error in read: "": the path is empty`,
		`list("a.txt")`:   `Error in list: "a.txt"`,
		`list("missing")`: `no such file or directory`,
	} {
		err := execErr(t, h, &fakeCaps{}, src)
		wantContains(t, err.Error(), want, "script:1:")
	}
	if out := mustExec(t, h, &fakeCaps{}, `result = read("sub/b.txt")`); out != "beta" {
		t.Errorf("a file at the limit: %q", out)
	}
}

func TestWriteNeedsApproval(t *testing.T) {
	h, _ := workspaceWithFiles(t, Limits{})
	caps := &fakeCaps{}
	if out := mustExec(t, h, caps, `result = write("notes/deep/n.md", "héllo")`); out != `{"error":"","ok":true}` {
		t.Errorf("result %s", out)
	}
	data, err := os.ReadFile(filepath.Join(h.Workspace, "notes", "deep", "n.md"))
	if err != nil || string(data) != "héllo" {
		t.Errorf("file %q, %v", data, err)
	}
	batches := caps.authorized()
	want := gate.ToolCall{Tool: "write", Words: []string{"notes/deep/n.md"}, Details: "write 6 bytes to notes/deep/n.md:\nhéllo"}
	if len(batches) != 1 || len(batches[0]) != 1 || !toolCallEqual(batches[0][0], want) {
		t.Errorf("authorized %+v; want %+v", batches, want)
	}

	// An absolute path inside the workspace is asked about by its relative name.
	caps = &fakeCaps{verdict: reject("not that file")}
	out := mustExec(t, h, caps, `result = write("`+h.Workspace+`/a.txt", "overwritten")`)
	if out != `{"error":"not that file","ok":false}` {
		t.Errorf("rejected write: %s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(h.Workspace, "a.txt")); string(data) != "alpha" {
		t.Errorf("a rejected write changed the file: %q", data)
	}
	if b := caps.authorized(); len(b) != 1 || b[0][0].Words[0] != "a.txt" {
		t.Errorf("authorized %+v", b)
	}

	// Approved but impossible: the script gets the reason, not a crash.
	out = mustExec(t, h, &fakeCaps{}, `result = write("sub", "x")`)
	wantContains(t, out, `"ok":false`, `write \"sub\"`)
	err = execErr(t, h, &fakeCaps{}, `write(".", "x")`)
	wantContains(t, err.Error(), "the workspace itself")
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{256 << 10: "256 KiB", 1 << 20: "1 MiB", 1000: "1000 bytes", 1536: "1536 bytes", 3 << 20: "3 MiB"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %s; want %s", n, got, want)
		}
	}
}

// The approval shows what is written; a long text its beginning and end.
func TestWriteDetailsShowTheText(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	mustExec(t, h, caps, `write("a.txt", "one\ntwo\n")`)
	if d := caps.authorized()[0][0].Details; d != "write 8 bytes to a.txt:\none\ntwo\n" {
		t.Errorf("details %q", d)
	}

	// "a", 24 Ki "é" (two bytes each) and "b": both cuts fall inside an é and move to keep
	// it whole, hiding two of them.
	text := "a" + strings.Repeat("é", 24<<10) + "b"
	d := writeDetails("big.txt", text)
	head := "a" + strings.Repeat("é", 12<<10-1)
	tail := strings.Repeat("é", 12<<10-1) + "b"
	want := fmt.Sprintf("write %d bytes to big.txt:\n%s\n… 4 bytes not shown …\n%s", len(text), head, tail)
	if d != want {
		t.Errorf("details of %d bytes: %d bytes, %q…%q", len(text), len(d), d[:40], d[len(d)-40:])
	}
	if !utf8.ValidString(d) {
		t.Error("details are not valid UTF-8")
	}
	if d := writeDetails("x", strings.Repeat("z", 48<<10)); !strings.HasSuffix(d, ":\n"+strings.Repeat("z", 48<<10)) {
		t.Error("48 KiB was cut")
	}
}

// A write through a symlink inside the workspace is asked about, and done, as the file it
// lands in: a grant for notes/ must not cover .parley/functions through notes/p.
func TestWriteNamesTheResolvedPath(t *testing.T) {
	h := newTestHost(t, Limits{})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(h.Workspace, ".parley", "functions"), 0o755))
	must(os.Mkdir(filepath.Join(h.Workspace, "notes"), 0o755))
	must(os.Symlink("../.parley", filepath.Join(h.Workspace, "notes", "p")))
	must(os.WriteFile(filepath.Join(h.Workspace, ".parley", "functions", "old.star"), []byte("old"), 0o644))
	must(os.Symlink("../.parley/functions/old.star", filepath.Join(h.Workspace, "notes", "old")))
	must(os.Symlink("p/functions/new.star", filepath.Join(h.Workspace, "notes", "dangling")))
	must(os.Symlink(h.Workspace+"/notes/p", filepath.Join(h.Workspace, "abs")))

	for path, want := range map[string]string{
		"notes/p/functions/x.star":      ".parley/functions/x.star",
		"notes/p/functions/deep/y.star": ".parley/functions/deep/y.star",
		"notes/old":                     ".parley/functions/old.star",
		"notes/dangling":                ".parley/functions/new.star",
		"abs/functions/z.star":          ".parley/functions/z.star",
		"notes/plain.md":                "notes/plain.md",
	} {
		caps := &fakeCaps{verdict: func(_ context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
			// A grant for writes in notes/: what the path's words say.
			return gate.Verdict{Text: "no", Granted: []bool{strings.HasPrefix(calls[0].Words[0], "notes/")}}, nil
		}}
		out := mustExec(t, h, caps, `result = write("`+path+`", "new").ok`)
		call := caps.authorized()[0][0]
		if len(call.Words) != 1 || call.Words[0] != want || !strings.HasPrefix(call.Details, "write 3 bytes to "+want+":\n") {
			t.Errorf("%s: asked about %+v; want %s", path, call, want)
		}
		if granted := strings.HasPrefix(want, "notes/"); out != map[bool]string{true: "true", false: "false"}[granted] {
			t.Errorf("%s: ok %s", path, out)
		}
		data, err := os.ReadFile(filepath.Join(h.Workspace, want))
		if wrote := err == nil && string(data) == "new"; wrote != (want == "notes/plain.md") {
			t.Errorf("%s: %s holds %q (%v)", path, want, data, err)
		}
	}
	// Approved, the write goes where it was asked about.
	mustExec(t, h, &fakeCaps{}, `write("notes/p/functions/x.star", "x")`)
	if data, _ := os.ReadFile(filepath.Join(h.Workspace, ".parley", "functions", "x.star")); string(data) != "x" {
		t.Errorf("x.star holds %q", data)
	}
}

// A write that did not happen says so in the run's log, even when the script ignores the
// result: refused by the gate, or approved and then refused by the file system, here
// because its folder was swapped for a symlink out of the workspace after it was approved.
func TestWriteNotDoneIsLogged(t *testing.T) {
	h := newTestHost(t, Limits{})
	outside := t.TempDir()
	if err := os.Mkdir(filepath.Join(h.Workspace, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	swap := func(context.Context, []gate.ToolCall) (gate.Verdict, error) {
		dir := filepath.Join(h.Workspace, "real")
		if err := os.RemoveAll(dir); err != nil {
			return gate.Verdict{}, err
		}
		if err := os.Symlink(outside, dir); err != nil {
			return gate.Verdict{}, err
		}
		return gate.Verdict{Allowed: true}, nil
	}
	for _, tc := range []struct {
		verdict func(context.Context, []gate.ToolCall) (gate.Verdict, error)
		want    []string
	}{
		{reject("rejected by the user"), []string{"write real/f.txt was not done: rejected by the user"}},
		{nil, nil},
		{swap, []string{"write real/f.txt failed: the path leaves the workspace"}},
	} {
		caps := &fakeCaps{verdict: tc.verdict}
		mustExec(t, h, caps, `write("real/f.txt", "text")`)
		if got := caps.streamed(protocol.StreamLog); !slices.Equal(got, appendNewlines(tc.want)) {
			t.Errorf("logged %q; want %q", got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); !os.IsNotExist(err) {
		t.Errorf("the write landed outside the workspace: %v", err)
	}

	// A path is quoted as a shell would.
	caps := &fakeCaps{verdict: reject("no")}
	mustExec(t, h, caps, `write("my notes.txt", "x")`)
	if got := caps.streamed(protocol.StreamLog); !slices.Equal(got, []string{"write 'my notes.txt' was not done: no\n"}) {
		t.Errorf("logged %q", got)
	}
}

func appendNewlines(lines []string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l+"\n")
	}
	return out
}
