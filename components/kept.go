package components

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/protocol"
)

// Kept threads (docs/pwa.md, "Offline"): the page keeps, in the browser, the newest window of
// the last few sessions it showed, as a seed (docs/seed.md) of its own. A reload while the
// server is away (an installed app on a phone, a laptop whose server stopped) has no seed from
// the server, and used to show an empty thread; it shows the kept one instead. A kept thread
// is only shown: the follower reads the session as it does without a seed, and the socket's
// window replaces it whole once it comes, so a copy that is stale, or of another log (a data
// folder started again), never decides what is followed. The session list is kept the same
// way, shown only while the server cannot say it.

const (
	keyKeptList  = "parley.kept"     // the kept sessions' ids, the newest first
	keyKeptOf    = "parley.kept."    // + a session id: its kept seed, as JSON
	keySessions  = "parley.sessions" // the session list read last
	keptSessions = 4                 // sessions kept at once
	// keptBytes bounds one kept thread (its events' data): localStorage holds a few MB per
	// origin, shared with the drafts and the outbox, which must always fit.
	keptBytes     = 256 << 10
	keptListed    = 200 // sessions of the list kept
	keptSaveAfter = time.Second
)

// keptThread records the open session's newest window as the page holds it: the window the
// server's seed or the socket began with, and every event since, in the order they came.
type keptThread struct {
	seed    protocol.Seed
	size    int  // the events' data
	started bool // there is a window to record from (?history=all has none)
	full    bool // past keptBytes: the copy saved before stays as it was
	saving  bool // a save is scheduled
}

// begin starts recording session, from seed's window when the page began with one.
func (k *keptThread) begin(session string, seed *protocol.Seed) {
	*k = keptThread{seed: protocol.Seed{Session: session}}
	if seed != nil && seed.Session == session {
		k.window(seed.Window)
		k.add(seed.Events)
	}
}

// window starts the record again from the window the socket sent.
func (k *keptThread) window(w protocol.Window) {
	k.seed.Window, k.seed.Events, k.size, k.started, k.full = w, nil, 0, true, false
}

// add records events that came after those recorded.
func (k *keptThread) add(evs []protocol.Event) {
	if !k.started || k.full {
		return
	}
	for _, ev := range evs {
		k.size += len(ev.Data)
	}
	if k.size > keptBytes {
		k.full = true
		return
	}
	k.seed.Events = append(k.seed.Events, evs...)
}

// savable says whether the record is worth writing: a window with events, under the bound.
func (k *keptThread) savable() bool {
	return k.started && !k.full && k.seed.Session != "" && len(k.seed.Events) > 0
}

// keptAfterSave is the list of kept sessions once session is saved: it first, the others
// after it, at most keptSessions; dropped are those that no longer fit.
func keptAfterSave(list []string, session string) (kept, dropped []string) {
	kept = append([]string{session}, slices.DeleteFunc(slices.Clone(list), func(id string) bool { return id == session })...)
	if len(kept) > keptSessions {
		kept, dropped = kept[:keptSessions], kept[keptSessions:]
	}
	return kept, dropped
}

// keepSoon saves the open session's record a moment after its events came: one write for a
// burst of them.
func (c *Conversation) keepSoon(ctx app.Context) {
	if c.kept.saving || !c.kept.savable() || c.blank {
		return
	}
	c.kept.saving = true
	session := c.kept.seed.Session
	ctx.After(keptSaveAfter, func(ctx app.Context) {
		c.kept.saving = false
		if c.kept.seed.Session != session || !c.kept.savable() || c.blank {
			return
		}
		c.kept.seed.Title = c.thread.Title
		saveKept(c.kept.seed)
		ctx.PreventUpdate()
	})
}

// saveKept writes a session's kept seed and puts it first in the list of kept sessions.
func saveKept(seed protocol.Seed) {
	b, err := json.Marshal(seed)
	if err != nil {
		return
	}
	var list []string
	_ = json.Unmarshal([]byte(storageGet(keyKeptList)), &list)
	list, dropped := keptAfterSave(list, seed.Session)
	for _, id := range dropped {
		storageSet(keyKeptOf+id, "")
	}
	if !storageTry(keyKeptOf+seed.Session, string(b)) {
		// The storage is full: the kept threads give way to what must fit.
		for _, id := range list {
			storageSet(keyKeptOf+id, "")
		}
		storageSet(keyKeptList, "")
		return
	}
	l, _ := json.Marshal(list)
	storageTry(keyKeptList, string(l))
}

// keptSeed is the kept seed of the session at path, or nil: none, another page, or a page
// that follows the whole log (?history=all), which a window would cut.
func keptSeed(path, query string) *protocol.Seed {
	id := sessionOfPath(path)
	if id == "" || tailOf(query) == 0 {
		return nil
	}
	var seed protocol.Seed
	if json.Unmarshal([]byte(storageGet(keyKeptOf+id)), &seed) != nil || seed.Session != id || len(seed.Events) == 0 {
		return nil
	}
	for i, ev := range seed.Events {
		if ev.Session != id || i > 0 && ev.Offset <= seed.Events[i-1].Offset {
			return nil // not a record this page wrote
		}
	}
	return &seed
}

// leaveKept ends the show of a kept thread: the socket's replay is here, and it alone says
// what the thread holds.
func (c *Conversation) leaveKept() {
	if !c.showingKept {
		return
	}
	c.showingKept = false
	c.thread = store.Thread{Title: c.thread.Title}
	c.controls = store.NewControls()
}

// keepSessions keeps the session list the server gave, for a page that loads without it.
func keepSessions(list []protocol.SessionInfo) {
	b, err := json.Marshal(list[:min(len(list), keptListed)])
	if err == nil {
		storageTry(keySessions, string(b))
	}
}

// keptSessionList is the session list kept last, or nil.
func keptSessionList() []protocol.SessionInfo {
	var list []protocol.SessionInfo
	if json.Unmarshal([]byte(storageGet(keySessions)), &list) != nil {
		return nil
	}
	return list
}

// storageTry is storageSet that says whether the value was stored: setItem throws when the
// origin's storage is full, and a JavaScript exception is a panic in Go.
func storageTry(key, value string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	storageSet(key, value)
	return true
}
