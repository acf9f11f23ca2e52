package handoff

import (
	"reflect"
	"testing"
)

func TestTake(t *testing.T) {
	for _, tc := range []struct {
		name  string
		draft string
		early Early
		want  Plan
	}{
		{"nothing", "", Early{}, Plan{}},
		{"nothing keeps the saved draft", "saved", Early{}, Plan{Draft: "saved"}},
		{"typed", "", Early{Text: "hello"}, Plan{Draft: "hello"}},
		{"typed after a saved draft", "saved", Early{Text: "hello"}, Plan{Draft: "saved hello"}},
		{"typed after a space", "saved", Early{Text: " hello"}, Plan{Draft: "saved hello"}},
		{"typed after a draft that ends in a space", "saved ", Early{Text: "hello"}, Plan{Draft: "saved hello"}},
		{"typed on a new line", "saved\n", Early{Text: "hello"}, Plan{Draft: "saved\nhello"}},
		{"an Enter sends", "", Early{Sends: []string{"hello from a newcomer"}}, Plan{Submit: true, Send: "hello from a newcomer"}},
		{"keys after the Enter are the next draft", "", Early{Sends: []string{"hello"}, Text: "wor"}, Plan{Submit: true, Send: "hello", Draft: "wor"}},
		{"the saved draft is not sent unseen", "saved", Early{Sends: []string{"hello"}}, Plan{Submit: true, Send: "hello", Draft: "saved"}},
		{"a blank Enter sends nothing", "", Early{Sends: []string{"", "  "}, Text: "x"}, Plan{Draft: "x"}},
		{"the first send with text goes", "", Early{Sends: []string{"", "hi"}}, Plan{Submit: true, Send: "hi"}},
		{"later sends wait as lines", "", Early{Sends: []string{"one", "two", "three"}, Text: "four"}, Plan{Submit: true, Send: "one", Draft: "two\nthree\nfour"}},
		{"later sends without text after", "", Early{Sends: []string{"one", "two"}}, Plan{Submit: true, Send: "one", Draft: "two"}},
		{"a line break stays", "", Early{Text: "a\nb"}, Plan{Draft: "a\nb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Take(tc.draft, tc.early); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Take(%q, %+v)\n got %+v\nwant %+v", tc.draft, tc.early, got, tc.want)
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	if !(Early{}).Empty() || (Early{Sends: []string{""}}).Empty() || (Early{Text: "x"}).Empty() {
		t.Error("Empty is wrong")
	}
}
