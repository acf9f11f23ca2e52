// Package watermark is a number that only grows, and a wait for it to move: what a long
// poll holds on (the approvals queue's version, the session index's). A waiter takes the
// channel of the value it saw; moving the value closes that channel and makes the next, so
// every waiter wakes once per move and none can miss one between its read and its wait.
package watermark

import (
	"context"
	"sync"
	"time"
)

// Mark is the number. Its zero value is not started: Wait answers at once until Start.
type Mark struct {
	mu      sync.Mutex
	value   uint64
	changed chan struct{} // closed and replaced when value moves; nil until Start
}

// Start sets the first value.
func (m *Mark) Start(v uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.value, m.changed = v, make(chan struct{})
}

// Raise moves the mark to v and wakes every waiter, if v is past it (and it started).
func (m *Mark) Raise(v uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.changed == nil || v <= m.value {
		return
	}
	m.value = v
	close(m.changed)
	m.changed = make(chan struct{})
}

// Value is the mark now.
func (m *Mark) Value() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.value
}

// Next is the mark now and a channel closed once it moves from there: for a wait on several
// marks at once (a select). The channel is nil before Start.
func (m *Mark) Next() (uint64, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.value, m.changed
}

// Wait returns the mark once it differs from v, or at the end of ctx or of d: at once when
// it already differs, before Start, or with no d.
func (m *Mark) Wait(ctx context.Context, v uint64, d time.Duration) uint64 {
	m.mu.Lock()
	cur, ch := m.value, m.changed
	m.mu.Unlock()
	if cur != v || ch == nil || d <= 0 {
		return cur
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
	return m.Value()
}
