// Package script is the sandboxed Starlark host where /script code, catalogue examples and
// functions run.
//
// A script reaches the world only through the capabilities it is handed (Caps: send, ask,
// the approval gate, output) and the workspace the host confines it to. Starlark itself has
// no I/O, no clock and no load() here, so everything a script can touch is a builtin of
// this package; each one is listed in builtins.go.
//
// Where it can (Linux, in a binary that calls ChildMain first), the host runs each execution
// in a child process with a memory limit the kernel enforces, so that a script that builds
// gigabytes kills its child and not the server. The child calls back over a pipe for every
// capability; the server keeps the gate and starts the processes (child.go, parent.go).
// Limits lists every bound: steps, wall clock, memory, output and file sizes.
package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Limits bound one execution. A zero field takes its value from DefaultLimits.
type Limits struct {
	// Steps caps the Starlark computation steps of one execution.
	Steps uint64
	// Wall caps the time an execution may take, minus the time it spends blocked in a
	// capability that waits on a person or on the runtime (send, ask, confirm and the
	// approval gate): someone may take minutes to answer, and that is not the script's
	// doing. Processes started by run() do count.
	Wall time.Duration
	// ProcessTimeout caps one process started by run(); a script may ask for less.
	ProcessTimeout time.Duration
	// OutputBytes caps the output captured (and streamed) from one process, stdout and
	// stderr together; it also caps what one execution may print().
	OutputBytes int
	// ReadBytes caps the size of a file read().
	ReadBytes int64
	// SentBytes and SentMessages cap what one execution may send() in all: each message is
	// a thread's entry in the event log, and a loop of sends filled the log and the
	// server's memory past a gigabyte (QA round 22).
	SentBytes    int
	SentMessages int
	// Memory caps what one execution may hold, in bytes. Where scripts run in a child
	// process (Linux, once ChildMain has run) the kernel enforces it on the child's address
	// space; past it the child dies and the execution fails with ErrMemoryLimit.
	Memory int64
}

// DefaultLimits are the limits of an execution when nothing else is asked for.
func DefaultLimits() Limits {
	return Limits{
		Steps:          10_000_000,
		Wall:           60 * time.Second,
		ProcessTimeout: 30 * time.Second,
		OutputBytes:    256 << 10,
		ReadBytes:      1 << 20,
		Memory:         256 << 20,
		SentBytes:      1 << 20,
		SentMessages:   1000,
	}
}

// withDefaults fills the zero fields of l.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.Steps = orDefault(l.Steps, d.Steps)
	l.Wall = orDefault(l.Wall, d.Wall)
	l.ProcessTimeout = orDefault(l.ProcessTimeout, d.ProcessTimeout)
	l.OutputBytes = orDefault(l.OutputBytes, d.OutputBytes)
	l.ReadBytes = orDefault(l.ReadBytes, d.ReadBytes)
	l.Memory = orDefault(l.Memory, d.Memory)
	l.SentBytes = orDefault(l.SentBytes, d.SentBytes)
	l.SentMessages = orDefault(l.SentMessages, d.SentMessages)
	return l
}

