package input

import "errors"

// Effect is an output of Dispatch for the shell to run. Every effect is a plain
// comparable struct: no slices, maps, pointers or funcs.
type Effect interface{ effect() }

// SetView says the machine rewrote the draft: replace [Start, End) of the textarea's
// current value with Text, then select [SelStart, SelEnd). In the browser that is
// setRangeText(Text, Start, End) and setSelectionRange(SelStart, SelEnd). The textarea's
// current value is the machine's previous draft, except after an Edit or DraftChanged,
// when it already holds the user's edit (SetView then only normalizes it).
type SetView struct {
	Start, End       int
	Text             string
	SelStart, SelEnd int
}

// Refused says an event was refused and changed nothing.
type Refused struct{ Reason Reason }

// ChipRemoved reports a chip that left the draft (an edit crossing it, or undo).
type ChipRemoved struct {
	ID        OccurrenceID
	Reference Reference
}

// Adjudicate asks the slash controller whether a source claims Draft (matchEnter).
// Answer with Adjudicated or AdjudicationFailed.
type Adjudicate struct {
	Attempt AttemptID
	Draft   string // with U+FFFC for chips
	Mode    Mode
}

// Serialize asks the serializer of Source for the model projection of one chip. Answer
// with Serialized. Abort cancels the ones still running.
type Serialize struct {
	Attempt AttemptID
	ID      OccurrenceID
	Source  string
	Ref     string
}

// DefaultSink sends an ordinary message (the hub's session.prompt).
type DefaultSink struct {
	Attempt AttemptID
	Text    string // the model projection
	Mode    Mode
}

// BeginSubmit runs the claim's submit transaction.
type BeginSubmit struct {
	Attempt AttemptID
	Claim   Claim
	Text    string // the model projection, token included
	Mode    Mode
}

// Abort fires the attempt's abort handle: cancel its serializers and its send.
type Abort struct{ Attempt AttemptID }

// Notice tells the user something went wrong with a submit. When Restored is false the
// live draft had drifted since Enter, so Draft carries the unsent text (clipboard
// projection) instead of overwriting the user's typing.
type Notice struct {
	Kind     NoticeKind
	Attempt  AttemptID
	Detail   string
	Restored bool
	Draft    string
}

// MatchPaste asks the asynchronous matcher to look for references in Text. Answer with
// PasteUpgrades for Paste.
type MatchPaste struct {
	Paste      PasteID
	Text       string
	Generation uint64
}

func (SetView) effect()     {}
func (Refused) effect()     {}
func (ChipRemoved) effect() {}
func (Adjudicate) effect()  {}
func (Serialize) effect()   {}
func (DefaultSink) effect() {}
func (BeginSubmit) effect() {}
func (Abort) effect()       {}
func (Notice) effect()      {}
func (MatchPaste) effect()  {}

// Rewrote reports whether effects show that the machine rewrote the draft. For the bail
// events (BeginCommand, InsertRef, InsertText, ConsumeToken) it is exactly "the phase and
// CAS guards passed and the draft changed": the answer the shell gives the slash
// controller (slash.Rewritten), and so whether Space gets preventDefault.
func Rewrote(effects []Effect) bool {
	for _, e := range effects {
		if _, ok := e.(SetView); ok {
			return true
		}
	}
	return false
}

// ErrNoOwner is what a shell reports in Serialized when no serializer owns a source.
var ErrNoOwner = errors.New("no serializer owns this reference")
