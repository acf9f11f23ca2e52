package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// runStruct is run()'s result as the test reads it back through JSON.
type runStruct struct {
	OK     bool   `json:"ok"`
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Error  string `json:"error"`
}

func runResultOf(t *testing.T, h *Host, caps Caps, src string) runStruct {
	t.Helper()
	var r runStruct
	if err := json.Unmarshal([]byte(mustExec(t, h, caps, src)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunApproved(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	r := runResultOf(t, h, caps, `result = run(["echo", "hello world", "it's"])`)
	if r != (runStruct{OK: true, Code: 0, Stdout: "hello world it's\n"}) {
		t.Errorf("result %+v", r)
	}
	batches := caps.authorized()
	want := gate.ToolCall{Tool: "run", Words: []string{"echo", "hello world", "it's"}, Details: `echo 'hello world' 'it'\''s'`}
	if len(batches) != 1 || len(batches[0]) != 1 || !toolCallEqual(batches[0][0], want) {
		t.Errorf("authorized %+v; want one batch of %+v", batches, want)
	}
	out := caps.streamed(protocol.StreamStdout)
	if strings.Join(out, "") != "hello world it's\n" {
		t.Errorf("streamed %q", out)
	}
	if !slices.Equal(caps.outputs[0].argv, want.Words) {
		t.Errorf("output argv %q", caps.outputs[0].argv)
	}
}

func toolCallEqual(a, b gate.ToolCall) bool {
	return a.Tool == b.Tool && slices.Equal(a.Words, b.Words) && a.Details == b.Details
}

func TestRunRejected(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{verdict: reject("not on a Friday")}
	r := runResultOf(t, h, caps, `result = run(["sh", "-c", "touch ran"])`)
	if r != (runStruct{OK: false, Code: -1, Error: "not on a Friday"}) {
		t.Errorf("result %+v", r)
	}
	if _, err := os.Stat(filepath.Join(h.Workspace, "ran")); !os.IsNotExist(err) {
		t.Errorf("the rejected command ran: %v", err)
	}
	if log := caps.streamed(protocol.StreamLog); len(caps.outputs) != 1 || !slices.Equal(log, []string{"run sh -c 'touch ran' was not done: not on a Friday\n"}) {
		t.Errorf("output from a rejected command: %+v; want one log line that says so", caps.outputs)
	}
}

func TestRunExitStatus(t *testing.T) {
	h := newTestHost(t, Limits{})
	r := runResultOf(t, h, &fakeCaps{}, `result = run(["sh", "-c", "echo out; echo err >&2; exit 2"])`)
	if r != (runStruct{OK: false, Code: 2, Stdout: "out\n", Stderr: "err\n", Error: "exit status 2"}) {
		t.Errorf("result %+v", r)
	}
	r = runResultOf(t, h, &fakeCaps{}, `result = run(["no-such-program-here"])`)
	if r.OK || r.Code != -1 || !strings.Contains(r.Error, "not found") {
		t.Errorf("missing program: %+v", r)
	}
}

func TestRunEnvironment(t *testing.T) {
	t.Setenv("PARLEY_TEST_SECRET", "leak")
	h := newTestHost(t, Limits{})
	r := runResultOf(t, h, &fakeCaps{}, `result = run(["sh", "-c", "echo $HOME; pwd; echo ${PARLEY_TEST_SECRET:-unset}; echo $LANG; echo $XDG_CONFIG_HOME $XDG_CACHE_HOME $XDG_DATA_HOME; echo $GIT_CONFIG_NOSYSTEM $GIT_TERMINAL_PROMPT; cat"])`)
	home, _, _ := strings.Cut(r.Stdout, "\n")
	want := home + "\n" + h.Workspace + "\nunset\nC.UTF-8\n" +
		home + "/.config " + home + "/.cache " + home + "/.local/share\n1 0\n"
	if !r.OK || r.Stdout != want {
		t.Errorf("stdout %q; want %q (%+v)", r.Stdout, want, r)
	}
	if _, inside := within(h.Workspace, home); inside || !filepath.IsAbs(home) {
		t.Errorf("HOME is %q, in the workspace %q", home, h.Workspace)
	}
}

// A process's home is its own, empty and private, and goes when it ends: not the workspace,
// whose .gitconfig (or .npmrc, .bashrc…) would otherwise act as the user's own.
func TestRunHomeIsPrivate(t *testing.T) {
	h := newTestHost(t, Limits{})
	planted := "[core]\n\tfsmonitor = \"touch pwned\"\n[user]\n\tname = Planted\n"
	if err := os.WriteFile(filepath.Join(h.Workspace, ".gitconfig"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	// It lists its home, then leaves something behind that is awkward to remove.
	r := runResultOf(t, h, &fakeCaps{}, `result = run(["sh", "-c", 'echo "$HOME"; ls -ld "$HOME" | cut -c1-10; ls -A "$HOME"; mkdir -p "$HOME/.cache/x" && touch "$HOME/.cache/x/f" && chmod 0 "$HOME/.cache/x"'])`)
	lines := strings.Split(r.Stdout, "\n")
	if !r.OK || len(lines) != 3 || lines[0] == h.Workspace || lines[1] != "drwx------" || lines[2] != "" {
		t.Fatalf("HOME %q, mode and contents %q; want a fresh, empty, private directory (%+v)", lines[0], lines[1:], r)
	}
	if _, err := os.Lstat(lines[0]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the home %s outlived its process: %v", lines[0], err)
	}

	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to prove a planted configuration cannot run (CI clones with git, so it is there)")
	}
	out := mustExec(t, h, &fakeCaps{}, `
run(["git", "init", "-q"])
result = [run(["git", "config", "--global", "--get", "user.name"]).stdout, run(["git", "status", "--short"]).ok]
`)
	if out != `["",true]` {
		t.Errorf("git's global name and status: %s; want the planted .gitconfig ignored", out)
	}
	if _, err := os.Lstat(filepath.Join(h.Workspace, "pwned")); err == nil {
		t.Error("the workspace's .gitconfig ran its core.fsmonitor")
	}
}

func TestRunTimeoutKillsTheGroup(t *testing.T) {
	h := newTestHost(t, Limits{ProcessTimeout: 300 * time.Millisecond})
	var r runStruct
	// The shell's background child holds stdout too: only killing the group ends the wait.
	quick(t, 5*time.Second, func() {
		r = runResultOf(t, h, &fakeCaps{}, `result = run(["sh", "-c", "sleep 30 & echo $!; sleep 30"], timeout = 100)`)
	})
	if r.OK || r.Code != -1 || r.Error != "timed out after 300ms" {
		t.Errorf("result %+v", r)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatalf("no pid in %q", r.Stdout)
	}
	waitGone(t, pid)

	// The kwarg shortens the limit.
	quick(t, 5*time.Second, func() {
		r = runResultOf(t, h, &fakeCaps{}, `result = run(["sleep", "30"], timeout = 0.1)`)
	})
	if r.Error != "timed out after 100ms" {
		t.Errorf("result %+v", r)
	}
	err = execErr(t, h, &fakeCaps{}, `run(["true"], timeout = -1)`)
	wantContains(t, err.Error(), "timeout must be a positive number")
}

func TestRunKillsLeftovers(t *testing.T) {
	h := newTestHost(t, Limits{})
	var r runStruct
	// The leader exits at once; its background child keeps the pipes open.
	quick(t, 5*time.Second, func() {
		r = runResultOf(t, h, &fakeCaps{}, `result = run(["sh", "-c", "sleep 30 & echo $!"])`)
	})
	if !r.OK {
		t.Fatalf("result %+v", r)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatalf("no pid in %q", r.Stdout)
	}
	waitGone(t, pid)
}

// waitGone fails unless process pid is dead (or a zombie nobody has reaped yet) within 2s.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d is still alive", pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

func TestRunOutputCap(t *testing.T) {
	h := newTestHost(t, Limits{OutputBytes: 1000})
	caps := &fakeCaps{}
	r := runResultOf(t, h, caps, `result = run(["sh", "-c", "yes | head -c 100000; echo done >&2"])`)
	note := "\n[output truncated after 1000 bytes]\n"
	if !r.OK || r.Stdout != strings.Repeat("y\n", 500)+note || r.Stderr != "" {
		t.Errorf("result %+v", r)
	}
	streamed := strings.Join(caps.streamed(protocol.StreamStdout), "")
	if streamed != r.Stdout {
		t.Errorf("streamed %d bytes, %q…; want what was captured", len(streamed), streamed[max(0, len(streamed)-60):])
	}

	// A process that never stops writing runs on, drained, until its timeout.
	h.Limits.ProcessTimeout = 300 * time.Millisecond
	caps = &fakeCaps{}
	quick(t, 5*time.Second, func() { r = runResultOf(t, h, caps, `result = run(["yes"])`) })
	if r.Error != "timed out after 300ms" || !strings.HasSuffix(r.Stdout, note) || len(r.Stdout) != 1000+len(note) {
		t.Errorf("yes: %d bytes, error %q", len(r.Stdout), r.Error)
	}
}

// TestRunStreamsAsOutputArrives: each piece of output reaches the thread while the command
// still runs, a line without its newline too. The command waits for the test between the
// pieces (a file appears), so no timing decides what is coalesced.
func TestRunStreamsAsOutputArrives(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	dir := t.TempDir()
	next, last := filepath.Join(dir, "next"), filepath.Join(dir, "last")
	done := make(chan error, 1)
	go func() {
		_, err := h.Exec(context.Background(), "script", `run(["sh", "-c", "echo one; while [ ! -e `+next+` ]; do sleep 0.02; done; printf thr; while [ ! -e `+last+` ]; do sleep 0.02; done; echo ee"])`, nil, caps)
		done <- err
	}()
	waitStreamed := func(want []string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !slices.Equal(caps.streamed(protocol.StreamStdout), want) {
			if time.Now().After(deadline) {
				t.Fatalf("events %q while the command runs; want %q", caps.streamed(protocol.StreamStdout), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitStreamed([]string{"one\n"})
	require.NoError(t, os.WriteFile(next, nil, 0o600))
	waitStreamed([]string{"one\n", "thr"})
	require.NoError(t, os.WriteFile(last, nil, 0o600))
	require.NoError(t, <-done)
	if got, want := caps.streamed(protocol.StreamStdout), []string{"one\n", "thr", "ee\n"}; !slices.Equal(got, want) {
		t.Errorf("events %q; want %q", got, want)
	}
}

func TestRunCoalescesOutput(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	r := runResultOf(t, h, caps, `result = run(["sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo $i; i=$((i+1)); done"])`)
	events := caps.streamed(protocol.StreamStdout)
	if strings.Join(events, "") != r.Stdout || strings.Count(r.Stdout, "\n") != 3000 {
		t.Fatalf("streamed output differs from the captured output")
	}
	if len(events) > 200 {
		t.Errorf("%d events for 3000 lines: output is not coalesced", len(events))
	}
	for _, e := range events[:len(events)-1] {
		if len(e) > flushBytes+32<<10 {
			t.Errorf("an event of %d bytes", len(e))
		}
	}
}

func TestRunBatch(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	out := mustExec(t, h, caps, `result = [r.stdout for r in run_batch([["echo", "a"], ["echo", "b"], ["sh", "-c", "echo c"]])]`)
	if out != `["a\n","b\n","c\n"]` {
		t.Errorf("result %s", out)
	}
	batches := caps.authorized()
	if len(batches) != 1 || len(batches[0]) != 3 || batches[0][2].Details != "sh -c 'echo c'" {
		t.Errorf("authorized %+v; want one batch of three", batches)
	}

	caps = &fakeCaps{verdict: reject("all or nothing")}
	var rs []runStruct
	if err := json.Unmarshal([]byte(mustExec(t, h, caps, `result = run_batch([["sh", "-c", "touch a"], ["sh", "-c", "touch b"]])`)), &rs); err != nil {
		t.Fatal(err)
	}
	want := runStruct{Code: -1, Error: "all or nothing"}
	if len(rs) != 2 || rs[0] != want || rs[1] != want {
		t.Errorf("rejected batch: %+v", rs)
	}
	if entries, _ := os.ReadDir(h.Workspace); len(entries) != 0 {
		t.Errorf("a rejected batch ran: %v", entries)
	}
	if len(caps.authorized()) != 1 {
		t.Errorf("%d decisions for one batch", len(caps.authorized()))
	}
}

func TestRunArguments(t *testing.T) {
	h := newTestHost(t, Limits{})
	for src, want := range map[string]string{
		`run([])`:               "argv is empty",
		`run("echo hi")`:        "argv must be a list of strings",
		`run(["echo", 1])`:      "argv[1] is a int",
		`run([""])`:             "the program, is empty",
		`run_batch([])`:         "the batch is empty",
		`run_batch([["a"], 1])`: "[1]: argv must be a list",
	} {
		err := execErr(t, h, &fakeCaps{}, src)
		wantContains(t, err.Error(), want, "script:1:")
	}
}

func TestApprovalAbortFailsTheScript(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{verdict: func(context.Context, []gate.ToolCall) (gate.Verdict, error) {
		return gate.Verdict{}, fmt.Errorf("%w: withdrawn", decision.ErrAborted)
	}}
	err := execErr(t, h, caps, "\nrun(['true'])")
	wantContains(t, err.Error(), "approval aborted: withdrawn", "script:2:")
	wantIs(t, err, decision.ErrAborted)
}

func TestShellQuote(t *testing.T) {
	for argv, want := range map[string]string{
		`["git","status","--short"]`: "git status --short",
		`["echo",""]`:                "echo ''",
		`["sh","-c","a && b"]`:       "sh -c 'a && b'",
		`["x","it's"]`:               `x 'it'\''s'`,
		`["a=b","@x:1,2/3.4_5%+"]`:   "a=b @x:1,2/3.4_5%+",
		// An unseen character is escaped, so the word reads as one on one line (QA round 14 #9).
		`["printf","%s\n","a b"]`:          `printf $'%s\n' 'a b'`,
		`["x","tab\there","it's\r"]`:       `x $'tab\there' $'it\'s\r'`,
		`["x","back\\slash\n"]`:            `x $'back\\slash\n'`,
		`["x","\u001b[31m","\u007f"]`:      `x $'\x1b[31m' $'\x7f'`,
		`["x","a\u2028b","\u202egnp.exe"]`: `x $'a\u2028b' $'\u202egnp.exe'`,
		`["x","\u0085"]`:                   `x $'\u0085'`,
	} {
		var words []string
		json.Unmarshal([]byte(argv), &words)
		if got := shellQuote(words); got != want {
			t.Errorf("shellQuote(%s) = %s; want %s", argv, got, want)
		}
	}
}

func TestRuneBoundary(t *testing.T) {
	s := []byte("aé") // é is two bytes
	if got := runeBoundary(s[:2]); got != 1 {
		t.Errorf("runeBoundary cut mid-rune: %d", got)
	}
	if got := runeBoundary(s); got != 3 {
		t.Errorf("runeBoundary(%q) = %d", s, got)
	}
}

// Calls a grant let through run even when the user rejected the rest of the batch.
func TestGrantedCallsRun(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{verdict: func(context.Context, []gate.ToolCall) (gate.Verdict, error) {
		return gate.Verdict{Text: "not b", Granted: []bool{true, false, true}}, nil
	}}
	var rs []runStruct
	out := mustExec(t, h, caps, `result = run_batch([["sh", "-c", "touch a; echo a"], ["sh", "-c", "touch b"], ["echo", "c"]])`)
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[0] != (runStruct{OK: true, Stdout: "a\n"}) || rs[1] != (runStruct{Code: -1, Error: "not b"}) || rs[2] != (runStruct{OK: true, Stdout: "c\n"}) {
		t.Errorf("results %+v", rs)
	}
	if _, err := os.Stat(filepath.Join(h.Workspace, "b")); err == nil {
		t.Error("the rejected call ran")
	}

	// A short Granted is false for the calls it leaves out; a granted single call runs.
	caps.verdict = func(context.Context, []gate.ToolCall) (gate.Verdict, error) {
		return gate.Verdict{Text: "no", Granted: []bool{true}}, nil
	}
	out = mustExec(t, h, caps, `result = [r.ok for r in run_batch([["true"], ["true"]])] + [run(["true"]).ok, write("w.txt", "x").ok]`)
	if out != `[true,false,true,true]` {
		t.Errorf("result %s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(h.Workspace, "w.txt")); string(data) != "x" {
		t.Errorf("the granted write did not happen: %q", data)
	}
}

// A gated action that did not happen says so in the run's log, even when the script ignores
// the result; one that did says nothing.
func TestRunNotDoneIsLogged(t *testing.T) {
	h := newTestHost(t, Limits{})
	long := strings.Repeat("x", 200)
	for _, tc := range []struct {
		src     string
		verdict func(context.Context, []gate.ToolCall) (gate.Verdict, error)
		want    []string
	}{
		{`run(["rm", "x"])`, reject("rejected by the user"), []string{"run rm x was not done: rejected by the user"}},
		{`run(["rm", "x"])`, reject("no answer in time"), []string{"run rm x was not done: no answer in time"}},
		{`run(["rm", "x"])`, reject(""), []string{"run rm x was not done: rejected"}},
		{`run(["rm", "x"])`, reject("rejected by the user: use git rm\nand commit"), []string{"run rm x was not done: rejected by the user: use git rm…"}},
		{`run(["false"])`, nil, []string{"run false exited with status 1"}},
		{`run(["sh", "-c", "exit 3"])`, nil, []string{"run sh -c 'exit 3' exited with status 3"}},
		{`run(["sleep", "30"], timeout = 0.2)`, nil, []string{"run sleep 30 timed out after 200ms"}},
		{`run(["no-such-program-here"])`, nil, []string{`run no-such-program-here failed: exec: "no-such-program-here": executable file not found in $PATH`}},
		{`run(["sh", "-c", "kill -9 $$"])`, nil, []string{"run sh -c 'kill -9 $$' failed: signal: killed"}},
		{`run(["echo", "` + long + `"])`, reject("no"), []string{"run echo " + strings.Repeat("x", 120-len("echo ")-1) + "… was not done: no"}},
		{`run_batch([["true"], ["rm", "a"], ["rm", "b"]])`, func(context.Context, []gate.ToolCall) (gate.Verdict, error) {
			return gate.Verdict{Text: "not these", Granted: []bool{true}}, nil
		}, []string{"run rm a was not done: not these", "run rm b was not done: not these"}},
		{`run_batch([["true"], ["false"]])`, nil, []string{"run false exited with status 1"}},
		{`run(["true"])`, nil, nil},
		{`run(["sh", "-c", "echo out; echo err >&2"])`, nil, nil},
	} {
		caps := &fakeCaps{verdict: tc.verdict}
		mustExec(t, h, caps, tc.src)
		var got []string
		for _, line := range caps.streamed(protocol.StreamLog) {
			got = append(got, strings.TrimSuffix(line, "\n"))
			if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
				t.Errorf("%s: log %q is not one line", tc.src, line)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: logged %q; want %q", tc.src, got, tc.want)
		}
		for _, e := range caps.outputs {
			if e.stream == protocol.StreamLog && e.argv != nil {
				t.Errorf("%s: a log line with argv %q", tc.src, e.argv)
			}
		}
	}
}
