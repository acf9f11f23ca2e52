package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"parley/protocol"
)

// A function file is Starlark that describes itself in globals and does its work in main:
//
//	TITLE = "Greet someone"                  # optional
//	DESCRIPTION = "Sends a greeting."        # optional
//	PARAMS = {                               # a protocol.Schema object: one property per parameter
//	    "type": "object",
//	    "properties": {"name": {"type": "string", "title": "Name"}},
//	    "required": ["name"],
//	}
//
//	def main(args):                          # args: a dict keyed by parameter
//	    send("Hello, %s!" % args["name"])
//	    return "greeted " + args["name"]
//
// The top level runs twice: without capabilities to describe the function, and with them
// before main is called. It should only define things.

// loadSteps bounds the top level of a function file when it is loaded to be described: it
// should define a few globals, not compute.
const loadSteps = 100_000

// LoadFunction describes a function file: its PARAMS (which must be a well-formed object
// schema; absent means no parameters), TITLE and DESCRIPTION, and checks that it defines
// main(args). The file's top level runs with no capabilities: calling send, run and the rest
// there fails.
//
// name is the file name positions are reported with ("greet", "functions/greet.star"); the
// Function's Name is its base without ".star". Source is left for the caller to fill.
func LoadFunction(name, src string) (protocol.Function, error) {
	h := &Host{Limits: DefaultLimits()}
	if !h.isolated() {
		return loadFunction(name, src)
	}
	return describeCache.load(name, src, func() (protocol.Function, bool, error) {
		done, err := h.inChild(context.Background(), job{Kind: jobLoad, Name: name, Source: src}, nil)
		keep := done.Kind == msgDone || errors.Is(err, ErrMemoryLimit)
		if done.Function == nil {
			return protocol.Function{}, keep, err
		}
		return *done.Function, keep, err
	})
}

// loadFunction is LoadFunction in this process.
func loadFunction(name, src string) (protocol.Function, error) {
	h := &Host{Limits: DefaultLimits()}
	h.Limits.Steps = loadSteps
	r := h.start(context.Background(), name, nil)
	defer r.finish()
	globals, err := starlark.ExecFileOptions(fileOptions, r.thread, name, src, r.env.predeclared())
	if err != nil {
		return protocol.Function{}, r.fail(err)
	}
	fn, _, err := describe(name, src, globals)
	return fn, err
}

// describe reads a function file's globals. src is the file's text: its errors name the
// line that defines the global at fault.
func describe(name, src string, globals starlark.StringDict) (protocol.Function, *starlark.Function, error) {
	fn := protocol.Function{Name: strings.TrimSuffix(path.Base(name), ".star")}
	where := definitions(name, src)
	bad := func(global, format string, args ...any) error {
		at := name
		if pos, ok := where[global]; ok {
			at = fmt.Sprintf("%s:%d:%d", name, pos.Line, pos.Col)
		}
		return &Error{Text: fmt.Sprintf("%s: %s", at, fmt.Sprintf(format, args...))}
	}
	var ok bool
	if v, set := globals["TITLE"]; set {
		if fn.Title, ok = starlark.AsString(v); !ok {
			return fn, nil, bad("TITLE", "TITLE must be a string, not a %s", v.Type())
		}
	}
	if v, set := globals["DESCRIPTION"]; set {
		if fn.Description, ok = starlark.AsString(v); !ok {
			return fn, nil, bad("DESCRIPTION", "DESCRIPTION must be a string, not a %s", v.Type())
		}
	}
	fn.Params = &protocol.Schema{Type: "object"}
	if v, set := globals["PARAMS"]; set {
		params, err := toSchema(v)
		if err != nil {
			return fn, nil, bad("PARAMS", "PARAMS: %v", err)
		}
		if params.Type != "object" {
			return fn, nil, bad("PARAMS", `PARAMS must be an object schema: {"type": "object", "properties": {...}}`)
		}
		if len(params.Properties) == 0 {
			// No parameters, as without PARAMS: nothing to check but that none is required.
			if len(params.Required) > 0 {
				return fn, nil, bad("PARAMS", "PARAMS: required names %q, but there are no properties", params.Required)
			}
		} else if err := params.Check(); err != nil {
			return fn, nil, bad("PARAMS", "%s", fieldsText(err, "schema", "PARAMS"))
		}
		params.CloseChoices() // main(args) gets one of its own choices, as a script's ask()
		fn.Params = params
	}
	mainV, set := globals["main"]
	if !set {
		return fn, nil, bad("", "the file does not define main(args)")
	}
	main, ok := mainV.(*starlark.Function)
	if !ok {
		return fn, nil, bad("main", "main must be a function, not a %s", mainV.Type())
	}
	if main.NumParams() != 1 || main.HasVarargs() || main.HasKwargs() || main.ParamDefault(0) != nil {
		return fn, nil, bad("main", "main must take exactly one parameter, args: def main(args)")
	}
	return fn, main, nil
}

