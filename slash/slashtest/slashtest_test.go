package slashtest

import "testing"

func TestListeners(t *testing.T) {
	var l Listeners
	calls := 0
	cancelA := l.Add(func() { calls++ })
	l.Add(func() { calls += 10 })
	l.Notify()
	if calls != 11 || l.Len() != 2 {
		t.Fatalf("after Notify: calls %d, Len %d; want 11, 2", calls, l.Len())
	}
	cancelA()
	l.Notify()
	if calls != 21 || l.Len() != 1 {
		t.Fatalf("after a cancel: calls %d, Len %d; want 21, 1", calls, l.Len())
	}
}
