package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/catalogue"
	"parley/runtime/decision"
	"parley/runtime/gate"
	"parley/runtime/script"
)

func prepareCommand(b *Box, args json.RawMessage) (*plan, error) {
	var a struct {
		Argv    json.RawMessage `json:"argv"`
		Timeout float64         `json:"timeout_seconds"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	var argv []string
	if err := json.Unmarshal(a.Argv, &argv); err != nil || len(argv) == 0 || argv[0] == "" {
		// A model used to shells sends "go test ./...": splitting it ourselves would guess at
		// quoting, so it is told the rule instead.
		return nil, errors.New(`argv must be a list of words, the program first, like ["go", "test", "./..."]; there is no shell`)
	}
	var timeout time.Duration
	if a.Timeout > 0 && !math.IsInf(a.Timeout, 0) {
		timeout = time.Duration(a.Timeout * float64(time.Second))
	}
	call := gate.ToolCall{Tool: "run", Words: argv, Details: script.ShellQuote(argv)}
	return &plan{gate: &call, run: func(ctx context.Context, t agent.Tools) (protocol.ToolResult, error) {
		// The output is shown in the thread as it comes (tool.output); the model reads it
		// whole in the result, as before.
		var emit func(stream, text string)
		if rec, ok := t.(OutputRecorder); ok {
			out := startOutput(ctx, rec, CallID(ctx), "run_command")
			defer out.close() // before the result is stored: Run returns after this
			emit = out.emit
		}
		p := b.Host.RunProcess(ctx, argv, timeout, emit)
		if ctx.Err() != nil {
			return protocol.ToolResult{}, context.Cause(ctx) // stopped: the process was killed
		}
		details, _ := json.Marshal(map[string]any{"argv": argv, "code": p.Code, "failure": p.Failure})
		return protocol.ToolResult{Text: processText(p), Error: p.Failure != "", Details: details}, nil
	}}, nil
}

// processText is what the model reads of a process: how it ended, then its output.
func processText(p script.Process) string {
	var b strings.Builder
	if p.Failure == "" {
		b.WriteString("exit status 0\n")
	} else {
		b.WriteString(p.Failure + "\n")
	}
	if p.Stdout != "" {
		b.WriteString("stdout:\n" + p.Stdout)
		if !strings.HasSuffix(p.Stdout, "\n") {
			b.WriteString("\n")
		}
	}
	if p.Stderr != "" {
		b.WriteString("stderr:\n" + p.Stderr)
	}
	return strings.TrimRight(b.String(), "\n")
}

func prepareFunction(b *Box, args json.RawMessage) (*plan, error) {
	var a struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	fns := catalogue.Functions(b.Host.Workspace)
	entry, found := fns[a.Name]
	if !found {
		return nil, fmt.Errorf("there is no function %q;%s", a.Name, b.functionNames())
	}
	fn, err := script.LoadFunction(a.Name, entry.Source)
	if err != nil {
		return nil, fmt.Errorf("the function %s does not load: %v", a.Name, err)
	}
	if len(a.Args) == 0 || string(a.Args) == "null" {
		a.Args = json.RawMessage("{}")
	}
	full, err := script.Arguments(fn.Params, a.Args)
	if err != nil {
		return nil, fmt.Errorf("the arguments do not fit %s's parameters: %v", a.Name, err)
	}
	return &plan{run: func(ctx context.Context, t agent.Tools) (protocol.ToolResult, error) {
		caps := &functionCaps{t: t}
		result, err := b.Host.Call(ctx, a.Name, entry.Source, full, caps)
		if ctx.Err() != nil {
			return protocol.ToolResult{}, context.Cause(ctx)
		}
		if errors.Is(err, decision.ErrAborted) {
			return protocol.ToolResult{}, err
		}
		text := caps.transcript()
		if err != nil {
			return protocol.ToolResult{Text: strings.TrimSpace(text + "\nfailed: " + err.Error()), Error: true}, nil
		}
		if result != "" {
			text += "result: " + result
		}
		if text == "" {
			text = "done (no result)"
		}
		return ok(strings.TrimSpace(text))
	}}, nil
}

// functionNames lists the workspace's functions for the tool's description.
func (b *Box) functionNames() string {
	if b.Host == nil {
		return ""
	}
	fns := catalogue.Functions(b.Host.Workspace)
	if len(fns) == 0 {
		return " This workspace has no functions."
	}
	var names []string
	for name := range fns {
		names = append(names, name)
	}
	slices.Sort(names)
	return " Functions here: " + strings.Join(names, ", ") + "."
}

// functionCaps are a function's capabilities when the model runs it: its questions and
// approvals go to the user as the model's own do, and what it sends or prints comes back to
// the model as the call's result.
type functionCaps struct {
	t   agent.Tools
	mu  sync.Mutex // Output may come from the process's readers
	out strings.Builder
}

func (c *functionCaps) Send(_ context.Context, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.WriteString("sent: " + text + "\n")
	return nil
}

func (c *functionCaps) Ask(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
	return c.t.Ask(ctx, req)
}

func (c *functionCaps) Authorize(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
	return c.t.Authorize(ctx, calls)
}

func (c *functionCaps) Output(stream string, _ []string, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out.Len() < maxReadBytes {
		c.out.WriteString(stream + ": " + text)
	}
}

func (c *functionCaps) transcript() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return clip(c.out.String(), maxReadBytes)
}