// definitions returns where the top level of a file last binds each global (an assignment
// or a def), for errors about their values. A file that does not parse has none.
func definitions(name, src string) map[string]syntax.Position {
	f, err := fileOptions.Parse(name, src, 0)
	if err != nil {
		return nil
	}
	out := map[string]syntax.Position{}
	for _, stmt := range f.Stmts {
		switch stmt := stmt.(type) {
		case *syntax.AssignStmt:
			if id, ok := stmt.LHS.(*syntax.Ident); ok {
				out[id.Name], _ = stmt.LHS.Span()
			}
		case *syntax.DefStmt:
			out[stmt.Name.Name] = stmt.Def
		}
	}
	return out
}

// Call runs a function file: its top level with the capabilities, then main(args), and
// returns main's return value as text (a string as is, None as "", anything else as JSON).
//
// args is a JSON object keyed by parameter (or empty). Parameters left out take the default
// their PARAMS property declares, and the whole must then fit PARAMS. name is as for
// LoadFunction. A failure is an *Error. Like Exec, it runs in a child where it can.
func (h *Host) Call(ctx context.Context, name, src string, args json.RawMessage, caps Caps) (string, error) {
	return h.run(ctx, jobCall, name, src, args, caps, h.call)
}

// call is Call in this process.
func (h *Host) call(ctx context.Context, name, src string, args json.RawMessage, caps Caps) (string, error) {
	r := h.start(ctx, name, caps)
	defer r.finish()
	globals, err := starlark.ExecFileOptions(fileOptions, r.thread, name, src, r.env.predeclared())
	if err != nil {
		return "", r.fail(err)
	}
	fn, main, err := describe(name, src, globals)
	if err != nil {
		return "", err
	}
	full, err := Arguments(fn.Params, args)
	var invalid *protocol.ValidationError
	if errors.As(err, &invalid) {
		return "", &Error{Text: fmt.Sprintf("%s: the arguments do not fit PARAMS: %s", name, fieldsText(err, "", "")), Err: err}
	}
	if err != nil {
		return "", &Error{Text: fmt.Sprintf("%s: the arguments %v", name, err), Err: err}
	}
	dict, err := jsonObjectToDict(full)
	if err != nil {
		return "", &Error{Text: fmt.Sprintf("%s: the arguments %v", name, err), Err: err}
	}
	v, err := starlark.Call(r.thread, main, starlark.Tuple{dict}, nil)
	if err != nil {
		return "", r.fail(err)
	}
	out, err := resultText(v)
	if err != nil {
		return "", r.fail(fmt.Errorf("%s: main returned %s: %w", name, v.Type(), err))
	}
	return out, nil
}

// Arguments completes a function's arguments with its parameters' defaults and checks them
// against the parameters. A misfit is a *protocol.ValidationError with a message per
// parameter; args that are not a JSON object are another error. The runtime calls it before
// starting a run, so a request learns at once what is wrong; Call calls it again for callers
// that did not.
func Arguments(params *protocol.Schema, args json.RawMessage) (json.RawMessage, error) {
	full, err := withDefaults(params, args)
	if err != nil {
		return nil, err
	}
	if len(params.Properties) > 0 {
		if err := params.ValidateContent(full); err != nil {
			return nil, err
		}
	}
	return full, nil
}

// withDefaults returns args (a JSON object, or empty) with every parameter it leaves out that
// has a default set to it, keeping the order args were written in.
func withDefaults(params *protocol.Schema, args json.RawMessage) (json.RawMessage, error) {
	given, err := jsonObjectToDict(args)
	if err != nil {
		return nil, err
	}
	for _, p := range params.Properties {
		if p.Schema == nil || len(bytes.TrimSpace(p.Schema.Default)) == 0 {
			continue
		}
		if _, found, _ := given.Get(starlark.String(p.Key)); found {
			continue
		}
		d, err := fromJSON(p.Schema.Default)
		if err != nil {
			return nil, fmt.Errorf("cannot be completed: the default of %q: %w", p.Key, err)
		}
		if err := given.SetKey(starlark.String(p.Key), d); err != nil {
			return nil, err
		}
	}
	out, err := toJSON(given)
	if err != nil {
		return nil, errors.New("cannot be encoded again")
	}
	return out, nil
}
