package script

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// The server's side of a script child (see child.go): it starts the child, serves its calls
// with the capabilities it was handed, and turns how the child ended into the error the
// in-process host would have returned.

// ErrMemoryLimit: the execution needed more memory than Limits.Memory, and its child died.
var ErrMemoryLimit = errors.New("memory limit hit")

// childGrace is how long the server lets a child word a stop or an exhausted wall clock
// itself (with where the script was) before it kills it; also how long it waits for a child
// to exit after its last message. A variable for the tests.
var childGrace = 2 * time.Second

const (
	// stderrKept bounds what the server keeps of a child's stderr: the start of a fatal
	// error is what says why it died.
	stderrKept = 16 << 10
	// maxArgvBytes bounds one command line of run(): a longer one cannot be shown for
	// approval nor passed to the kernel (it takes at most 128 KiB per word).
	maxArgvBytes = 128 << 10
)

// isolated reports whether the host runs scripts in children: where the system has the
// limit, and once the binary dispatches child mode (ChildMain).
func (h *Host) isolated() bool { return isolates && childReady.Load() }

// inChild runs j in a child process with caps, and returns its done message.
func (h *Host) inChild(ctx context.Context, j job, caps Caps) (message, error) {
	j.Workspace, j.Limits = h.Workspace, h.Limits.withDefaults()
	p := &parent{host: h, lim: j.Limits, ctx: ctx, caps: caps, name: j.Name,
		ops: map[int64]context.CancelFunc{}, batches: map[int64]*batch{}, errs: map[int64]error{}}
	return p.run(j)
}

// parent is one child, seen from the server.
type parent struct {
	host *Host
	lim  Limits
	ctx  context.Context // the caller's: its end stops the run
	caps Caps
	name string
	conn *conn
	cmd  *exec.Cmd
	// clock is the wall-clock budget plus childGrace, paused while a call waits on someone,
	// as the child's own is: it kills a child too busy to stop itself.
	clock *clock
	// sent counts the child's send()s: the child counts them too, but is not trusted to.
	sent sentTally

	mu       sync.Mutex
	ops      map[int64]context.CancelFunc // calls being served
	batches  map[int64]*batch             // authorize calls, by id
	errs     map[int64]error              // what failed calls failed with, by id
	killed   error                        // why the server killed the child, if it did
	reaped   bool                         // the child is gone: nothing may signal its pid
	stopOnce sync.Once                    // the stop message is sent
	wg       sync.WaitGroup
}

// batch is what the gate let through: process calls may run these and nothing else.
type batch struct {
	calls   []gate.ToolCall
	verdict gate.Verdict
	ran     []bool
}

func (p *parent) run(j job) (message, error) {
	exe, err := selfExecutable()
	if err != nil {
		return message{}, &Error{Text: fmt.Sprintf("%s: cannot start the script: %v", j.Name, err), Err: err}
	}
	toR, toW, err := os.Pipe()
	if err != nil {
		return message{}, &Error{Text: fmt.Sprintf("%s: cannot start the script: %v", j.Name, err), Err: err}
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		toR.Close()
		toW.Close()
		return message{}, &Error{Text: fmt.Sprintf("%s: cannot start the script: %v", j.Name, err), Err: err}
	}
	defer fromR.Close()
	defer toW.Close()

	stderr := &headBuffer{max: stderrKept}
	cmd := exec.Command(exe, childArg, strconv.FormatInt(p.lim.Memory, 10))
	cmd.Env = []string{} // nothing of the server's: no tokens, no credentials
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{toR, fromW}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	// Its own group, so a terminal's ^C reaches the server alone (which stops the run), and
	// a death signal: it dies with the server. Forked from a locked thread, as in runProcess.
	setProcessGroup(cmd)
	p.cmd = cmd
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	toR.Close()
	fromW.Close()
	if err != nil {
		return message{}, &Error{Text: fmt.Sprintf("%s: cannot start the script: %v", j.Name, err), Err: err}
	}

	p.conn = newConn(toW)
	p.clock = startClock(p.lim.Wall+childGrace, func() {
		p.kill(&Error{Text: fmt.Sprintf("%s: %s", p.name, wallText(p.lim.Wall)), Err: ErrWallLimit})
	})
	// The job goes first: a stop must not reach the child before it.
	readErr := p.conn.send(message{Kind: msgStart, Job: &j})
	var graceTimer *time.Timer
	unwatch := context.AfterFunc(p.ctx, func() {
		p.stop()
		p.mu.Lock()
		graceTimer = time.AfterFunc(childGrace, func() { p.kill(p.stopped("")) })
		p.mu.Unlock()
	})

	var done *message
	if readErr == nil {
		done, readErr = p.serve(newReader(fromR, maxLine))
	}
	if readErr != nil {
		p.kill(nil)
	}
	// Nothing the child asked for outlives it: a question is withdrawn, a process killed.
	p.mu.Lock()
	for _, cancel := range p.ops {
		cancel()
	}
	p.mu.Unlock()
	p.wg.Wait()
	unwatch()
	p.clock.stop()
	toW.Close()
	waitErr := p.wait()
	p.mu.Lock()
	p.reaped = true
	if graceTimer != nil {
		graceTimer.Stop()
	}
	killed := p.killed
	p.mu.Unlock()

	switch {
	case done != nil:
		return *done, p.errorOf(done.Err)
	case killed != nil:
		return message{}, killed
	case outOfMemory(stderr.String()):
		return message{}, &Error{Text: memoryText(p.name, p.lim.Memory), Err: ErrMemoryLimit}
	case readErr != nil:
		return message{}, &Error{Text: fmt.Sprintf("%s: the script's process misbehaved and was stopped: %v", p.name, readErr), Err: readErr}
	}
	why := "it ended"
	if waitErr != nil {
		why = waitErr.Error()
	}
	if line := firstLine(stderr.String()); line != "" {
		why += ": " + line
	}
	return message{}, &Error{Text: fmt.Sprintf("%s: the script's process ended without a result (%s)", p.name, why), Err: waitErr}
}

