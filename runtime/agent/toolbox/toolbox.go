// Package toolbox is the set of tools a model agent gets: their JSON Schema descriptions and
// their implementations. Files are reached through the script host (runtime/script), so a
// model is confined to the workspace exactly as a script is; every call that changes
// something (write_file, edit_file, run_command) passes the gate through agent.Tools, and the
// calls of one model message that need approval are asked as one batch. Questions go
// through agent.Tools' Ask, in the decision vocabulary, with the host's policy for "Other…".
//
// A tool's failure (a bad argument, a refusal, a timeout) is a result the model reads, so it
// can correct itself; only an abort (the turn was stopped, the server is closing) is an error.
package toolbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/gate"
	"parley/runtime/script"
)

// Def describes one tool to the model.
type Def struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
}

// Box is the tools of one turn, in one workspace.
type Box struct {
	Host *script.Host
	// Extra, if set, adds tools from elsewhere (the workspace's MCP servers) after the
	// built-in ones.
	Extra Extra
}

// Extra is a set of tools from outside the toolbox: the MCP servers of a workspace
// (runtime/mcp). Their calls go through the same Run: one Authorize for the batch, then in
// order.
type Extra interface {
	// Defs describes its tools as they are now.
	Defs() []Def
	// Has reports whether name is one of its tools.
	Has(name string) bool
	// Prepare checks a call of one of its tools: gate is the call the gate must pass (nil
	// when none); run does it. An error is the model's mistake, told back to it as the
	// call's result.
	Prepare(name string, args json.RawMessage) (gate *gate.ToolCall, run func(ctx context.Context, t agent.Tools) (protocol.ToolResult, error), err error)
}

// StartingExtra is an Extra whose tools arrive as it connects (MCP servers start with the
// process, beside the turns it resumes). WaitReady returns once none is still starting, or
// when ctx ends.
type StartingExtra interface {
	Extra
	WaitReady(ctx context.Context) error
}

// New returns the tools confined to host's workspace.
func New(host *script.Host) *Box { return &Box{Host: host} }

// tool is one tool: its description, how it prepares a call, whether that needs the gate.
type tool struct {
	def Def
	// prepare checks the arguments and returns what to run; an error is the model's mistake,
	// told back to it as the call's result.
	prepare func(b *Box, args json.RawMessage) (*plan, error)
}

// plan is a prepared call: gate is set when it needs approval; run does it.
type plan struct {
	gate *gate.ToolCall
	run  func(ctx context.Context, t agent.Tools) (protocol.ToolResult, error)
}

// Defs describes the tools, in a fixed order.
func (b *Box) Defs() []Def {
	out := make([]Def, 0, len(registry))
	for _, t := range registry {
		def := t.def
		if def.Name == "run_function" {
			def.Description += b.functionNames()
		}
		out = append(out, def)
	}
	if b.Extra != nil {
		out = append(out, b.Extra.Defs()...)
	}
	return out
}

// names lists the tools' names, the extra ones included.
func (b *Box) names() []string {
	out := Names()
	if b.Extra != nil {
		for _, d := range b.Extra.Defs() {
			out = append(out, d.Name)
		}
	}
	return out
}

// Names lists the tools' names, for an error that names an unknown one.
func Names() []string {
	out := make([]string, len(registry))
	for i, t := range registry {
		out[i] = t.def.Name
	}
	return out
}

func lookup(name string) (tool, bool) {
	i := slices.IndexFunc(registry, func(t tool) bool { return t.def.Name == name })
	if i < 0 {
		return tool{}, false
	}
	return registry[i], true
}

