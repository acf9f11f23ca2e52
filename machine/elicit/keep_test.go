package elicit

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"parley/protocol"
)

// TestLogEntries: every answering event survives its stored form; a pick comes back as
// browsing, so a lone choice never answers itself on a reload; Submit is not kept.
func TestLogEntries(t *testing.T) {
	tests := []struct {
		in, want Event
	}{
		{Pick{Index: 1, Value: "a"}, Pick{Index: 1, Value: "a", Stay: true}},
		{Toggle{Index: 2, Value: "b"}, Toggle{Index: 2, Value: "b"}},
		{ChooseOther{Index: 0}, ChooseOther{Index: 0}},
		{Type{Index: 3, Text: "x"}, Type{Index: 3, Text: "x"}},
		{Unparsed{Index: 3}, Type{Index: 3, Text: ""}}, // a reload loses what the input showed
		{TypeOther{Index: 0, Text: "y"}, TypeOther{Index: 0, Text: "y"}},
		{Goto{Index: 2}, Goto{Index: 2}},
	}
	for _, tt := range tests {
		var l Log
		if !l.Record(tt.in) {
			t.Fatalf("%#v is not kept", tt.in)
		}
		if got := roundTrip(t, l).Events(); !reflect.DeepEqual(got, []Event{tt.want}) {
			t.Errorf("%#v: got %#v, want %#v", tt.in, got, tt.want)
		}
	}
	var l Log
	if l.Record(Submit{}) || l.Len() != 0 {
		t.Errorf("sending is not an answer to keep")
	}
}

// TestLogStoredForm holds the stored JSON: what a tab kept before an upgrade still replays
// after it, and a kind it does not know is skipped, not the whole log.
func TestLogStoredForm(t *testing.T) {
	var l Log
	for _, ev := range []Event{Pick{Index: 0, Value: "prod"}, Type{Index: 1, Text: "3"}, Goto{Index: 2}, Toggle{Index: 2, Value: "a"}, ChooseOther{Index: 0}, TypeOther{Index: 0, Text: "mine"}} {
		l.Record(ev)
	}
	got, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"k":"pick","i":0,"v":"prod"},{"k":"type","i":1,"v":"3"},{"k":"goto","i":2},{"k":"toggle","i":2,"v":"a"},{"k":"other","i":0},{"k":"type-other","i":0,"v":"mine"}]`
	if string(got) != want {
		t.Errorf("stored:\n got %s\nwant %s", got, want)
	}
	var back Log
	if err := json.Unmarshal([]byte(`[{"k":"someday","i":0},{"k":"goto","i":1},{"k":"unknown","i":0}]`), &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Events(); !reflect.DeepEqual(got, []Event{Goto{Index: 1}}) {
		t.Errorf("with unknown kinds: got %#v, want the goto alone", got)
	}
	for _, bad := range []string{`{`, `{"k":"pick"}`, `[{"i":"x"}]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
	if got, _ := json.Marshal(Log{}); string(got) != `[]` {
		t.Errorf("the empty log: got %s, want []", got)
	}
}

func TestLogCoalescesTyping(t *testing.T) {
	var l Log
	for _, ev := range []Event{Type{0, "A"}, Type{0, "Ad"}, Type{0, "Ada"}, TypeOther{0, "x"}, TypeOther{0, "xy"}, Type{1, "b"}, Type{0, "Adam"}} {
		l.Record(ev)
	}
	want := []Event{Type{0, "Ada"}, TypeOther{0, "xy"}, Type{1, "b"}, Type{0, "Adam"}}
	if got := l.Events(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

// TestLogRoundTrip: answers given, kept, stored and replayed into a new form are the same
// answers, and a stepped form comes back on its first unanswered question.
func TestLogRoundTrip(t *testing.T) {
	tests := []struct {
		name        string
		schema      string
		events      []Event
		wantCurrent int
	}{
		{"a form half answered", sForm, []Event{Pick{Index: 0, Value: "prod"}, Type{2, "no"}, Type{2, "note"}}, 1},
		{"a form fully answered stays where it was", sForm, []Event{Pick{Index: 0, Value: "prod"}, Type{1, "3"}, Type{2, "x"}, Goto{0}}, 0},
		{"a lone choice picked is not settled", sEnum, []Event{Pick{Index: 0, Value: "b"}}, 0},
		{"Other, typed", sEnum, []Event{ChooseOther{0}, TypeOther{0, "delta"}}, 0},
		{"multi picks and an unpick", sMulti, []Event{Toggle{0, "a"}, Toggle{0, "c"}, Toggle{0, "a"}, Toggle{0, "b"}}, 0},
		{"defaults changed", sDefaults, []Event{Type{0, "7"}, Pick{Index: 3, Value: "false"}, Toggle{2, "b"}}, 5},
		{"a failed submit in the middle", sForm, []Event{Type{1, "x"}, Submit{}, Type{1, "4"}}, 0},
		// Every question answered: without a note of where the form was, it comes back at its
		// start; noted, at the note the person was typing (QA round 12 #6).
		{"moved on, then half-typed", sForm, []Event{Pick{Index: 0, Value: "prod"}, Advance{}, Type{1, "33"}, Advance{}, Type{2, "Barba"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := askReq(tt.schema)
			// A log that notes where the form is, as a view keeps it, comes back there; one
			// without (kept by an older version) comes back to the first question unanswered.
			for _, noted := range []bool{true, false} {
				first, l := New(req, DefaultOptions()), Log{}
				for _, ev := range tt.events {
					l.Record(ev)
					first.Dispatch(ev)
					if noted {
						l.At(first.Current())
					}
				}
				again := New(req, DefaultOptions())
				roundTrip(t, l).Replay(again)
				sameAnswers(t, first, again)
				want := tt.wantCurrent
				if noted {
					want = first.Current()
				}
				if again.Current() != want {
					t.Errorf("noted %v: Current: got %d, want %d", noted, again.Current(), want)
				}
			}
		})
	}
}

// FuzzLogRoundTrip: whatever the events, the answers replayed from the stored log are the
// answers given. Text is valid UTF-8, as every string read from the page is: JSON stores an
// invalid byte as U+FFFD, which is what the protocol would send for it anyway.
func FuzzLogRoundTrip(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		schema, first, events := fuzzInput(data)
		var l Log
		for _, ev := range events {
			if !validText(ev) {
				continue
			}
			l.Record(ev)
			first.Dispatch(ev)
			l.At(first.Current())
		}
		again := New(protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "?", Schema: schema}, first.opts)
		roundTrip(t, l).Replay(again)
		sameAnswers(t, first, again)
		if first.Stepped() && l.Len() > 0 && again.Current() != first.Current() {
			t.Fatalf("replayed at question %d, the form was at %d", again.Current(), first.Current())
		}
	})
}

