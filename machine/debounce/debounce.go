// Package debounce decides when a stream of changes is written out: once the changes pause
// for Idle, and at the latest Max after the first unwritten change, so that steady typing
// still saves. The input bar saves its drafts with it, so a keystroke never serializes the
// draft.
//
// It is a pure machine: time arrives in the events, and the one timer it needs is an
// effect (Arm) that the shell sets and reports back (Fired). At most one timer is armed.
package debounce

import "time"

// Event is an input to Dispatch. The set is sealed.
type Event interface{ isEvent() }

// Effect is an output of Dispatch. The set is sealed.
type Effect interface{ isEffect() }

// Changed reports a change at At.
type Changed struct{ At time.Time }

// Fired reports that the timer armed by the last Arm went off at At.
type Fired struct{ At time.Time }

// Flushed reports that the shell wrote everything out by itself (pagehide): nothing is
// pending, and a timer still armed will find nothing to do.
type Flushed struct{}

func (Changed) isEvent() {}
func (Fired) isEvent()   {}
func (Flushed) isEvent() {}

// Arm asks the shell for one timer that reports Fired after After.
type Arm struct{ After time.Duration }

// Save tells the shell to write the changes out now.
type Save struct{}

func (Arm) isEffect()  {}
func (Save) isEffect() {}

// Debounce is the machine. The zero value is not ready: use New.
type Debounce struct {
	idle, max   time.Duration
	armed       bool      // a timer is set and will report Fired
	dirty       bool      // there is an unwritten change
	first, last time.Time // the oldest and newest unwritten change
}

// New returns a Debounce that saves after idle without changes, and at the latest max after
// the first unwritten change.
func New(idle, max time.Duration) *Debounce { return &Debounce{idle: idle, max: max} }

// Pending reports whether a change is waiting to be written.
func (d *Debounce) Pending() bool { return d.dirty }

// Dispatch applies ev and returns what the shell must do.
func (d *Debounce) Dispatch(ev Event) []Effect {
	switch ev := ev.(type) {
	case Changed:
		d.last = ev.At
		if !d.dirty {
			d.dirty, d.first = true, ev.At
		}
		if d.armed {
			return nil
		}
		d.armed = true
		return []Effect{Arm{After: d.idle}}
	case Fired:
		d.armed = false
		if !d.dirty {
			return nil
		}
		if idle := ev.At.Sub(d.last); idle < d.idle && ev.At.Sub(d.first) < d.max {
			d.armed = true
			return []Effect{Arm{After: d.idle - idle}}
		}
		d.dirty = false
		return []Effect{Save{}}
	case Flushed:
		d.dirty = false
	}
	return nil
}
