package components

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
)

// The log's keyboard (docs/look.md, "Messages"): the messages are one tab stop, not one per
// message and Copy button. The stop roves: it is the message last focused, else the last one;
// Tab reaches it and then its Copy, and ↑ ↓ (Home, End) move between messages.

// isItem says the message at i (of msgs) is drawn as a message that can hold the stop.
func isItem(msgs []store.Message, i int) bool {
	switch msgs[i].Role {
	case store.RoleRun, store.RoleDecision, store.RoleTool:
		return false
	case store.RoleAgent:
		return !shownInRun(msgs, i)
	}
	return true
}

// stopIn is the offset of the message holding the stop among shown (t.Messages from start).
func (t *Thread) stopIn(shown []store.Message, start int) uint64 {
	last, found := uint64(0), false
	for i := range shown {
		if !isItem(t.Messages, start+i) {
			continue
		}
		if shown[i].Offset == t.stop {
			found = true
		}
		last = shown[i].Offset
	}
	if found {
		return t.stop
	}
	return last
}

// onFocusIn moves the stop to the message the focus went into (a click, a Tab, the arrows).
func (t *Thread) onFocusIn(ctx app.Context, e app.Event) {
	// No PreventUpdate here or in onKey: go-app counts updates, and a -1 from a handler would
	// cancel a +1 the same frame owes the conversation (a message arriving). The thread's own
	// render is cheap: its messages compare their fields.
	msg := e.Get("target").Call("closest", ".thread-inner .msg[data-offset]")
	if !msg.Truthy() {
		return
	}
	if off, err := strconv.ParseUint(msg.Get("dataset").Get("offset").String(), 10, 64); err == nil {
		t.stop = off
	}
}

// onKey moves between messages with the arrows, from a message or its Copy button.
func (t *Thread) onKey(ctx app.Context, e app.Event) {
	k := e.Get("key").String() // the focus moves; onFocusIn moves the stop
	if k != "ArrowUp" && k != "ArrowDown" && k != "Home" && k != "End" {
		return
	}
	target := e.Get("target")
	cl := target.Get("classList")
	if !cl.Call("contains", "msg").Bool() && !cl.Call("contains", "msg-copy").Bool() {
		return // a link, a toggle, a card's field: their own keys
	}
	here := target.Call("closest", ".msg[data-offset]")
	items := app.Window().Get("document").Call("querySelectorAll", ".thread-inner .msg[data-offset]")
	n := items.Length()
	at := -1
	for i := range n {
		if items.Index(i).Equal(here) {
			at = i
		}
	}
	if at < 0 || n == 0 {
		return
	}
	next := at
	switch k {
	case "ArrowUp":
		next = max(at-1, 0)
	case "ArrowDown":
		next = min(at+1, n-1)
	case "Home":
		next = 0
	case "End":
		next = n - 1
	}
	e.PreventDefault() // the thread would scroll instead
	if next != at || !target.Equal(here) {
		items.Index(next).Call("focus")
	}
}

// later runs f after the thread's next render.
func (t *Thread) later(f func()) {
	if app.IsClient && t.mounted {
		t.ctx.Defer(func(app.Context) { f() })
	}
}

// OnUpdate focuses the message that an older window brought, once it is drawn.
func (t *Thread) OnUpdate(ctx app.Context) {
	if t.reveal {
		ctx.Defer(func(app.Context) { t.focusRevealed() })
	}
}

// focusRevealed gives the focus to the first message "Show earlier messages" revealed. While
// the older window is read (none is drawn yet) the button keeps it; when nothing was
// revealed and the button is gone, the thread takes it, never the page's body.
func (t *Thread) focusRevealed() {
	if !t.reveal {
		return
	}
	doc := app.Window().Get("document")
	// In the order of the log: the first message drawn is the oldest.
	if el := doc.Call("querySelector", ".thread-inner .msg[data-offset]"); el.Truthy() {
		off, err := strconv.ParseUint(el.Get("dataset").Get("offset").String(), 10, 64)
		if err == nil && off < t.below {
			t.reveal = false
			el.Call("focus")
			return
		}
	}
	if !doc.Call("querySelector", ".thread .earlier").Truthy() {
		t.reveal = false
		if th := doc.Call("querySelector", ".thread"); th.Truthy() {
			th.Call("focus")
		}
	}
}