// orDefault is v, or d when v is zero or below: a limit of nothing is no limit asked for.
func orDefault[T int | int64 | uint64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// sentTally counts what an execution has sent, against Limits.SentBytes and SentMessages.
type sentTally struct{ bytes, messages int }

// add counts one more message of n bytes, or says why it may not be sent.
func (s *sentTally) add(n int, l Limits) error {
	if s.messages+1 > l.SentMessages || s.bytes+n > l.SentBytes {
		return fmt.Errorf("send(): this run has sent %d messages (%s), the most one run may send is %d messages or %s; send fewer, longer messages, or write() the rest to a file",
			s.messages, sizeText(int64(s.bytes)), l.SentMessages, sizeText(int64(l.SentBytes)))
	}
	s.bytes += n
	s.messages++
	return nil
}

// Host runs scripts, examples and functions against one workspace.
//
// A Host holds no per-run state: Exec and Call may run concurrently.
type Host struct {
	// Workspace is the absolute, symlink-free directory scripts are confined to.
	Workspace string
	// Limits bound every execution.
	Limits Limits
}

// NewHost returns a host confined to workspace, which must be an existing directory. The
// path is made absolute and its symlinks resolved, so confinement checks compare real paths.
func NewHost(workspace string, limits Limits) (*Host, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("script host: workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("script host: workspace: %w", err)
	}
	return &Host{Workspace: real, Limits: limits.withDefaults()}, nil
}

// Errors an execution can fail with, for errors.Is. The error's text says more.
var (
	// ErrStepLimit: the execution ran more than Limits.Steps steps.
	ErrStepLimit = errors.New("step limit hit")
	// ErrWallLimit: the execution ran longer than Limits.Wall.
	ErrWallLimit = errors.New("wall-clock limit hit")
)

// Error is how an execution fails. Its text is what a person is shown: the message with the
// script's backtrace (file:line:col of every frame), or a syntax error's position.
type Error struct {
	Text string
	// Err is the cause, if one is known: context.Canceled (the turn was stopped),
	// decision.ErrAborted (a question or an approval ended without an answer), ErrStepLimit,
	// ErrWallLimit, or the error a builtin failed with.
	Err error
}

func (e *Error) Error() string { return e.Text }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// fileOptions is the Starlark dialect scripts are written in: top-level statements and
// while loops are allowed because a script is a program run top to bottom, not a config.
var fileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
}

// Exec runs a script or an example top to bottom and returns the value of its global
// `result` as text (a string as is, anything else as JSON; "" when unset or None).
//
// name is the file name positions are reported with ("script", "examples/hello.star").
// vars, a JSON object or empty, is the script's global `vars` dict. Exec returns when the
// script ends, fails, or ctx is done (the process it runs is killed); a failure is an
// *Error. Exec calls caps one call at a time, except Output: see Caps. The script runs in a
// child process where the host can (see child.go); results and errors longer than 512 KiB
// are cut, with a note.
func (h *Host) Exec(ctx context.Context, name, src string, vars json.RawMessage, caps Caps) (string, error) {
	return h.run(ctx, jobExec, name, src, vars, caps, h.exec)
}

// run runs a job of kind (jobExec or jobCall) in a child where the host can, else here with
// local, and cuts its result.
func (h *Host) run(ctx context.Context, kind, name, src string, vars json.RawMessage, caps Caps,
	local func(context.Context, string, string, json.RawMessage, Caps) (string, error)) (string, error) {
	if h.isolated() {
		done, err := h.inChild(ctx, job{Kind: kind, Name: name, Source: src, Vars: string(vars)}, caps)
		return h.cut(done.Result, err)
	}
	return h.cut(local(ctx, name, src, vars, caps))
}

// exec is Exec in this process.
func (h *Host) exec(ctx context.Context, name, src string, vars json.RawMessage, caps Caps) (string, error) {
	v, err := jsonObjectToDict(vars)
	if err != nil {
		return "", &Error{Text: fmt.Sprintf("%s: vars %v", name, err), Err: err}
	}
	r := h.start(ctx, name, caps)
	defer r.finish()
	predeclared := r.env.predeclared()
	predeclared["vars"] = v
	globals, err := starlark.ExecFileOptions(fileOptions, r.thread, name, src, predeclared)
	if err != nil {
		return "", r.fail(err)
	}
	out, err := resultText(globals["result"])
	if err != nil {
		return "", r.fail(fmt.Errorf("%s: result: %w", name, err))
	}
	return out, nil
}

// run is one execution in progress: its thread, its capabilities and its limits.
type run struct {
	ctx    context.Context // done when the caller's ctx is, or the wall clock runs out
	cancel context.CancelCauseFunc
	thread *starlark.Thread
	env    *env
	clock  *clock
	stop   func() bool // unregisters the ctx watcher
	parent context.Context
}

