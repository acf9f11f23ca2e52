package script

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

func TestResultText(t *testing.T) {
	h := newTestHost(t, Limits{})
	for _, tc := range []struct{ src, want string }{
		{`x = 1`, ""},
		{`result = None`, ""},
		{`result = "plain text"`, "plain text"},
		{`result = {"b": 1, "a": [True, None, 1.5]}`, `{"b":1,"a":[true,null,1.5]}`},
		{`result = struct(n = 2)`, `{"n":2}`},
		{`result = 12345678901234567890123`, "12345678901234567890123"},
	} {
		if got := mustExec(t, h, &fakeCaps{}, tc.src); got != tc.want {
			t.Errorf("%s: result %q, want %q", tc.src, got, tc.want)
		}
	}
	err := execErr(t, h, &fakeCaps{}, "result = len")
	wantContains(t, err.Error(), "result", "JSON")
}

func TestSendAndPrint(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	mustExec(t, h, caps, "send('one')\nprint('logged', 2)\nsend(3)")
	if got := caps.sentMessages(); !slices.Equal(got, []string{"one", "3"}) {
		t.Errorf("sent %q", got)
	}
	if len(caps.outputs) != 1 || caps.outputs[0].stream != protocol.StreamLog || caps.outputs[0].argv != nil || caps.outputs[0].text != "logged 2\n" {
		t.Errorf("outputs %+v; want one log line", caps.outputs)
	}
}

// TestAnEmptySendSendsNothing: an empty or blank send() would be an empty bubble in the
// thread; it sends nothing and says so in the run's log.
func TestAnEmptySendSendsNothing(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{}
	mustExec(t, h, caps, "send('')\nsend(' \\n ')\nsend('kept')")
	if got := caps.sentMessages(); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("sent %q; want only the message with words", got)
	}
	if log := caps.streamed(protocol.StreamLog); len(log) != 2 || !strings.Contains(log[0], "nothing to send") {
		t.Errorf("log %q; want a line for each empty send", log)
	}
}

func TestPrintIsCapped(t *testing.T) {
	h := newTestHost(t, Limits{OutputBytes: 100})
	caps := &fakeCaps{}
	mustExec(t, h, caps, "for i in range(1000): print('0123456789')")
	log := caps.streamed(protocol.StreamLog)
	if len(log) != 10 || log[9] != "0\n[print output truncated after 100 bytes]\n" {
		t.Errorf("log %q; want 9 lines, the tenth's start and the note", log)
	}
	// One print larger than the cap keeps what fits, cut at a character's start.
	caps = &fakeCaps{}
	mustExec(t, h, caps, "print('é' * 80)")
	log = caps.streamed(protocol.StreamLog)
	if want := strings.Repeat("é", 50) + "\n[print output truncated after 100 bytes]\n"; len(log) != 1 || log[0] != want {
		t.Errorf("log %q; want %q", log, want)
	}
}

// TestSendIsCapped: what one run may send() in all is bounded, in messages and in bytes, and
// the send past it fails the script with words that say what to do (QA round 22, P1: a loop
// of sends filled the log and the server's memory past a gigabyte).
func TestSendIsCapped(t *testing.T) {
	cases := []struct {
		name   string
		limits Limits
		src    string
		sent   int      // messages that reached the thread
		says   []string // in the script's error
	}{
		{"messages", Limits{SentMessages: 5}, `for i in range(100): send("m%d" % i)`, 5,
			[]string{"this run has sent 5 messages", "the most one run may send is 5 messages or 1 MiB", "write() the rest to a file"}},
		{"bytes", Limits{OutputBytes: 1000, SentBytes: 2500}, `for i in range(100): send("x" * 900)`, 2,
			[]string{"this run has sent 2 messages (1800 bytes)", "or 2500 bytes"}},
		{"the defaults hold a thousand messages", Limits{}, `for i in range(1500): send("m")`, 1000,
			[]string{"the most one run may send is 1000 messages or 1 MiB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			caps := &fakeCaps{}
			err := execErr(t, newTestHost(t, c.limits), caps, c.src)
			wantContains(t, err.Error(), c.says...)
			caps.mu.Lock()
			defer caps.mu.Unlock()
			if len(caps.sent) != c.sent {
				t.Errorf("%d messages reached the thread, want %d", len(caps.sent), c.sent)
			}
		})
	}
}

