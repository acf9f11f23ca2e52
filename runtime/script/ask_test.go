package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"parley/protocol"
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
	caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (Answer, error) {
		return Answer{Action: protocol.ActionDecline, Reason: "later"}, nil
	}}
	if out := mustExec(t, h, caps, `result = "declined" if ask("Name?", {"type": "string"}) == None else "answered"`); out != "declined" {
		t.Errorf("result %q", out)
	}
}

func TestAskAbortFailsTheScript(t *testing.T) {
	h := newTestHost(t, Limits{})
	caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (Answer, error) {
		return Answer{}, fmt.Errorf("%w: stopped", ErrAborted)
	}}
	err := execErr(t, h, caps, "x = 1\n\nask('Name?')\n")
	wantContains(t, err.Error(), "question aborted: stopped", "script:3:")
	if !errors.Is(err, ErrAborted) {
		t.Errorf("%v is not ErrAborted", err)
	}
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
		answer Answer
		want   string
	}{
		{Answer{Action: protocol.ActionAccept, Content: json.RawMessage("true")}, "True"},
		{Answer{Action: protocol.ActionAccept, Content: json.RawMessage("false")}, "False"},
		{Answer{Action: protocol.ActionDecline}, "False"},
	} {
		caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (Answer, error) { return tc.answer, nil }}
		if out := mustExec(t, h, caps, `result = str(confirm("Sure?"))`); out != tc.want {
			t.Errorf("%+v: %s; want %s", tc.answer, out, tc.want)
		}
		q := caps.questions()[0]
		if q.Kind != protocol.KindConfirm || q.Message != "Sure?" || q.Schema == nil || q.Schema.Type != "boolean" {
			t.Errorf("asked %+v", q)
		}
	}
	caps := &fakeCaps{answer: func(context.Context, protocol.DecisionRequest) (Answer, error) {
		return Answer{}, ErrAborted
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
		answer Answer
		want   string
	}{
		{Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`true`)}, `[{"action":"accept","reason":"","value":"yes"},{"action":"accept","reason":"","value":true}]`},
		{Answer{Action: protocol.ActionDecline, Reason: "not now"}, `[{"action":"decline","reason":"not now","value":null},{"action":"decline","reason":"not now","value":null}]`},
		{Answer{Action: protocol.ActionDecline, Reason: protocol.ReasonTimeout}, `[{"action":"decline","reason":"timeout","value":null},{"action":"decline","reason":"timeout","value":null}]`},
	} {
		caps := &fakeCaps{answer: func(_ context.Context, req protocol.DecisionRequest) (Answer, error) {
			if tc.answer.Action == protocol.ActionAccept && req.Kind == protocol.KindAsk {
				return Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`"yes"`)}, nil
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
