package notify

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

// step is one event of a table: an ask, an end, or time passing to at, with what is due.
type step struct {
	at    time.Duration // since t0
	ask   string        // session/decision asked
	end   string        // session/decision ended or claimed
	due   []string      // what Due(at) returns, when checking
	check bool
}

func note(key string) protocol.Notification {
	s, d, _ := cutKey(key)
	return protocol.Notification{Session: s, Decision: d}
}

func cutKey(k string) (string, string, bool) {
	for i := range k {
		if k[i] == '/' {
			return k[:i], k[i+1:], true
		}
	}
	return k, "", false
}

func TestGrace(t *testing.T) {
	const w = time.Second
	for name, steps := range map[string][]step{
		"nothing is due inside the window": {
			{at: 0, ask: "a/1"},
			{at: 999 * time.Millisecond, check: true},
			{at: w, check: true, due: []string{"a/1"}},
			{at: 2 * w, check: true},
		},
		"an answer inside the window drops it": {
			{at: 0, ask: "a/1"},
			{at: 500 * time.Millisecond, end: "a/1"},
			{at: 2 * w, check: true},
		},
		"due in the order asked": {
			{at: 0, ask: "a/1"},
			{at: 100 * time.Millisecond, ask: "b/2"},
			{at: 100 * time.Millisecond, ask: "a/3"},
			{at: 3 * w, check: true, due: []string{"a/1", "b/2", "a/3"}},
		},
		"each waits its own window": {
			{at: 0, ask: "a/1"},
			{at: 600 * time.Millisecond, ask: "a/2"},
			{at: 1200 * time.Millisecond, check: true, due: []string{"a/1"}},
			{at: 1600 * time.Millisecond, check: true, due: []string{"a/2"}},
		},
		"a replayed ask keeps its window": {
			{at: 0, ask: "a/1"},
			{at: 900 * time.Millisecond, ask: "a/1"},
			{at: w, check: true, due: []string{"a/1"}},
		},
		"ending an unknown decision is nothing": {
			{at: 0, end: "a/1"},
			{at: 0, ask: "a/2"},
			{at: w, check: true, due: []string{"a/2"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t0 := time.Unix(1_800_000_000, 0)
			g := NewGrace(w)
			for i, s := range steps {
				now := t0.Add(s.at)
				if s.ask != "" {
					g.Asked(note(s.ask), now)
				}
				if s.end != "" {
					sess, dec, _ := cutKey(s.end)
					g.Ended(sess, dec)
				}
				if s.check {
					var got []string
					for _, a := range g.Due(now) {
						got = append(got, a.Notification.Session+"/"+a.Notification.Decision)
						assert.False(t, a.Due.After(now), "step %d: due later than now", i)
					}
					assert.Equal(t, s.due, got, "step %d", i)
					if next, ok := g.Next(); ok {
						assert.True(t, next.After(now), "step %d: Next is after now", i)
					}
				}
			}
		})
	}
}

// FuzzGrace: whatever the events, nothing comes out before its window is over, nothing
// ended comes out, and each ask comes out at most once.
func FuzzGrace(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const w = time.Second
		t0 := time.Unix(0, 0)
		g := NewGrace(w)
		now := t0
		asked := map[string]time.Time{} // the keys in their window, and when they were asked
		for _, op := range ops {
			key := string(rune('a' + op%4))
			switch op >> 6 {
			case 0:
				if _, ok := asked[key]; !ok {
					asked[key] = now
				}
				g.Asked(protocol.Notification{Session: key, Decision: key}, now)
			case 1:
				delete(asked, key)
				g.Ended(key, key)
			case 2:
				now = now.Add(time.Duration(op&0x3f) * 50 * time.Millisecond)
			case 3:
				for _, a := range g.Due(now) {
					k := a.Notification.Session
					at, ok := asked[k]
					if !ok {
						t.Fatalf("%s came out, though ended or out already", k)
					}
					if now.Sub(at) < w {
						t.Fatalf("%s came out %v after its ask", k, now.Sub(at))
					}
					delete(asked, k)
				}
			}
			if len(asked) != g.Len() {
				t.Fatalf("%d asks wait, want %d", g.Len(), len(asked))
			}
		}
	})
}

// A notified decision is withdrawn once when it ends; one that ended inside its window, or
// was never notified, is not; the memory of notified decisions is bounded.
func TestGraceWithdrawsOnlyWhatWasSent(t *testing.T) {
	g := NewGrace(time.Second)
	t0 := time.Unix(0, 0)
	g.Asked(note("a/1"), t0)
	g.Asked(note("a/2"), t0)
	for _, a := range g.Due(t0.Add(time.Second)) {
		if a.Notification.Decision == "1" {
			g.Sent(a.Notification) // a/2 was claimed: never sent
		}
	}
	g.Sent(note("a/1")) // twice is once
	_, ok := g.Withdraw("a", "2")
	assert.False(t, ok, "never notified: nothing to take back")
	n, ok := g.Withdraw("a", "1")
	assert.True(t, ok)
	assert.Equal(t, note("a/1"), n)
	_, ok = g.Withdraw("a", "1")
	assert.False(t, ok, "withdrawn once")

	for i := range MaxSent + 10 {
		g.Sent(protocol.Notification{Session: "b", Decision: fmt.Sprint(i)})
	}
	assert.Len(t, g.sent, MaxSent)
	_, ok = g.Withdraw("b", "0")
	assert.False(t, ok, "the oldest are forgotten first")
	_, ok = g.Withdraw("b", fmt.Sprint(MaxSent+9))
	assert.True(t, ok)
}
