package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkjson"
	"go.starlark.net/starlarkstruct"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

// env is what a script's builtins act on: one execution's capabilities, limits and context.
type env struct {
	ctx  context.Context
	host *Host
	// caps is nil while a function file's top level is loaded for its description: the
	// capabilities exist as names but refuse to act.
	caps Caps
	run  *run // nil when caps is

	logged       int // bytes print()ed, against Limits.OutputBytes
	logTruncated bool
	sent         sentTally // send()s, against Limits.SentBytes and SentMessages
}

func newEnv(ctx context.Context, h *Host, caps Caps, r *run) *env {
	return &env{ctx: ctx, host: h, caps: caps, run: r}
}

// predeclared returns the globals every script starts with. There is nothing else: no
// load(), no os, no time; Starlark's universe (len, range, str, …) is pure.
func (e *env) predeclared() starlark.StringDict {
	return starlark.StringDict{
		"send":      e.builtin("send", e.send),
		"ask":       e.builtin("ask", e.ask),
		"confirm":   e.builtin("confirm", e.confirm),
		"run":       e.builtin("run", e.runOne),
		"run_batch": e.builtin("run_batch", e.runBatch),
		"read":      e.builtin("read", e.read),
		"list":      e.builtin("list", e.list),
		"write":     e.builtin("write", e.write),
		"json":      starlarkjson.Module,
		"struct":    starlark.NewBuiltin("struct", namedOnce("struct", starlarkstruct.Make)),
	}
}

type builtinFunc = func(thread *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// builtin wraps a capability so that it refuses to act without capabilities (a function
// file's top level, loaded to describe it), and names itself once in its errors.
func (e *env) builtin(name string, fn builtinFunc) *starlark.Builtin {
	return starlark.NewBuiltin(name, namedOnce(name, func(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if e.caps == nil && name != "list" {
			return nil, fmt.Errorf("%s is only available while the function runs, not at the top level of its file", name)
		}
		return fn(t, b, args, kwargs)
	}))
}

// namedOnce wraps a builtin so that its errors do not start with its name: Starlark reports
// them as "Error in name: …" already, and UnpackArgs's "name: …" or a path error's
// `name "path": …` would say it twice.
func namedOnce(name string, fn builtinFunc) builtinFunc {
	return func(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		v, err := fn(t, b, args, kwargs)
		if err == nil {
			return v, nil
		}
		var ee *starlark.EvalError
		if errors.As(err, &ee) {
			return v, err // a nested call's error, which carries its own frames
		}
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, name+": "); ok {
			return v, &renamedError{text: rest, err: err}
		}
		if rest, ok := strings.CutPrefix(msg, name+` "`); ok {
			return v, &renamedError{text: `"` + rest, err: err}
		}
		return v, err
	}
}

// renamedError is an error with other words, still err for errors.Is and errors.As.
type renamedError struct {
	text string
	err  error
}

func (e *renamedError) Error() string { return e.text }
func (e *renamedError) Unwrap() error { return e.err }

// logNotDone makes a gated action that did not happen visible in the run, even when the
// script ignores the result that says so: one short log line, like
// "run rm x was not done: no answer in time" or "write a.txt failed: …".
func (e *env) logNotDone(tool, target, what string) {
	e.caps.Output(protocol.StreamLog, nil, tool+" "+clip(target, maxLogWords)+" "+clip(what, maxLogWords)+"\n")
}

// maxLogWords bounds each part of a logNotDone line, in characters.
const maxLogWords = 120

// clip returns the first line of s, cut to at most n characters; "…" marks a cut.
func clip(s string, n int) string {
	line, _, multi := strings.Cut(s, "\n")
	if utf8.RuneCountInString(line) > n {
		runes := []rune(line)
		return string(runes[:n-1]) + "…"
	}
	if multi {
		return line + "…"
	}
	return line
}

// blocked runs f, a capability that waits on a person or on the runtime, with the wall
// clock paused, and words its failure for the script.
func (e *env) blocked(what string, f func(ctx context.Context) error) error {
	e.run.clock.pause()
	defer e.run.clock.resume()
	err := f(e.ctx)
	if err == nil {
		return nil
	}
	if stop := e.run.interrupted(); stop != nil {
		return stop
	}
	if errors.Is(err, decision.ErrAborted) {
		return fmt.Errorf("%s aborted: %s: %w", what, abortReason(err), decision.ErrAborted)
	}
	return err
}

