package composer

import "strconv"

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

// String returns the mode's name as composer-modes.md spells it.
func (m Mode) String() string { return name(modeNames[:], int(m), "Mode") }

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
func (o Outcome) String() string { return name(outcomeNames[:], int(o), "Outcome") }

func name(names []string, i int, typ string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return typ + "(" + strconv.Itoa(i) + ")"
}