// serve answers the child's messages until its done message or the end of the wire.
func (p *parent) serve(r *reader) (*message, error) {
	for {
		m, err := r.next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		switch m.Kind {
		case msgDone:
			return &m, nil
		case msgOutput:
			// A child prints and logs; processes' output comes from the server itself.
			if p.caps != nil {
				p.caps.Output(protocol.StreamLog, nil, m.Text)
			}
		case msgCancel:
			p.mu.Lock()
			if cancel := p.ops[m.ID]; cancel != nil {
				cancel()
			}
			p.mu.Unlock()
		case msgCall:
			p.start(m)
		default:
			return nil, fmt.Errorf("unknown message %q", m.Kind)
		}
	}
}

// start serves one call in its own goroutine: the wire stays read meanwhile, for a cancel.
func (p *parent) start(m message) {
	ctx, cancel := context.WithCancel(p.ctx)
	p.mu.Lock()
	p.ops[m.ID] = cancel
	p.mu.Unlock()
	p.wg.Go(func() {
		reply := p.do(ctx, m)
		p.mu.Lock()
		delete(p.ops, m.ID)
		p.mu.Unlock()
		cancel()
		// A call that ended because the run was stopped must not reach the child before the
		// stop does: the child would take its error for the script's.
		if p.ctx.Err() != nil {
			p.stop()
		}
		reply.Kind, reply.ID = msgReply, m.ID
		p.conn.send(reply)
	})
}

// do serves a call with the caller's capabilities, under the same rules the in-process host
// keeps: the child is not trusted to have kept them.
func (p *parent) do(ctx context.Context, m message) message {
	lim := p.lim
	if p.caps == nil {
		return p.failed(m.ID, errors.New("no capabilities while a function file is described"))
	}
	switch m.Op {
	case opSend:
		p.clock.pause()
		defer p.clock.resume()
		// The child cut it already (send); cut it here too should it not have.
		text := m.Text
		if len(text) > lim.OutputBytes+1<<10 {
			text = cutText(text, lim.OutputBytes, "message")
		}
		p.mu.Lock()
		err := p.sent.add(len(text), lim)
		p.mu.Unlock()
		if err != nil {
			return p.failed(m.ID, err)
		}
		return p.failed(m.ID, p.caps.Send(ctx, text))
	case opAsk:
		if m.Request == nil {
			return p.failed(m.ID, errors.New("no question"))
		}
		if err := m.Request.Validate(); err != nil {
			return p.failed(m.ID, fmt.Errorf("invalid question: %s", fieldsText(err, "", "")))
		}
		if err := checkQuestion(*m.Request); err != nil {
			return p.failed(m.ID, err)
		}
		p.clock.pause()
		defer p.clock.resume()
		ans, err := p.caps.Ask(ctx, *m.Request)
		if err != nil {
			return p.failed(m.ID, err)
		}
		return message{Answer: &ans}
	case opAuthorize:
		calls, err := checkCalls(m.Calls)
		if err != nil {
			return p.failed(m.ID, err)
		}
		p.clock.pause()
		defer p.clock.resume()
		v, err := p.caps.Authorize(ctx, calls)
		if err != nil {
			return p.failed(m.ID, err)
		}
		p.mu.Lock()
		p.batches[m.ID] = &batch{calls: calls, verdict: v, ran: make([]bool, len(calls))}
		p.mu.Unlock()
		return message{Verdict: &v}
	case opProcess:
		argv, err := p.approved(m.Batch, m.Index)
		if err != nil {
			return p.failed(m.ID, err)
		}
		timeout := lim.ProcessTimeout
		if m.Timeout > 0 && m.Timeout < timeout {
			timeout = m.Timeout
		}
		res := runProcess(ctx, p.host.Workspace, argv, timeout, lim.OutputBytes, func(stream, text string) {
			p.caps.Output(stream, argv, text)
		})
		return message{Proc: toWireProc(res)}
	}
	return p.failed(m.ID, fmt.Errorf("unknown call %q", m.Op))
}

