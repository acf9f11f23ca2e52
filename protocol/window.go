package protocol

// Windows let a page open a long session without its whole log (docs/protocol.md, "Windows").
// A subscribe with After 0 and Tail N asks for the newest window holding at least N entries
// of the thread: "subscribed" carries the Window, the prelude events (older than From, the
// few the page's state needs) come first, then every event from From on, then live ones.
// Older windows are read over HTTP: GET /api/sessions/{id}/window?before=<from>&size=N.

// MaxTail bounds a subscribe's Tail and a window page's size.
const MaxTail = 1000

// Window says where a window of a session's log starts.
type Window struct {
	// From is the offset the window starts at; every event of the session from it on
	// belongs to the window. 0: the window is the whole log.
	From uint64 `json:"from,omitempty"`
	// Older says there are events before From: a page of them can be asked for.
	Older bool `json:"older,omitempty"`
}

// WindowPage is an older window of a session's log, answered by
// GET /api/sessions/{id}/window?before=B&size=N: the window that ends where the one starting
// at B begins. Fold Prelude, then Events, into an empty thread: its entries are the ones
// between From and B, each once. Events is empty when nothing is older than B.
type WindowPage struct {
	Window  Window  `json:"window"`
	Before  uint64  `json:"before"`
	Prelude []Event `json:"prelude"`
	Events  []Event `json:"events"`
}
