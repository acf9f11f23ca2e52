package machinetest

import "testing"

// Last dispatches events in order, as Run does, and returns the effects of the last one
// alone: a table row sets the machine up with the events before it and asserts what the last
// one did. No events, no effects.
func Last[E, F any](t testing.TB, dispatch func(E) []F, events ...E) []F {
	t.Helper()
	var got []F
	for _, ev := range events {
		got = Run(t, dispatch, ev)
	}
	return got
}

// Bytes is a fuzzer's input read one number at a time, which is how a fuzz target turns its
// bytes into a sequence of events: each choice it makes takes the next byte.
type Bytes []byte

// Next returns the next byte, or 0 once the input is used up, so every input decodes.
func (b *Bytes) Next() int {
	if len(*b) == 0 {
		return 0
	}
	n := (*b)[0]
	*b = (*b)[1:]
	return int(n)
}

// More reports whether bytes are left.
func (b Bytes) More() bool { return len(b) > 0 }
