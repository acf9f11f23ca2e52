package machinetest

import (
	"errors"
	"reflect"
	"testing"
)

type plain struct {
	ID   string
	N    int
	Kind kind
}

type kind int

type withSlice struct{ Items []string }

type withError struct{ Err error }

type withAny struct{ V any }

func TestNotPlain(t *testing.T) {
	cases := []struct {
		name  string
		value any
		plain bool
	}{
		{"plain struct", plain{ID: "a", N: 1}, true},
		{"empty struct", struct{}{}, true},
		{"nil interface field", withAny{}, true},
		{"interface field holding a string", withAny{V: "x"}, true},
		{"slice field", withSlice{Items: []string{"a"}}, false},
		{"nil slice field", withSlice{}, false},
		{"error field", withError{Err: errors.New("x")}, false},
		{"interface field holding a slice", withAny{V: []byte("x")}, false},
		{"pointer", &plain{}, false},
		{"raw bytes", []byte("{}"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			why := notPlain(reflectValue(c.value))
			if (why == "") != c.plain {
				t.Errorf("plain = %v (%q), want %v", why == "", why, c.plain)
			}
		})
	}
}

func TestRunCollectsEffectsInOrder(t *testing.T) {
	dispatch := func(n int) []plain {
		out := make([]plain, n)
		for i := range out {
			out[i] = plain{N: n*10 + i}
		}
		return out
	}
	got := Run(t, dispatch, 1, 0, 2)
	Equal(t, got, []plain{{N: 10}, {N: 20}, {N: 21}})
}

// TestComparableFails proves the check can fail: a recorder stands in for t.
func TestComparableFails(t *testing.T) {
	rec := &recorder{TB: t}
	Comparable[any](rec, plain{}, withSlice{})
	if rec.errors != 1 {
		t.Fatalf("errors = %d, want 1", rec.errors)
	}
}

type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }

func reflectValue(v any) reflect.Value { return reflect.ValueOf(v) }

func TestLast(t *testing.T) {
	double := func(n int) []plain { return []plain{{N: n}, {N: 2 * n}} }
	Equal(t, Last(t, double, 1, 2, 3), []plain{{N: 3}, {N: 6}})
	Equal(t, Last(t, double), nil)
}

func TestBytes(t *testing.T) {
	b := Bytes{7, 0, 255}
	var got []int
	for b.More() {
		got = append(got, b.Next())
	}
	if want := []int{7, 0, 255}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if n := b.Next(); n != 0 {
		t.Errorf("past the end: got %d, want 0", n)
	}
}

type shade int

func (s shade) String() string { return [...]string{"light", "dark"}[s] }

// TestNames: a wrong name fails, once.
func TestNames(t *testing.T) {
	Names(t, "light dark", shade(0), shade(1))
	rec := &recorder{TB: t}
	Names(rec, "light light", shade(0), shade(1))
	if rec.errors != 1 {
		t.Fatalf("errors = %d, want 1", rec.errors)
	}
}
