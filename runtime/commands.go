package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"parley/i18n"
	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/catalogue"
	"parley/runtime/decision"
	"parley/runtime/gate"
	"parley/runtime/script"
)

// runCaps are the capabilities a run receives: everything it does lands in its session's log
// and every decision goes through the registry with the run's execution id.
type runCaps struct {
	r       *Runtime
	ws      *workspace // the session's
	session string
	run     string
	sends   atomic.Int64
}

func (c *runCaps) Send(ctx context.Context, text string) error {
	n := c.sends.Add(1)
	_, _, err := c.r.log.Append(ctx, c.session, protocol.EventAgentMessage, protocol.Message{Text: text, From: protocol.FromScript},
		"send-"+runKey(c.run)+"-"+strconv.FormatInt(n, 10))
	return err
}

func (c *runCaps) Ask(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
	res, err := c.r.registry.Ask(ctx, c.session, c.run, req)
	if err != nil {
		return decision.Answer{}, err
	}
	// Only a timeout ends without an error: it declines, and says why.
	return res.Answer(), nil
}

func (c *runCaps) Authorize(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
	ws := c.ws
	if ws == nil {
		var err error
		if ws, err = c.r.workspaceOf(ctx, c.session); err != nil {
			return gate.Verdict{}, err
		}
	}
	return c.r.gate.Authorize(ctx, ws.Path, c.session, c.run, calls)
}

func (c *runCaps) Output(stream string, argv []string, text string) {
	c.r.appendEvent(c.session, protocol.EventRunOutput, protocol.RunOutput{Run: c.run, Stream: stream, Text: text, Argv: argv}, "")
}

// execute runs code as a run of the session, in its workspace: run.started, its output,
// then run.settled.
func (r *Runtime) execute(ctx context.Context, ws *workspace, session string, started protocol.RunStarted, body func(ctx context.Context, caps script.Caps) (string, error)) {
	key := runKey(started.ID)
	r.appendEvent(session, protocol.EventRunStarted, started, "run-"+key)
	result, err := body(ctx, &runCaps{r: r, ws: ws, session: session, run: started.ID})
	settled := protocol.RunSettled{Run: started.ID, Result: result}
	if err != nil {
		settled.Error = err.Error()
		code, args, lim := "", []string(nil), ws.host.Limits
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, decision.ErrStopped):
			code = "run_stopped"
		case errors.Is(cause, decision.ErrShutdown):
			code = "run_shutdown"
		// A limit that stopped it: Parley's words, which a page says in its locale.
		case errors.Is(err, script.ErrStepLimit):
			code, args = "run_steps", []string{strconv.FormatUint(lim.Steps, 10)}
		case errors.Is(err, script.ErrWallLimit):
			code, args = "run_wall", []string{lim.Wall.Round(time.Millisecond).String()}
		case errors.Is(err, script.ErrMemoryLimit):
			code, args = "run_memory", []string{sizeWords(lim.Memory)}
		}
		if code != "" {
			p, text := i18n.EnglishPhrase(code, args...)
			settled.Error, settled.ErrorPhrase = text, &p
		}
	}
	r.appendEvent(session, protocol.EventRunSettled, settled, "settled-"+key)
}

