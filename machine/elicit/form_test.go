package elicit

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"parley/i18n"
	"parley/machine/machinetest"
	"parley/protocol"
)

// parse reads a schema written as JSON, the way askers write them. It panics on a typo:
// the tables are code.
func parse(data string) *protocol.Schema {
	var s protocol.Schema
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		panic(data + ": " + err.Error())
	}
	if err := s.Check(); err != nil {
		panic(data + ": " + err.Error())
	}
	return &s
}

func askReq(schema string) protocol.DecisionRequest {
	return protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "?", Schema: parse(schema)}
}

func ptr[T any](v T) *T { return &v }

// Schemas used across the tables.
const (
	sText      = `{"type":"string","title":"Name","placeholder":"Ada"}`
	sTextarea  = `{"type":"string","multiline":true}`
	sEmail     = `{"type":"string","format":"email"}`
	sURI       = `{"type":"string","format":"uri"}`
	sDate      = `{"type":"string","format":"date"}`
	sDateTime  = `{"type":"string","format":"date-time"}`
	sShort     = `{"type":"string","minLength":3,"maxLength":5}`
	sNumber    = `{"type":"number","minimum":0.5,"maximum":9.5}`
	sInteger   = `{"type":"integer","minimum":1,"maximum":10}`
	sBool      = `{"type":"boolean","trueLabel":"Delete it","falseLabel":"Keep it"}`
	sBoolPlain = `{"type":"boolean"}`
	sBoolDef   = `{"type":"boolean","default":false}`
	sEnum      = `{"type":"string","enum":["a","b","c"],"enumNames":["Alpha","Beta","Gamma"]}`
	sEnumDef   = `{"type":"string","enum":["a","b"],"default":"b"}`
	sEnumOther = `{"type":"string","enum":["a","b"],"default":"mine"}`
	sClosed    = `{"type":"string","enum":["a","b"],"allowOther":false}`
	sOpen      = `{"type":"string","enum":["a","b"],"allowOther":true}`
	sOneOf     = `{"type":"string","oneOf":[{"const":"s","title":"Staging","recommended":true},{"const":"p","title":"Production","description":"Live traffic"}]}`
	sMulti     = `{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":2,"maxItems":2}`
	sMultiAny  = `{"type":"array","items":{"anyOf":[{"const":"x","title":"Ex"},{"const":"y"}]},"default":["y","x"]}`
	// sForm is three questions: a choice and a number required, a note optional.
	sForm = `{"type":"object","properties":{
		"env":{"type":"string","header":"Env","title":"Where?","enum":["staging","prod"]},
		"count":{"type":"integer","header":"Count","minimum":1},
		"note":{"type":"string","multiline":true}},
		"required":["env","count"]}`
	// sChoices is three single choices, all optional.
	sChoices = `{"type":"object","properties":{
		"a":{"type":"string","enum":["1","2"]},
		"b":{"type":"string","enum":["1","2"]},
		"c":{"type":"boolean"}}}`
	sDefaults = `{"type":"object","properties":{
		"n":{"type":"number","default":5},
		"t":{"type":"string","default":"x"},
		"m":{"type":"array","items":{"enum":["a","b"]},"default":["a"]},
		"b":{"type":"boolean","default":true},
		"e":{"type":"string","enum":["a","b"],"default":"b"},
		"none":{"type":"string"}},"required":["none"]}`
	sOneProp = `{"type":"object","properties":{"pick":{"type":"string","enum":["a","b"]}}}`
	// sMiddleRequired is three choices, the second alone required.
	sMiddleRequired = `{"type":"object","properties":{
		"a":{"type":"string","enum":["1","2"]},
		"b":{"type":"string","enum":["1","2"]},
		"c":{"type":"boolean"}},"required":["b"]}`
	// sTwoLines is two optional lines of text (QA round 19, P2-2).
	sTwoLines = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}`
	// sDayCountTags is a date, a whole number and picks, all optional (QA round 19, P2-1).
	sDayCountTags = `{"type":"object","properties":{
		"d":{"type":"string","format":"date"},
		"n":{"type":"integer"},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`
)

func TestFields(t *testing.T) {
	yes := []protocol.Choice{{Value: "true", Label: "Yes"}, {Value: "false", Label: "No"}}
	tests := []struct {
		name string
		req  protocol.DecisionRequest
		opts Options
		want []Field
	}{
		{"string", askReq(sText), DefaultOptions(), []Field{{Kind: Text, Header: "Name", Title: "Name", Placeholder: "Ada", Required: true}}},
		{"multiline", askReq(sTextarea), DefaultOptions(), []Field{{Kind: Textarea, Header: "1", Required: true}}},
		{"email", askReq(sEmail), DefaultOptions(), []Field{{Kind: Email, Header: "1", Required: true}}},
		{"uri", askReq(sURI), DefaultOptions(), []Field{{Kind: URI, Header: "1", Required: true}}},
		{"date", askReq(sDate), DefaultOptions(), []Field{{Kind: Date, Header: "1", Required: true}}},
		{"date-time", askReq(sDateTime), DefaultOptions(), []Field{{Kind: DateTime, Header: "1", Required: true}}},
		{"text bounds", askReq(sShort), DefaultOptions(), []Field{{Kind: Text, Header: "1", Required: true, MinLength: ptr(3), MaxLength: ptr(5)}}},
		{"number bounds", askReq(sNumber), DefaultOptions(), []Field{{Kind: Number, Header: "1", Required: true, Min: ptr(0.5), Max: ptr(9.5)}}},
		{"integer bounds", askReq(sInteger), DefaultOptions(), []Field{{Kind: Integer, Header: "1", Required: true, Min: ptr(1.0), Max: ptr(10.0)}}},
		{"boolean labels", askReq(sBool), DefaultOptions(), []Field{{Kind: Boolean, Header: "1", Required: true,
			Choices: []protocol.Choice{{Value: "true", Label: "Delete it"}, {Value: "false", Label: "Keep it"}}}}},
		{"boolean yes/no", askReq(sBoolPlain), DefaultOptions(), []Field{{Kind: Boolean, Header: "1", Required: true, Choices: yes}}},
		{"confirm without a schema is a boolean", protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "sure?"}, DefaultOptions(),
			[]Field{{Kind: Boolean, Header: "1", Required: true, Choices: yes}}},
		{"enum with names", askReq(sEnum), DefaultOptions(), []Field{{Kind: Single, Header: "1", Required: true, AllowOther: true,
			Choices: []protocol.Choice{{Value: "a", Label: "Alpha"}, {Value: "b", Label: "Beta"}, {Value: "c", Label: "Gamma"}}}}},
		{"oneOf", askReq(sOneOf), DefaultOptions(), []Field{{Kind: Single, Header: "1", Required: true, AllowOther: true,
			Choices: []protocol.Choice{{Value: "s", Label: "Staging", Recommended: true}, {Value: "p", Label: "Production", Description: "Live traffic"}}}}},
		{"host closes Other", askReq(sEnum), Options{AllowOther: false}, []Field{{Kind: Single, Header: "1", Required: true,
			Choices: []protocol.Choice{{Value: "a", Label: "Alpha"}, {Value: "b", Label: "Beta"}, {Value: "c", Label: "Gamma"}}}}},
		{"the schema's allowOther:false wins over the host", askReq(sClosed), DefaultOptions(), []Field{{Kind: Single, Header: "1", Required: true,
			Choices: []protocol.Choice{{Value: "a", Label: "a"}, {Value: "b", Label: "b"}}}}},
		{"the schema's allowOther:true wins over the host", askReq(sOpen), Options{AllowOther: false}, []Field{{Kind: Single, Header: "1", Required: true, AllowOther: true,
			Choices: []protocol.Choice{{Value: "a", Label: "a"}, {Value: "b", Label: "b"}}}}},
		{"multi enum: no Other, the protocol takes listed choices only", askReq(sMulti), DefaultOptions(), []Field{{Kind: Multi, Header: "1", Required: true,
			MinItems: ptr(2), MaxItems: ptr(2), Choices: []protocol.Choice{{Value: "a", Label: "a"}, {Value: "b", Label: "b"}, {Value: "c", Label: "c"}}}}},
		{"multi anyOf", askReq(sMultiAny), DefaultOptions(), []Field{{Kind: Multi, Header: "1", Required: true,
			Choices: []protocol.Choice{{Value: "x", Label: "Ex"}, {Value: "y", Label: "y"}}}}},
		{"a form: keys, headers, titles from the keys, required", askReq(sForm), DefaultOptions(), []Field{
			{Key: "env", Kind: Single, Header: "Env", Title: "Where?", Required: true, AllowOther: true,
				Choices: []protocol.Choice{{Value: "staging", Label: "staging"}, {Value: "prod", Label: "prod"}}},
			{Key: "count", Kind: Integer, Header: "Count", Required: true, Min: ptr(1.0)},
			{Key: "note", Kind: Textarea, Header: "Note", Title: "Note"},
		}},
		{"an approval has no fields", protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?",
			Options: []protocol.ApprovalOption{{Value: "allow", Label: "Allow"}}}, DefaultOptions(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := New(tt.req, tt.opts).Fields()
			for i := range got {
				if got[i].Schema == nil {
					t.Errorf("field %d has no schema", i)
				}
				got[i].Schema = nil // compared through the rest
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("fields:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// state is what the view reads, flattened so a table can spell it.
type state struct {
	Current    int
	Stepped    bool
	Lone       bool
	CanProceed bool
	Wrong      bool // an answer given fails its check (!Checked)
	// Complete has one mark per field: 'x' complete (a chip's check mark), '.' not.
	Complete string
	Content  string
	Errors   map[string]string
}

func snapshot(f *Form) state {
	s := state{Current: f.Current(), Stepped: f.Stepped(), Lone: f.Lone(), CanProceed: f.CanProceed(),
		Wrong: !f.Checked(), Content: string(f.Content()), Errors: f.Errors()}
	for i := range f.Fields() {
		if f.Complete(i) {
			s.Complete += "x"
		} else {
			s.Complete += "."
		}
	}
	return s
}

// unversioned checks that every Send and Settle names the form's current version, whose
// Content the table's state spells, and drops the number so a table can write Send{}.
func unversioned(t *testing.T, f *Form, effects []Effect) []Effect {
	t.Helper()
	for i, e := range effects {
		switch e := e.(type) {
		case Send:
			if e.Version != f.Version() {
				t.Errorf("Send names version %d, the form is at %d", e.Version, f.Version())
			}
			effects[i] = Send{}
		case Settle:
			if e.Version != f.Version() {
				t.Errorf("Settle names version %d, the form is at %d", e.Version, f.Version())
			}
			effects[i] = Settle{}
		}
	}
	return effects
}

// dispatchCase is a row of TestDispatch and TestAdvance: events from a new form, then the
// state and the last event's effects.
type dispatchCase struct {
	name        string
	req         protocol.DecisionRequest
	opts        *Options // nil: DefaultOptions
	events      []Event
	wantState   state
	wantEffects []Effect
}

// run makes a form of the case's request and options, dispatches its events, and checks
// the state and the last event's effects (their versions the form's own).
func (c dispatchCase) run(t *testing.T) {
	opts := DefaultOptions()
	if c.opts != nil {
		opts = *c.opts
	}
	f := New(c.req, opts)
	got := unversioned(t, f, machinetest.Last(t, f.Dispatch, c.events...))
	machinetest.State(t, snapshot(f), c.wantState)
	machinetest.Equal(t, got, c.wantEffects)
}

// submitted is the row of a lone field typed and submitted: it is sent as the content its
// kind makes of the text or, where err says what is wrong in the protocol's words, held back.
func submitted(name, schema, typed, content, err string) dispatchCase {
	c := dispatchCase{name: name, req: askReq(schema), events: []Event{Type{0, typed}, Submit{}},
		wantState: state{CanProceed: true, Complete: "x", Content: content}, wantEffects: []Effect{Send{}}}
	if err != "" {
		c.wantState.Errors = map[string]string{"": err}
		c.wantState.Wrong = true
		c.wantEffects = []Effect{Invalid{}}
	}
	return c
}

// clicked is the case of one click on value in a lone question (nothing to type, so a
// click answers): it settles on content, or, when content is null (a value that is no
// choice), is ignored.
func clicked(name string, req protocol.DecisionRequest, value, content string) dispatchCase {
	c := dispatchCase{name: name, req: req, events: []Event{Pick{Index: 0, Value: value}},
		wantState: state{Lone: true, CanProceed: true, Complete: "x", Content: content}, wantEffects: []Effect{Settle{}}}
	if content == "null" {
		c.wantState = state{Lone: true, Complete: ".", Content: content}
		c.wantEffects = nil
	}
	return c
}

// TestDateTimeAtThePersonsOffset: a date-and-time input's wall-clock text is the person's time
// (Options.Zone), sent in RFC 3339 with their offset, and an RFC 3339 default is shown to them
// in their wall clock (QA round 25 P1: no answer of the picker could pass the check).
func TestDateTimeAtThePersonsOffset(t *testing.T) {
	opts := DefaultOptions()
	opts.Zone = func(wall time.Time) time.Duration {
		if wall.Month() >= time.April && wall.Month() <= time.October {
			return 2 * time.Hour // summer time
		}
		return time.Hour
	}
	for _, c := range []struct{ typed, content, wall string }{
		{"2026-12-25T10:30", `"2026-12-25T10:30:00+01:00"`, "2026-12-25T10:30"},
		{"2026-07-01T23:45", `"2026-07-01T23:45:00+02:00"`, "2026-07-01T23:45"},
	} {
		f := New(askReq(sDateTime), opts)
		f.Dispatch(Type{0, c.typed})
		if got := string(f.Content()); got != c.content {
			t.Errorf("%s: content %s, want %s", c.typed, got, c.content)
		}
		if effs := f.Dispatch(Submit{}); !reflect.DeepEqual(effs, []Effect{Send{Version: f.Version()}}) {
			t.Errorf("%s: submit %v, want a send (errors %v)", c.typed, effs, f.Errors())
		}
		var instant string
		if err := json.Unmarshal(f.Content(), &instant); err != nil || f.WallClock(instant) != c.wall {
			t.Errorf("%s: shown back as %q (%v)", c.typed, f.WallClock(instant), err)
		}
	}
	f := New(askReq(sDateTime), opts)
	if got := f.WallClock("2026-11-30T14:00:00Z"); got != "2026-11-30T15:00" {
		t.Errorf("a default in UTC, in the person's wall clock: %q", got)
	}
	if got := f.WallClock("not a time"); got != "not a time" {
		t.Errorf("any other text as it is: %q", got)
	}
}

// TestDispatch runs each sequence from a new form; wantEffects are the last event's.
func TestDispatch(t *testing.T) {
	stacked := DefaultOptions()
	stacked.Layout = Stacked
	noClick := DefaultOptions()
	noClick.AnswerOnClick = false
	closed := DefaultOptions()
	closed.AllowOther = false
	confirm := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Sure?"}
	approval := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?", Options: []protocol.ApprovalOption{{Value: "allow", Label: "Allow"}}}

	tests := []dispatchCase{
		// Text-like fields.
		submitted("text: typed and sent", sText, "Ada", `"Ada"`, ""),
		{
			name: "text: nothing typed is null and required", req: askReq(sText),
			events:      []Event{Submit{}},
			wantState:   state{Complete: ".", Content: `null`, Errors: map[string]string{"": "is required"}},
			wantEffects: []Effect{Invalid{}},
		},
		{
			name: "text: blank is no answer", req: askReq(sText),
			events:      []Event{Type{0, "   "}, Submit{}},
			wantState:   state{Complete: ".", Content: `null`, Errors: map[string]string{"": "is required"}},
			wantEffects: []Effect{Invalid{}},
		},
		{
			name: "text: typing clears the error", req: askReq(sText),
			events:      []Event{Submit{}, Type{0, "A"}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `"A"`},
			wantEffects: nil,
		},
		submitted("text: length in the protocol's words", sShort, "ab", `"ab"`, "must be at least 3 characters"),
		submitted("textarea keeps its newlines", sTextarea, "one\ntwo", `"one\ntwo"`, ""),
		submitted("email: a bad address", sEmail, "bob", `"bob"`, "must be an email address like name@example.com"),
		submitted("email: a good address", sEmail, "bob@example.com", `"bob@example.com"`, ""),
		submitted("uri: a bad link", sURI, "example.com", `"example.com"`, "must be a link like https://example.com/page"),
		submitted("date: a day that does not exist", sDate, "2026-02-30", `"2026-02-30"`, "must be a date like 2026-11-30"),
		submitted("date-time: RFC 3339", sDateTime, "2026-11-30T14:00:00Z", `"2026-11-30T14:00:00Z"`, ""),
		// A browser's date-and-time input gives wall-clock text with no zone: UTC with no Zone
		// set (TestDateTimeAtThePersonsOffset has one). Sent as given, nothing could pass.
		submitted("date-time: an input's wall clock, to the minute", sDateTime, "2026-12-25T10:30", `"2026-12-25T10:30:00Z"`, ""),
		submitted("date-time: an input's wall clock, to the second", sDateTime, "2026-12-25T10:30:15", `"2026-12-25T10:30:15Z"`, ""),
		submitted("date-time: not a time", sDateTime, "2026-12-25T25:30", `"2026-12-25T25:30"`, "must be a date and time like 2026-11-30T14:00:00Z"),

		// Numbers.
		submitted("number: sent as a JSON number", sNumber, " 3.5 ", `3.5`, ""),
		submitted("number: not a number goes as text, and the protocol says so", sNumber, "abc", `"abc"`, "must be a number"),
		{
			name: "number: +1 is not JSON", req: askReq(sNumber),
			events:      []Event{Type{0, "+1"}},
			wantState:   state{Wrong: true, CanProceed: true, Complete: "x", Content: `"+1"`},
			wantEffects: nil,
		},
		submitted("number: below the minimum", sNumber, "0.25", `0.25`, "must be at least 0.5"),
		submitted("integer: above the maximum", sInteger, "11", `11`, "must be at most 10"),
		submitted("integer: not whole", sInteger, "2.5", `2.5`, "must be a whole number"),
		submitted("integer: in bounds", sInteger, "7", `7`, ""),

		// Booleans.
		clicked("boolean alone settles on the click", askReq(sBool), "true", `true`),
		clicked("a confirm without a schema settles false on No", confirm, "false", `false`),
		{
			name: "boolean with a default is seeded, not lone", req: askReq(sBoolDef),
			events:      []Event{Pick{Index: 0, Value: "true"}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `true`},
			wantEffects: nil,
		},
		{
			name: "boolean default sent as it is", req: askReq(sBoolDef),
			events:      []Event{Submit{}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `false`},
			wantEffects: []Effect{Send{}},
		},
		clicked("boolean: a value other than true/false is ignored", askReq(sBool), "yes", `null`),

		// Single choices.
		clicked("enum alone settles on the click", askReq(sEnum), "b", `"b"`),
		clicked("oneOf alone settles on the click", askReq(sOneOf), "p", `"p"`),
		clicked("a value that is no choice is ignored", askReq(sEnum), "z", `null`),
		{
			name: "answer-on-click off: the click selects, the button sends", req: askReq(sEnum), opts: &noClick,
			events:      []Event{Pick{Index: 0, Value: "a"}, Pick{Index: 0, Value: "c"}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `"c"`},
			wantEffects: nil,
		},
		{
			name: "answer-on-click off: send", req: askReq(sEnum), opts: &noClick,
			events:      []Event{Pick{Index: 0, Value: "a"}, Submit{}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `"a"`},
			wantEffects: []Effect{Send{}},
		},
		{
			name: "an enum with a default is seeded, not lone", req: askReq(sEnumDef),
			events:      []Event{Pick{Index: 0, Value: "a"}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `"a"`},
			wantEffects: nil,
		},
		{
			name: "a default that is no choice seeds Other", req: askReq(sEnumOther),
			events:      []Event{Submit{}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `"mine"`},
			wantEffects: []Effect{Send{}},
		},
		{
			name: "Other: typed text is the answer", req: askReq(sEnum),
			events:      []Event{ChooseOther{0}, TypeOther{0, "delta"}, Submit{}},
			wantState:   state{Lone: true, CanProceed: true, Complete: "x", Content: `"delta"`},
			wantEffects: []Effect{Send{}},
		},
		{
			name: "Other: typing chooses it", req: askReq(sEnum),
			events:      []Event{Pick{Index: 0, Value: "a"}, TypeOther{0, "delta"}},
			wantState:   state{Lone: true, CanProceed: true, Complete: "x", Content: `"delta"`},
			wantEffects: nil,
		},
		{
			name: "Other chosen and empty blocks the button", req: askReq(sEnum),
			events:      []Event{ChooseOther{0}},
			wantState:   state{Lone: true, Complete: ".", Content: `null`},
			wantEffects: nil,
		},
		{
			name: "Other chosen and empty: required, in the protocol's words", req: askReq(sEnum),
			events:      []Event{ChooseOther{0}, TypeOther{0, "  "}, Submit{}},
			wantState:   state{Lone: true, Complete: ".", Content: `null`, Errors: map[string]string{"": "is required"}},
			wantEffects: []Effect{Invalid{}},
		},
		{
			name: "a pick after Other drops Other", req: askReq(sEnum),
			events:      []Event{TypeOther{0, "delta"}, Pick{Index: 0, Value: "a"}},
			wantState:   state{Lone: true, CanProceed: true, Complete: "x", Content: `"a"`},
			wantEffects: []Effect{Settle{}},
		},
		{
			name: "choosing Other again brings its text back", req: askReq(sEnum), opts: &noClick,
			events:      []Event{TypeOther{0, "delta"}, Pick{Index: 0, Value: "a"}, ChooseOther{0}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `"delta"`},
			wantEffects: nil,
		},
		{
			name: "the schema closes Other", req: askReq(sClosed),
			events:      []Event{ChooseOther{0}, TypeOther{0, "x"}},
			wantState:   state{Lone: true, Complete: ".", Content: `null`},
			wantEffects: nil,
		},
		{
			name: "the host closes Other", req: askReq(sEnum), opts: &closed,
			events:      []Event{TypeOther{0, "x"}},
			wantState:   state{Lone: true, Complete: ".", Content: `null`},
			wantEffects: nil,
		},

		// Multi-select.
		{
			name: "multi: picks in choice order", req: askReq(sMulti),
			events:      []Event{Toggle{0, "c"}, Toggle{0, "a"}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `["a","c"]`},
			wantEffects: nil,
		},
		{
			name: "multi: a toggle unchecks", req: askReq(sMulti),
			events:      []Event{Toggle{0, "c"}, Toggle{0, "a"}, Toggle{0, "c"}},
			wantState:   state{Wrong: true, CanProceed: true, Complete: "x", Content: `["a"]`},
			wantEffects: nil,
		},
		{
			name: "multi: too few, in the protocol's words", req: askReq(sMulti),
			events:      []Event{Toggle{0, "b"}, Submit{}},
			wantState:   state{Wrong: true, CanProceed: true, Complete: "x", Content: `["b"]`, Errors: map[string]string{"": "pick at least 2"}},
			wantEffects: []Effect{Invalid{}},
		},
		{
			name: "multi: too many", req: askReq(sMulti),
			events:      []Event{Toggle{0, "a"}, Toggle{0, "b"}, Toggle{0, "c"}, Submit{}},
			wantState:   state{Wrong: true, CanProceed: true, Complete: "x", Content: `["a","b","c"]`, Errors: map[string]string{"": "pick at most 2"}},
			wantEffects: []Effect{Invalid{}},
		},
		{
			name: "multi: just right", req: askReq(sMulti),
			events:      []Event{Toggle{0, "a"}, Toggle{0, "b"}, Submit{}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `["a","b"]`},
			wantEffects: []Effect{Send{}},
		},
		{
			name: "multi: nothing picked is no answer", req: askReq(sMulti),
			events:      []Event{Toggle{0, "a"}, Toggle{0, "a"}},
			wantState:   state{Complete: ".", Content: `null`},
			wantEffects: nil,
		},
		{
			name: "multi anyOf: default seeded in choice order", req: askReq(sMultiAny),
			events:      []Event{Submit{}},
			wantState:   state{CanProceed: true, Complete: "x", Content: `["x","y"]`},
			wantEffects: []Effect{Send{}},
		},
		{
			name: "multi: no Other, a value that is no choice is ignored", req: askReq(sMulti),
			events:      []Event{ChooseOther{0}, TypeOther{0, "z"}, Toggle{0, "z"}},
			wantState:   state{Complete: ".", Content: `null`},
			wantEffects: nil,
		},

		// Forms of several questions.
		{
			name: "form: starts stepped on the first question with nothing answered", req: askReq(sForm),
			events:      nil,
			wantState:   state{Stepped: true, Complete: "...", Content: `{}`},
			wantEffects: nil,
		},
		{
			name: "form: a choice walked to with the arrow keys stays on its question", req: askReq(sForm),
			events:      []Event{Pick{Index: 0, Value: "prod", Stay: true}},
			wantState:   state{Current: 0, Stepped: true, Complete: "x..", Content: `{"env":"prod"}`},
			wantEffects: nil,
		},
		{
			name: "form: a pick moves on to the next unanswered question", req: askReq(sForm),
			events:      []Event{Pick{Index: 0, Value: "prod"}},
			wantState:   state{Current: 1, Stepped: true, Complete: "x..", Content: `{"env":"prod"}`},
			wantEffects: []Effect{Show{1}},
		},
		{
			name: "form: required answered, the optional one left out", req: askReq(sForm),
			events:      []Event{Pick{Index: 0, Value: "prod"}, Type{1, "3"}, Submit{}},
			wantState:   state{Current: 1, Stepped: true, CanProceed: true, Complete: "xx.", Content: `{"env":"prod","count":3}`},
			wantEffects: []Effect{Send{}},
		},
		{
			name: "form: every answer in property order", req: askReq(sForm),
			events:      []Event{Goto{2}, Type{2, "hi"}, Type{1, "2"}, Pick{Index: 0, Value: "staging"}},
			wantState:   state{Current: 2, Stepped: true, CanProceed: true, Complete: "xxx", Content: `{"env":"staging","count":2,"note":"hi"}`},
			wantEffects: nil,
		},
		{
			name: "form: submit with required missing moves to the first", req: askReq(sForm),
			events:      []Event{Goto{2}, Submit{}},
			wantState:   state{Stepped: true, Complete: "...", Content: `{}`, Errors: map[string]string{"env": "is required", "count": "is required"}},
			wantEffects: []Effect{Invalid{}, Show{0}},
		},
		{
			name: "form: an answer clears its own error only", req: askReq(sForm),
			events:      []Event{Submit{}, Pick{Index: 0, Value: "prod"}},
			wantState:   state{Current: 1, Stepped: true, Complete: "x..", Content: `{"env":"prod"}`, Errors: map[string]string{"count": "is required"}},
			wantEffects: []Effect{Show{1}},
		},
		{
			name: "form: a bound error is mapped to its key", req: askReq(sForm),
			events:      []Event{Pick{Index: 0, Value: "prod"}, Type{1, "0"}, Goto{0}, Submit{}},
			wantState:   state{Wrong: true, Current: 1, Stepped: true, CanProceed: true, Complete: "xx.", Content: `{"env":"prod","count":0}`, Errors: map[string]string{"count": "must be at least 1"}},
			wantEffects: []Effect{Invalid{}, Show{1}},
		},
		{
			name: "form: a chip shows its question", req: askReq(sForm),
			events:      []Event{Goto{2}},
			wantState:   state{Current: 2, Stepped: true, Complete: "...", Content: `{}`},
			wantEffects: []Effect{Show{2}},
		},
		{
			name: "form: the chip already shown does nothing", req: askReq(sForm),
			events:      []Event{Goto{0}},
			wantState:   state{Stepped: true, Complete: "...", Content: `{}`},
			wantEffects: nil,
		},
		{
			name: "form: a pick wraps around to the next question not yet shown", req: askReq(sChoices),
			events:      []Event{Goto{2}, Pick{Index: 2, Value: "true"}},
			wantState:   state{Current: 1, Stepped: true, CanProceed: true, Complete: "..x", Content: `{"c":true}`},
			wantEffects: []Effect{Show{1}},
		},
		{
			name: "form: a pick skips answered questions", req: askReq(sChoices),
			events:      []Event{Goto{1}, Pick{Index: 1, Value: "2", Stay: true}, Goto{0}, Pick{Index: 0, Value: "1"}},
			wantState:   state{Current: 2, Stepped: true, CanProceed: true, Complete: "xx.", Content: `{"a":"1","b":"2"}`},
			wantEffects: []Effect{Show{2}},
		},
		{
			name: "form: a pick never goes back to an optional question left empty", req: askReq(sChoices),
			events:      []Event{Advance{}, Pick{Index: 1, Value: "1"}, Pick{Index: 2, Value: "true"}},
			wantState:   state{Current: 2, Stepped: true, CanProceed: true, Complete: ".xx", Content: `{"b":"1","c":true}`},
			wantEffects: nil,
		},
		{
			name: "form: a pick goes back to a required question left empty", req: askReq(sMiddleRequired),
			events:      []Event{Advance{}, Advance{}, Pick{Index: 2, Value: "true"}},
			wantState:   state{Current: 1, Stepped: true, Complete: "..x", Content: `{"c":true}`},
			wantEffects: []Effect{Show{1}},
		},
		{
			name: "form: the last answer stays put and never auto-submits", req: askReq(sChoices),
			events:      []Event{Pick{Index: 0, Value: "1"}, Pick{Index: 1, Value: "1"}, Pick{Index: 2, Value: "false"}},
			wantState:   state{Current: 2, Stepped: true, CanProceed: true, Complete: "xxx", Content: `{"a":"1","b":"1","c":false}`},
			wantEffects: nil,
		},
		{
			name: "form: changing an answer with nothing left stays", req: askReq(sChoices),
			events:      []Event{Pick{Index: 0, Value: "1"}, Pick{Index: 1, Value: "1"}, Pick{Index: 2, Value: "false"}, Goto{0}, Pick{Index: 0, Value: "2"}},
			wantState:   state{Stepped: true, CanProceed: true, Complete: "xxx", Content: `{"a":"2","b":"1","c":false}`},
			wantEffects: nil,
		},
		{
			name: "stacked: a pick does not move", req: askReq(sChoices), opts: &stacked,
			events:      []Event{Pick{Index: 0, Value: "1"}},
			wantState:   state{CanProceed: true, Complete: "x..", Content: `{"a":"1"}`},
			wantEffects: nil,
		},
		{
			name: "stacked: submit moves to the first error", req: askReq(sForm), opts: &stacked,
			events:      []Event{Pick{Index: 0, Value: "prod"}, Submit{}},
			wantState:   state{Current: 1, Complete: "x..", Content: `{"env":"prod"}`, Errors: map[string]string{"count": "is required"}},
			wantEffects: []Effect{Invalid{}, Show{1}},
		},
		{
			name: "form: Other text stays in its own field", req: askReq(sChoices), opts: &noClick,
			events:      []Event{TypeOther{0, "mine"}, Pick{Index: 1, Value: "2"}},
			wantState:   state{Current: 2, Stepped: true, CanProceed: true, Complete: "xx.", Content: `{"a":"mine","b":"2"}`},
			wantEffects: []Effect{Show{2}},
		},
		{
			name: "form: an optional Other left empty blocks, with a message of its own", req: askReq(sChoices),
			events:      []Event{Pick{Index: 1, Value: "1"}, ChooseOther{0}, Submit{}},
			wantState:   state{Stepped: true, Complete: ".x.", Content: `{"b":"1"}`, Errors: map[string]string{"a": "type your own answer, or pick a choice"}},
			wantEffects: []Effect{Invalid{}, Show{0}},
		},
		{
			name: "form: defaults seeded, an empty required one reported", req: askReq(sDefaults),
			events: []Event{Submit{}},
			wantState: state{Stepped: true, Complete: "xxxxx.", Content: `{"n":5,"t":"x","m":["a"],"b":true,"e":"b"}`,
				Errors: map[string]string{"none": "is required"}, Current: 5},
			wantEffects: []Effect{Invalid{}, Show{5}},
		},
		clicked("a form of one choice is lone too", askReq(sOneProp), "b", `{"pick":"b"}`),

		// Events that name nothing.
		{
			name: "out-of-range indexes are ignored", req: askReq(sForm),
			events: []Event{Pick{Index: -1, Value: "prod"}, Pick{Index: 3, Value: "prod"}, Toggle{9, "a"}, ChooseOther{-5}, Type{3, "x"},
				TypeOther{100, "x"}, Goto{3}, Goto{-1}},
			wantState:   state{Stepped: true, Complete: "...", Content: `{}`},
			wantEffects: nil,
		},
		{
			name: "events of another kind are ignored", req: askReq(sForm),
			events:      []Event{Type{0, "prod"}, Pick{Index: 1, Value: "3"}, Toggle{0, "prod"}, ChooseOther{1}, TypeOther{2, "x"}},
			wantState:   state{Stepped: true, Complete: "...", Content: `{}`},
			wantEffects: nil,
		},
		{
			name: "an approval has nothing to submit", req: approval,
			events:      []Event{Pick{Index: 0, Value: "allow"}, Submit{}},
			wantState:   state{Content: `null`},
			wantEffects: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name   string
		req    protocol.DecisionRequest
		events []Event
		want   []Answer
	}{
		{"defaults seeded", askReq(sDefaults), nil, []Answer{
			{Text: "5"}, {Text: "x"}, {Picks: []string{"a"}}, {Text: "true"}, {Text: "b"}, {}}},
		{"a default that is no choice is Other", askReq(sEnumOther), nil, []Answer{{Other: true, OtherText: "mine"}}},
		{"Other text is per field", askReq(sChoices), []Event{TypeOther{0, "mine"}, ChooseOther{1}}, []Answer{
			{Other: true, OtherText: "mine"}, {Other: true}, {}}},
		{"a pick keeps the Other text for later", askReq(sChoices), []Event{TypeOther{0, "mine"}, Pick{Index: 0, Value: "1"}}, []Answer{
			{Text: "1", OtherText: "mine"}, {}, {}}},
		{"Other replaces the pick", askReq(sChoices), []Event{Pick{Index: 0, Value: "1"}, ChooseOther{0}}, []Answer{
			{Other: true}, {}, {}}},
		{"multi picks", askReq(sMulti), []Event{Toggle{0, "c"}, Toggle{0, "a"}}, []Answer{{Picks: []string{"a", "c"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New(tt.req, DefaultOptions())
			for _, ev := range tt.events {
				f.Dispatch(ev)
			}
			var got []Answer
			for i := range f.Fields() {
				got = append(got, f.Answer(i))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("answers:\n got %+v\nwant %+v", got, tt.want)
			}
			if a := f.Answer(len(got)); !reflect.DeepEqual(a, Answer{}) {
				t.Errorf("Answer out of range: got %+v, want zero", a)
			}
		})
	}
}

// TestErrorKeys covers the names ValidationError uses that are not a property key.
func TestErrorKeys(t *testing.T) {
	t.Run("the whole form: too large", func(t *testing.T) {
		f := New(askReq(`{"type":"object","properties":{"t":{"type":"string"}}}`), DefaultOptions())
		f.Dispatch(Type{0, strings.Repeat("x", protocol.MaxContentBytes)})
		got := f.Dispatch(Submit{})
		if !reflect.DeepEqual(got, []Effect{Invalid{}}) {
			t.Errorf("effects: got %#v, want Invalid", got)
		}
		if msg := f.Errors()[""]; !strings.Contains(msg, "the limit is 64 KiB") {
			t.Errorf(`Errors()[""]: got %q, want the size limit`, msg)
		}
		f.Dispatch(Type{0, "short"})
		if errs := f.Errors(); errs != nil {
			t.Errorf("after a change: got %v, want none", errs)
		}
	})
	t.Run("a property called content", func(t *testing.T) {
		f := New(askReq(`{"type":"object","properties":{"content":{"type":"integer"}},"required":["content"]}`), DefaultOptions())
		f.Dispatch(Type{0, "x"})
		f.Dispatch(Submit{})
		want := map[string]string{"content": "must be a whole number"}
		if got := f.Errors(); !reflect.DeepEqual(got, want) {
			t.Errorf("errors: got %v, want %v", got, want)
		}
	})
	t.Run("Errors is a copy", func(t *testing.T) {
		f := New(askReq(sText), DefaultOptions())
		f.Dispatch(Submit{})
		f.Errors()[""] = "changed"
		if got := f.Errors()[""]; got != "is required" {
			t.Errorf("got %q, want is required", got)
		}
	})
}

func TestNames(t *testing.T) {
	machinetest.Names(t, "stepped stacked Layout(7)", Stepped, Stacked, Layout(7))
	machinetest.Names(t, "text textarea number integer date date-time email uri boolean single multi Kind(-1)", Text, Textarea, Number, Integer, Date, DateTime, Email, URI, Boolean, Single, Multi, Kind(-1))
}

// TestValidFollowsTheProtocol: a chip's check mark needs a value its question takes.
func TestValidFollowsTheProtocol(t *testing.T) {
	max := 10.0
	s := &protocol.Schema{Type: "object", Properties: protocol.Properties{
		{Key: "n", Schema: &protocol.Schema{Type: "integer", Maximum: &max}},
		{Key: "mail", Schema: &protocol.Schema{Type: "string", Format: "email"}},
	}}
	f := New(protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "m", Schema: s}, DefaultOptions())
	if f.Valid(0) {
		t.Fatal("an unanswered field is not valid")
	}
	f.Dispatch(Type{Index: 0, Text: "99"})
	f.Dispatch(Type{Index: 1, Text: "nope"})
	if !f.Complete(0) || f.Valid(0) || f.Valid(1) {
		t.Fatalf("99 over a maximum of 10, and nope, are answered but not valid: complete %v valid %v %v", f.Complete(0), f.Valid(0), f.Valid(1))
	}
	f.Dispatch(Type{Index: 0, Text: "7"})
	f.Dispatch(Type{Index: 1, Text: "a@b.org"})
	if !f.Valid(0) || !f.Valid(1) || f.Valid(5) {
		t.Fatal("7 and a@b.org are valid; an index out of range is not")
	}
}

// sRated is the form: a 1–5 integer, a choice, a name, all required.
const sRated = `{"type":"object","properties":{
	"stars":{"type":"integer","title":"How many stars would you give this release overall?","minimum":1,"maximum":5},
	"pick":{"type":"string","enum":["a","b"]},
	"name":{"type":"string","title":"Name"}},
	"required":["stars","pick","name"]}`

// TestAdvance: Enter on a question. A value its question refuses stays with its error; a
// stepped form moves on, and sends from the last question of a complete form.
func TestAdvance(t *testing.T) {
	stacked := DefaultOptions()
	stacked.Layout = Stacked
	tests := []dispatchCase{
		{"out of range: the error, and it stays", askReq(sRated), nil, []Event{Type{0, "9"}, Advance{}},
			state{Wrong: true, Stepped: true, Complete: "x..", Content: `{"stars":9}`, Errors: map[string]string{"stars": "must be at most 5"}}, []Effect{Invalid{}}},
		{"fixed, it moves on", askReq(sRated), nil, []Event{Type{0, "9"}, Advance{}, Type{0, "4"}, Advance{}},
			state{Current: 1, Stepped: true, Complete: "x..", Content: `{"stars":4}`}, []Effect{Show{Index: 1}}},
		{"not a whole number stays", askReq(sRated), nil, []Event{Type{0, "2.5"}, Advance{}},
			state{Wrong: true, Stepped: true, Complete: "x..", Content: `{"stars":2.5}`, Errors: map[string]string{"stars": "must be a whole number"}}, []Effect{Invalid{}}},
		{"empty moves on: Submit says what is missing", askReq(sRated), nil, []Event{Advance{}},
			state{Current: 1, Stepped: true, Complete: "...", Content: `{}`}, []Effect{Show{Index: 1}}},
		{"to the next question not yet shown, wrapping past those shown", askReq(sRated), nil, []Event{Goto{2}, Type{2, "Ada"}, Advance{}},
			state{Current: 1, Stepped: true, Complete: "..x", Content: `{"name":"Ada"}`}, []Effect{Show{Index: 1}}},
		{"a complete form goes on to the following question", askReq(sRated), nil, []Event{Type{0, "3"}, Pick{Index: 1, Value: "a"}, Type{2, "Ada"}, Goto{0}, Advance{}},
			state{Current: 1, Stepped: true, CanProceed: true, Complete: "xxx", Content: `{"stars":3,"pick":"a","name":"Ada"}`}, []Effect{Show{Index: 1}}},
		{"and sends from its last", askReq(sRated), nil, []Event{Type{0, "3"}, Pick{Index: 1, Value: "a"}, Type{2, "Ada"}, Advance{}},
			state{Current: 2, Stepped: true, CanProceed: true, Complete: "xxx", Content: `{"stars":3,"pick":"a","name":"Ada"}`}, []Effect{Send{}}},
		{"the last of an incomplete form goes to what is missing", askReq(sRated), nil, []Event{Type{0, "3"}, Goto{2}, Type{2, "Ada"}, Advance{}},
			state{Current: 1, Stepped: true, Complete: "x.x", Content: `{"stars":3,"name":"Ada"}`}, []Effect{Show{Index: 1}}},
		{"stacked: Enter submits", askReq(sRated), &stacked, []Event{Type{0, "3"}, Advance{}},
			state{Current: 1, Complete: "x..", Content: `{"stars":3}`, Errors: map[string]string{"pick": "is required", "name": "is required"}}, []Effect{Invalid{}, Show{Index: 1}}},
		{"one question: a refused value stays", askReq(sInteger), nil, []Event{Type{0, "11"}, Advance{}},
			state{Wrong: true, CanProceed: true, Complete: "x", Content: `11`, Errors: map[string]string{"": "must be at most 10"}}, []Effect{Invalid{}}},
		{"one question: a good one sends", askReq(sInteger), nil, []Event{Type{0, "7"}, Advance{}},
			state{CanProceed: true, Complete: "x", Content: `7`}, []Effect{Send{}}},
		{"typing clears the error", askReq(sRated), nil, []Event{Type{0, "9"}, Advance{}, Type{0, "5"}},
			state{Stepped: true, Complete: "x..", Content: `{"stars":5}`}, nil},

		// An optional question left empty is an answer: Enter never goes back to it (QA round
		// 19, P2-2: Enter went to it, as unanswered, and back, and nothing was sent).
		{"an optional question left empty stays behind, and the last sends", askReq(sTwoLines), nil, []Event{Advance{}, Type{1, "x"}, Advance{}},
			state{Current: 1, Stepped: true, CanProceed: true, Complete: ".x", Content: `{"b":"x"}`}, []Effect{Send{}}},
		{"Enter on each question of a form left empty sends it empty", askReq(sTwoLines), nil, []Event{Advance{}, Advance{}},
			state{Current: 1, Stepped: true, CanProceed: true, Complete: "..", Content: `{}`}, []Effect{Send{}}},
		{"a form shown through that can be sent: Enter walks on to its last", askReq(sChoices), nil, []Event{Advance{}, Advance{}, Goto{0}, Advance{}},
			state{Current: 1, Stepped: true, CanProceed: true, Complete: "...", Content: `{}`}, []Effect{Show{Index: 1}}},
		{"the round-18 form: the optional yes/no left alone is sent without it", askReq(`{"type":"object","properties":{"replicas":{"type":"integer"},"notify":{"type":"boolean"}},"required":["replicas"]}`), nil,
			[]Event{Type{0, "3"}, Advance{}, Advance{}},
			state{Current: 1, Stepped: true, CanProceed: true, Complete: "x.", Content: `{"replicas":3}`}, []Effect{Send{}}},
		{"every question shown, a required one unanswered: Enter says which, and goes to the first", askReq(sRated), nil, []Event{Advance{}, Advance{}, Type{2, "Ada"}, Advance{}},
			state{Current: 0, Stepped: true, Complete: "..x", Content: `{"name":"Ada"}`, Errors: map[string]string{"stars": "is required", "pick": "is required"}},
			[]Effect{Invalid{}, Show{Index: 0}}},
		{"on the required question itself, its error, and it stays", askReq(sRated), nil, []Event{Advance{}, Advance{}, Type{2, "Ada"}, Goto{0}, Advance{}},
			state{Current: 0, Stepped: true, Complete: "..x", Content: `{"name":"Ada"}`, Errors: map[string]string{"stars": "is required", "pick": "is required"}},
			[]Effect{Invalid{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

// TestUnparsed: a date or number its input cannot read (the browser's badInput: it shows
// 02/30/2026 or 1-2, its value is "") is an answer given and wrong, never an unanswered one
// (QA round 19, P2-1: Enter moved on and Send answered without it).
func TestUnparsed(t *testing.T) {
	const (
		notDate  = "not a date: use the date picker, or type a whole date that exists"
		notWhole = "not a whole number: type digits, like 12 or -3"
	)
	tests := []dispatchCase{
		{"Enter on it: its error, and it stays", askReq(sDayCountTags), nil, []Event{Unparsed{0}, Advance{}},
			state{Wrong: true, Stepped: true, CanProceed: true, Complete: "x..", Content: `{}`, Errors: map[string]string{"d": notDate}}, []Effect{Invalid{}}},
		{"Send refuses it, and shows it", askReq(sDayCountTags), nil, []Event{Unparsed{0}, Goto{2}, Toggle{2, "a"}, Submit{}},
			state{Wrong: true, Stepped: true, CanProceed: true, Complete: "x.x", Content: `{"tags":["a"]}`, Errors: map[string]string{"d": notDate}}, []Effect{Invalid{}, Show{Index: 0}}},
		{"a whole number", askReq(sDayCountTags), nil, []Event{Goto{1}, Unparsed{1}, Advance{}},
			state{Wrong: true, Current: 1, Stepped: true, CanProceed: true, Complete: ".x.", Content: `{}`, Errors: map[string]string{"n": notWhole}}, []Effect{Invalid{}}},
		{"a date typed whole goes on", askReq(sDayCountTags), nil, []Event{Unparsed{0}, Advance{}, Type{0, "2026-02-28"}, Advance{}},
			state{Current: 1, Stepped: true, CanProceed: true, Complete: "x..", Content: `{"d":"2026-02-28"}`}, []Effect{Show{Index: 1}}},
		{"cleared, it is unanswered again", askReq(sDayCountTags), nil, []Event{Unparsed{0}, Advance{}, Type{0, ""}, Advance{}},
			state{Current: 1, Stepped: true, CanProceed: true, Complete: "...", Content: `{}`}, []Effect{Show{Index: 1}}},
		{"required: its own words, not 'is required'", askReq(sNumber), nil, []Event{Unparsed{0}, Submit{}},
			state{Wrong: true, CanProceed: true, Complete: "x", Content: `null`, Errors: map[string]string{"": "not a number: type digits, like 12 or -3.5"}}, []Effect{Invalid{}}},
		{"a date and time", askReq(sDateTime), nil, []Event{Unparsed{0}, Advance{}},
			state{Wrong: true, CanProceed: true, Complete: "x", Content: `null`, Errors: map[string]string{"": "not a date and time: use the picker, or type a whole date and time that exists"}}, []Effect{Invalid{}}},
		{"a choice has no input to misread", askReq(sEnum), nil, []Event{Unparsed{0}},
			state{Lone: true, Complete: ".", Content: `null`}, nil},
		{"nor has a line of text", askReq(sText), nil, []Event{Unparsed{0}},
			state{Complete: ".", Content: `null`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
	f := New(askReq(sDate), DefaultOptions())
	f.Dispatch(Unparsed{0})
	if f.Valid(0) || f.Unsent() != "" {
		t.Errorf("unread: valid %v (no chip's check mark), unsent %q (no words)", f.Valid(0), f.Unsent())
	}
}

func TestChipLabel(t *testing.T) {
	for _, tt := range []struct {
		title string
		i     int
		want  string
	}{
		{"", 2, "3"},
		{"   ", 0, "1"},
		{"Which engine?", 0, "Which engine?"},
		{"How many stars would you give this release overall?", 0, "How many stars would…"},
		{"Averyveryverylongwordwithoutspaces", 0, "Averyveryverylongwordwi…"},
		{"部署到哪个环境？", 0, "部署到哪个环境？"},
		{"部署到哪个环境请选择一个目标环境", 0, "部署到哪个环境请选择一…"},
		{"Deploy 到哪个环境请选择", 0, "Deploy 到哪个环境请选择"},
	} {
		if got := ChipLabel(tt.title, tt.i); got != tt.want {
			t.Errorf("ChipLabel(%q, %d) = %q, want %q", tt.title, tt.i, got, tt.want)
		}
	}
}

func TestHint(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   string
		zh     string
	}{
		{sInteger, "1–10 · a whole number", "1–10 · 整数"},
		{`{"type":"integer","minimum":1,"maximum":5}`, "1–5 · a whole number", "1–5 · 整数"},
		{sNumber, "0.5–9.5", "0.5–9.5"},
		{`{"type":"number"}`, "a number", "数字"},
		{`{"type":"number","minimum":0}`, "at least 0", "至少 0"},
		{`{"type":"integer","maximum":3}`, "at most 3 · a whole number", "至多 3 · 整数"},
		{sShort, "3–5 characters", "3–5 个字符"},
		{`{"type":"string","maxLength":80}`, "up to 80 characters", "最多 80 个字符"},
		{sEmail, "an email address, name@example.com", "电子邮件地址，如 name@example.com"},
		{sURI, "a link, https://…", "链接，如 https://…"},
		{sMulti, "pick 2", "选 2 项"},
		// The ends of a count: both, the one there is, and a least every answer meets says
		// nothing (one pick, no characters).
		{`{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":3}`, "pick 1–3", "选 1–3 项"},
		{`{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":2}`, "pick at least 2", "至少选 2 项"},
		// A required group says its first pick is needed (it cannot carry aria-required).
		{`{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1}`, "pick at least 1", "至少选 1 项"},
		{`{"type":"array","items":{"type":"string","enum":["a","b","c"]},"maxItems":2}`, "pick up to 2", "最多选 2 项"},
		{`{"type":"string","minLength":2}`, "at least 2 characters", "至少 2 个字符"},
		{`{"type":"string","minLength":0}`, "", ""},
		{`{"type":"string","minLength":0,"maxLength":4}`, "0–4 characters", "0–4 个字符"},
		{`{"type":"number","minimum":-2.25,"maximum":0}`, "-2.25–0", "-2.25–0"},
		{sText, "", ""},
		{sEnum, "", ""},
		{sDate, "", ""},
	} {
		fd := New(askReq(tt.schema), DefaultOptions()).Fields()[0]
		if fd.Kind == Multi && !fd.Required {
			t.Fatalf("%s: a lone question is required", tt.schema)
		}
		if got := Hint(fd, i18n.English); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.schema, got, tt.want)
		}
		if got := Hint(fd, i18n.Chinese); got != tt.zh {
			t.Errorf("%s in Chinese: got %q, want %q", tt.schema, got, tt.zh)
		}
	}
	if got := Hint(Field{Kind: Multi}, i18n.English); got != "" {
		t.Errorf("an optional group of checkboxes: got %q, want nothing", got)
	}
}