// abortReason is the reason of an abort error, without the "aborted" it is wrapped in.
func abortReason(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, decision.ErrAborted.Error())
	msg = strings.TrimSuffix(msg, decision.ErrAborted.Error())
	msg = strings.Trim(msg, ": ")
	if msg == "" {
		return "no reason given"
	}
	return msg
}

// print sends a script's print() as a log line, up to Limits.OutputBytes per execution.
func (e *env) print(_ *starlark.Thread, msg string) {
	if e.caps == nil || e.logTruncated {
		return
	}
	line := msg + "\n"
	if room := e.host.Limits.OutputBytes - e.logged; len(line) > room {
		// Cut where the room ends (at a character's start), then the note: one print past the
		// cap was dropped whole, a 3 MB one leaving nothing of itself (QA round 25).
		e.logTruncated = true
		cut := max(room, 0)
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut]
		if line != "" && !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		line += fmt.Sprintf("[print output truncated after %s]\n", sizeText(int64(e.host.Limits.OutputBytes)))
	}
	e.logged += len(line)
	e.caps.Output(protocol.StreamLog, nil, line)
}

// send(text) posts an assistant-side message. Anything but a string is sent as str() of it.
func (e *env) send(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "text", &v); err != nil {
		return nil, err
	}
	text, ok := starlark.AsString(v)
	if !ok {
		text = v.String()
	}
	if strings.TrimSpace(text) == "" {
		// An empty message would show as an empty bubble in the thread. A script that sends
		// what a command printed (a clean `git status`) can send nothing: not an error, a
		// line in its run's log.
		e.print(nil, "send(): nothing to send (the text is empty)")
		return starlark.None, nil
	}
	text = cutText(text, e.host.Limits.OutputBytes, "message")
	if err := e.sent.add(len(text), e.host.Limits); err != nil {
		return nil, err
	}
	err := e.blocked("send", func(ctx context.Context) error { return e.caps.Send(ctx, text) })
	if err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// ask(message, schema={"type": "string"}, timeout=None, details=False) asks a question
// shaped by a schema in the protocol.Schema vocabulary and returns the answer (None when
// declined or timed out; see answerDetails for details=True). timeout is in seconds; None
// takes the server's default.
func (e *env) ask(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var message string
	var schemaV, timeoutV starlark.Value = starlark.None, starlark.None
	var details bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "message", &message, "schema?", &schemaV, "timeout?", &timeoutV, "details?", &details); err != nil {
		return nil, err
	}
	timeoutMs, err := decisionTimeout(timeoutV)
	if err != nil {
		return nil, err
	}
	schema := &protocol.Schema{Type: "string"}
	if schemaV != starlark.None {
		s, err := toSchema(schemaV)
		if err != nil {
			return nil, fmt.Errorf("invalid question: schema: %w", err)
		}
		schema = s
	}
	// A script is a program with its own enum: "Other…" only where it opens it.
	schema.CloseChoices()
	ans, err := e.askUser(protocol.DecisionRequest{Kind: protocol.KindAsk, Message: message, Schema: schema, TimeoutMs: timeoutMs})
	if err != nil {
		return nil, err
	}
	var value starlark.Value = starlark.None
	if ans.Action == protocol.ActionAccept && len(bytes.TrimSpace(ans.Content)) > 0 {
		if value, err = fromJSON(ans.Content); err != nil {
			return nil, fmt.Errorf("the answer is not JSON: %w", err)
		}
	}
	if details {
		return answerDetails(ans, value), nil
	}
	return value, nil
}

// askUser checks a question and waits for its answer, the wall clock paused meanwhile.
func (e *env) askUser(req protocol.DecisionRequest) (decision.Answer, error) {
	if err := req.Validate(); err != nil {
		return decision.Answer{}, fmt.Errorf("invalid question: %s", fieldsText(err, "", ""))
	}
	if err := checkQuestion(req); err != nil {
		return decision.Answer{}, err
	}
	var ans decision.Answer
	err := e.blocked("question", func(ctx context.Context) (err error) {
		ans, err = e.caps.Ask(ctx, req)
		return err
	})
	return ans, err
}

