package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/protocol"
)

// The seed (docs/seed.md): the server writes a session's newest window into the session's
// page. The pre-render folds it into the thread, so the page shows the newest messages
// before the wasm runs; the wasm folds the same events before its first render, so its page
// is the pre-rendered one, and its follower subscribes after the seed's last offset, so
// nothing shows twice or goes missing. The composer still follows the decisions only once
// the socket says the replay is over (Replaying), as after a reload without a seed.

// SeedElementID is the id of the page's script element (type application/json) that holds
// the seed.
const SeedElementID = "parley-seed"

// SeedTail is how many entries the seed's window holds at least for a page whose query is
// query: what the follower would ask the socket for (tailOf); 0 for none (?history=all asks
// for the whole log, and gets no seed).
func SeedTail(query string) int { return tailOf(query) }

// OnInit folds the page's seed in the browser, before the first render: go-app replaces the
// pre-rendered body with that render, which must show the same thread.
func (c *Conversation) OnInit() {
	if !app.IsClient {
		return
	}
	u := app.Window().URL()
	seed := pageSeed()
	if seed == nil {
		// No seed from the server (it is away, and the service worker gave its cached page):
		// the thread this browser kept of the session, for show (kept.go).
		seed = keptSeed(u.Path, u.RawQuery)
		c.seedKept = seed != nil
	}
	c.applySeed(seed, u.Path)
}

// applySeed shows seed's session at path as the socket's window would: its events folded
// into the thread and the controls, its window's start noted for the older ones. A seed of
// another address is ignored.
func (c *Conversation) applySeed(seed *protocol.Seed, path string) {
	if seed == nil || seed.Session == "" || sessionOfPath(path) != seed.Session {
		return
	}
	c.session = seed.Session
	c.thread = store.Thread{Title: seed.Title}
	c.controls = store.NewControls()
	for _, ev := range seed.Events {
		c.thread.Apply(ev)
		c.controls.Apply(ev)
	}
	c.older = olderWindows{before: seed.Window.From, more: seed.Window.Older}
	c.seed = seed
}

// startThread begins the thread of session id as open does: empty, or, the first time, the
// seed's when it is of id. It answers the offset to follow after (0: from the start, with
// the window the socket sends) and the seed's events, which the page must still hear of as
// a replay's (the outbox, the decisions' notifications).
func (c *Conversation) startThread(id string) (uint64, []protocol.Event) {
	seed, kept := c.seed, c.seedKept
	c.seed, c.seedKept, c.showingKept = nil, false, false
	if seed == nil || seed.Session != id {
		c.thread = store.Thread{Title: c.titleOf(id)}
		c.older = olderWindows{}
		c.controls = store.NewControls()
		c.kept.begin(id, nil)
		return 0, nil
	}
	if title := c.titleOf(id); title != "" {
		c.thread.Title = title
	}
	if kept {
		// Shown, not followed after: the socket reads the session as without a seed, and
		// its replay replaces the kept thread (leaveKept).
		c.showingKept = true
		c.kept.begin(id, nil)
		return 0, nil
	}
	c.kept.begin(id, seed)
	return seed.Last(), seed.Events
}
