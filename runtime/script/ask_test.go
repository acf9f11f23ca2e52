package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/gate"
)

func TestAskAccept(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{answer: accept(`{"zeta": "prod", "alpha": 3, "big": 1.5}`)}
	out := mustExec(t, h, caps, `
a = ask("Deploy?", {
    "type": "object",
    "properties": {
        "zeta": {"type": "string", "title": "Where", "enum": ["prod", "staging"]},
        "alpha": {"type": "integer", "title": "How many"},
        "big": {"type": "number", "title": "Ratio"},
    },
    "required": ["zeta"],
})
result = [a["zeta"], a["alpha"] + 1, a["big"] * 2, type(a["alpha"])]
`)
	if out != `["prod",4,3,"int"]` {
		t.Errorf("result %s", out)
	}
	qs := caps.questions()
	if len(qs) != 1 {
		t.Fatalf("asked %d questions", len(qs))
	}
	q := qs[0]
	if q.Kind != protocol.KindAsk || q.Message != "Deploy?" || q.Schema == nil || q.Schema.Type != "object" {
		t.Fatalf("asked %+v", q)
	}
	var keys []string
	for _, p := range q.Schema.Properties {
		keys = append(keys, p.Key)
	}
	if fmt.Sprint(keys) != "[zeta alpha big]" || len(q.Schema.Required) != 1 {
		t.Errorf("properties %v (required %v); want the order they were written in", keys, q.Schema.Required)
	}
	if q.Schema.Properties[0].Schema.Enum[1] != "staging" {
		t.Errorf("enum lost: %+v", q.Schema.Properties[0].Schema)
	}
}

// TestAskClosesItsChoices: a script's enum is its contract; "Other…" is offered only where
// the script opens it (QA round 22: ask() got "qa" for an env of dev, staging or prod).
func TestAskClosesItsChoices(t *testing.T) {
	cases := []struct {
		name, schema string
		want         map[string]string // property ("" for the schema itself): allowOther as sent
	}{
		{"a lone enum", `{"type": "string", "enum": ["a", "b"]}`, map[string]string{"": "false"}},
		{"a lone oneOf", `{"type": "string", "oneOf": [{"const": "a"}]}`, map[string]string{"": "false"}},
		{"an enum opened by the script", `{"type": "string", "enum": ["a"], "allowOther": True}`, map[string]string{"": "true"}},
		{"a form", `{"type": "object", "properties": {"env": {"type": "string", "enum": ["dev"]}, "why": {"type": "string"}, "own": {"type": "string", "enum": ["x"], "allowOther": True}}}`,
			map[string]string{"env": "false", "why": "unset", "own": "true"}},
		{"free text", `{"type": "string"}`, map[string]string{"": "unset"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newTestHost(t, Limits{})
			caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
				return decision.Answer{Action: protocol.ActionDecline}, nil
			}}
			mustExec(t, h, caps, `result = ask("Which?", `+c.schema+`)`)
			schema := caps.questions()[0].Schema
			for key, want := range c.want {
				q := schema
				for _, p := range schema.Properties {
					if p.Key == key {
						q = p.Schema
					}
				}
				got := "unset"
				if q.AllowOther != nil {
					got = fmt.Sprint(*q.AllowOther)
				}
				if got != want {
					t.Errorf("%q: allowOther %s, want %s", key, got, want)
				}
			}
		})
	}
}

func TestAskDefaultsToText(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{answer: accept(`"Ada"`)}
	if out := mustExec(t, h, caps, `result = ask("Name?")`); out != "Ada" {
		t.Errorf("result %q", out)
	}
	if s := caps.questions()[0].Schema; s == nil || s.Type != "string" {
		t.Errorf("schema %+v", s)
	}
}

func TestAskDecline(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
		return decision.Answer{Action: protocol.ActionDecline, Reason: "later"}, nil
	}}
	if out := mustExec(t, h, caps, `result = "declined" if ask("Name?", {"type": "string"}) == None else "answered"`); out != "declined" {
		t.Errorf("result %q", out)
	}
}

