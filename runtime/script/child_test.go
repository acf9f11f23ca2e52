package script

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"parley/runtime/gate"
)

// requireChild skips a test of the child process where scripts run in the server.
func requireChild(t testing.TB) {
	t.Helper()
	if !(&Host{}).isolated() {
		t.Skip("scripts run in the server here: no child process, no memory limit")
	}
}

// Each of these took the server down: 24 GB, 1 GB held after the end, 2.6 GB. Now each ends
// with the memory error, quickly, and the test process (the server) stays small.
func TestMemoryLimitStopsHostileScripts(t *testing.T) {
	requireChild(t)
	h := newTestHost(t, Limits{Steps: 1 << 40})
	for _, tc := range []struct{ name, src string }{
		{"doubling", "x = \"a\"\nfor i in range(40):\n    x = x + x\n"},
		{"repeat", `x = "a" * 1000000000`},
		{"list", `x = [0] * 100000000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			quick(t, 10*time.Second, func() { err = execErr(t, h, &fakeCaps{}, tc.src) })
			if !errors.Is(err, ErrMemoryLimit) {
				t.Errorf("%v is not ErrMemoryLimit", err)
			}
			wantContains(t, err.Error(), "script: the script ran out of memory (limit 256 MiB)", "-script-memory")
		})
	}
	peak := peakRSS(t)
	t.Logf("the test process peaked at %d MiB resident", peak>>20)
	if peak > 200<<20 {
		t.Errorf("the server peaked at %s resident; the scripts' memory was not held in their child", sizeText(peak))
	}
}

// peakRSS is the test process's peak resident set (VmHWM).
func peakRSS(t *testing.T) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.Fields(rest)[0]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}

// The limit is what a script may hold, near enough: most of it is usable, and a smaller one
// is kept and named.
func TestMemoryLimitAllowsWhatFits(t *testing.T) {
	requireChild(t)
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against the limit")
	}
	h := newTestHost(t, Limits{})
	// Well under the limit: the limit is on address space, and with the heap's random base a
	// large span whose arena misses its hint costs the runtime a 64 MiB arena more of it.
	// 200 MiB of 256 died once in CI, and with 160 of 256 and 64 of 128 the test failed once
	// more under load.
	if out := mustExec(t, h, &fakeCaps{}, `result = len("a" * (96 << 20))`); out != strconv.Itoa(96<<20) {
		t.Errorf("96 MiB of a 256 MiB limit: %q", out)
	}
	small := newTestHost(t, Limits{Memory: 128 << 20})
	if out := mustExec(t, small, &fakeCaps{}, `result = len("a" * (32 << 20))`); out != strconv.Itoa(32<<20) {
		t.Errorf("32 MiB of a 128 MiB limit: %q", out)
	}
	// Past the limit and its slack (two 64 MiB arenas) whatever the heap's layout.
	err := execErr(t, small, &fakeCaps{}, `x = "a" * (384 << 20)`)
	if !errors.Is(err, ErrMemoryLimit) {
		t.Errorf("%v is not ErrMemoryLimit", err)
	}
	wantContains(t, err.Error(), "(limit 128 MiB)")
}

// A function and a function file's description are held to the limit too.
func TestMemoryLimitHoldsFunctions(t *testing.T) {
	requireChild(t)
	hostile := "x = \"a\"\nfor i in range(40):\n    x = x + x\n\ndef main(args):\n    return 1\n"
	_, err := LoadFunction("functions/hog.star", hostile)
	if !errors.Is(err, ErrMemoryLimit) {
		t.Errorf("LoadFunction: %v is not ErrMemoryLimit", err)
	}
	h := newTestHost(t, Limits{})
	_, err = h.Call(context.Background(), "functions/hog.star", "def main(args):\n    return [0] * 100000000\n", nil, &fakeCaps{})
	if !errors.Is(err, ErrMemoryLimit) {
		t.Errorf("Call: %v is not ErrMemoryLimit", err)
	}
}

// A send() of 2 MiB failed with the log's "maximum payload exceeded"; it is cut as print() is.
func TestSendIsCut(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	mustExec(t, h, caps, `send("é" * (1 << 20))`) // 2 MiB, two bytes a character
	sent := caps.sentMessages()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages", len(sent))
	}
	body, note, _ := strings.Cut(sent[0], "\n[")
	if body != strings.Repeat("é", 128<<10) || note != "message truncated after 256 KiB]" {
		t.Errorf("sent %d bytes ending %q; want 256 KiB and the note", len(sent[0]), sent[0][len(sent[0])-40:])
	}
}

// A result or an error too large for one event is cut too.
func TestResultIsCut(t *testing.T) {
	h := newTestHost(t, Limits{})
	out := mustExec(t, h, &fakeCaps{}, `result = "x" * (1 << 20)`)
	if len(out) > maxResultBytes+100 || !strings.HasSuffix(out, "\n[result truncated after 512 KiB]") {
		t.Errorf("result of %d bytes ending %q", len(out), out[len(out)-40:])
	}
	err := execErr(t, h, &fakeCaps{}, `fail("x" * (1 << 20))`)
	if len(err.Error()) > maxResultBytes+100 || !strings.HasSuffix(err.Error(), "\n[error truncated after 512 KiB]") {
		t.Errorf("error of %d bytes", len(err.Error()))
	}
}

// The server runs what the gate let through and nothing else, whatever a child asks.
func TestServerRunsOnlyApprovedCommands(t *testing.T) {
	p := &parent{batches: map[int64]*batch{
		1: {calls: []gate.ToolCall{{Tool: "run", Words: []string{"true"}}, {Tool: "run", Words: []string{"rm", "-rf", "x"}}, {Tool: "write", Words: []string{"a"}}},
			verdict: gate.Verdict{Granted: []bool{true, false, true}}, ran: make([]bool, 3)},
	}}
	if argv, err := p.approved(1, 0); err != nil || argv[0] != "true" {
		t.Errorf("granted call: %q, %v", argv, err)
	}
	for _, tc := range []struct {
		batch int64
		index int
		want  string
	}{
		{1, 0, "already ran"},
		{1, 1, "rejected"},
		{1, 2, "not authorized"}, // a write
		{1, 3, "not authorized"},
		{2, 0, "not authorized"},
	} {
		if _, err := p.approved(tc.batch, tc.index); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("batch %d call %d: %v; want %q", tc.batch, tc.index, err, tc.want)
		}
	}
	calls, err := checkCalls([]gate.ToolCall{{Tool: "run", Words: []string{"rm", "-rf", "/"}, Details: "ls"}})
	if err != nil || calls[0].Details != "rm -rf /" {
		t.Errorf("the user is shown %q (%v); want the command that runs", calls[0].Details, err)
	}
	for _, bad := range [][]gate.ToolCall{nil, {{Tool: "exec", Words: []string{"x"}}}, {{Tool: "run"}}, {{Tool: "write", Words: []string{"a", "b"}}}} {
		if _, err := checkCalls(bad); err == nil {
			t.Errorf("%+v passed", bad)
		}
	}
}

// A command line too long to show or run is refused before it is asked about.
func TestRunRefusesHugeArgv(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	err := execErr(t, h, caps, `run(["echo", "x" * (1 << 20)])`)
	wantContains(t, err.Error(), "the command is 1048582 bytes long; at most 128 KiB can be run")
	if len(caps.authorized()) != 0 {
		t.Error("the gate was asked")
	}
}

// BenchmarkExec measures what a run costs with its child (start, wire, exit) against the
// same script in the server.
func BenchmarkExec(b *testing.B) {
	h, err := NewHost(b.TempDir(), Limits{})
	if err != nil {
		b.Fatal(err)
	}
	const src = `send("hi")`
	b.Run("child", func(b *testing.B) {
		requireChild(b)
		for b.Loop() {
			if _, err := h.Exec(context.Background(), "script", src, nil, &fakeCaps{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			if _, err := h.exec(context.Background(), "script", src, nil, &fakeCaps{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A question too large to store is refused before it is asked.
func TestAskRefusesHugeQuestion(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	err := execErr(t, h, caps, `ask("Which?", {"type": "string", "enum": ["%d%s" % (i, "x" * 1000) for i in range(250)] + ["y" * 1000000]})`)
	wantContains(t, err.Error(), "at most 256 KiB can be asked")
	if len(caps.questions()) != 0 {
		t.Error("the question was asked")
	}
}

// A long script reaches its child whole.
func TestLongSource(t *testing.T) {
	h := newTestHost(t, Limits{})
	src := "# " + strings.Repeat("x", 8<<20) + "\nresult = 'ran'\n"
	if out := mustExec(t, h, &fakeCaps{}, src); out != "ran" {
		t.Errorf("result %q", out)
	}
}

// A script busy in one long step (no step boundary where its thread could be cancelled) is
// still ended at its wall clock or its stop: the server kills its child.
func TestServerKillsAChildThatCannotStop(t *testing.T) {
	requireChild(t)
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against the limit")
	}
	defer func(g time.Duration) { childGrace = g }(childGrace)
	childGrace = 10 * time.Millisecond
	const long = `x = "a" * (900 << 20)` // a second or so of one step
	h := newTestHost(t, Limits{Memory: 2 << 30, Wall: 50 * time.Millisecond})
	var err error
	// The words prove the server's kill: a child that lived to the step's end would say where
	// it was (script:1:…). The bound only guards against a hang: the time a loaded machine
	// takes is no proof.
	quick(t, 10*time.Second, func() { err = execErr(t, h, &fakeCaps{}, long) })
	if !errors.Is(err, ErrWallLimit) || err.Error() != "script: the script ran longer than 50ms (time spent waiting for answers does not count)" {
		t.Errorf("%q; want the wall-clock error, from the server", err)
	}

	h = newTestHost(t, Limits{Memory: 2 << 30})
	ctx, cancel := context.WithCancel(context.Background())
	// The stop comes once the child is about to take the step, not at a time from the start:
	// a loaded machine's child may still be starting then, and would word the stop itself.
	caps := &fakeCaps{onSend: func(string) { time.AfterFunc(50*time.Millisecond, cancel) }}
	quick(t, 10*time.Second, func() { _, err = h.Exec(ctx, "script", "send('step')\n"+long, nil, caps) })
	if !errors.Is(err, context.Canceled) || err == nil || err.Error() != "script: the run was stopped by the user" {
		t.Errorf("%v; want the stop, from the server", err)
	}
}

// A run stopped before its child has its job is stopped, not broken.
func TestStoppedBeforeItStarts(t *testing.T) {
	h := newTestHost(t, Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 5 {
		_, err := h.Exec(ctx, "script", "x = 1\nwhile True:\n    x += 1\n", nil, &fakeCaps{})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the run was stopped by the user") {
			t.Fatalf("%v; want the stop", err)
		}
	}
}
