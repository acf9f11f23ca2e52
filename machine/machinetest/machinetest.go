// Package machinetest holds the one rule every machine in machine/ and slash/ keeps, and the
// helper that checks it: a machine's effects are plain data. An effect is a struct of values
// (strings, numbers, booleans, enums, and structs of those); never a slice, a map, a pointer,
// a func, a channel, raw JSON bytes or an error. So a test compares effects with ==, a table
// of expected effects is a literal, and an effect can be logged, replayed or sent across a
// goroutine without aliasing the machine's state.
//
// A table test feeds events in and asserts the state and the effects that come out:
//
//	got := machinetest.Run(t, m.Dispatch, EventA{}, EventB{})
//	machinetest.State(t, snapshot(m), state{Head: "q1"})
//	machinetest.Equal(t, got, []Effect{Shown{ID: "q1"}})
package machinetest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Run dispatches events in order and returns every effect they produced, failing t when one
// is not comparable.
func Run[E, F any](t testing.TB, dispatch func(E) []F, events ...E) []F {
	t.Helper()
	var out []F
	for _, ev := range events {
		effects := dispatch(ev)
		Comparable(t, effects...)
		out = append(out, effects...)
	}
	return out
}

// Comparable fails t for every effect that is not plain comparable data.
func Comparable[F any](t testing.TB, effects ...F) {
	t.Helper()
	for _, e := range effects {
		if why := notPlain(reflect.ValueOf(e)); why != "" {
			t.Errorf("effect %T is not plain data: %s", e, why)
		}
	}
}

// State fails t unless a machine's state, as the test snapshots it, is want (by
// reflect.DeepEqual: a state may hold slices and maps; only effects must be comparable).
func State[S any](t testing.TB, got, want S) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("state:\n got %+v\nwant %+v", got, want)
	}
}

// Equal fails t unless got and want hold the same effects in the same order, compared with ==.
func Equal[F comparable](t testing.TB, got, want []F) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("effects:\n got %s\nwant %s", describe(got), describe(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("effect %d:\n got %#v\nwant %#v\n(all: got %s)", i, got[i], want[i], describe(got))
		}
	}
}

// Names fails t unless values print, in order, as the space-separated names in want: an
// enum's table in one line, with an out-of-range value last to check its fallback.
func Names(t testing.TB, want string, values ...fmt.Stringer) {
	t.Helper()
	names := strings.Fields(want)
	if len(names) != len(values) {
		t.Fatalf("Names: %d names for %d values", len(names), len(values))
	}
	for i, v := range values {
		if got := v.String(); got != names[i] {
			t.Errorf("value %d (%T): got %q, want %q", i, v, got, names[i])
		}
	}
}

func describe[F any](effects []F) string {
	s := "["
	for i, e := range effects {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%#v", e)
	}
	return s + "]"
}

// notPlain says why v is not plain data, or "" when it is. It walks the value, not only its
// type: an interface field is plain only when what it holds is.
func notPlain(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return notPlain(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if why := notPlain(v.Field(i)); why != "" {
				return v.Type().Field(i).Name + ": " + why
			}
		}
		return ""
	case reflect.Array:
		for i := range v.Len() {
			if why := notPlain(v.Index(i)); why != "" {
				return why
			}
		}
		return ""
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return "holds a " + v.Kind().String() + " (" + v.Type().String() + ")"
	default:
		return ""
	}
}