// sizeWords writes a size as the script host does: 256 MiB, 64 KiB, 100 bytes.
func sizeWords(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// runKey makes an execution id usable in message ids.
func runKey(run string) string { return strings.ReplaceAll(run, ":", "-") }

// tools are what the agent of a turn may use: its messages, decisions and tool calls land in
// the session's log under ids derived from the prompt, so a turn run again after a crash
// does not say anything twice.
type tools struct {
	caps   *runCaps
	prompt uint64
	says   int
	// counters of conversation.go's ids
	streams, called, results int
	// notices may also be posted from an MCP server's goroutine (runtime/mcp's notes).
	notices atomic.Int64
	// steerRead is the last offset Steered read (0: none yet, it reads after the prompt).
	steerRead uint64
	// adopt are the decisions a resumed turn left pending, oldest first: its next Ask or
	// Authorize waits for the first of them rather than asking again (resume.go).
	adopt []*decision.Resumable
	// passes counts the gate's passes since the model's last tool.called; began holds those
	// a resumed turn's log shows let calls through (tools.running): run again, they are
	// refused (resume.go).
	passes int
	began  []int
}

func (t *tools) Say(ctx context.Context, text string) error {
	return t.say(ctx, protocol.Message{Text: text})
}

// SayPhrase says Parley's fixed words by their phrase: English in the text, the code beside.
func (t *tools) SayPhrase(ctx context.Context, p protocol.Phrase) error {
	text, ok := i18n.English.Phrase(p.Code, p.Args)
	if !ok {
		return fmt.Errorf("no phrase %q in the catalogue", p.Code)
	}
	return t.say(ctx, protocol.Message{Text: text, Phrase: &p})
}

func (t *tools) say(ctx context.Context, m protocol.Message) error {
	t.says++
	id := "reply-" + strconv.FormatUint(t.prompt, 10)
	if t.says > 1 {
		id += "-" + strconv.Itoa(t.says)
	}
	_, _, err := t.caps.r.log.Append(ctx, t.caps.session, protocol.EventAgentMessage, m, id)
	return err
}

func (t *tools) Ask(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
	ctx, done := t.resuming(ctx)
	defer done()
	return t.caps.Ask(ctx, req)
}

func (t *tools) Authorize(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
	t.passes++
	if t.acted() || slices.Contains(t.began, t.passes) {
		return gate.Verdict{Text: gate.TextActed}, nil
	}
	rctx, done := t.resuming(ctx)
	v, err := t.caps.Authorize(rctx, calls)
	done()
	if err != nil {
		return v, err
	}
	allowed := 0
	for i := range calls {
		if v.Allows(i) {
			allowed++
		}
	}
	if allowed > 0 {
		// Written ahead of the first call: without it stored, nothing the verdict allowed has
		// run, and a turn resumed elsewhere may act on the answer (resume.go). No message id:
		// each pass is its own, and one stored twice says no more than once.
		running := protocol.ToolsRunning{Pass: t.passes, Allowed: allowed}
		if err := t.store(ctx, protocol.EventToolsRunning, running, ""); err != nil {
			return gate.Verdict{}, fmt.Errorf("record that the allowed calls start: %w", err)
		}
	}
	return v, nil
}

// commands is the slash-command door: an agent.Agent for prompts that name a server command,
// a peer of the agent that answers everything else. Its scripts run in the session's
// workspace through the script host.
type commands struct{ r *Runtime }

var _ agent.Agent = commands{}

func (c commands) Turn(ctx context.Context, in agent.Input, _ agent.Tools) error {
	cmd, ok := protocol.ResolveCommand(in.Text)
	if !ok {
		return fmt.Errorf("prompt %d is not a command", in.Prompt)
	}
	c.r.runCommand(ctx, in.Session, in.Prompt, cmd)
	return nil
}

// runCommand runs a server-side slash command as the prompt's turn.
func (r *Runtime) runCommand(ctx context.Context, session string, offset uint64, cmd protocol.Command) {
	run := commandRunID(offset)
	// sayPhrase says Parley's fixed words: English in the text, the phrase beside it.
	sayPhrase := func(code string, args ...string) {
		p, text := i18n.EnglishPhrase(code, args...)
		r.appendEvent(session, protocol.EventAgentMessage, protocol.Message{Text: text, From: protocol.FromParley, Phrase: &p},
			"command-"+strconv.FormatUint(offset, 10))
	}
	ws, err := r.turnWorkspace(ctx, session)
	if err != nil {
		sayPhrase("cmd_cannot_run", err.Error())
		return
	}
	if code, args, refused := refusal(ws, cmd); refused {
		sayPhrase(code, args...)
		return
	}
	switch cmd.Name {
	case "help":
		sayPhrase(i18n.PhraseCodeHelp, helpArgs(ws)...)
	case "mcp":
		sayPhrase(i18n.PhraseCodeParts, r.mcpCommand(ctx, ws, cmd.Args)...)
	case "script":
		code := cmd.Args
		r.execute(ctx, ws, session, protocol.RunStarted{ID: run, Kind: protocol.RunScript, Code: code},
			func(ctx context.Context, caps script.Caps) (string, error) {
				return ws.host.Exec(ctx, "script", code, nil, caps)
			})
	case "example":
		slug, vars, _ := strings.Cut(strings.TrimSpace(cmd.Args), " ")
		src, ok := catalogue.Examples(ws.Path)[slug]
		if !ok { // gone since refusal looked
			sayPhrase("cmd_no_example", append([]string{slug}, exampleArgs(ws)...)...)
			return
		}
		if src.Problem != "" {
			sayPhrase("cmd_cannot_run", src.Origin+": "+src.Problem)
			return
		}
		var raw json.RawMessage
		if vars = strings.TrimSpace(vars); vars != "" {
			raw = json.RawMessage(vars)
		}
		r.execute(ctx, ws, session, protocol.RunStarted{ID: run, Kind: protocol.RunExample, Name: slug, Source: src.Origin},
			func(ctx context.Context, caps script.Caps) (string, error) {
				return ws.host.Exec(ctx, "examples/"+slug+".star", src.Source, raw, caps)
			})
	}
}

// refusal is the phrase (its code and arguments) a server command is refused with before it
// runs, if it is: a script with no code, an example with no name, one the workspace does not
// have, or variables that are not a JSON object. Such a prompt names no session
// (promptTitle).
func refusal(ws *workspace, cmd protocol.Command) (code string, args []string, refused bool) {
	switch cmd.Name {
	case "script":
		if strings.TrimSpace(cmd.Args) == "" {
			return "cmd_script_usage", nil, true
		}
	case "example":
		slug, vars, _ := strings.Cut(strings.TrimSpace(cmd.Args), " ")
		vars = strings.TrimSpace(vars)
		if slug == "" {
			return "cmd_example_usage", exampleArgs(ws), true
		}
		if _, ok := catalogue.Examples(ws.Path)[slug]; !ok {
			return "cmd_no_example", append([]string{slug}, exampleArgs(ws)...), true
		}
		if vars != "" && !isJSONObject(vars) {
			return "cmd_example_vars", []string{slug}, true
		}
	}
	return "", nil, false
}

// isJSONObject reports whether s is exactly one JSON object.
func isJSONObject(s string) bool {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(s))
	return dec.Decode(&obj) == nil && obj != nil && !dec.More()
}

// helpArgs are /help's phrase arguments (i18n.PhraseCodeHelp): the workspace's examples and
// functions; the phrase words the commands and the headings.
func helpArgs(ws *workspace) []string {
	var args []string
	for _, e := range catalogue.Commands(ws.Path).Examples {
		args = append(args, "e", e.Usage, e.Description)
	}
	for _, f := range catalogue.FunctionList(ws.Path).Functions {
		if f.Error != "" {
			args = append(args, "x", f.Name, f.Error)
			continue
		}
		args = append(args, "f", f.Name, cmp.Or(f.Title, f.Description))
	}
	return args
}

// exampleArgs are the workspace's examples as a phrase's arguments (i18n.PhraseCodeExampleUsage):
// each its usage and its description, content; the page writes the heading in its locale.
func exampleArgs(ws *workspace) []string {
	var args []string
	for _, e := range catalogue.Commands(ws.Path).Examples {
		args = append(args, e.Usage, e.Description)
	}
	return args
}