func validText(ev Event) bool {
	switch e := ev.(type) {
	case Pick:
		return utf8.ValidString(e.Value)
	case Toggle:
		return utf8.ValidString(e.Value)
	case Type:
		return utf8.ValidString(e.Text)
	case TypeOther:
		return utf8.ValidString(e.Text)
	}
	return true
}

// roundTrip stores l as a tab would and reads it back.
func roundTrip(t *testing.T, l Log) Log {
	t.Helper()
	raw, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var back Log
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return back
}

func sameAnswers(t *testing.T, want, got *Form) {
	t.Helper()
	for i := range want.Fields() {
		if a, b := got.Answer(i), want.Answer(i); !reflect.DeepEqual(a, b) {
			t.Errorf("field %d replayed: got %+v, want %+v", i, a, b)
		}
	}
	if a, b := got.Content(), want.Content(); string(a) != string(b) {
		t.Errorf("Content replayed: got %s, want %s", a, b)
	}
}

// TestContentWith: a custom control's value takes its field's place, in the schema's order.
func TestContentWith(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		events []Event
		values map[int]json.RawMessage
		want   string
	}{
		{"no values is Content", sForm, []Event{Type{1, "3"}}, nil, `{"count":3}`},
		{"a value in the middle, in order", sForm, []Event{Pick{Index: 0, Value: "prod"}, Type{2, "n"}}, map[int]json.RawMessage{1: json.RawMessage(`7`)}, `{"env":"prod","count":7,"note":"n"}`},
		{"a value replaces an answer", sForm, []Event{Pick{Index: 0, Value: "prod"}}, map[int]json.RawMessage{0: json.RawMessage(`"x"`)}, `{"env":"x"}`},
		{"an empty value is no answer", sForm, []Event{Pick{Index: 0, Value: "prod"}}, map[int]json.RawMessage{0: nil}, `{}`},
		{"one question: the value is the content", sText, []Event{Type{0, "Ada"}}, map[int]json.RawMessage{0: json.RawMessage(`"blue"`)}, `"blue"`},
		{"one question, an empty value: null", sText, nil, map[int]json.RawMessage{0: {}}, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New(askReq(tt.schema), DefaultOptions())
			for _, ev := range tt.events {
				f.Dispatch(ev)
			}
			if got := string(f.ContentWith(tt.values)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestLogLast: the question last answered is where a reloaded stacked form puts the focus
// back (QA round 14 #3); moving between questions answers none, nor does a kind this
// version does not know.
func TestLogLast(t *testing.T) {
	tests := []struct {
		name   string
		stored string
		want   int
		ok     bool
	}{
		{"nothing kept", `[]`, 0, false},
		{"the field typed in last", `[{"k":"type","i":0,"v":"Title"},{"k":"type","i":1,"v":"Body"}]`, 1, true},
		{"back to an earlier field", `[{"k":"type","i":1,"v":"Body"},{"k":"type","i":0,"v":"T"}]`, 0, true},
		{"a goto is no answer", `[{"k":"type","i":2,"v":"x"},{"k":"goto","i":0}]`, 2, true},
		{"nor an unknown kind", `[{"k":"pick","i":1,"v":"a"},{"k":"someday","i":3}]`, 1, true},
		{"only moves", `[{"k":"goto","i":1}]`, 0, false},
	}
	for _, tt := range tests {
		var l Log
		if err := json.Unmarshal([]byte(tt.stored), &l); err != nil {
			t.Fatal(err)
		}
		if got, ok := l.Last(); got != tt.want || ok != tt.ok {
			t.Errorf("%s: got %d, %v, want %d, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
