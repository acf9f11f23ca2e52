package elicit

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

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

// FuzzDispatch drives a form of each schema with random events and checks after each:
//
//   - nothing panics, Content is always valid JSON, Current names a field;
//   - Submit on a form that CanProceed yields Send, or Invalid whose errors are exactly
//     the protocol's own for that content; on one that cannot, never Send;
//   - what Send and Settle carry is Content, and passes the protocol's validation;
//   - Settle comes only from a Lone form.
func FuzzDispatch(f *testing.F) {
	f.Add([]byte{18, 1, 0, 0, 5, 3, 1, 6, 2, 6, 0})
	f.Add([]byte{11, 0, 3, 0, 4, 0, 9, 6, 0, 0, 0, 1})
	f.Add([]byte{19, 2, 0, 0, 2, 0, 1, 3, 0, 2, 2, 0, 6, 6})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := data
		next := func() int {
			if len(r) == 0 {
				return 0
			}
			b := r[0]
			r = r[1:]
			return int(b)
		}
		schema := parse(fuzzSchemas[next()%len(fuzzSchemas)])
		o := next()
		opts := Options{AnswerOnClick: o&1 != 0, AllowOther: o&2 != 0, Layout: Layout(o >> 2 & 1)}
		form := New(protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "?", Schema: schema}, opts)
		n := len(form.Fields())
		lone := form.Lone()
		for len(r) > 0 {
			idx := next()%(n+2) - 1 // -1 and n are out of range
			word := fuzzWords[next()%len(fuzzWords)]
			var ev Event
			switch next() % 7 {
			case 0:
				ev = Pick{Index: idx, Value: word}
			case 1:
				ev = Toggle{idx, word}
			case 2:
				ev = ChooseOther{idx}
			case 3:
				ev = Type{idx, word}
			case 4:
				ev = TypeOther{idx, word}
			case 5:
				ev = Goto{idx}
			case 6:
				ev = Submit{}
			}
			could := form.CanProceed()
			effects := form.Dispatch(ev)

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
					checkValid(t, schema, e.Content, content)
				case Settle:
					if !lone {
						t.Fatalf("%#v: Settle from a form that is not lone", ev)
					}
					checkValid(t, schema, e.Content, content)
				case Show:
					if e.Index != form.Current() {
						t.Fatalf("%#v: Show %d, Current %d", ev, e.Index, form.Current())
					}
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

func checkValid(t *testing.T, s *protocol.Schema, sent, content json.RawMessage) {
	t.Helper()
	if string(sent) != string(content) {
		t.Fatalf("sent %s, Content %s", sent, content)
	}
	if err := s.ValidateContent(sent); err != nil {
		t.Fatalf("sent %s, which the protocol refuses: %v", sent, err)
	}
}

// protocolErrors is what the protocol says of content, keyed as the form keys it.
func protocolErrors(f *Form, s *protocol.Schema, content json.RawMessage) map[string]string {
	var verr *protocol.ValidationError
	if !errors.As(s.ValidateContent(content), &verr) {
		return nil
	}
	out := map[string]string{}
	for name, msg := range verr.Fields {
		out[f.fieldKey(name)] = msg
	}
	return out
}
