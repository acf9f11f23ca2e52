package components

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

func TestTouchSession(t *testing.T) {
	a := protocol.SessionInfo{ID: "a", Created: 300}
	b := protocol.SessionInfo{ID: "b", Created: 200}
	c := protocol.SessionInfo{ID: "c", Created: 100, Active: 150}
	list := []protocol.SessionInfo{a, b, c}
	cTouched := c
	cTouched.Active = 400
	cases := []struct {
		name    string
		session string
		at      int64
		want    []protocol.SessionInfo
	}{
		{"a prompt later than the list knows: first, dated from it", "c", 400, []protocol.SessionInfo{cTouched, a, b}},
		{"a replayed older prompt changes nothing", "c", 120, list},
		{"a prompt the list did not know, older than another session's use: below that one", "c", 250, []protocol.SessionInfo{a, {ID: "c", Created: 100, Active: 250}, b}},
		{"a session the list does not hold", "z", 999, list},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, touchSession(list, tc.session, tc.at))
		})
	}
	assert.Equal(t, []protocol.SessionInfo{a, b, c}, list, "the list it was given is left as it was")
}
