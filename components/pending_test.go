package components

import (
	"context"
	"testing"
	"time"
)

// TestAHiddenTabHoldsNoLongPoll: a hidden tab reads nothing until it is shown; a held read
// is let go (its context ends) when the tab is hidden, with no failure and no back-off, and
// the tab asks again with the same version once shown.
func TestAHiddenTabHoldsNoLongPoll(t *testing.T) {
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	view := newTabView(true)
	reads := make(chan *uint64, 10)
	let := make(chan error, 10) // how each held read ended
	go longPoll(stop, view, func(held context.Context, wait *uint64) (uint64, error) {
		reads <- wait
		if wait == nil {
			return 7, nil
		}
		<-held.Done()
		let <- held.Err()
		return 0, held.Err()
	}, func(err error, _ time.Duration) {
		t.Errorf("a hidden tab's let-go read was told as a failure: %v", err)
	})

	select {
	case w := <-reads:
		t.Fatalf("a hidden tab read (wait %v)", w)
	case <-time.After(50 * time.Millisecond):
	}
	view.setHidden(false)
	if w := <-reads; w != nil {
		t.Fatalf("the first read waited for version %d", *w)
	}
	if w := <-reads; w == nil || *w != 7 {
		t.Fatalf("the held read asked %v, want version 7", w)
	}
	view.setHidden(true)
	select {
	case err := <-let:
		if err == nil {
			t.Fatal("the held read ended without its context")
		}
	case <-time.After(time.Second):
		t.Fatal("hiding the tab did not let go of the held read")
	}
	select {
	case w := <-reads:
		t.Fatalf("the hidden tab read again (wait %v)", w)
	case <-time.After(50 * time.Millisecond):
	}
	view.setHidden(false)
	select {
	case w := <-reads:
		if w == nil || *w != 7 {
			t.Fatalf("shown again, it asked %v, want version 7 at once", w)
		}
	case <-time.After(time.Second):
		t.Fatal("shown again, it did not read")
	}
}
