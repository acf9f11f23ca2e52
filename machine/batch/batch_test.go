package batch

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/i18n"
	"parley/protocol"
)

func TestOf(t *testing.T) {
	const a, d = protocol.OptionAllow, protocol.OptionDeny
	tests := []struct {
		name  string
		picks []string
		n     int
		plan  Plan
		ok    bool
		label string
	}{
		{"nothing marked: the option as it is", []string{"", "", ""}, 3, Plan{}, false, ""},
		{"only Allow marked: the option as it is", []string{a, a, ""}, 3, Plan{}, false, ""},
		{"no picks kept: the option as it is", nil, 3, Plan{}, false, ""},
		{"picks of another length are none", []string{d, d}, 3, Plan{}, false, ""},
		{"one marked Reject stays rejected", []string{"", d}, 2, Plan{Items: []string{a, d}, Approve: 1, Reject: 1}, true, "Approve 1, reject 1"},
		{"an Allow, a Reject and none", []string{a, d, ""}, 3, Plan{Items: []string{a, d, a}, Approve: 2, Reject: 1}, true, "Approve 2, reject 1"},
		{"every request marked Reject approves none", []string{d, d, d}, 3, Plan{Items: []string{d, d, d}, Reject: 3}, true, "Approve 0, reject 3"},
		{"an unknown answer is none", []string{"always", d}, 2, Plan{Items: []string{a, d}, Approve: 1, Reject: 1}, true, "Approve 1, reject 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, ok := Of(tt.picks, tt.n)
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.plan, plan)
				assert.Equal(t, tt.label, plan.Label(i18n.English))
				assert.NotContains(t, plan.Label(i18n.Chinese), "!(", "a Chinese page has the words too")
			}
		})
	}
}

func TestRejecting(t *testing.T) {
	const a, d = protocol.OptionAllow, protocol.OptionDeny
	for _, tt := range []struct {
		name  string
		picks []string
		n     int
		plan  Plan
		ok    bool
	}{
		{"nothing marked: the words reject the batch", []string{"", ""}, 2, Plan{}, false},
		{"only Reject marked: the words reject the batch", []string{d, ""}, 2, Plan{}, false},
		{"no picks kept", nil, 2, Plan{}, false},
		{"picks of another length are none", []string{a}, 2, Plan{}, false},
		{"an Allow stays approved, the rest rejected", []string{a, d, ""}, 3, Plan{Items: []string{a, d, d}, Approve: 1, Reject: 2}, true},
		{"an Allow and an unmarked one", []string{"", a}, 2, Plan{Items: []string{d, a}, Approve: 1, Reject: 1}, true},
		{"every one marked Allow rejects none", []string{a, a}, 2, Plan{Items: []string{a, a}, Approve: 2}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan, ok := Rejecting(tt.picks, tt.n)
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.plan, plan)
			}
		})
	}
}
