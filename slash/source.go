package slash

import (
	"context"

	"parley/machine/enum"
	"parley/machine/input"
)

// Projection is what a source sees of the session it serves. Within a session scope it holds
// only the stable session id: no published or capability transitions.
type Projection struct {
	SessionID string
}

// SourceKey names a source: (trigger, name) is unique in a registry (app/slashhost).
type SourceKey struct {
	Trigger rune
	Name    string
}

// String returns the key as the user would type it, e.g. "/commands" or "@files".
func (k SourceKey) String() string { return string(k.Trigger) + k.Name }

// Item is one menu candidate. It is plain data; the source maps ID back to its own object
// when picked.
type Item struct {
	ID     string // unique within its source; Option.ID makes it unique within the menu
	Label  string
	Detail string
}

// Query is what a source is asked about: the session and the hit at the caret.
type Query struct {
	Session Projection
	Hit
}

// Source feeds one group of the `/` or `@` menu. Its optional hooks (SpaceMatcher,
// EnterMatcher, Lexicon, LexiconSubscriber, Warmer) declare participation: implementing
// a match hook is the declaration that the source takes part in adjudication.
//
// A source is shared by every session, and the shell calls Candidates, MatchEnter and Warm
// off the event loop while it answers the controller's AskPick, AskSpace and ReadLexicons
// on it. So a source guards its own state; Trigger and Name must be constant.
type Source interface {
	Trigger() rune // '/' or '@'
	Name() string
	// Candidates returns the menu items for q. It may do I/O; the shell runs it off the
	// event loop and reports back with CandidatesArrived.
	Candidates(ctx context.Context, q Query) ([]Item, error)
	// Pick says what choosing item means (AskPick). It runs inside a key event, so it must
	// be synchronous and free of I/O; a source that needs more opens its own surface and
	// returns the None outcome.
	Pick(item Item, q Query) PickOutcome
}

// SpaceMatcher takes part in Space adjudication. MatchSpace runs inside the keydown, so it
// answers from a hot cache only; ok=false is "undefined" and lets the next source answer.
type SpaceMatcher interface {
	MatchSpace(q Query) (out PickOutcome, ok bool)
}

// EnterMatcher takes part in Enter adjudication. ok=false with a nil error is "undefined";
// an error rejects the whole adjudication (the draft is not sent as a plain message), and
// so does a claim with an empty Token (ErrEmptyClaim). The
// controller holds the call until the source's warm-up is done, and a failed warm-up is a
// rejection without a call.
type EnterMatcher interface {
	MatchEnter(ctx context.Context, p Projection, draft string) (claim input.Claim, ok bool, err error)
}

// Lexicon gives the names to decorate, from a hot snapshot only. ok=false means "not warm":
// no decoration, and never a fetch, because it runs on the render path.
type Lexicon interface {
	Lexicon(p Projection) (names []string, ok bool)
}

// LexiconSubscriber tells the controller when the roster changed after warm-up (a catalogue
// settled, a child agent spawned). changed may be called from any goroutine; cancel ends
// the subscription when the session scope dies.
type LexiconSubscriber interface {
	SubscribeLexicon(p Projection, changed func()) (cancel func())
}

// Warmer prepares a source for a session. It runs once per session scope, at its birth or
// when the source is registered later.
type Warmer interface {
	Warm(ctx context.Context, p Projection) error
}

// OutcomeKind is the arm of a PickOutcome.
type OutcomeKind int

const (
	// KindNone: no rewrite; the source acted on its own (or declined).
	KindNone OutcomeKind = iota
	// KindBeginCommand: put the input in command mode with Claim.
	KindBeginCommand
	// KindInsertReference: replace the token with a chip for Reference.
	KindInsertReference
	// KindInsertText: replace the token with Text (plain-text references: the literal
	// "/name " is the model projection, and decoration is derived from the draft).
	KindInsertText
	// KindConsumeToken: remove the token.
	KindConsumeToken
)

var outcomeNames = [...]string{
	KindNone:            "none",
	KindBeginCommand:    "begin-command",
	KindInsertReference: "insert-reference",
	KindInsertText:      "insert-text",
	KindConsumeToken:    "consume-token",
}

// String returns the arm's name.
func (k OutcomeKind) String() string { return enum.Name(outcomeNames[:], k) }

// PickOutcome is what a pick or a Space claim asks of the input. Only the field of its Kind
// is meaningful.
type PickOutcome struct {
	Kind      OutcomeKind
	Claim     input.Claim
	Reference input.Reference
	Text      string
	// Complete says the pick leaves nothing to type: the typed token is already the whole
	// name of a command that needs no argument (`/help`). An Enter that picks it sends the
	// draft too, in one press (Picked.Send); Tab and a click only complete.
	Complete bool
}

// BeginCommand is the outcome that puts the input in command mode.
func BeginCommand(c input.Claim) PickOutcome { return PickOutcome{Kind: KindBeginCommand, Claim: c} }

// InsertReference is the outcome that inserts a reference chip.
func InsertReference(r input.Reference) PickOutcome {
	return PickOutcome{Kind: KindInsertReference, Reference: r}
}

// InsertText is the outcome that replaces the token with literal text, e.g. "/review ".
func InsertText(text string) PickOutcome { return PickOutcome{Kind: KindInsertText, Text: text} }

// ConsumeToken is the outcome that removes the token.
func ConsumeToken() PickOutcome { return PickOutcome{Kind: KindConsumeToken} }

// SourceInfo is what a Controller knows of a source: its key and which optional hooks it
// implements. It is data, so the controller never holds the source itself.
type SourceInfo struct {
	Key        SourceKey
	Space      bool // SpaceMatcher
	Enter      bool // EnterMatcher
	Lexicon    bool // Lexicon
	Subscribes bool // LexiconSubscriber
	Warms      bool // Warmer
}

// Describe returns src's SourceInfo.
func Describe(src Source) SourceInfo {
	info := SourceInfo{Key: SourceKey{Trigger: src.Trigger(), Name: src.Name()}}
	_, info.Space = src.(SpaceMatcher)
	_, info.Enter = src.(EnterMatcher)
	_, info.Lexicon = src.(Lexicon)
	_, info.Subscribes = src.(LexiconSubscriber)
	_, info.Warms = src.(Warmer)
	return info
}
