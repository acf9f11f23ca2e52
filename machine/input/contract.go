package input

// This file is the contract that the slash pipeline and the browser shell build on.
// Names here are stable; the machine may add fields and events, but not rename these.
//
// Positions are UTF-16 code units, the unit of a textarea's selectionStart, so the shell
// never converts offsets on a keystroke.

// Span is a range of the draft, observed at draft revision Rev. A bail event carrying a
// span rewrites only while the machine's draftRev still equals Rev (compare-and-swap).
type Span struct {
	Start, End int    // UTF-16 code units, End exclusive
	Rev        uint64 // the draftRev at which the span was observed
}

// Claim puts the input in command mode. It is set only by a pick path (BeginCommand) and
// released when the draft stops starting with Token.
type Claim struct {
	Token string // e.g. "/example "
	Hint  string // argument hint shown as ghost text after the token, e.g. "<slug> [json-vars]"
}

// Reference is what a chip stands for. The draft holds one U+FFFC per reference.
type Reference struct {
	Source        string // the owning source, e.g. "@file"; its serializer runs at submit
	Ref           string // the source's own identifier, e.g. a path or a session id
	Label         string // the visual projection, drawn by the backdrop
	ClipboardText string // the clipboard and persistence projection
}

// Placeholder is the single character that stands for a chip in the draft.
const Placeholder = '\uFFFC'