// Run runs the calls of one model message, in order, and returns one result per call, and
// how many of them the model got wrong in form (an unknown tool, arguments that are not a
// JSON object). The calls that need the gate are authorized first, as one decision. It
// returns an error only when the turn must end: ctx is done, or a decision was aborted; the
// results are then those of the calls that finished before, in order, so what ran is
// still recorded.
func (b *Box) Run(ctx context.Context, t agent.Tools, calls []protocol.ToolCall) ([]protocol.ToolResult, int, error) {
	wrong := 0
	results := make([]protocol.ToolResult, len(calls))
	plans := make([]*plan, len(calls))
	var gated []gate.ToolCall
	var gatedAt []int // call index of each gated entry
	for i, c := range calls {
		results[i] = protocol.ToolResult{Call: c.ID, Name: c.Name}
		tl, ok := lookup(c.Name)
		var extra bool
		if !ok && b.Extra != nil {
			extra = b.Extra.Has(c.Name)
		}
		if !ok && !extra {
			wrong++
			results[i].Error = true
			results[i].Text = fmt.Sprintf("there is no tool named %q; the tools are %s", c.Name, strings.Join(b.names(), ", "))
			if strings.HasPrefix(c.Name, "mcp__") {
				// An MCP server's tool: its server may be starting (a turn resumed after a
				// restart calls it at once) or down; the model should not read it as never
				// having existed (QA round 21).
				results[i].Text = fmt.Sprintf("the tool %q is not available now: its MCP server is not connected (starting, or down); the tools now are %s", c.Name, strings.Join(b.names(), ", "))
			}
			continue
		}
		args, err := objectArgs(c.Arguments)
		switch {
		case err != nil:
			wrong++
		case extra:
			var g *gate.ToolCall
			var run func(ctx context.Context, t agent.Tools) (protocol.ToolResult, error)
			g, run, err = b.Extra.Prepare(c.Name, args)
			plans[i] = &plan{gate: g, run: run}
		default:
			plans[i], err = tl.prepare(b, args)
		}
		if err == nil && (plans[i] == nil || plans[i].run == nil) {
			err = fmt.Errorf("the tool %q cannot run now", c.Name) // never a call of nothing
		}
		if err != nil {
			// A call that could not be prepared runs nothing: the plan an extra tool's
			// Prepare returned with its error has no run (QA round 22: an MCP server that had
			// just stopped took the whole server down with a nil call).
			plans[i] = nil
			results[i].Error = true
			results[i].Text = err.Error()
			continue
		}
		if plans[i].gate != nil {
			gated = append(gated, *plans[i].gate)
			gatedAt = append(gatedAt, i)
		}
	}
	allowed := map[int]string{} // call index → "" when allowed, else why not
	if len(gated) > 0 {
		v, err := t.Authorize(ctx, gated)
		if err != nil {
			return nil, wrong, fmt.Errorf("approval of %d tool calls: %w", len(gated), err)
		}
		rec, records := t.(OutputRecorder)
		for j, i := range gatedAt {
			if v.Allows(j) {
				allowed[i] = ""
			} else {
				allowed[i] = refusal(v.Text)
			}
			if records && j < len(v.By) && v.By[j] != nil {
				// Seen on the call's receipt: nothing runs unseen because of an old "always".
				if err := rec.ToolOutput(ctx, protocol.ToolOutput{Call: calls[i].ID, Name: calls[i].Name, Granted: v.By[j]}); err != nil {
					slog.Warn("could not record a granted call", "call", calls[i].ID, "err", err)
				}
			}
		}
	}
	for i, p := range plans {
		if p == nil {
			continue
		}
		if why, asked := allowed[i]; asked && why != "" {
			results[i].Error, results[i].Text = true, why
			continue
		}
		if err := ctx.Err(); err != nil {
			return results[:i], wrong, context.Cause(ctx)
		}
		res, err := p.run(context.WithValue(ctx, callIDKey{}, calls[i].ID), t)
		if err != nil {
			return results[:i], wrong, err
		}
		res.Call, res.Name = calls[i].ID, calls[i].Name
		results[i] = res
	}
	return results, wrong, nil
}

type callIDKey struct{}

// CallID is the model's id of the call a tool's run belongs to (for what an extra tool
// records about it, such as its progress).
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// refusal words a verdict that did not allow a call: the user's own words when they gave
// some, "no answer in time" after a timeout.
func refusal(text string) string {
	switch {
	case strings.TrimSpace(text) == "":
		return gate.TextRejected
	case text == gate.TextTimedOut, text == gate.TextActed, strings.HasPrefix(text, gate.TextRejected):
		return text
	}
	return gate.TextRejected + ": " + text
}

// objectArgs checks that a call's arguments are one JSON object. Empty arguments are an
// empty object: small models send "" for a tool without parameters.
func objectArgs(raw string) (json.RawMessage, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return json.RawMessage("{}"), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("the arguments are not a JSON object (%s): send them again as one JSON object that fits the tool's parameters", clip(raw, 200))
	}
	return json.RawMessage(raw), nil
}

// decode reads arguments into v, wording a mismatch for the model.
func decode(args json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(args)))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the arguments do not fit the tool's parameters: %v", err)
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func ok(text string) (protocol.ToolResult, error) { return protocol.ToolResult{Text: text}, nil }

func failed(text string) (protocol.ToolResult, error) {
	return protocol.ToolResult{Text: text, Error: true}, nil
}