// confirm(message, timeout=None, details=False) asks a yes/no question: True only when
// accepted with true (see answerDetails for details=True).
func (e *env) confirm(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var message string
	var timeoutV starlark.Value = starlark.None
	var details bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "message", &message, "timeout?", &timeoutV, "details?", &details); err != nil {
		return nil, err
	}
	timeoutMs, err := decisionTimeout(timeoutV)
	if err != nil {
		return nil, err
	}
	ans, err := e.askUser(protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: message, Schema: &protocol.Schema{Type: "boolean"}, TimeoutMs: timeoutMs})
	if err != nil {
		return nil, err
	}
	var value starlark.Value = starlark.None
	var yes bool
	if ans.Action == protocol.ActionAccept && json.Unmarshal(ans.Content, &yes) == nil {
		value = starlark.Bool(yes)
	}
	if details {
		return answerDetails(ans, value), nil
	}
	return starlark.Bool(value == starlark.True), nil
}

// answerDetails is what ask and confirm return with details=True, so a script can tell a
// decline from a timeout: struct(action = "accept" or "decline", value = the answer or None,
// reason = the decline's reason, "timeout" when nobody answered in time).
func answerDetails(ans decision.Answer, value starlark.Value) *starlarkstruct.Struct {
	action := protocol.ActionDecline
	if ans.Action == protocol.ActionAccept {
		action = protocol.ActionAccept
	} else {
		value = starlark.None
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"action": starlark.String(action),
		"value":  value,
		"reason": starlark.String(ans.Reason),
	})
}

// toSchema reads a Starlark dict in the protocol.Schema JSON vocabulary, keeping the order
// of its properties.
func toSchema(v starlark.Value) (*protocol.Schema, error) {
	if _, ok := v.(*starlark.Dict); !ok {
		return nil, fmt.Errorf("want a dict, got a %s", v.Type())
	}
	data, err := toJSON(v)
	if err != nil {
		return nil, err
	}
	var s protocol.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, jsonError(err)
	}
	return &s, nil
}

// runResult is the struct run() returns.
func runResult(r procResult) *starlarkstruct.Struct {
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"ok":     starlark.Bool(r.code == 0 && r.err == ""),
		"code":   starlark.MakeInt(r.code),
		"stdout": starlark.String(r.stdout),
		"stderr": starlark.String(r.stderr),
		"error":  starlark.String(r.err),
	})
}

// rejected is the result of a call the gate did not let through: not a crash, an answer.
func rejected(v gate.Verdict) procResult {
	text := v.Text
	if text == "" {
		text = "rejected"
	}
	return procResult{code: -1, err: text}
}

// run(argv, timeout=None) runs a process once the gate allows it; see runProcess.
func (e *env) runOne(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var argvV, timeoutV starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argv", &argvV, "timeout?", &timeoutV); err != nil {
		return nil, err
	}
	argv, err := toArgv(argvV)
	if err != nil {
		return nil, err
	}
	timeout, err := e.timeout(timeoutV)
	if err != nil {
		return nil, err
	}
	results, err := e.runAll([][]string{argv}, timeout)
	if err != nil {
		return nil, err
	}
	return results[0], nil
}

// run_batch([argv, …], timeout=None) passes all the calls through the gate as one decision,
// then runs them in order; a rejection answers every one the user was asked about, while
// those a grant let through still run.
func (e *env) runBatch(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var listV *starlark.List
	var timeoutV starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argvs", &listV, "timeout?", &timeoutV); err != nil {
		return nil, err
	}
	if listV.Len() == 0 {
		return nil, errors.New("the batch is empty")
	}
	var argvs [][]string
	for i := range listV.Len() {
		argv, err := toArgv(listV.Index(i))
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		argvs = append(argvs, argv)
	}
	timeout, err := e.timeout(timeoutV)
	if err != nil {
		return nil, err
	}
	results, err := e.runAll(argvs, timeout)
	if err != nil {
		return nil, err
	}
	return starlark.NewList(results), nil
}