// failed is the reply to a call that failed with err (none when err is nil); the server
// keeps err, to return it should the script fail with it.
func (p *parent) failed(id int64, err error) message {
	if err == nil {
		return message{}
	}
	p.mu.Lock()
	p.errs[id] = err
	p.mu.Unlock()
	w := &wireError{Text: err.Error()}
	if errors.Is(err, decision.ErrAborted) {
		w.Cause = causeAborted
	}
	return message{Err: w}
}

// checkCalls checks the tool calls a child wants authorized: only run and write, and a run
// is shown to the user as the command line it is, whatever the child said.
func checkCalls(calls []gate.ToolCall) ([]gate.ToolCall, error) {
	if len(calls) == 0 {
		return nil, errors.New("nothing to authorize")
	}
	out := make([]gate.ToolCall, len(calls))
	for i, c := range calls {
		if len(c.Words) == 0 || c.Words[0] == "" {
			return nil, fmt.Errorf("call %d names nothing", i)
		}
		switch c.Tool {
		case "run":
			if err := checkArgv(c.Words); err != nil {
				return nil, err
			}
			c.Details = shellQuote(c.Words)
		case "write":
			if len(c.Words) != 1 {
				return nil, fmt.Errorf("call %d writes %d paths", i, len(c.Words))
			}
		default:
			return nil, fmt.Errorf("call %d: unknown tool %q", i, c.Tool)
		}
		out[i] = c
	}
	return out, nil
}

// maxQuestionBytes bounds a question (its message and schema, as JSON): it is stored in one
// event and shown in the composer.
const maxQuestionBytes = 256 << 10

// checkQuestion refuses a question too large to store and show.
func checkQuestion(req protocol.DecisionRequest) error {
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("invalid question: %w", err)
	}
	if len(b) > maxQuestionBytes {
		return fmt.Errorf("the question is %s long; at most %s can be asked: shorten its message or its schema", sizeText(int64(len(b))), sizeText(maxQuestionBytes))
	}
	return nil
}

// checkArgv refuses a command line too long to show and run.
func checkArgv(argv []string) error {
	n := 0
	for _, w := range argv {
		n += len(w) + 1
	}
	if n > maxArgvBytes {
		return fmt.Errorf("the command is %s long; at most %s can be run: pass large data in a file written with write()", sizeText(int64(n)), sizeText(maxArgvBytes))
	}
	return nil
}

// approved returns the command line of call i of an authorized batch, if the gate let it
// through and it has not run yet.
func (p *parent) approved(id int64, i int) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.batches[id]
	if b == nil || i < 0 || i >= len(b.calls) || b.calls[i].Tool != "run" {
		return nil, errors.New("this command was not authorized")
	}
	if !b.verdict.Allows(i) {
		return nil, errors.New("this command was rejected")
	}
	if b.ran[i] {
		return nil, errors.New("this command already ran")
	}
	b.ran[i] = true
	return b.calls[i].Words, nil
}

// stop tells the child to stop its script, once.
func (p *parent) stop() {
	p.stopOnce.Do(func() { p.conn.send(message{Kind: msgStop}) })
}

