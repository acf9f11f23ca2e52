package elicit

import (
	"testing"

	"parley/protocol"
)

// TestUnsent: what a question gives back to the composer's box when it ends elsewhere with
// words typed in it (QA round 14 #4): the typed words, labelled by their question in a form
// of several; never a pick, nor a default nobody changed.
func TestUnsent(t *testing.T) {
	const two = `{"type":"object","properties":{
		"n":{"type":"string","title":"Name"},
		"r":{"type":"string","enum":["a","b"]},
		"bio":{"type":"string","multiline":true},
		"age":{"type":"integer"}}}`
	tests := []struct {
		name   string
		schema string
		events []Event
		want   string
	}{
		{"nothing typed", sText, nil, ""},
		{"a lone question: the words alone", sText, []Event{Type{0, "  Grace Hopper "}}, "Grace Hopper"},
		{"blank is nothing", sText, []Event{Type{0, "   "}}, ""},
		{"a lone property is a lone question", `{"type":"object","properties":{"n":{"type":"string","title":"Name"}},"required":["n"]}`,
			[]Event{Type{0, "Grace Hopper"}}, "Grace Hopper"},
		{"several: each typed one, labelled by its title, else its key worded as one", two,
			[]Event{Type{0, "Grace"}, Pick{Index: 1, Value: "a"}, Type{3, "85"}}, "Name: Grace\nAge: 85"},
		{"a multi-line answer starts under its label", two,
			[]Event{Type{2, "line one\nline two"}}, "Bio:\nline one\nline two"},
		{"a pick is not words", sChoices, []Event{Pick{Index: 0, Value: "1"}, Pick{Index: 2, Value: "true"}}, ""},
		{"an Other text is", sChoices, []Event{TypeOther{1, "my own"}}, "B: my own"},
		{"a lone choice's Other text", sOpen, []Event{TypeOther{0, "c"}}, "c"},
		{"a default left as it was is not the person's", sDefaults, nil, ""},
		{"a default changed is", sDefaults, []Event{Type{1, "y"}, Type{5, "z"}}, "T: y\nNone: z"},
		{"an Other default left as it was is not", sEnumOther, nil, ""},
		{"an approval has no words here", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := askReq(sText)
			if tt.schema == "" {
				req.Kind, req.Schema = protocol.KindApproval, nil
			} else {
				req = askReq(tt.schema)
			}
			f := New(req, DefaultOptions())
			for _, ev := range tt.events {
				f.Dispatch(ev)
			}
			if got := f.Unsent(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