func TestAskAbortFailsTheScript(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
		return decision.Answer{}, fmt.Errorf("%w: stopped", decision.ErrAborted)
	}}
	err := execErr(t, h, caps, "x = 1\n\nask('Name?')\n")
	wantContains(t, err.Error(), "question aborted: stopped", "script:3:")
	wantIs(t, err, decision.ErrAborted)
}

func TestAskInvalidSchema(t *testing.T) {
	h := newTestHost(t, Limits{})
	for src, want := range map[string]string{
		`ask("Q?", {"type": "strnig"})`:                          `schema.type: unknown type "strnig"`,
		`ask("Q?", {"type": "string", "minimum": 1})`:            "schema.minimum",
		`ask("Q?", {"type": "object", "properties": {}})`:        "schema.properties",
		`ask("Q?", {"type": "string", "minLength": "three"})`:    "invalid question: schema",
		`ask("Q?", ["type", "string"])`:                          "want a dict",
		`ask("", {"type": "string"})`:                            "message",
		`ask("Q?", {"type": "string", "default": float("nan")})`: "cannot encode",
	} {
		caps := &fakeCaps{}
		err := execErr(t, h, caps, src)
		wantContains(t, err.Error(), "invalid question", want, "script:1:")
		if len(caps.questions()) != 0 {
			t.Errorf("%s: an invalid question was asked", src)
		}
	}
}

func TestConfirm(t *testing.T) {
	h := newTestHost(t, Limits{})
	for _, tc := range []struct {
		answer decision.Answer
		want   string
	}{
		{decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage("true")}, "True"},
		{decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage("false")}, "False"},
		{decision.Answer{Action: protocol.ActionDecline}, "False"},
	} {
		caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) { return tc.answer, nil }}
		if out := mustExec(t, h, caps, `result = str(confirm("Sure?"))`); out != tc.want {
			t.Errorf("%+v: %s; want %s", tc.answer, out, tc.want)
		}
		q := caps.questions()[0]
		if q.Kind != protocol.KindConfirm || q.Message != "Sure?" || q.Schema == nil || q.Schema.Type != "boolean" {
			t.Errorf("asked %+v", q)
		}
	}
	caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
		return decision.Answer{}, decision.ErrAborted
	}}
	err := execErr(t, h, caps, `confirm("Sure?")`)
	wantContains(t, err.Error(), "question aborted: no reason given")
}

