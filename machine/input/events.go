package input

import "time"

// Event is an input to Dispatch. The set is closed: only this package's types implement
// it.
type Event interface{ event() }

// Range is a range of units [Start, End), or a selection (Start == End is a caret).
type Range struct{ Start, End int }

// AttemptID names a submit attempt. Session keeps two machines' attempts apart, so a
// result routed to the wrong session's machine is stale there too.
type AttemptID struct {
	Session string
	Seq     uint64
}

// PasteID names a paste match attempt.
type PasteID uint64

// Edit is draft-changed in its delta form: the textarea replaced [Start, End) of the
// draft the machine holds with Text. The shell derives it from beforeinput and the
// selection; it costs O(edit).
type Edit struct {
	Start, End int
	Text       string
	At         time.Time // the injected clock; merges typing into one undo step
}

// DraftChanged is draft-changed in its full form: Draft is the textarea's whole value.
// With Hint, the machine reads only the edited slice of Draft (O(edit)). The hint must
// describe the real edit: it is checked only against lengths and the characters on
// either side, and one that fails the check falls back to the scan. Without it, the
// machine finds the edit by a shared prefix/suffix scan. The scan cannot tell apart
// identical neighbours: deleting one of two adjacent chips removes the later one.
type DraftChanged struct {
	Draft string
	Hint  *EditRange
	At    time.Time
}

// EditRange is the hint of DraftChanged: [Start, OldEnd) of the old draft became
// [Start, NewEnd) of the new one.
type EditRange struct{ Start, OldEnd, NewEnd int }

// Newline inserts a line break over Selection (Ctrl+Enter). The machine writes it, not
// the browser's execCommand, so that there is one undo history.
type Newline struct {
	Selection Range
	At        time.Time
}

// TypeIn types Text over Selection as the textarea would have, for keys that are the draft's
// but were pressed elsewhere: a letter typed on a decision that covers the bar goes where the
// person left the caret, not at the end, and the caret ends after it so the next letters
// follow (QA round 13 #1). A Selection remembered before the draft changed is cut to it.
// Erase is a Backspace (-1) or a Delete (+1) pressed there instead: it deletes the
// selection, or with none the character (a chip whole) before or after the caret, as the
// textarea would (QA round 14 #5: the letters went to the draft, Backspace went nowhere).
type TypeIn struct {
	Text      string
	Erase     int
	Selection Range
	At        time.Time
}

// BeginCommand replaces Span with Claim.Token and sets the claim (a menu pick, or Space
// adjudicated by a source). Span must start at 0: a claim is watched as a prefix.
type BeginCommand struct {
	Claim Claim
	Span  Span
}

// InsertRef replaces Span with a chip for Reference.
type InsertRef struct {
	Reference Reference
	Span      Span
}

// InsertText replaces Span with Text: skill and @name references picked as plain text,
// which is their own model projection (docs/input.md).
type InsertText struct {
	Text string
	Span Span
}

// ConsumeToken removes the command token after the command's business succeeded. With a
// Token, the guard is that the draft starts with it; otherwise Span is a CAS guard and is
// removed.
type ConsumeToken struct {
	Span  Span
	Token string
}

// SetInvalid sets the invalid style bit on exactly these chips (owner resolution). It is
// not a transaction: no draftRev bump, no undo step.
type SetInvalid struct{ IDs []OccurrenceID }

// Undo reverts the last transaction of the log.
type Undo struct{}

// Redo reapplies the last undone transaction.
type Redo struct{}

// PasteBegin pastes Text over Selection. Components are the hot snapshot's synchronous
// matches, as ranges of Text (in units), each becoming a chip in the same transaction.
// It opens a paste match attempt (see MatchPaste).
type PasteBegin struct {
	Text       string
	Selection  Range
	Components []Component
	Generation uint64 // the matcher's snapshot generation, echoed in MatchPaste
	At         time.Time
}

// Component is a range of pasted text recognized as a reference.
type Component struct {
	Range     Range
	Reference Reference
}

// PasteUpgrades is the matcher's answer for a paste: Upgrades turn ranges of the pasted
// text (units of PasteBegin.Text, not of the draft) into chips, all in one transaction
// (one undo step, one SetView). The machine maps them through the chips made before. A
// range it cannot take (outside the pasted text, over a chip, splitting a character)
// stays text, and the others are applied. It arrives asynchronously, so the selection
// stays where it was (mapped through the shrink), and the attempt stays open for more.
type PasteUpgrades struct {
	Paste    PasteID
	Upgrades []Component
}

// InvalidatePaste ends the paste match attempt (a caret move, a selection change).
type InvalidatePaste struct{}

// Submit submits the draft (Enter, or the send button). It is not named after the key:
// composer.Enter means a mode was shown, and the key is the shell's binding.
type Submit struct{ Mode Mode }

// Adjudicated answers Adjudicate. A zero Claim means no source claimed the draft: it goes
// to the default sink.
type Adjudicated struct {
	Attempt AttemptID
	Claim   Claim
}

// AdjudicationFailed answers Adjudicate with a failure (a source's warmup rejected).
type AdjudicationFailed struct {
	Attempt AttemptID
	Err     error
}

// Serialized answers Serialize for one chip. A non-nil Err (ErrNoOwner,
// context.Canceled, anything) means nothing is sent.
type Serialized struct {
	Attempt AttemptID
	ID      OccurrenceID
	Text    string
	Err     error
}

// SubmitSettled answers DefaultSink or BeginSubmit. A nil Err commits.
type SubmitSettled struct {
	Attempt AttemptID
	Err     error
}

// Release gives up the claim, or, with an attempt in flight, aborts it (Escape, or the
// session scope going away).
type Release struct{}

func (Edit) event()               {}
func (DraftChanged) event()       {}
func (Newline) event()            {}
func (TypeIn) event()             {}
func (BeginCommand) event()       {}
func (InsertRef) event()          {}
func (InsertText) event()         {}
func (ConsumeToken) event()       {}
func (SetInvalid) event()         {}
func (Undo) event()               {}
func (Redo) event()               {}
func (PasteBegin) event()         {}
func (PasteUpgrades) event()      {}
func (InvalidatePaste) event()    {}
func (Submit) event()             {}
func (Adjudicated) event()        {}
func (AdjudicationFailed) event() {}
func (Serialized) event()         {}
func (SubmitSettled) event()      {}
func (Release) event()            {}