func TestVars(t *testing.T) {
	h := newTestHost(t, Limits{})
	out, err := h.Exec(context.Background(), "script", `result = vars`, json.RawMessage(`{"z": 1, "a": {"b": [1, "x"]}}`), &fakeCaps{})
	if err != nil || out != `{"z":1,"a":{"b":[1,"x"]}}` {
		t.Errorf("vars: %q, %v", out, err)
	}
	if out := mustExec(t, h, &fakeCaps{}, `result = len(vars)`); out != "0" {
		t.Errorf("no vars: len %s", out)
	}
	_, err = h.Exec(context.Background(), "script", `pass`, json.RawMessage(`[1]`), &fakeCaps{})
	if err == nil {
		t.Fatal("vars that are not an object were accepted")
	}
	wantContains(t, err.Error(), "vars", "JSON object")
}

func TestJSONAndStructArePredeclared(t *testing.T) {
	h := newTestHost(t, Limits{})
	out := mustExec(t, h, &fakeCaps{}, `result = json.encode({"a": [1, 2]})`)
	if out != `{"a":[1,2]}` {
		t.Errorf("json.encode: %q", out)
	}
	if out := mustExec(t, h, &fakeCaps{}, `result = json.decode('{"k": 3}')["k"] + struct(x = 4).x`); out != "7" {
		t.Errorf("json.decode + struct: %q", out)
	}
}

func TestListStillConverts(t *testing.T) {
	h := newTestHost(t, Limits{})
	if out := mustExec(t, h, &fakeCaps{}, `result = list((1, 2)) + list({"k": 1})`); out != `[1,2,"k"]` {
		t.Errorf("list(iterable): %q", out)
	}
}

func TestLoadIsRefused(t *testing.T) {
	h := newTestHost(t, Limits{})
	err := execErr(t, h, &fakeCaps{}, `load("other.star", "x")`)
	wantContains(t, err.Error(), "load is not available in Parley scripts", "script:1:")
}

func TestErrorsCarryLineNumbers(t *testing.T) {
	h := newTestHost(t, Limits{})
	err := execErr(t, h, &fakeCaps{}, "x = 1\ny = 2\nz = x + 'a'\n")
	wantContains(t, err.Error(), "script:3:", "Traceback", "unknown binary op")

	// A failure inside a function lists every frame.
	err = execErr(t, h, &fakeCaps{}, "def f():\n    return run([])\n\nf()\n")
	wantContains(t, err.Error(), "script:4:", "script:2:", "argv is empty")

	// Syntax errors say line and column.
	err = execErr(t, h, &fakeCaps{}, "x = 1\ny = (\n")
	wantContains(t, err.Error(), "script:3:1:")

	// Resolve errors too, under the example's own name.
	_, err = h.Exec(context.Background(), "examples/x.star", "x = 1\nundefined_name\n", nil, &fakeCaps{})
	if err == nil {
		t.Fatal("an undefined name passed")
	}
	wantContains(t, err.Error(), "examples/x.star:2:1:", "undefined")
}

func TestStepLimit(t *testing.T) {
	h := newTestHost(t, Limits{Steps: 1000})
	var err error
	quick(t, 5*time.Second, func() { err = execErr(t, h, &fakeCaps{}, "x = 0\nfor i in range(100000000): pass\n") })
	wantContains(t, err.Error(), "step limit", "1000 steps", "script:2:")
	if !errors.Is(err, ErrStepLimit) {
		t.Errorf("%v is not ErrStepLimit", err)
	}
}

func TestWallLimitStopsBusyLoop(t *testing.T) {
	h := newTestHost(t, Limits{Steps: 1 << 62, Wall: 200 * time.Millisecond})
	var err error
	quick(t, 5*time.Second, func() { err = execErr(t, h, &fakeCaps{}, "while True:\n    pass\n") })
	wantContains(t, err.Error(), "ran longer than 200ms", "script:")
	if !errors.Is(err, ErrWallLimit) {
		t.Errorf("%v is not ErrWallLimit", err)
	}
}

