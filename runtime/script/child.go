package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// A script runs in a child process of the server: the server's own binary started again in
// child mode (ChildMain), with an address-space limit the kernel enforces (RLIMIT_AS). A
// script that builds a string of gigabytes kills its child, not the server. The child runs
// Starlark and confines file access exactly as the server would; everything else (the
// messages, the questions, the approval gate, the processes run() starts) stays with the
// server, which the child asks over the wire (wire.go). See docs/runtime.md.

// childArg, as argv[1], starts the binary in child mode; argv[2] is the memory limit in
// bytes. An argument rather than the environment: the child gets no environment at all.
const childArg = "__parley_script_child"

// Fds of the wire in a child: cmd.ExtraFiles start at 3.
const (
	childIn  = 3
	childOut = 4
)

// childReady is set once ChildMain has returned in this process: the binary dispatches child
// mode, so starting it again as a child runs a child, not the server (or a test suite).
var childReady atomic.Bool

// ChildMain runs a script child and exits when the process was started as one; otherwise it
// returns at once, and from then on scripts run in children. Call it first thing in main,
// and in TestMain of every test binary that runs scripts: without it scripts run inside the
// process, with no memory limit.
func ChildMain() {
	if len(os.Args) < 3 || os.Args[1] != childArg {
		childReady.Store(true)
		return
	}
	os.Exit(runChild(os.Args[2]))
}

// runChild is a child's whole life: limit its memory, read its job, run it, report.
func runChild(limitArg string) int {
	limit, err := strconv.ParseInt(limitArg, 10, 64)
	if err != nil || limit <= 0 {
		fmt.Fprintf(os.Stderr, "parley: %s is for a Parley server's script children: it expects a memory limit, not %q\n", childArg, limitArg)
		return 2
	}
	// Before anything else allocates: the hard limit is what keeps the server up, the soft
	// one makes the collector work harder as it nears, before the hard one kills.
	if err := limitAddressSpace(limit); err != nil {
		fmt.Fprintf(os.Stderr, "parley: script child: limit memory: %v\n", err)
		return 2
	}
	debug.SetMemoryLimit(limit)

	in, out := os.NewFile(childIn, "wire-in"), os.NewFile(childOut, "wire-out")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "parley: script child: no wire: start it from a Parley server")
		return 2
	}
	c := &child{conn: newConn(out), pending: map[int64]chan message{}}
	r := newReader(in, maxJob)
	first, err := r.next()
	if err != nil || first.Kind != msgStart || first.Job == nil {
		fmt.Fprintln(os.Stderr, "parley: script child: no job: start it from a Parley server")
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.readLoop(r, cancel)

	done := runJob(ctx, first.Job, c)
	done.Kind = msgDone
	if err := c.conn.send(done); err != nil {
		return 1
	}
	return 0
}

// runJob runs a job here, in this process, and says how it ended.
func runJob(ctx context.Context, j *job, caps Caps) message {
	h := &Host{Workspace: j.Workspace, Limits: j.Limits.withDefaults()}
	var m message
	var err error
	switch j.Kind {
	case jobExec:
		m.Result, err = h.Exec(ctx, j.Name, j.Source, rawJSON(j.Vars), caps)
	case jobCall:
		m.Result, err = h.Call(ctx, j.Name, j.Source, rawJSON(j.Vars), caps)
	case jobLoad:
		var fn protocol.Function
		fn, err = loadFunction(j.Name, j.Source)
		m.Function = &fn
	default:
		err = fmt.Errorf("unknown job %q", j.Kind)
	}
	m.Err = toWireError(err)
	return m
}

// rawJSON is vars or args as the caller gave them: nil when empty.
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// child is the child's end of the wire, and the capabilities its script is handed: each one
// a call the server answers.
type child struct {
	conn *conn

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan message

	batch int64 // the id of the last authorize call, which process calls refer to
}

// readLoop delivers replies, and stops the run when the server says so or goes away.
func (c *child) readLoop(r *reader, stop context.CancelFunc) {
	for {
		m, err := r.next()
		if err != nil {
			// The server is gone (or broke the wire): nobody is left to report to.
			if !errors.Is(err, io.EOF) {
				fmt.Fprintln(os.Stderr, "parley: script child:", err)
			}
			os.Exit(1)
		}
		switch m.Kind {
		case msgStop:
			stop()
		case msgReply:
			c.mu.Lock()
			ch := c.pending[m.ID]
			delete(c.pending, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

// call asks the server and waits for its reply. When ctx ends first, the server is told
// to give up on it (a process is killed) and ctx's error returned.
func (c *child) call(ctx context.Context, m message) (message, error) {
	ch := make(chan message, 1)
	c.mu.Lock()
	c.nextID++
	m.Kind, m.ID = msgCall, c.nextID
	c.pending[m.ID] = ch
	c.mu.Unlock()
	if err := c.conn.send(m); err != nil {
		return message{}, fmt.Errorf("the server did not take the %s: %w", m.Op, err)
	}
	select {
	case reply := <-ch:
		if reply.Err != nil {
			return reply, &remoteError{call: reply.ID, text: reply.Err.Text, aborted: reply.Err.Cause == causeAborted}
		}
		return reply, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, m.ID)
		c.mu.Unlock()
		c.conn.send(message{Kind: msgCancel, ID: m.ID})
		return message{}, ctx.Err()
	}
}

func (c *child) Send(ctx context.Context, text string) error {
	_, err := c.call(ctx, message{Op: opSend, Text: text})
	return err
}

func (c *child) Ask(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
	reply, err := c.call(ctx, message{Op: opAsk, Request: &req})
	if err != nil {
		return decision.Answer{}, err
	}
	if reply.Answer == nil {
		return decision.Answer{}, errors.New("the server sent no answer")
	}
	return *reply.Answer, nil
}

func (c *child) Authorize(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
	reply, err := c.call(ctx, message{Op: opAuthorize, Calls: calls})
	if err != nil {
		return gate.Verdict{}, err
	}
	if reply.Verdict == nil {
		return gate.Verdict{}, errors.New("the server sent no verdict")
	}
	c.mu.Lock()
	c.batch = reply.ID
	c.mu.Unlock()
	return *reply.Verdict, nil
}

// Output sends a print() or a log line; the processes' output reaches the server directly.
func (c *child) Output(stream string, argv []string, text string) {
	c.conn.send(message{Kind: msgOutput, Text: text})
}

// runProcess has the server run call i of the batch it last authorized: the server runs
// what it approved, never a command line of the child's.
func (c *child) runProcess(ctx context.Context, i int, timeout time.Duration) procResult {
	c.mu.Lock()
	batch := c.batch
	c.mu.Unlock()
	reply, err := c.call(ctx, message{Op: opProcess, Batch: batch, Index: i, Timeout: timeout})
	if err != nil {
		return procResult{code: -1, err: err.Error()}
	}
	if reply.Proc == nil {
		return procResult{code: -1, err: "the server sent no result"}
	}
	return reply.Proc.result()
}

// processRunner is implemented by capabilities that run processes themselves: a child's,
// whose server runs them.
type processRunner interface {
	runProcess(ctx context.Context, i int, timeout time.Duration) procResult
}