func TestJSONRoundTrip(t *testing.T) {
	for _, doc := range []string{
		`{"z":1,"a":[true,false,null,"s",1.25,-3],"n":{}}`,
		`123456789012345678901234567890`,
		`[]`,
	} {
		v, err := fromJSON([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		out, err := toJSON(v)
		if err != nil || string(out) != doc {
			t.Errorf("%s came back as %s (%v)", doc, out, err)
		}
	}
	for _, bad := range []string{`{"a":}`, `[1] 2`, ``} {
		if _, err := fromJSON([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

func TestAskTimeoutIsPerDecision(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{answer: accept(`true`)}
	mustExec(t, h, caps, "ask('Name?', timeout=90)\nconfirm('Sure?', timeout=1.5)\nconfirm('Default?')")
	qs := caps.questions()
	if len(qs) != 3 || qs[0].TimeoutMs != 90_000 || qs[1].TimeoutMs != 1_500 || qs[2].TimeoutMs != 0 {
		t.Fatalf("timeouts %+v", qs)
	}
	for _, bad := range []string{"confirm('x', timeout=0)", "confirm('x', timeout='soon')", "ask('x', timeout=1000000000)"} {
		_, err := h.Exec(context.Background(), "script", bad, nil, caps)
		if err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// details=True tells an answer, a decline and a timeout apart.
func TestAskAndConfirmDetails(t *testing.T) {
	h := newTestHost(t, Limits{})
	for _, tc := range []struct {
		answer decision.Answer
		want   string
	}{
		{decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`true`)}, `[{"action":"accept","reason":"","value":"yes"},{"action":"accept","reason":"","value":true}]`},
		{decision.Answer{Action: protocol.ActionDecline, Reason: "not now"}, `[{"action":"decline","reason":"not now","value":null},{"action":"decline","reason":"not now","value":null}]`},
		{decision.Answer{Action: protocol.ActionDecline, Reason: protocol.ReasonTimeout}, `[{"action":"decline","reason":"timeout","value":null},{"action":"decline","reason":"timeout","value":null}]`},
	} {
		caps := &fakeCaps{answer: func(_ context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
			if tc.answer.Action == protocol.ActionAccept && req.Kind == protocol.KindAsk {
				return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`"yes"`)}, nil
			}
			return tc.answer, nil
		}}
		out := mustExec(t, h, caps, `result = [ask("Name?", details=True), confirm("Sure?", timeout=5, details=True)]`)
		if out != tc.want {
			t.Errorf("%+v: %s; want %s", tc.answer, out, tc.want)
		}
		// Without details, as before.
		if out := mustExec(t, h, caps, `result = [ask("Name?"), confirm("Sure?", details=False)]`); out != map[bool]string{true: `["yes",true]`, false: `[null,false]`}[tc.answer.Action == protocol.ActionAccept] {
			t.Errorf("%+v without details: %s", tc.answer, out)
		}
	}
}

// A timeout must be a number of seconds in (0, 86400]: NaN and the infinities too are
// refused, in words that do not call 0 allowed, and never reach TimeoutMs.
func TestAskTimeoutRange(t *testing.T) {
	h := newTestHost(t, Limits{})
	const want = "timeout must be more than 0 and at most 86400 seconds"
	for _, timeout := range []string{"0", "0.0", "-1", "86401", "86400.5", "1000000000000000000000000000000", "float('nan')", "float('inf')", "float('-inf')", "-float('nan')"} {
		for _, builtin := range []string{"ask", "confirm"} {
			src := builtin + "('x', timeout=" + timeout + ")"
			caps := &fakeCaps{}
			err := execErr(t, h, caps, src)
			wantContains(t, err.Error(), "Error in "+builtin+": "+want)
			if qs := caps.questions(); len(qs) != 0 {
				t.Errorf("%s was asked with TimeoutMs %d", src, qs[0].TimeoutMs)
			}
		}
	}
	for v, ms := range map[starlark.Value]int64{
		starlark.None:           0,
		starlark.MakeInt(86400): protocol.MaxTimeoutMs,
		starlark.Float(1.5):     1500,
		starlark.Float(0.0001):  1, // not 0, which would mean the server's default
	} {
		if got, err := decisionTimeout(v); err != nil || got != ms {
			t.Errorf("decisionTimeout(%s) = %d, %v; want %d", v, got, err, ms)
		}
	}
	for _, v := range []starlark.Value{starlark.Float(math.NaN()), starlark.Float(math.Inf(1)), starlark.Float(math.Inf(-1))} {
		if got, err := decisionTimeout(v); err == nil || err.Error() != want {
			t.Errorf("decisionTimeout(%s) = %d, %v; want %q", v, got, err, want)
		}
	}
}

// Starlark reports a builtin's error as "Error in name: …": the builtin's own words must not
// name it again.
func TestBuiltinErrorsNameTheBuiltinOnce(t *testing.T) {
	h, _ := workspaceWithFiles(t, Limits{})
	for src, want := range map[string]string{
		`confirm('x', timeout=0)`:   "Error in confirm: timeout must be more than 0",
		`ask('x', timeout='soon')`:  "Error in ask: timeout must be a number of seconds, not a string",
		`confirm()`:                 "Error in confirm: missing argument for message",
		`ask('x', shema={})`:        "Error in ask: unexpected keyword argument \"shema\" (did you mean schema?)",
		`send()`:                    "Error in send: missing argument for text",
		`run(["true"], 1, 2)`:       "Error in run: got 3 arguments, want at most 2",
		`run_batch("x")`:            "Error in run_batch: for parameter argvs: got string, want list",
		`read("nope")`:              `Error in read: "nope": no such file or directory`,
		`read(1)`:                   "Error in read: for parameter path: got int, want string",
		`list("missing")`:           `Error in list: "missing": no such file or directory`,
		`write("../x", "y")`:        `Error in write: "../x": the path leaves the workspace`,
		`write("a.txt")`:            "Error in write: missing argument for text",
		`struct(1)`:                 "Error in struct: unexpected positional arguments",
		`run(["true"], timeout=-1)`: "Error in run: timeout must be a positive number of seconds",
	} {
		err := execErr(t, h, &fakeCaps{}, src)
		wantContains(t, err.Error(), want)
		name, _, _ := strings.Cut(src, "(")
		for _, twice := range []string{"Error in " + name + ": " + name + ":", "Error in " + name + ": " + name + " "} {
			if strings.Contains(err.Error(), twice) {
				t.Errorf("%s: %q names %s twice", src, err, name)
			}
		}
	}
	// The words change, the cause does not.
	caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) {
		return decision.Answer{}, fmt.Errorf("%w: withdrawn", decision.ErrAborted)
	}}
	wantIs(t, execErr(t, h, caps, `confirm("Sure?")`), decision.ErrAborted)
}

// A run stopped while it waits in a capability ends with words, not a traceback: where it
// was and that the user stopped it. It stays context.Canceled.
func TestStopWhileBlockedIsWorded(t *testing.T) {
	h := newTestHost(t, Limits{})
	for src, want := range map[string]string{
		`x = ask("wait forever?")`:                      "script:1:8: the run was stopped by the user",
		"\nx = confirm(\"sure?\")":                      "script:2:12: the run was stopped by the user",
		`run(["rm", "x"])`:                              "script:1:4: the run was stopped by the user", // waiting for the approval
		`write("a.txt", "x")`:                           "script:1:6: the run was stopped by the user", // waiting for the approval
		`run(["true"])` + "\n" + `run(["sleep", "20"])`: "script:2:4: the run was stopped by the user", // the process runs
		"def f():\n    return ask('q?')\nf()":           "script:2:15: the run was stopped by the user",
	} {
		// The stop comes once the run waits where the test says, however long the child took
		// to get there: a stop at a fixed time found a loaded machine's child still starting,
		// or still in the first run().
		ctx, cancel := context.WithCancel(context.Background())
		wait := func(ctx context.Context) error { cancel(); <-ctx.Done(); return ctx.Err() }
		caps := &fakeCaps{
			answer: func(ctx context.Context, _ protocol.DecisionRequest) (decision.Answer, error) {
				return decision.Answer{}, wait(ctx)
			},
			verdict: func(ctx context.Context, calls []gate.ToolCall) (gate.Verdict, error) {
				if calls[0].Words[0] == "rm" || calls[0].Tool == "write" {
					return gate.Verdict{}, wait(ctx)
				}
				if calls[0].Words[0] == "sleep" {
					time.AfterFunc(100*time.Millisecond, cancel) // the process runs by then, or is starting
				}
				return gate.Verdict{Allowed: true}, nil
			},
		}
		guard := time.AfterFunc(30*time.Second, cancel) // a run that never waits fails, not hangs
		_, err := h.Exec(ctx, "script", src, nil, caps)
		guard.Stop()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v is not context.Canceled", src, err)
		}
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %q; want %q", src, err, want)
		}
		if log := caps.streamed(protocol.StreamLog); len(log) != 0 {
			t.Errorf("%s: logged %q", src, log)
		}
	}
}