// runAll authorizes argvs as one batch and runs them in order.
func (e *env) runAll(argvs [][]string, timeout time.Duration) ([]starlark.Value, error) {
	calls := make([]gate.ToolCall, len(argvs))
	for i, argv := range argvs {
		calls[i] = gate.ToolCall{Tool: "run", Words: argv, Details: shellQuote(argv)}
	}
	var verdict gate.Verdict
	err := e.blocked("approval", func(ctx context.Context) (err error) {
		verdict, err = e.caps.Authorize(ctx, calls)
		return err
	})
	if err != nil {
		return nil, err
	}
	results := make([]starlark.Value, len(argvs))
	for i, argv := range argvs {
		if !verdict.Allows(i) {
			res := rejected(verdict)
			e.logNotDone("run", calls[i].Details, "was not done: "+res.err)
			results[i] = runResult(res)
			continue
		}
		res := e.process(i, argv, timeout)
		if stop := e.run.interrupted(); stop != nil {
			return nil, stop // the process was killed with the run
		}
		if failure := res.failure(); failure != "" {
			e.logNotDone("run", calls[i].Details, failure)
		}
		results[i] = runResult(res)
	}
	return results, nil
}

// process runs call i of the batch just authorized, argv: here, or by the server when the
// script runs in a child (see child.go).
func (e *env) process(i int, argv []string, timeout time.Duration) procResult {
	if p, ok := e.caps.(processRunner); ok {
		return p.runProcess(e.ctx, i, timeout)
	}
	return runProcess(e.ctx, e.host.Workspace, argv, timeout, e.host.Limits.OutputBytes, func(stream, text string) {
		e.caps.Output(stream, argv, text)
	})
}

// timeout reads run()'s timeout in seconds: it can shorten Limits.ProcessTimeout, not extend it.
func (e *env) timeout(v starlark.Value) (time.Duration, error) {
	limit := e.host.Limits.ProcessTimeout
	if v == starlark.None {
		return limit, nil
	}
	secs, ok := starlark.AsFloat(v)
	if !ok || math.IsNaN(secs) || secs <= 0 {
		return 0, fmt.Errorf("timeout must be a positive number of seconds, got %s", v)
	}
	if d := time.Duration(secs * float64(time.Second)); d < limit {
		return d, nil
	}
	return limit, nil
}

// toArgv reads a command: a non-empty list (or tuple) of strings, the program first.
func toArgv(v starlark.Value) ([]string, error) {
	seq, ok := v.(starlark.Indexable)
	if _, isStr := v.(starlark.String); !ok || isStr {
		return nil, fmt.Errorf("argv must be a list of strings, like [\"git\", \"status\"], got a %s", v.Type())
	}
	if seq.Len() == 0 {
		return nil, errors.New("argv is empty")
	}
	argv := make([]string, seq.Len())
	for i := range seq.Len() {
		s, ok := seq.Index(i).(starlark.String)
		if !ok {
			return nil, fmt.Errorf("argv[%d] is a %s, not a string", i, seq.Index(i).Type())
		}
		argv[i] = string(s)
	}
	if argv[0] == "" {
		return nil, errors.New("argv[0], the program, is empty")
	}
	if err := checkArgv(argv); err != nil {
		return nil, err
	}
	return argv, nil
}

// read(path) returns a workspace file's text.
func (e *env) read(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	text, err := e.host.readFile(path, e.host.Limits.ReadBytes)
	if err != nil {
		return nil, err
	}
	return starlark.String(text), nil
}

// list(dir=".") returns the sorted entries of a workspace directory, directories with a
// trailing "/".
//
// It takes the name of Starlark's list constructor, so it still converts: list(iterable)
// (anything but a string) behaves as the built-in did.
func (e *env) list(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 1 && len(kwargs) == 0 {
		if _, ok := args[0].(starlark.Iterable); ok {
			if _, isStr := args[0].(starlark.String); !isStr {
				return starlark.Call(t, starlark.Universe["list"], args, nil)
			}
		}
	}
	if e.caps == nil {
		return nil, errors.New("list is only available while the function runs, not at the top level of its file")
	}
	dir := "."
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir?", &dir); err != nil {
		return nil, err
	}
	names, err := e.host.listDir(dir)
	if err != nil {
		return nil, err
	}
	elems := make([]starlark.Value, len(names))
	for i, n := range names {
		elems[i] = starlark.String(n)
	}
	return starlark.NewList(elems), nil
}

