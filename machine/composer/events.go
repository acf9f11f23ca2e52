package composer

import (
	"time"

	"parley/protocol"
)

// Decision is a pending decision as the composer queues it.
type Decision struct {
	ID      string
	Request protocol.DecisionRequest
	// Local says the decision was asked by code in the browser (RequestUserInput) and is
	// answered there, not over HTTP. The server's pending list never holds it, so Reset
	// keeps it.
	Local bool
}

// Mode is the mode that presents the decision: Approval for an approval, Question for
// everything else (ask, confirm).
func (d Decision) Mode() Mode {
	if d.Request.Kind == protocol.KindApproval {
		return Approval
	}
	return Question
}

// Event is an input to Dispatch. The set is closed: only this package's types implement it.
type Event interface{ event() }

// Asked enqueues a decision (question.asked, or a local request). A decision whose ID is
// already queued, or has already ended, is ignored: replays and races deliver both.
type Asked struct {
	Decision Decision
	At       time.Time
}

// Ended removes a decision wherever it is in the queue: answered here, in another tab or
// on its thread card, withdrawn, stopped or timed out.
type Ended struct {
	ID      string
	Outcome Outcome
	At      time.Time
}

// Reset replaces the queue with the authoritative pending list, oldest first, after a
// reload, a reconnect or a session switch. Decisions still pending keep their place and,
// when it is the head, whether it is set aside; local decisions stay, since the server
// does not list them.
//
// Aside names the decisions the person set aside and has not returned to, as the view kept
// them across a reload (AsideID): when one of them is the head, it stays set aside, so a
// reload never brings it back to take the focus.
type Reset struct {
	Decisions []Decision
	Aside     []string
	// Entered is the decision the person was inside before a reload (EnteredID): shown
	// again as the head, it takes the focus at its first field at once, as one brought back
	// with Answer does. The focus delay is for a decision that lands while the person writes
	// their draft; this one they were answering, and their first keys after the reload are
	// its, not the draft's.
	Entered string
	// FnForm says the person's fn-form was open before a reload (Mode was FnForm): it opens
	// again and takes the focus, on the function it showed (the view keeps which, and its
	// fields), unless a decision is due and takes its place as it would have then.
	FnForm bool
	At     time.Time
}

// Sync follows the server's pending list as it changes: the decisions it no longer holds
// ended (TimedOut lists the ones that ended by timeout: their outcome is TimedOut, every
// other one's Answered), and the ones it holds anew were asked, in its order. Local
// decisions are not the server's, and stay. It is the sum of those Ended and Asked events.
type Sync struct {
	Decisions []Decision
	TimedOut  []string
	At        time.Time
}

// OpenFnForm opens a function's parameter form. It is refused while a decision is shown:
// the system's question outranks the user's form.
type OpenFnForm struct{ Function string }

// CloseFnForm closes the fn-form (its close button, or after its run started).
type CloseFnForm struct{}

// ChatAbout sets the shown decision aside ("Chat about this"): the composer goes idle and
// the decision stays pending and answerable (its thread card, or Resume).
type ChatAbout struct{}

// Resume shows the set-aside decision again.
type Resume struct{ At time.Time }

// ClearNote removes the one-line note (the user dismissed it, or started typing).
type ClearNote struct{}

// Key is a key pressed inside a morphed mode, as the view read it from the DOM. Its effects
// say what the key means here (Swallow, ToDraft, Advance, RunPrimary, RunSecondary, Approve,
// Reject, or ChatAbout's for Escape on a decision), and nil leaves the key to the browser.
type Key struct {
	// Key is the KeyboardEvent's key: "Enter", "Escape", "a".
	Key string
	// On is what had the focus.
	On Target
	// Shift, Ctrl, Meta and Alt are the modifiers held.
	Shift, Ctrl, Meta, Alt bool
	// Composing says an input method is composing: its keys never answer anything.
	Composing bool
	At        time.Time
}

// Press is a click in the morphed area of a decision, as the view read it from the DOM before
// any of the mode's own handlers saw it: a mouse's click, a tap, a pen's, or the click a key
// (Enter or Space on a button) or a script made. Swallow says it was not meant for the
// decision shown now, and the view stops it there; nil lets it through.
type Press struct {
	// Detail is the click's MouseEvent.detail: 1 for a single click, 2 for the second
	// click of a double-click (3 for a triple's third), and so for a finger's and a pen's; 0
	// for a key's or a script's click. That is all the machine needs of the pointer: its
	// PointerEvent.pointerType tells the same apart (a pointer's click, or none), and reading
	// it cost the bundle 2 KB.
	Detail int
	At     time.Time
}

// Tick is the clock reaching the time a Wake asked for.
type Tick struct{ At time.Time }

// Covering says the decision just shown landed over a draft the person has not sent: they
// were writing, so the decision never takes the focus on its own, as after a letter typed on
// it. A person who paused mid-sentence as a confirm landed typed on after the guard, and the
// Space after their pause pressed Yes.
type Covering struct{}

// Composing says an input method's composition started (On) or ended in a field of the
// user's fn-form. While one is open the person is typing, however long they dwell on a
// candidate: a decision that is due waits (Held) until it has ended and they paused. A
// decision that took the form's place mid-composition lost what was being composed (QA
// round 13 #6).
type Composing struct {
	On bool
	At time.Time
}

func (Press) event()       {}
func (Composing) event()   {}
func (Tick) event()        {}
func (Covering) event()    {}
func (Asked) event()       {}
func (Ended) event()       {}
func (Reset) event()       {}
func (Sync) event()        {}
func (OpenFnForm) event()  {}
func (CloseFnForm) event() {}
func (ChatAbout) event()   {}
func (Resume) event()      {}
func (ClearNote) event()   {}
func (Key) event()         {}
