package outbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/machinetest"
)

func entry(id string) Entry { return Entry{ID: id, Session: "s", Text: "text " + id} }

func sends(effs []Effect) []string {
	var ids []string
	for _, e := range effs {
		if s, ok := e.(Send); ok {
			ids = append(ids, s.Entry.ID)
		}
	}
	return ids
}

func has[T Effect](effs []Effect) (T, bool) {
	for _, e := range effs {
		if x, ok := e.(T); ok {
			return x, true
		}
	}
	var zero T
	return zero, false
}

func states(m *Machine) map[string]State {
	out := map[string]State{}
	for _, e := range m.Entries() {
		out[e.ID] = e.State
	}
	return out
}

// Two prompts written while the server is away wait, in order; when it is back, they are sent
// one after the other, each once, and leave when the log shows them.
func TestOfflinePromptsGoInOrderOnce(t *testing.T) {
	m := New()
	a := entry("a")
	a.Direct = true
	effs := m.Dispatch(Add{Entry: a})
	assert.Equal(t, []string{"a"}, sends(effs), "the first try goes at once")
	effs = m.Dispatch(Settled{ID: "a", Result: Unreachable})
	_, acc := has[Accepted](effs)
	assert.True(t, acc, "no server: the composer lets its draft go, the outbox keeps the prompt")
	arm, ok := has[Arm](effs)
	require.True(t, ok)
	assert.Equal(t, time.Second, arm.After)
	assert.Equal(t, Waiting, states(m)["a"])

	b := entry("b")
	b.Direct = true
	effs = m.Dispatch(Add{Entry: b})
	assert.Empty(t, sends(effs), "offline: no try for the second")
	_, acc = has[Accepted](effs)
	assert.True(t, acc, "accepted at once while the server is known to be away")

	// A timer that fires finds no server again: the wait doubles.
	effs = m.Dispatch(Fired{Gen: arm.Gen})
	assert.Equal(t, []string{"a"}, sends(effs))
	effs = m.Dispatch(Settled{ID: "a", Result: Unreachable})
	arm2, _ := has[Arm](effs)
	assert.Equal(t, 2*time.Second, arm2.After)
	assert.Empty(t, m.Dispatch(Fired{Gen: arm.Gen}), "a stale timer does nothing")

	// The socket is live again.
	effs = m.Dispatch(Reach{Online: true})
	assert.Equal(t, []string{"a"}, sends(effs))
	assert.Empty(t, sends(m.Dispatch(Wake{})), "one request at a time")
	effs = m.Dispatch(Settled{ID: "a", Result: Done})
	assert.Equal(t, []string{"b"}, sends(effs), "then the next, in order")
	assert.Equal(t, Stored, states(m)["a"])
	m.Dispatch(Seen{ID: "a"})
	m.Dispatch(Settled{ID: "b", Result: Done})
	m.Dispatch(Seen{ID: "b"})
	assert.Empty(t, m.Entries())
	assert.Empty(t, sends(m.Dispatch(Wake{})), "nothing is sent twice")
}

// A refused first try gives the draft back to the composer; a refused later try stays,
// marked, and is never sent again by itself.
func TestRefused(t *testing.T) {
	m := New()
	a := entry("a")
	a.Direct = true
	m.Dispatch(Add{Entry: a})
	effs := m.Dispatch(Settled{ID: "a", Result: Rejected, Err: "too long"})
	b, ok := has[Bounced](effs)
	require.True(t, ok)
	assert.Equal(t, "too long", b.Err)
	assert.Empty(t, m.Entries())

	m.Dispatch(Reach{Online: false})
	m.Dispatch(Add{Entry: entry("c")})
	effs = m.Dispatch(Wake{})
	assert.Equal(t, []string{"c"}, sends(effs))
	m.Dispatch(Settled{ID: "c", Result: Rejected, Err: "gone"})
	assert.Equal(t, Refused, states(m)["c"])
	assert.Empty(t, sends(m.Dispatch(Wake{})))
	effs = m.Dispatch(Cancel{ID: "c"})
	r, ok := has[Restore](effs)
	require.True(t, ok)
	assert.Equal(t, "text c", r.Text)
	assert.Empty(t, m.Entries())
}

