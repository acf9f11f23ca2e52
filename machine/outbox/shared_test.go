package outbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShare(t *testing.T) {
	a, b, c, d := Entry{ID: "a", Text: "one"}, Entry{ID: "b", Text: "two"}, Entry{ID: "c", Text: "three"}, Entry{ID: "d", Text: "four"}
	cases := []struct {
		name         string
		stored, held []Entry
		mine         []string
		want         []Entry
	}{
		{"nothing stored", nil, []Entry{a}, []string{"a"}, []Entry{a}},
		{"another tab's entry stays", []Entry{c}, []Entry{a}, []string{"a"}, []Entry{c, a}},
		{"what this tab let go goes", []Entry{a, c}, nil, []string{"a"}, []Entry{c}},
		{"this tab's newer state wins", []Entry{{ID: "a", State: Waiting}}, []Entry{{ID: "a", State: Stored}}, []string{"a"}, []Entry{{ID: "a", State: Stored}}},
		{"both tabs' entries, each in order", []Entry{c, a, d}, []Entry{a, b}, []string{"a", "b"}, []Entry{c, d, a, b}},
		{"nothing left anywhere", []Entry{a}, nil, []string{"a"}, []Entry{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mine := map[string]bool{}
			for _, id := range tc.mine {
				mine[id] = true
			}
			assert.Equal(t, tc.want, Share(tc.stored, tc.held, func(id string) bool { return mine[id] }))
		})
	}
}