func TestWallLimitKillsProcess(t *testing.T) {
	h := newTestHost(t, Limits{Wall: 300 * time.Millisecond})
	var err error
	quick(t, 5*time.Second, func() { err = execErr(t, h, &fakeCaps{}, `run(["sleep", "20"])`) })
	if !errors.Is(err, ErrWallLimit) {
		t.Errorf("%v is not ErrWallLimit", err)
	}
	wantContains(t, err.Error(), "Error in run", "script:1:")
}

func TestWallClockSkipsTimeWaitingForAnswers(t *testing.T) {
	// The budget leaves room for a loaded machine's process start; each wait alone
	// outlasts it.
	h := newTestHost(t, Limits{Wall: 2 * time.Second})
	slow := func(ctx context.Context) error {
		select {
		case <-time.After(2500 * time.Millisecond): // longer than the whole wall budget
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	caps := &fakeCaps{
		answer: func(ctx context.Context, _ protocol.DecisionRequest) (decision.Answer, error) {
			return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`"ok"`)}, slow(ctx)
		},
		verdict: func(ctx context.Context, _ []gate.ToolCall) (gate.Verdict, error) {
			return gate.Verdict{Allowed: true}, slow(ctx)
		},
	}
	out := mustExec(t, h, caps, `
a = ask("first?")
b = confirm("second?")
c = run(["true"]).ok
result = [a, b, c]
`)
	if out != `["ok",false,true]` {
		t.Errorf("result %s", out)
	}
}

func TestStopKillsTheRun(t *testing.T) {
	// Enough steps that the busy loop is still running when the stop comes, on any machine.
	h := newTestHost(t, Limits{Steps: 1 << 50})
	for _, src := range []string{`run(["sleep", "20"])`, "while True:\n    pass\n", `ask("wait forever?")`} {
		ctx, cancel := context.WithCancel(context.Background())
		caps := &fakeCaps{answer: func(ctx context.Context, _ protocol.DecisionRequest) (decision.Answer, error) {
			<-ctx.Done()
			return decision.Answer{}, ctx.Err()
		}}
		time.AfterFunc(200*time.Millisecond, cancel)
		var err error
		quick(t, 5*time.Second, func() { _, err = h.Exec(ctx, "script", src, nil, caps) })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v is not context.Canceled", src, err)
		}
		if err != nil {
			wantContains(t, err.Error(), "stopped")
		}
		cancel()
	}
}

func TestDefaultLimits(t *testing.T) {
	h, err := NewHost(t.TempDir(), Limits{Steps: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultLimits()
	want.Steps = 5
	if h.Limits != want {
		t.Errorf("limits %+v; want %+v", h.Limits, want)
	}
	if d := DefaultLimits(); d.Steps != 10_000_000 || d.Wall != time.Minute || d.ProcessTimeout != 30*time.Second || d.OutputBytes != 256<<10 || d.ReadBytes != 1<<20 {
		t.Errorf("DefaultLimits %+v", d)
	}
	if _, err := NewHost("/does/not/exist", Limits{}); err == nil {
		t.Error("a missing workspace was accepted")
	}
}

// A stop says so in words, without Go's "context canceled", and stays context.Canceled.
func TestStopIsWorded(t *testing.T) {
	h := newTestHost(t, Limits{Steps: 1 << 50})
	cause := errors.New("the turn was stopped")
	for _, src := range []string{`run(["sleep", "20"])`, "while True:\n    pass\n", `ask("wait forever?")`} {
		ctx, cancel := context.WithCancelCause(context.Background())
		caps := &fakeCaps{answer: func(ctx context.Context, _ protocol.DecisionRequest) (decision.Answer, error) {
			<-ctx.Done()
			return decision.Answer{}, ctx.Err()
		}}
		time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
		_, err := h.Exec(ctx, "script", src, nil, caps)
		if err == nil {
			t.Fatalf("%s: not stopped", src)
		}
		wantContains(t, err.Error(), "the run was stopped by the user", "script:")
		if strings.Contains(err.Error(), "context canceled") || strings.Contains(err.Error(), cause.Error()) {
			t.Errorf("%s: %q", src, err)
		}
		if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
			t.Errorf("%s: %v is not context.Canceled and its cause", src, err)
		}
	}
}
