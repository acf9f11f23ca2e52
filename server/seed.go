package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"parley/components"
	"parley/protocol"
	"parley/runtime"
)

// The seed (docs/seed.md): a session's page, asked for by someone who holds the token, is
// pre-rendered with the session's newest window, and carries the window's events as JSON,
// so the newest reply shows before the wasm runs and the wasm folds what the page shows
// instead of asking the socket for it again. Such a page is one person's: no-store.

// SeedElementID is the id of the page's script element that holds the seed.
const SeedElementID = components.SeedElementID

// seedTimeout bounds the seed's read: a store that is slow to answer costs the page its
// seed (the socket sends the window, as without one), never its first paint.
const seedTimeout = time.Second

// maxSeedBytes bounds the seed's JSON: a window that large (a tool's huge output) is left to
// the socket, which sends it in frames the page folds as they come.
const maxSeedBytes = 2 << 20

// seedKey is the request context's key for the seed of the page being made.
type seedKey struct{}

// seed is the seed of a page request, or nil for a page that gets none: not a session's
// address, no runtime here (an edge), no token, ?history=all (the whole log is asked for),
// a session that is not there or a log that did not answer in time.
func (s *Server) seed(r *http.Request) *protocol.Seed {
	if s.rt == nil || r.Method != http.MethodGet || s.credential(r) == noToken {
		return nil
	}
	id, ok := strings.CutPrefix(r.URL.Path, "/s/")
	tail := components.SeedTail(r.URL.RawQuery)
	if !ok || !protocol.ValidSessionID(id) || tail == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), seedTimeout)
	defer cancel()
	seed, err := readSeed(ctx, s.rt, id, tail)
	if err != nil {
		if !errors.Is(err, runtime.ErrNoSession) {
			slog.Warn("seed: the page goes without its session's newest window", "session", id, "err", err)
		}
		return nil
	}
	return seed
}

// readSeed reads a session's newest window of at least tail entries as a tail subscribe
// sends it (socket.go): Window's prelude, then the events from the window's start to the
// head.
func readSeed(ctx context.Context, rt Runtime, session string, tail int) (*protocol.Seed, error) {
	info, err := rt.Session(ctx, session)
	if err != nil {
		return nil, err
	}
	win, prelude, err := rt.Window(ctx, session, 0, tail)
	if err != nil {
		return nil, err
	}
	head, err := rt.Head(ctx, session)
	if err != nil {
		return nil, err
	}
	seed := &protocol.Seed{Session: session, Title: info.Title, Window: win, Events: append([]protocol.Event{}, prelude...)}
	from := uint64(0)
	if win.From > 0 {
		from = win.From - 1
	}
	if head <= from {
		return seed, nil
	}
	// As the socket replays them: from what the runtime keeps of the session (Window just
	// read it), else one read of the log.
	err = rt.Replay(ctx, session, from, head, func(evs []protocol.Event) error {
		seed.Events = append(seed.Events, evs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return seed, nil
}

// withSeed hands a page request's seed to its pre-render (page, prerender_locale.go). The
// page is made anew: go-app would answer a browser's If-None-Match with "not modified" (its
// ETag is the build's), and the browser would show the page it kept, without the seed.
func withSeed(r *http.Request, seed *protocol.Seed) *http.Request {
	r = r.Clone(context.WithValue(r.Context(), seedKey{}, seed))
	r.Header.Del("If-None-Match")
	return r
}

func seedOf(r *http.Request) *protocol.Seed {
	s, _ := r.Context().Value(seedKey{}).(*protocol.Seed)
	return s
}

// seedScript is the seed as the page carries it: JSON in a script element that never runs
// (type application/json). json.Marshal writes <, > and & as \u escapes, inside the events'
// data too, so no text of a message can close the element or open another.
func seedScript(seed *protocol.Seed) ([]byte, error) {
	data, err := json.Marshal(seed)
	if err != nil {
		return nil, err
	}
	if len(data) > maxSeedBytes {
		return nil, errors.New("the window is too large to write into the page")
	}
	var b bytes.Buffer
	b.Grow(len(data) + 80)
	b.WriteString(`<script type="application/json" id="` + SeedElementID + `">`)
	json.HTMLEscape(&b, data) // a no-op after Marshal; kept so no edit above can undo it
	b.WriteString(`</script>`)
	return b.Bytes(), nil
}

// insertSeed puts the seed's script at the end of the page's head.
func insertSeed(page, script []byte) []byte {
	i := bytes.Index(page, []byte("</head>"))
	if i < 0 {
		return page
	}
	out := make([]byte, 0, len(page)+len(script))
	out = append(out, page[:i]...)
	out = append(out, script...)
	return append(out, page[i:]...)
}
