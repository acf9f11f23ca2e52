package input

import (
	"strings"
	"time"
)

// HandbackPause is the pause in the keys that ends a Handback: time for a typist to look up
// from the keyboard and see the notice (composer.DefaultFocusDelay measures the same).
const HandbackPause = time.Second

// Handback holds the bar's Enter while the person is still typing an answer whose decision
// ended under them. The words they typed into a question come back to the box when it ends
// elsewhere (answered in another tab, declined by another client), and the focus with them;
// the rest of the word and the Enter they meant for the question follow at a typist's pace,
// into the box. That Enter must not send the words to the agent as a prompt: QA round 24
// saw "London", typed as an answer, sent 1.3 s after the question ended. The hold lasts
// until the keys pause for HandbackPause, or the words are no longer in the box (the person
// wrote something else in their place); the Send button is a deliberate act and is not
// held.
type Handback struct {
	on    bool
	last  time.Time
	words string
}

// Give starts the hold: words came back at `at`.
func (h *Handback) Give(at time.Time, words string) {
	h.on, h.last, h.words = true, at, words
}

// Key records a key pressed in the bar at `at` and reports whether the hold is still on:
// the first key after a pause ends it.
func (h *Handback) Key(at time.Time) bool {
	if h.on && at.Sub(h.last) >= HandbackPause {
		h.on = false
	}
	h.last = at
	return h.on
}

// Holds reports whether an Enter that Key found held sends nothing: the box, draft, still
// holds the words handed back.
func (h *Handback) Holds(draft string) bool {
	return h.on && strings.Contains(draft, h.words)
}
