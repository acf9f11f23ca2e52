package protocol

// Event pages: the log of a session over HTTP, for scripts and tests that do not hold a
// socket open.

// Bounds of an event page.
const (
	// DefaultEventPage is the page size when a client names none.
	DefaultEventPage = 100
	// MaxEventPage bounds one page, so one request never holds a whole long session.
	MaxEventPage = 1000
)

// EventPage answers GET /api/sessions/{id}/events?after=N&limit=M: the events after N,
// oldest first, at most M of them.
type EventPage struct {
	Events []Event `json:"events"`
	// Next is the offset to ask after for the following page: the last event's offset, or
	// the request's own after when the page is empty.
	Next uint64 `json:"next"`
	// Head is the session's last offset when the page was read: Next < Head means more
	// events follow.
	Head uint64 `json:"head"`
}
