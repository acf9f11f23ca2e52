package composer

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"parley/machine/machinetest"
)

// FuzzDispatch decodes the input into a sequence of events over a few ids and functions,
// and after every event checks:
//
//   - the queue never holds an id twice, nor an id that ended;
//   - Mode agrees with Head and Function: a shown head's mode, else FnForm with a
//     function, else Idle; the fn-form is never open under a shown decision;
//   - set aside only with a head, held only with a head behind the open fn-form, and Head
//     is shown exactly when one is queued, not set aside and not held;
//   - Ended of an id not queued changes nothing and returns nothing;
//   - a Key changes no state, and means something exactly when a mode is morphed in;
//   - a Press changes no state, and is ignored only while a decision is shown;
//   - every effect is plain data;
//   - a view that follows Shown and Exit holds exactly what the machine says is shown:
//     every Exit names what was shown, every Shown follows an Exit or starts from idle.
func FuzzDispatch(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 0, 3, 4, 5, 1, 1})
	f.Add([]byte{3, 0, 0, 1, 0, 5, 6, 3, 1, 1, 2, 2, 8})
	f.Add([]byte{2, 3, 0, 0, 4, 7, 5, 6, 9, 1, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		ids := []string{"a", "b", "c", "d"}
		fns := []string{"deploy", "build"}
		r := machinetest.Bytes(data)
		next := r.Next
		decision := func() Decision {
			n := next()
			d := ask(ids[n%len(ids)])
			switch n / len(ids) % 4 {
			case 1:
				d = approval(d.ID)
			case 2:
				d = confirm(d.ID)
			case 3:
				d.Local = true
			}
			return d
		}
		m := New(Config{})
		shown := occupant{}
		clock := 0
		fieldFocused := false
		for r.More() {
			clock += next()
			now := at(clock)
			var ev Event
			switch next() % 15 {
			case 14:
				// A click: a pointer's, counted 1 or 2, or a key's (0).
				ev = Press{Detail: next() % 3, At: now}
			case 13:
				ev = Composing{On: next()%2 == 0, At: now}
			case 12:
				ev = Covering{}
			case 10:
				ev = Tick{At: now}
			case 11:
				// A letter on the morphed area, or in a field (the fn-form's: typing).
				ev = Key{Key: "a", On: []Target{OnMode, OnLine}[next()%2], At: now}
			case 0, 1:
				ev = Asked{Decision: decision(), At: now}
			case 2:
				ev = Ended{ID: ids[next()%len(ids)], Outcome: Outcome(next() % 4), At: now}
			case 3:
				var list []Decision
				for range next() % 4 {
					list = append(list, decision())
				}
				ev = Reset{Decisions: list, At: now}
			case 4:
				ev = OpenFnForm{Function: fns[next()%len(fns)]}
			case 5:
				ev = CloseFnForm{}
			case 6:
				ev = ChatAbout{}
			case 7:
				ev = Resume{At: now}
			case 8:
				ev = ClearNote{}
			case 9:
				var list []Decision
				for range next() % 4 {
					list = append(list, decision())
				}
				var timedOut []string
				if next()%2 == 0 {
					timedOut = append(timedOut, ids[next()%len(ids)])
				}
				ev = Sync{Decisions: list, TimedOut: timedOut, At: now}
			}

			before := snapshot(m)
			queued := slices.ContainsFunc(m.Queue(), func(d Decision) bool {
				e, ok := ev.(Ended)
				return ok && d.ID == e.ID
			})
			effects := m.Dispatch(ev)
			machinetest.Comparable(t, effects...)
			if _, ok := ev.(Press); ok {
				if _, shows := m.Head(); !reflect.DeepEqual(snapshot(m), before) || effects != nil && !shows {
					t.Fatalf("%#v: effects %v, state %+v -> %+v", ev, effects, before, snapshot(m))
				}
			}
			if e, ok := ev.(Ended); ok && !queued {
				if effects != nil || !reflect.DeepEqual(snapshot(m), before) {
					t.Fatalf("Ended{%q} of an id not queued: effects %v, state %+v -> %+v", e.ID, effects, before, snapshot(m))
				}
			}

			for _, eff := range effects {
				switch e := eff.(type) {
				case Exit:
					if (occupant{e.Mode, e.ID}) != shown {
						t.Fatalf("%#v: Exit %+v while the view shows %+v", ev, e, shown)
					}
					shown = occupant{}
				case Shown:
					if shown != (occupant{}) {
						t.Fatalf("%#v: Shown %+v over %+v without an Exit", ev, e, shown)
					}
					shown = occupant{e.Mode, e.ID}
					fieldFocused = false
				case FocusField:
					// The field takes the focus once per entry, and only into a mode shown.
					if fieldFocused || shown == (occupant{}) {
						t.Fatalf("%#v: FocusField again or into nothing (shown %+v)", ev, shown)
					}
					fieldFocused = true
				case Wake:
					if e.After <= 0 || e.After > DefaultFocusDelay {
						t.Fatalf("%#v: Wake after %v", ev, e.After)
					}
				}
			}
			if shown != m.occupant() {
				t.Fatalf("%#v: the view shows %+v, the machine %+v", ev, shown, m.occupant())
			}

			q := m.Queue()
			seen := map[string]bool{}
			for _, d := range q {
				if seen[d.ID] {
					t.Fatalf("queue holds %q twice: %+v", d.ID, q)
				}
				if m.ended[d.ID] {
					t.Fatalf("queue holds %q, which ended", d.ID)
				}
				seen[d.ID] = true
			}
			head, ok := m.Head()
			switch {
			case m.SetAside() && len(q) == 0:
				t.Fatalf("set aside with an empty queue")
			case m.Held() && (len(q) == 0 || m.SetAside() || m.Mode() != FnForm):
				t.Fatalf("held with queue %d, set aside %v, in mode %v", len(q), m.SetAside(), m.Mode())
			case ok != (len(q) > 0 && !m.SetAside() && !m.Held()):
				t.Fatalf("Head shown %v with queue %d, set aside %v and held %v", ok, len(q), m.SetAside(), m.Held())
			case ok && (m.Mode() != head.Mode() || m.Function() != ""):
				t.Fatalf("head %+v shown in mode %v with function %q", head, m.Mode(), m.Function())
			case !ok && m.Function() != "" && m.Mode() != FnForm:
				t.Fatalf("function %q open in mode %v", m.Function(), m.Mode())
			case !ok && m.Function() == "" && m.Mode() != Idle:
				t.Fatalf("nothing shown in mode %v", m.Mode())
			}
			if m.Note() != "" && m.Note() != NoteTimedOut {
				t.Fatalf("note %q", m.Note())
			}
			// A key other than Escape reads the state and changes none of it; Escape on a
			// button means something exactly when a mode is morphed in, and on a decision
			// sets it aside: never an answer, and the queue is untouched.
			kept := snapshot(m)
			if eff := m.Dispatch(Key{Key: "Enter", On: OnOther, At: now}); !reflect.DeepEqual(snapshot(m), kept) {
				t.Fatalf("Enter in mode %v: effects %v, state %+v -> %+v", m.Mode(), eff, kept, snapshot(m))
			}
			probe := *m
			probe.queue, probe.ended = slices.Clone(m.queue), maps.Clone(m.ended)
			dismissed := probe.Dispatch(Key{Key: "Escape", On: OnOther, At: now})
			after := snapshot(&probe)
			switch {
			case (dismissed == nil) != (m.Mode() == Idle):
				t.Fatalf("Escape in mode %v: effects %v", m.Mode(), dismissed)
			case !reflect.DeepEqual(after.Queue, kept.Queue):
				t.Fatalf("Escape in mode %v changed the queue: %v -> %v", m.Mode(), kept.Queue, after.Queue)
			case kept.Head != "" && (!after.Aside || after.Mode != Idle && after.Mode != FnForm):
				t.Fatalf("Escape on decision %q: state %+v", kept.Head, after)
			case kept.Head == "" && !reflect.DeepEqual(after, kept):
				t.Fatalf("Escape in mode %v: state %+v -> %+v", m.Mode(), kept, after)
			}
		}
	})
}
