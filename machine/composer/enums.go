package composer

import "parley/machine/enum"

// Mode is the shape of the input area.
type Mode int

const (
	// Idle is normal typing.
	Idle Mode = iota
	// FnForm is a function's parameter form, opened by the user.
	FnForm
	// Question answers an ask or a confirm.
	Question
	// Approval approves or rejects a tool execution (or any option-picking decision).
	Approval
)

var modeNames = [...]string{"idle", "fn-form", "question", "approval"}

// String returns the mode's name as docs/composer.md spells it.
func (m Mode) String() string { return enum.Name(modeNames[:], m) }

// Decision reports whether the mode presents a decision (a question or an approval): one
// that "Chat about this" can set aside, and whose actions end its body rather than sit in
// its header as the fn-form's do.
func (m Mode) Decision() bool { return m == Question || m == Approval }

// Target is what had the focus when a key was pressed in a morphed mode: what the key may
// mean depends on it.
type Target int

const (
	// OnOther is a select with its list closed, or anything else that takes no text: Enter
	// presses or opens it.
	OnOther Target = iota
	// OnMode is the morphed area itself: the person has not moved into the decision yet.
	OnMode
	// OnLine is a one-line text field: Enter advances, Escape stays with the field.
	OnLine
	// OnChoice is an input that takes no text (a radio, a checkbox): Enter advances as in
	// a line, Escape dismisses.
	OnChoice
	// OnText is a textarea or a select: Enter breaks the line or picks, Escape stays.
	OnText
	// OnButton is a button (a confirm's Yes, an approval's Reject): Enter presses it.
	OnButton
)

var targetNames = [...]string{"other", "mode", "line", "choice", "text", "button"}

// String returns the target's name.
func (t Target) String() string { return enum.Name(targetNames[:], t) }

// Outcome is how a decision left the queue.
type Outcome int

const (
	// Answered: the user answered or declined it, here, in another tab or on its card.
	Answered Outcome = iota
	// Declined: refused without an answer other than no (a decline that came from the
	// server rather than from this composer).
	Declined
	// TimedOut: nobody answered in time; the server ended it as declined.
	TimedOut
	// Aborted: the turn stopped, the question was withdrawn, or its asker is gone.
	Aborted
)

var outcomeNames = [...]string{"answered", "declined", "timed-out", "aborted"}

// String returns the outcome's name.
func (o Outcome) String() string { return enum.Name(outcomeNames[:], o) }