// kill ends the child, for why (nil: a broken wire), unless it has a reason already.
func (p *parent) kill(why error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return
	}
	if p.killed == nil && why != nil {
		p.killed = why
	}
	p.cmd.Process.Kill()
}

// wait reaps the child, killing it if it does not exit soon after the wire is closed.
func (p *parent) wait() error {
	waited := make(chan error, 1)
	go func() { waited <- p.cmd.Wait() }()
	select {
	case err := <-waited:
		return err
	case <-time.After(childGrace):
		p.cmd.Process.Kill()
		return <-waited
	}
}

// stopped is how a run the caller stopped ends; at is where the script was, if known.
func (p *parent) stopped(at string) *Error {
	words := stoppedText(p.ctx)
	if at == "" {
		at = p.name
	}
	return &Error{Text: at + ": " + words, Err: &stoppedError{text: words, err: p.ctx.Err(), cause: context.Cause(p.ctx)}}
}

// errorOf gives back the error a child's execution failed with, with the causes errors.Is
// looks for.
func (p *parent) errorOf(w *wireError) error {
	if w == nil {
		return nil
	}
	e := &Error{Text: w.Text}
	switch w.Cause {
	case causeSteps:
		e.Err = ErrStepLimit
	case causeWall:
		e.Err = ErrWallLimit
	case causeAborted:
		e.Err = decision.ErrAborted
	case causeRemote:
		p.mu.Lock()
		e.Err = p.errs[w.Call]
		p.mu.Unlock()
	case causeStopped:
		if p.ctx.Err() != nil { // the child stops only when told, but check
			return p.stopped(w.At)
		}
	}
	return e
}

// selfExecutable is the binary a child runs: the server's own, even should the file have
// been replaced since it started.
func selfExecutable() (string, error) {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// outOfMemory reports whether a child's stderr says it died for want of memory: the Go
// runtime's fatal error when the address-space limit refuses it more (the last two are
// the race detector's).
func outOfMemory(stderr string) bool {
	for _, sign := range []string{"out of memory", "cannot allocate memory", "failed to create new OS thread",
		"ThreadSanitizer failed to allocate", "address space collisions for -race mode"} {
		if strings.Contains(stderr, sign) {
			return true
		}
	}
	return false
}

// memoryText says that a script ran out of memory, and what to do about it.
func memoryText(name string, limit int64) string {
	return fmt.Sprintf("%s: the script ran out of memory (limit %s) and was stopped: keep less in memory at once "+
		"(long strings, big lists), or ask whoever runs Parley to raise -script-memory", name, sizeText(limit))
}

// wallText says that a script ran out of its wall clock.
func wallText(wall time.Duration) string {
	return fmt.Sprintf("the script ran longer than %s (time spent waiting for answers does not count)", durationText(wall))
}

// firstLine returns the first non-empty line of s.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// headBuffer keeps the first max bytes written to it and drops the rest.
type headBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}

// cutText cuts s to limit bytes (at a character boundary) with a note saying so, as print()
// is cut: what reaches the log must fit in one of its events.
func cutText(s string, limit int, what string) string {
	if len(s) <= limit {
		return s
	}
	return s[:runeBoundary([]byte(s[:limit]))] + fmt.Sprintf("\n[%s truncated after %s]", what, sizeText(int64(limit)))
}

// describeCache remembers what function files loaded to: listing the functions loads every
// one, and a child per file per listing would cost tens of milliseconds each.
var describeCache = &loadCache{entries: map[[32]byte]loaded{}}

// maxCached bounds describeCache; it starts over when full.
const maxCached = 512

type loadCache struct {
	mu      sync.Mutex
	entries map[[32]byte]loaded
}

type loaded struct {
	fn  protocol.Function
	err error
}

// load returns what the file name with src loaded to, loading it with f once. f says whether
// what it returns is the file's own doing, so worth keeping: not a child that did not start.
func (c *loadCache) load(name, src string, f func() (protocol.Function, bool, error)) (protocol.Function, error) {
	key := sha256.Sum256([]byte(name + "\x00" + src))
	c.mu.Lock()
	got, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return got.fn, got.err
	}
	fn, keep, err := f()
	if !keep {
		return fn, err
	}
	c.mu.Lock()
	if len(c.entries) >= maxCached {
		clear(c.entries)
	}
	c.entries[key] = loaded{fn, err}
	c.mu.Unlock()
	return fn, err
}
