// Package smallsort sorts the few items a view or a machine orders (a paste's references, a
// slot's entries, a queue of prompts) with an insertion sort.
//
// Why not slices.SortFunc: the browser's build links one copy of slices' pattern-defeating
// quicksort per element shape, about 20 KB of wasm each (docs/wasm-size.md), and these lists
// hold a handful of items, where an insertion sort is as fast. Stable: equal items keep their
// order.
package smallsort

// Stable sorts s by cmp, keeping the order of equal items. O(n²): for short lists only.
func Stable[S ~[]E, E any](s S, cmp func(a, b E) int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && cmp(s[j-1], s[j]) > 0; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}