// write(path, text) writes a workspace file once the gate allows it. The gate is asked
// about the file that is written: the path with its symlinks resolved (see Host.resolve).
func (e *env) write(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path, text string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "text", &text); err != nil {
		return nil, err
	}
	rel, err := e.host.resolve(path)
	if err != nil {
		return nil, pathError("write", path, err)
	}
	if rel == "." {
		return nil, pathError("write", path, errors.New("it is the workspace itself"))
	}
	slash := filepath.ToSlash(rel)
	call := gate.ToolCall{Tool: "write", Words: []string{slash}, Details: writeDetails(slash, text)}
	var verdict gate.Verdict
	err = e.blocked("approval", func(ctx context.Context) (err error) {
		verdict, err = e.caps.Authorize(ctx, []gate.ToolCall{call})
		return err
	})
	if err != nil {
		return nil, err
	}
	res := starlark.StringDict{"ok": starlark.True, "error": starlark.String("")}
	if !verdict.Allows(0) {
		why := rejected(verdict).err
		e.logNotDone("write", quoteWord(slash), "was not done: "+why)
		res["ok"], res["error"] = starlark.False, starlark.String(why)
	} else if err := e.host.writeFile(path, rel, text); err != nil {
		// Approved but failed (a directory in the way, a full disk, a folder swapped for a
		// symlink out since the approval): the script decides, the run shows it.
		why := err
		if inner := errors.Unwrap(err); inner != nil {
			why = inner // without pathError's `write "path":`
		}
		e.logNotDone("write", quoteWord(slash), "failed: "+why.Error())
		res["ok"], res["error"] = starlark.False, starlark.String(err.Error())
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, res), nil
}

// What a write approval shows of the text: all of it up to writeShown, else its first and
// last writeShown/2 bytes.
const writeShown = 48 << 10

// writeDetails is what the user is shown to approve a write: the path and the text.
func writeDetails(path, text string) string {
	unit := "bytes"
	if len(text) == 1 {
		unit = "byte"
	}
	head := fmt.Sprintf("write %d %s to %s:\n", len(text), unit, path)
	if len(text) <= writeShown {
		return head + text
	}
	first := text[:runeBoundary([]byte(text[:writeShown/2]))]
	start := len(text) - writeShown/2
	for start < len(text) && !utf8.RuneStart(text[start]) {
		start++
	}
	last := text[start:]
	hidden := len(text) - len(first) - len(last)
	return fmt.Sprintf("%s%s\n… %d bytes not shown …\n%s", head, first, hidden, last)
}

// shellQuote renders argv as a shell command line a person can read and paste: words that
// need no quoting stay bare, the rest are single-quoted.
func shellQuote(argv []string) string {
	quoted := make([]string, len(argv))
	for i, w := range argv {
		quoted[i] = quoteWord(w)
	}
	return strings.Join(quoted, " ")
}

func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./-_", c)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	if strings.IndexFunc(w, unseen) >= 0 || !utf8.ValidString(w) {
		return ansiQuote(w)
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// unseen says a character would not show as itself in a command line shown as text: a
// newline or a tab would read as the command broken across lines (QA round 14 #9), a line
// separator the same, and a direction override would reorder what is shown.
func unseen(c rune) bool {
	return unicode.IsControl(c) || c == '\u2028' || c == '\u2029' || c >= '\u202a' && c <= '\u202e' || c >= '\u2066' && c <= '\u2069'
}

// ansiQuote quotes a word holding unseen characters as bash's $'…', each of them escaped
// (\n, \t, \x1b, \u202e), so the word reads as one, on one line, and pastes as itself.
func ansiQuote(w string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(w); {
		c, size := utf8.DecodeRuneInString(w[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, w[i])
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x80 && unseen(c):
			fmt.Fprintf(&b, `\x%02x`, c)
		case unseen(c):
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteString(w[i : i+size])
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// decisionTimeout reads a timeout in seconds (None for the server's default) as
// milliseconds, never 0 (which would mean the default) for a timeout that was given.
func decisionTimeout(v starlark.Value) (int64, error) {
	if v == starlark.None {
		return 0, nil
	}
	secs, ok := starlark.AsFloat(v) // an int too large for a float64 is infinite
	if !ok {
		return 0, fmt.Errorf("timeout must be a number of seconds, not a %s", v.Type())
	}
	// Written so that NaN, which compares false with everything, fails it too.
	if !(secs > 0 && secs <= float64(protocol.MaxTimeoutMs)/1000) {
		return 0, fmt.Errorf("timeout must be more than 0 and at most %d seconds", protocol.MaxTimeoutMs/1000)
	}
	return int64(math.Ceil(secs * 1000)), nil
}
