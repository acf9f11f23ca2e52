package outbox

// Every tab of the page keeps its entries under the one stored key, and each holds its own
// outbox in memory. A tab that wrote only its own entries would erase a prompt that another
// tab keeps for later; a reload would then lose it. So a tab writes the entries it holds on
// top of the ones it finds stored that were never its own: an entry it held and let go (the
// log showed it, it was cancelled) goes, another tab's stays. A reload adopts them all; two
// tabs sending the same entry is harmless, because its attempt id is stored once.

// Share is the list a tab writes: the stored entries it never held (mine says which ids it
// has held), in their order, then the ones it holds now, in theirs.
func Share(stored, held []Entry, mine func(id string) bool) []Entry {
	out := make([]Entry, 0, len(stored)+len(held))
	for _, e := range stored {
		if !mine(e.ID) {
			out = append(out, e)
		}
	}
	return append(out, held...)
}
