package debounce

import (
	"testing"
	"time"

	"parley/machine/machinetest"
)

func TestDebounce(t *testing.T) {
	const idle, max = 700 * time.Millisecond, 5 * time.Second
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name        string
		events      []Event
		want        []Effect
		wantPending bool
	}{
		{"one change saves once typing pauses",
			[]Event{Changed{at(0)}, Fired{at(700)}},
			[]Effect{Arm{idle}, Save{}}, false},
		{"changes while armed arm nothing more",
			[]Event{Changed{at(0)}, Changed{at(100)}, Changed{at(300)}},
			[]Effect{Arm{idle}}, true},
		{"a change since the timer was set waits out the rest of the pause",
			[]Event{Changed{at(0)}, Changed{at(500)}, Fired{at(700)}, Fired{at(1200)}},
			[]Effect{Arm{idle}, Arm{500 * time.Millisecond}, Save{}}, false},
		{"steady typing still saves after max",
			[]Event{Changed{at(0)}, Changed{at(4900)}, Fired{at(5000)}},
			[]Effect{Arm{idle}, Save{}}, false},
		{"a flush leaves the timer nothing to do",
			[]Event{Changed{at(0)}, Flushed{}, Fired{at(700)}},
			[]Effect{Arm{idle}}, false},
		{"the next change after a save starts over",
			[]Event{Changed{at(0)}, Fired{at(700)}, Changed{at(6000)}, Fired{at(6700)}},
			[]Effect{Arm{idle}, Save{}, Arm{idle}, Save{}}, false},
		{"a late timer with no change is quiet",
			[]Event{Fired{at(10)}},
			nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New(idle, max)
			got := machinetest.Run(t, d.Dispatch, tt.events...)
			machinetest.Equal(t, got, tt.want)
			if d.Pending() != tt.wantPending {
				t.Errorf("Pending() = %v, want %v", d.Pending(), tt.wantPending)
			}
		})
	}
}

// FuzzOneTimer: whatever the changes and firings, at most one timer is armed at a time,
// every Arm waits at most idle, and a change is never left pending without a timer.
func FuzzOneTimer(f *testing.F) {
	f.Add([]byte{0, 10, 1, 200, 0, 5, 1, 255})
	f.Fuzz(func(t *testing.T, script []byte) {
		const idle, max = 700 * time.Millisecond, 5 * time.Second
		d := New(idle, max)
		now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		armed := false
		for i := 0; i+1 < len(script); i += 2 {
			now = now.Add(time.Duration(script[i+1]) * 10 * time.Millisecond)
			var ev Event = Changed{now}
			if script[i]%3 == 1 {
				if !armed {
					continue // the shell only reports a timer it set
				}
				armed = false
				ev = Fired{now}
			} else if script[i]%3 == 2 {
				ev = Flushed{}
			}
			for _, e := range d.Dispatch(ev) {
				if a, ok := e.(Arm); ok {
					if armed {
						t.Fatal("a second timer armed")
					}
					if a.After <= 0 || a.After > idle {
						t.Fatalf("Arm{%v}", a.After)
					}
					armed = true
				}
			}
			if d.Pending() && !armed {
				t.Fatal("a change is pending with no timer")
			}
		}
	})
}