// Cancel takes a waiting prompt back, never one under way.
func TestCancel(t *testing.T) {
	m := New()
	m.Dispatch(Reach{Online: false})
	m.Dispatch(Add{Entry: entry("a")})
	m.Dispatch(Add{Entry: entry("b")})
	assert.Empty(t, m.Dispatch(Cancel{ID: "zz"}))
	effs := m.Dispatch(Cancel{ID: "a"})
	_, ok := has[Restore](effs)
	assert.True(t, ok)
	assert.Equal(t, []string{"b"}, sends(m.Dispatch(Wake{})))
	assert.Empty(t, m.Dispatch(Cancel{ID: "b"}), "under way: it may be stored already")
}

// A reload: what was under way or stored but not seen is asked again with its id; a retry of
// a stored attempt leaves at once.
func TestLoaded(t *testing.T) {
	m := New()
	effs := m.Dispatch(Loaded{Entries: []Entry{{ID: "a", Session: "s", State: Sending}, {ID: "b", Session: "s", State: Stored}, {ID: "c", Session: "s", State: Refused}}})
	assert.Equal(t, []string{"a"}, sends(effs))
	effs = m.Dispatch(Settled{ID: "a", Result: Done, Known: true})
	assert.Equal(t, []string{"b"}, sends(effs))
	assert.NotContains(t, states(m), "a")
	assert.Equal(t, Refused, states(m)["c"])
	assert.Empty(t, m.Dispatch(Loaded{Entries: []Entry{{ID: "x"}}}), "only into an empty outbox")
}

// The log shows a prompt whose request is still under way (the socket beat the answer): it
// leaves, and its late answer changes nothing.
func TestSeenBeforeSettled(t *testing.T) {
	m := New()
	a := entry("a")
	a.Direct = true
	m.Dispatch(Add{Entry: a})
	m.Dispatch(Add{Entry: entry("b")})
	effs := m.Dispatch(Seen{ID: "a"})
	_, ok := has[Accepted](effs)
	assert.True(t, ok)
	assert.Empty(t, sends(effs), "still one request at a time")
	effs = m.Dispatch(Settled{ID: "a", Result: Done})
	assert.Equal(t, []string{"b"}, sends(effs))
}

func TestBackoff(t *testing.T) {
	assert.Equal(t, time.Second, Backoff(1))
	assert.Equal(t, 4*time.Second, Backoff(3))
	assert.Equal(t, 30*time.Second, Backoff(40))
}

// FuzzOutbox: whatever happens, at most one request is under way, the entries are sent in
// the order written, and an entry that left is never sent again.
func FuzzOutbox(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 3, 4, 5, 6, 7, 1, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		m := New()
		n := 0
		gone := map[string]bool{}
		for _, op := range ops {
			var ev Event
			in := m.Inflight()
			switch op % 8 {
			case 0:
				e := entry(string(rune('a'+n%26)) + string(rune('0'+n/26)))
				e.Direct = op&8 != 0
				n++
				ev = Add{Entry: e}
			case 1:
				ev = Settled{ID: in, Result: Result(int(op/8) % 3), Known: op&64 != 0}
			case 2:
				ev = Reach{Online: op&8 != 0}
			case 3:
				ev = Wake{}
			case 4:
				ev = Fired{Gen: int(op / 8)}
			case 5, 6:
				if es := m.Entries(); len(es) > 0 {
					id := es[int(op/8)%len(es)].ID
					if op%8 == 5 {
						ev = Seen{ID: id}
					} else {
						ev = Cancel{ID: id}
					}
				}
			case 7:
				ev = Settled{ID: "nobody", Result: Done}
			}
			if ev == nil {
				continue
			}
			before := map[string]bool{}
			for _, e := range m.Entries() {
				before[e.ID] = true
			}
			effs := m.Dispatch(ev)
			machinetest.Comparable(t, effs...)
			for _, eff := range effs {
				if s, ok := eff.(Send); ok {
					if gone[s.Entry.ID] {
						t.Fatalf("%s sent after it left", s.Entry.ID)
					}
					if in != "" && in != s.Entry.ID && m.Inflight() != s.Entry.ID {
						t.Fatalf("two requests under way")
					}
					for _, e := range m.Entries() {
						if e.ID == s.Entry.ID {
							break
						}
						if e.State == Waiting {
							t.Fatalf("%s sent before %s, written earlier and waiting", s.Entry.ID, e.ID)
						}
					}
				}
			}
			now := map[string]bool{}
			for _, e := range m.Entries() {
				now[e.ID] = true
			}
			for id := range before {
				if !now[id] {
					gone[id] = true
				}
			}
			inflight := 0
			for _, e := range m.Entries() {
				if e.State == Sending {
					inflight++
				}
			}
			if inflight > 1 {
				t.Fatalf("%d entries sending", inflight)
			}
		}
	})
}
