package protocol

import (
	"strings"
	"unicode/utf8"
)

// UpdateSessionRequest is the body of PATCH /api/sessions/{id}: a new title, or archived to
// take the session out of the list (its log is kept, and its address still opens it). Either
// field may be left out; at least one is needed.
type UpdateSessionRequest struct {
	Title    *string `json:"title,omitempty"`
	Archived *bool   `json:"archived,omitempty"`
}

// Validate checks the request.
func (r UpdateSessionRequest) Validate() error {
	f := fieldErrors{}
	if r.Title == nil && r.Archived == nil {
		f.add("title", "missing: give a title, or archived, or both")
	}
	if r.Title != nil {
		t := *r.Title
		switch {
		case strings.TrimSpace(t) == "":
			f.add("title", "empty: a session needs a title to be found by")
		case len(t) > 200:
			f.add("title", "longer than 200 bytes")
		case !utf8.ValidString(t):
			f.add("title", "not valid UTF-8")
		case strings.ContainsAny(t, "\x00\n\r"):
			f.add("title", "holds a NUL byte or a line break: a title is one line")
		}
	}
	return f.err()
}
