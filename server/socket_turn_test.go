package server

import (
	"testing"
	"time"
)

// A pump whose write waits on its client (a socket that stopped reading) keeps its turn no
// longer than turnHold: the other pumps of the process get theirs, so one stalled client
// never holds up the others' writes.
func TestAStalledWriteHandsItsTurnOn(t *testing.T) {
	// The turns as they are by default, whatever PARLEY_FANOUT_WRITERS says (0 turns them off
	// for a bench). Not parallel: no other test's pumps run meanwhile.
	defer func(off bool) { turnsOff = off }(turnsOff)
	turnsOff = false
	var stalled []*pumpWriter
	for range cap(writeTurns) {
		w := newPumpWriter(nil)
		w.takeTurn() // and never ends it, as a write blocked on a full socket
		stalled = append(stalled, w)
	}
	next := newPumpWriter(nil)
	got := make(chan struct{})
	go func() {
		next.takeTurn()
		close(got)
	}()
	select {
	case <-got:
	case <-time.After(time.Minute): // a bound on a hang, not a measure
		t.Fatal("a pump waited for ever behind writes that held their turns")
	}
	next.endTurn()
	for _, w := range stalled {
		w.endTurn() // its write ended: nothing more to hand on
		if w.holding.Load() {
			t.Fatal("a pump still holds a turn after its write ended")
		}
	}
	if len(writeTurns) != 0 {
		t.Fatalf("%d turns still taken with no write under way", len(writeTurns))
	}
}