// start prepares an execution: a thread with the step limit, load() refused, print() routed
// to Output, and a wall clock that cancels both the thread and the run's context.
func (h *Host) start(parent context.Context, name string, caps Caps) *run {
	ctx, cancel := context.WithCancelCause(parent)
	r := &run{ctx: ctx, cancel: cancel, parent: parent}
	r.thread = &starlark.Thread{
		Name: name,
		Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
			return nil, errors.New("load is not available in Parley scripts")
		},
	}
	r.thread.SetMaxExecutionSteps(h.Limits.Steps)
	r.thread.OnMaxSteps = func(t *starlark.Thread) {
		err := fmt.Errorf("%w: the script ran more than %d steps", ErrStepLimit, h.Limits.Steps)
		r.cancel(err)
		t.Cancel(err.Error())
	}
	r.env = newEnv(ctx, h, caps, r)
	r.thread.Print = r.env.print
	r.clock = startClock(h.Limits.Wall, func() {
		err := fmt.Errorf("%w: %s", ErrWallLimit, wallText(h.Limits.Wall))
		r.cancel(err) // kills a process it is running
		r.thread.Cancel(err.Error())
	})
	// A stopped turn must end a busy loop too, not only a blocked capability.
	r.stop = context.AfterFunc(parent, func() {
		r.thread.Cancel(stoppedText(parent))
	})
	return r
}

// finish releases the execution's timer and watcher.
func (r *run) finish() {
	r.clock.stop()
	r.stop()
	r.cancel(nil)
}

// fail turns an execution error into an *Error: the backtrace for a runtime error, the
// position for a syntax or resolve error, and the most telling cause for errors.Is.
func (r *run) fail(err error) error {
	text := err.Error()
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		text = ee.Backtrace()
	}
	cause := errors.Unwrap(err)
	if ee != nil {
		cause = ee.Unwrap()
	}
	// A cancelled thread fails with the interpreter's own error; say why it was cancelled.
	if stop := r.interrupted(); stop != nil {
		cause = stop
		// A stop is no fault of the script: say so and where it was, without a traceback.
		var se *stoppedError
		if errors.As(stop, &se) {
			text = se.text
			if at := scriptPosition(ee); at != "" {
				text = at + ": " + text
			}
		}
	}
	return &Error{Text: text, Err: cause}
}

// scriptPosition returns where in the script's own code an error happened (file:line:col
// of its innermost frame that is not a builtin), or "".
func scriptPosition(ee *starlark.EvalError) string {
	if ee == nil {
		return ""
	}
	for i := len(ee.CallStack) - 1; i >= 0; i-- {
		if pos := ee.CallStack[i].Pos; pos.IsValid() && pos.Filename() != "<builtin>" {
			return pos.String()
		}
	}
	return ""
}

// interrupted says why the execution must end early, or nil: the caller's context is done
// (the turn was stopped) or a limit was hit.
func (r *run) interrupted() error {
	if r.parent.Err() != nil {
		return &stoppedError{text: stoppedText(r.parent), err: r.parent.Err(), cause: context.Cause(r.parent)}
	}
	return context.Cause(r.ctx)
}

// stoppedError is how a run ends when its caller's context does: words for a person, and
// for errors.Is both the context's error (context.Canceled) and the cause it was cancelled
// with, if any.
type stoppedError struct {
	text       string
	err, cause error
}

func (e *stoppedError) Error() string { return e.text }

func (e *stoppedError) Unwrap() []error {
	if e.cause == nil || e.cause == e.err {
		return []error{e.err}
	}
	return []error{e.err, e.cause}
}

// stoppedText words why a run whose caller's context is done stopped.
func stoppedText(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "the run was stopped: it ran out of time"
	}
	return "the run was stopped by the user"
}

// maxResultBytes caps an execution's result and its error's text: they are stored in one
// event, which must fit the log's largest message (1 MiB) with room to spare.
const maxResultBytes = 512 << 10

// cut cuts an execution's result and error text to maxResultBytes, with a note.
func (h *Host) cut(result string, err error) (string, error) {
	var e *Error
	if errors.As(err, &e) {
		e.Text = cutText(e.Text, maxResultBytes, "error")
	}
	return cutText(result, maxResultBytes, "result"), err
}

// resultText renders a script's result as text: strings as they are, None as nothing, the
// rest as JSON.
func resultText(v starlark.Value) (string, error) {
	switch v := v.(type) {
	case nil, starlark.NoneType:
		return "", nil
	case starlark.String:
		return string(v), nil
	}
	b, err := toJSON(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
