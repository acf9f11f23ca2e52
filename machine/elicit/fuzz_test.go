package elicit

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"parley/machine/machinetest"
	"parley/protocol"
)

// fuzzSchemas are every kind of question, alone and in forms.
var fuzzSchemas = []string{
	sText, sTextarea, sEmail, sURI, sDate, sDateTime, sShort, sNumber, sInteger, sBool, sBoolDef,
	sEnum, sEnumDef, sEnumOther, sClosed, sOneOf, sMulti, sMultiAny, sForm, sChoices, sDefaults, sOneProp,
	`{"type":"object","properties":{"content":{"type":"integer"},"x":{"type":"array","items":{"enum":["a","b"]},"maxItems":1}},"required":["x"]}`,
}

// fuzzWords are what the events type and pick: choice values, numbers good and bad, blanks.
var fuzzWords = []string{"", " ", "a", "b", "c", "x", "1", "2", "true", "false", "prod", "staging",
	"3.5", "-0", "1e999", "+1", "0x10", "NaN", "2026-02-30", "2026-11-30", "bob@example.com",
	"https://example.com", "é\n", "\xff"}

// addSeeds gives a fuzz target of fuzzInput its seeds: a stepped form, a lone choice, a form
// of choices.
func addSeeds(f *testing.F) {
	for _, seed := range [][]byte{
		{18, 1, 0, 0, 5, 3, 1, 6, 2, 6, 0},
		{11, 0, 3, 0, 4, 0, 9, 6, 0, 0, 0, 1},
		{19, 2, 0, 0, 2, 0, 1, 3, 0, 2, 2, 0, 6, 6},
	} {
		f.Add(seed)
	}
}

// fuzzInput decodes data into a schema, a new form of it and the events to drive it with.
func fuzzInput(data []byte) (*protocol.Schema, *Form, []Event) {
	r := machinetest.Bytes(data)
	next := r.Next
	schema := parse(fuzzSchemas[next()%len(fuzzSchemas)])
	o := next()
	opts := Options{AnswerOnClick: o&1 != 0, AllowOther: o&2 != 0, Layout: Layout(o >> 2 & 1)}
	form := New(protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "?", Schema: schema}, opts)
	n := len(form.Fields())
	var events []Event
	for r.More() {
		idx := next()%(n+2) - 1 // -1 and n are out of range
		word := fuzzWords[next()%len(fuzzWords)]
		switch next() % 9 {
		case 8:
			events = append(events, Unparsed{idx})
		case 7:
			events = append(events, Advance{})
		case 0:
			events = append(events, Pick{Index: idx, Value: word})
		case 1:
			events = append(events, Toggle{idx, word})
		case 2:
			events = append(events, ChooseOther{idx})
		case 3:
			events = append(events, Type{idx, word})
		case 4:
			events = append(events, TypeOther{idx, word})
		case 5:
			events = append(events, Goto{idx})
		case 6:
			events = append(events, Submit{})
		}
	}
	return schema, form, events
}

// FuzzDispatch drives a form of each schema with random events and checks after each:
//
//   - nothing panics, Content is always valid JSON, Current names a field;
//   - Submit on a form that CanProceed yields Send, or Invalid whose errors are exactly
//     the protocol's own for that content and the form's for what an input cannot read; on
//     one that cannot, never Send; nothing is sent while an input holds what it cannot read;
//   - Send and Settle name the form's version, whose Content passes the protocol's validation;
//   - every effect is plain data;
//   - Settle comes only from a Lone form.
func FuzzDispatch(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		schema, form, events := fuzzInput(data)
		n := len(form.Fields())
		lone := form.Lone()
		for _, ev := range events {
			could := form.CanProceed()
			effects := form.Dispatch(ev)
			machinetest.Comparable(t, effects...)

			content := form.Content()
			if !json.Valid(content) {
				t.Fatalf("%#v: Content is not JSON: %q", ev, content)
			}
			if c := form.Current(); c < 0 || c >= n {
				t.Fatalf("%#v: Current %d of %d fields", ev, c, n)
			}
			for _, eff := range effects {
				switch e := eff.(type) {
				case Send:
					if !could {
						t.Fatalf("%#v: Send from a form that could not proceed", ev)
					}
					if slices.Contains(form.unparsed, true) {
						t.Fatalf("%#v: Send with an input that holds what it cannot read", ev)
					}
					checkValid(t, schema, e.Version, form.Version(), content)
				case Settle:
					if !lone {
						t.Fatalf("%#v: Settle from a form that is not lone", ev)
					}
					checkValid(t, schema, e.Version, form.Version(), content)
				case Show:
					if e.Index != form.Current() {
						t.Fatalf("%#v: Show %d, Current %d", ev, e.Index, form.Current())
					}
				}
			}
			if _, ok := ev.(Advance); ok && form.Stepped() && len(effects) == 1 {
				// Enter on a refused value stays on its question, with its error.
				if _, invalid := effects[0].(Invalid); invalid && form.Errors()[form.Fields()[form.Current()].Key] == "" {
					t.Fatalf("Advance stayed without an error on the current question: %v", form.Errors())
				}
			}
			if _, ok := ev.(Submit); ok {
				if len(effects) == 0 {
					t.Fatalf("Submit returned nothing")
				}
				_, invalid := effects[0].(Invalid)
				if invalid && could {
					if got, want := form.Errors(), protocolErrors(form, schema, content); !reflect.DeepEqual(got, want) {
						t.Fatalf("Submit on a form that could proceed: errors %v, the protocol's %v", got, want)
					}
				}
				if !invalid && !could {
					t.Fatalf("Submit on a form that could not proceed: %#v", effects)
				}
			}
		}
	})
}

func checkValid(t *testing.T, s *protocol.Schema, version, now int, content json.RawMessage) {
	t.Helper()
	if version != now {
		t.Fatalf("sent version %d, the form is at %d", version, now)
	}
	if err := s.ValidateContent(content); err != nil {
		t.Fatalf("sent %s, which the protocol refuses: %v", content, err)
	}
}

// protocolErrors is what Submit says of content: the protocol's errors, keyed as the form
// keys them, and the form's own for what an input cannot read.
func protocolErrors(f *Form, s *protocol.Schema, content json.RawMessage) map[string]string {
	out := map[string]string{}
	var verr *protocol.ValidationError
	if errors.As(s.ValidateContent(content), &verr) {
		for name, msg := range verr.Fields {
			out[f.fieldKey(name)] = msg
		}
	}
	for i, fd := range f.fields {
		if f.unparsed[i] {
			out[fd.Key] = f.check(i)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
