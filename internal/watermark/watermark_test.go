package watermark

import (
	"context"
	"testing"
	"time"
)

func TestWait(t *testing.T) {
	var m Mark
	if got := m.Wait(context.Background(), 0, time.Hour); got != 0 {
		t.Fatalf("before Start: %d", got)
	}
	m.Raise(5) // not started: ignored
	if m.Value() != 0 {
		t.Fatalf("a raise before Start moved it to %d", m.Value())
	}
	m.Start(10)
	if got := m.Wait(context.Background(), 3, time.Hour); got != 10 {
		t.Fatalf("a stale version waits for nothing: got %d", got)
	}
	if got := m.Wait(context.Background(), 10, 0); got != 10 {
		t.Fatalf("no hold: got %d", got)
	}
	if got := m.Wait(context.Background(), 10, 20*time.Millisecond); got != 10 {
		t.Fatalf("held to its end: got %d", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := m.Wait(ctx, 10, time.Hour); got != 10 {
		t.Fatalf("an ended context: got %d", got)
	}

	woke := make(chan uint64, 2)
	for range 2 {
		go func() { woke <- m.Wait(context.Background(), 10, time.Minute) }()
	}
	time.Sleep(20 * time.Millisecond)
	m.Raise(9) // behind: no move
	m.Raise(12)
	for range 2 {
		select {
		case got := <-woke:
			if got != 12 {
				t.Fatalf("woke with %d, want 12", got)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a raise woke no waiter")
		}
	}
}

// TestNext: the channel Next hands out closes when the mark moves past the value it came
// with, and not before; the next one waits for the next move.
func TestNext(t *testing.T) {
	var m Mark
	if v, ch := m.Next(); v != 0 || ch != nil {
		t.Fatalf("before Start: %d, %v", v, ch)
	}
	m.Start(4)
	v, ch := m.Next()
	if v != 4 {
		t.Fatalf("Next says %d, want 4", v)
	}
	m.Raise(4) // no move
	select {
	case <-ch:
		t.Fatal("closed without a move")
	default:
	}
	m.Raise(6)
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("a move did not close it")
	}
	if v, next := m.Next(); v != 6 || next == ch {
		t.Fatalf("after the move: %d, the same channel %v", v, next == ch)
	}
}
