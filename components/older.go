package components

import (
	"errors"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/store"
	"parley/i18n"
	"parley/protocol"
)

// Opening a long session costs its newest window, not its history (docs/protocol.md,
// "Windows"): the follower asks for the newest openTail entries, and older windows are
// paged in, windowTail entries at a time, when the person scrolls up to the top of the
// thread or asks for earlier messages.

// openTail is how many entries the newest window holds at least: more than a tall screen
// shows, so the page opens full, and few enough that the first render is quick.
const openTail = 40

// windowTail is how many entries an older window holds at least: a step of what the thread
// mounts (windowStep).
const windowTail = windowStep

// tailOf is the follower's tail for a page's query: openTail, or the whole log (0) for
// ?history=all, as before windows (the benches that measure a page holding 1,000 messages).
func tailOf(query string) int {
	if strings.Contains(query, "history=all") {
		return 0
	}
	return openTail
}

// actionLoadEarlier asks the conversation for the window before the oldest one it holds.
const actionLoadEarlier = "parley.load-earlier"

// olderWindows is where the conversation's history ends: the start of the oldest window it
// holds and whether an older one exists.
type olderWindows struct {
	before  uint64 // the from of the oldest window held
	more    bool
	loading bool
}

// onWindow notes where the newest window starts.
func (c *Conversation) onWindow(w protocol.Window) {
	c.older = olderWindows{before: w.From, more: w.Older}
}

// onLoadEarlier reads the window before the oldest one held and puts its entries before the
// thread's. One read at a time; a failure is said, and the "Show earlier messages" button asks again.
func (c *Conversation) onLoadEarlier(ctx app.Context, a app.Action) {
	if !c.older.more || c.older.loading || c.session == "" {
		return
	}
	c.older.loading = true
	client, session, before := clientOf(ctx), c.session, c.older.before
	ctx.Async(func() {
		page, err := client.Window(ctx, session, before, windowTail)
		ctx.Dispatch(func(ctx app.Context) {
			if c.session != session || c.older.before != before {
				return // another session, or another window, since
			}
			c.older.loading = false
			if err != nil {
				c.setNotice(tr(i18n.CouldNotLoadEarlier, describeError(err)), errors.Is(err, api.ErrUnreachable))
				return
			}
			older := store.Thread{}
			for _, ev := range page.Prelude {
				older.Apply(ev)
			}
			for _, ev := range page.Events {
				older.Apply(ev)
			}
			c.thread.Prepend(older.Messages)
			c.older = olderWindows{before: page.Window.From, more: page.Window.Older && len(page.Events) > 0}
		})
	})
}
