package script

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// The wire between the server and a script child (see child.go and parent.go): one JSON
// object a line in each direction, on two pipes of their own (the child's fds 3 and 4), so
// nothing the Go runtime prints on stdout or stderr can be mistaken for a message.
//
// Server to child: "start" (once, first), then "reply" to each call and "stop" when the run
// is stopped. Child to server: "call" (send, ask, authorize, process), which gets one reply;
// "output" and "cancel" (the child no longer waits for call id), which get none; and "done"
// (once, last).

// Operations and message kinds.
const (
	msgStart  = "start"
	msgReply  = "reply"
	msgStop   = "stop"
	msgCall   = "call"
	msgOutput = "output"
	msgCancel = "cancel"
	msgDone   = "done"

	opSend      = "send"
	opAsk       = "ask"
	opAuthorize = "authorize"
	opProcess   = "process"
)

// Jobs a child can run: Host.Exec, Host.Call and LoadFunction.
const (
	jobExec = "exec"
	jobCall = "call"
	jobLoad = "load"
)

// maxLine bounds one message from a child, so a child gone wrong cannot make the server
// hold much: what a script can send is cut well below it (see cutText, checkArgv and
// checkQuestion). The server's messages to a child are bounded by maxJob: a script's
// source can be long, and what the child holds counts against its own limit.
const (
	maxLine = 4 << 20
	maxJob  = 1 << 30
)

// message is every message of the wire; each kind uses a few of its fields.
type message struct {
	Kind string `json:"kind"`
	ID   int64  `json:"id,omitempty"` // a call's, echoed by its reply and its cancel

	// start
	Job *job `json:"job,omitempty"`

	// call: Op and the fields it takes
	Op      string                    `json:"op,omitempty"`
	Text    string                    `json:"text,omitempty"` // send; output
	Request *protocol.DecisionRequest `json:"request,omitempty"`
	Calls   []gate.ToolCall           `json:"calls,omitempty"`
	Batch   int64                     `json:"batch,omitempty"` // process: the id of the authorize call
	Index   int                       `json:"index,omitempty"` // process: which call of that batch
	Timeout time.Duration             `json:"timeout,omitempty"`

	// reply
	Answer  *decision.Answer `json:"answer,omitempty"`
	Verdict *gate.Verdict    `json:"verdict,omitempty"`
	Proc    *wireProc        `json:"proc,omitempty"`
	Err     *wireError       `json:"err,omitempty"` // the call failed; done: the job did

	// done
	Result   string             `json:"result,omitempty"`
	Function *protocol.Function `json:"function,omitempty"`
}

// job is what a child runs, with everything it needs: a child has no other input.
type job struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Source    string `json:"source"`
	Vars      string `json:"vars,omitempty"` // exec: vars; call: args; as given, even if not JSON
	Workspace string `json:"workspace"`
	Limits    Limits `json:"limits"`
}

// wireProc is a procResult on the wire.
type wireProc struct {
	Code     int    `json:"code"`
	Stdout   string `json:"stdout,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
	Err      string `json:"err,omitempty"`
	TimedOut bool   `json:"timedOut,omitempty"`
}

func toWireProc(r procResult) *wireProc {
	return &wireProc{Code: r.code, Stdout: r.stdout, Stderr: r.stderr, Err: r.err, TimedOut: r.timedOut}
}

func (w *wireProc) result() procResult {
	return procResult{code: w.Code, stdout: w.Stdout, stderr: w.Stderr, err: w.Err, timedOut: w.TimedOut}
}

// Kinds of wireError: what errors.Is must still see once the error has crossed the wire.
const (
	causeSteps   = "steps"
	causeWall    = "wall"
	causeStopped = "stopped"
	causeAborted = "aborted"
	causeRemote  = "remote" // an error a capability of the server returned: Call is its id
)

// wireError is an error on the wire: its text, and enough of its cause for the server to
// give back the error values its callers test with errors.Is.
type wireError struct {
	Text  string `json:"text"`
	Cause string `json:"cause,omitempty"`
	Call  int64  `json:"call,omitempty"` // causeRemote: the call that failed
	// At is where a stopped script was (file:line:col), "" if not known: the server words
	// the stop itself, from its own context.
	At string `json:"at,omitempty"`
}

// remoteError is, in a child, the error a capability of the server failed with.
type remoteError struct {
	call    int64
	text    string
	aborted bool
}

func (e *remoteError) Error() string { return e.text }

// Unwrap makes an abort decision.ErrAborted, as blocked expects.
func (e *remoteError) Unwrap() error {
	if e.aborted {
		return decision.ErrAborted
	}
	return nil
}

// toWireError describes an execution's error for the server.
func toWireError(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Text: err.Error()}
	var se *stoppedError
	var re *remoteError
	switch {
	case errors.As(err, &se):
		w.Cause = causeStopped
		if at, ok := cutSuffix(w.Text, se.text); ok {
			w.At = at
		}
	case errors.Is(err, ErrStepLimit):
		w.Cause = causeSteps
	case errors.Is(err, ErrWallLimit):
		w.Cause = causeWall
	case errors.As(err, &re):
		w.Cause, w.Call = causeRemote, re.call
	case errors.Is(err, decision.ErrAborted):
		w.Cause = causeAborted
	}
	return w
}

// cutSuffix returns s without suffix and the ": " before it.
func cutSuffix(s, suffix string) (string, bool) {
	if len(s) < len(suffix) || s[len(s)-len(suffix):] != suffix {
		return "", false
	}
	s = s[:len(s)-len(suffix)]
	if len(s) >= 2 && s[len(s)-2:] == ": " {
		s = s[:len(s)-2]
	}
	return s, true
}

// conn is one end of the wire: it writes messages one at a time, from any goroutine.
type conn struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder
}

func newConn(w io.Writer) *conn {
	bw := bufio.NewWriter(w)
	return &conn{w: bw, enc: json.NewEncoder(bw)}
}

func (c *conn) send(m message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enc.Encode(m); err != nil {
		return err
	}
	return c.w.Flush()
}

// reader reads messages of at most max bytes.
type reader struct{ s *bufio.Scanner }

func newReader(r io.Reader, max int) *reader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), max)
	return &reader{s: s}
}

// next returns the next message; io.EOF when the other end closed the wire.
func (r *reader) next() (message, error) {
	if !r.s.Scan() {
		if err := r.s.Err(); err != nil {
			return message{}, fmt.Errorf("read the script child: %w", err)
		}
		return message{}, io.EOF
	}
	var m message
	if err := json.Unmarshal(r.s.Bytes(), &m); err != nil {
		return message{}, fmt.Errorf("read the script child: %w", err)
	}
	return m, nil
}
