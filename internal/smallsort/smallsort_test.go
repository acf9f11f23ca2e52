package smallsort

import (
	"cmp"
	"slices"
	"testing"
)

// FuzzStable: the same order as slices.SortStableFunc, equal keys in their first order.
func FuzzStable(f *testing.F) {
	f.Add([]byte{3, 1, 2, 1, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, keys []byte) {
		type item struct{ key, at int }
		items := make([]item, len(keys))
		for i, k := range keys {
			items[i] = item{int(k % 8), i}
		}
		byKey := func(a, b item) int { return cmp.Compare(a.key, b.key) }
		want := slices.Clone(items)
		slices.SortStableFunc(want, byKey)
		Stable(items, byKey)
		if !slices.Equal(items, want) {
			t.Fatalf("got %v, want %v", items, want)
		}
	})
}
