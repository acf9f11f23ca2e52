package protocol

// Seed is a session's newest window written into its page by the server (docs/seed.md), so
// the page shows the newest messages before the wasm or the socket runs. Its Events are what
// a subscribe with Tail sends: the window's prelude, then every event from Window.From to
// the log's head when the page was made, in that order. The page folds them as it folds a
// socket's replay and subscribes after Last.
type Seed struct {
	Session string `json:"session"`
	// Title is the session's title, for the page's header.
	Title  string  `json:"title,omitempty"`
	Window Window  `json:"window"`
	Events []Event `json:"events"`
}

// Last is the offset of the seed's last event: a follower subscribes after it. 0 when the
// seed holds no event (an empty session), and the follower starts as without a seed.
func (s Seed) Last() uint64 {
	var last uint64
	for _, ev := range s.Events {
		last = max(last, ev.Offset)
	}
	return last
}