// TestCount: a limited text field counts from 80% of its limit, in code points, and says the
// count politely in tenths of the limit, every count once past it (QA round 17 #3: 215
// characters were accepted silently until Send refused them).
func TestCount(t *testing.T) {
	const max200 = `{"type":"string","maxLength":200}`
	for _, tt := range []struct {
		name, schema, text string
		shown, said        string
		over               bool
	}{
		{"no limit", sText, strings.Repeat("x", 500), "", "", false},
		{"empty", max200, "", "", "", false},
		{"below 80%", max200, strings.Repeat("x", 159), "", "", false},
		{"at 80%", max200, strings.Repeat("x", 160), "160 / 200", "160 / 200", false},
		{"said by tenths", max200, strings.Repeat("x", 185), "185 / 200", "180 / 200", false},
		{"at the limit", max200, strings.Repeat("x", 200), "200 / 200", "200 / 200", false},
		{"past it, every count", max200, strings.Repeat("x", 215), "215 / 200", "215 / 200", true},
		{"code points, not bytes", max200, strings.Repeat("字", 170), "170 / 200", "160 / 200", false},
		{"code points, not UTF-16", max200, strings.Repeat("😀", 201), "201 / 200", "201 / 200", true},
		{"a textarea", `{"type":"string","maxLength":10,"multiline":true}`, "abcdefghijk", "11 / 10", "11 / 10", true},
		{"a small limit says each", `{"type":"string","maxLength":5}`, "abcd", "4 / 5", "4 / 5", false},
		{"an email", `{"type":"string","format":"email","maxLength":10}`, "a@b.cdefgh", "10 / 10", "10 / 10", false},
		{"a number has no length", `{"type":"number","maximum":5}`, "123456", "", "", false},
		{"a choice has none", sEnum, "x", "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fd := New(askReq(tt.schema), DefaultOptions()).Fields()[0]
			if tt.name == "a textarea" && fd.Kind != Textarea {
				t.Fatalf("kind %v, want a textarea", fd.Kind)
			}
			shown, said, over := Count(fd, tt.text)
			if shown != tt.shown || said != tt.said || over != tt.over {
				t.Errorf("Count = %q, %q, %v; want %q, %q, %v", shown, said, over, tt.shown, tt.said, tt.over)
			}
		})
	}
}
