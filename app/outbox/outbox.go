// Package outbox runs the page's outbox (machine/outbox) in the browser: it sends each
// prompt through the API with its attempt id, arms the machine's timers, and keeps the
// entries in localStorage so a reload loses none (docs/pwa.md, "Sending while the server is
// away"). The page has one; the input bar adds to it and the conversation draws it and
// tells it when the server is reachable.
package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	mo "parley/machine/outbox"
	"parley/protocol"
)

// storageKey is where the entries are kept.
const storageKey = "parley.outbox"

// Box is the page's outbox.
type Box struct {
	m      *mo.Machine
	client *api.Client
	// mu guards ctx and arrived: answers and timers come on goroutines of their own.
	mu sync.Mutex
	// ctx is the newest page's context: the conversation's, which is dismounted while
	// another screen (/approvals, /mcp) is shown, and comes back a new component.
	ctx app.Context
	// arrived are the answers and timers that came while no page was mounted to take them:
	// the next page runs them (adopt), so no request is left under way for ever.
	arrived []func()
	// waiting are the composer's attempts waiting for their entry's first answer.
	waiting map[string]func(error)
	// Changed is called after the entries changed (the conversation renders them).
	Changed func()
	// Restore puts a cancelled prompt's text back in its session's composer.
	Restore func(session, text string)
	errs    map[string]error // a refused first try's error, for the composer's notice
	// held are the attempt ids this tab has held: the stored entries it may drop (mo.Share).
	held map[string]bool
}

var page *Box

// Page returns the page's outbox, making it (and loading what a previous page kept) on
// first use. ctx is the conversation's, the root of the chat's pages: each new one (back
// from another screen) is adopted, and runs what arrived while none was mounted.
func Page(ctx app.Context) *Box {
	if page != nil {
		page.adopt(ctx)
		return page
	}
	u := ctx.Page().URL()
	page = &Box{m: mo.New(), ctx: ctx, client: &api.Client{Base: u.Scheme + "://" + u.Host},
		waiting: map[string]func(error){}, errs: map[string]error{}, held: map[string]bool{}}
	kept := stored()
	for _, e := range kept {
		page.held[e.ID] = true // a reload adopts every tab's entries
	}
	page.run(page.m.Dispatch(mo.Loaded{Entries: kept}))
	return page
}

// Current is the page's outbox, nil until Page made it.
func Current() *Box { return page }

// Send adds a prompt. settled is told once the outbox holds it (nil: the draft may go; the
// prompt shows in the thread until the log has it) or the server refused its first try
// (the error: the draft comes back, as for any refused send).
func (b *Box) Send(session, text string, mode protocol.PromptMode, settled func(error)) {
	id := api.NewAttemptID()
	// What the server would refuse whatever happens (too long, …) is refused now, never kept.
	if err := (protocol.SendPromptRequest{Text: text, AttemptID: id, Mode: mode}).Validate(); err != nil {
		if settled != nil {
			settled(err)
		}
		return
	}
	if settled != nil {
		b.waiting[id] = settled
	}
	b.held[id] = true
	b.run(b.m.Dispatch(mo.Add{Entry: mo.Entry{ID: id, Session: session, Text: text, Steer: mode == protocol.ModeSteer, Direct: settled != nil}}))
}

// Of are the session's entries, in the order written.
func (b *Box) Of(session string) []mo.Entry { return b.m.Of(session) }

// Reach tells the outbox whether the server answers (the socket is live, or lost it).
func (b *Box) Reach(online bool) { b.run(b.m.Dispatch(mo.Reach{Online: online})) }

// RetryNow tries again at once.
func (b *Box) RetryNow() { b.run(b.m.Dispatch(mo.Wake{})) }

// Seen says the session's log holds the prompt sent with this attempt id.
func (b *Box) Seen(id string) {
	if id != "" {
		b.run(b.m.Dispatch(mo.Seen{ID: id}))
	}
}

// Cancel takes a prompt that waits back: its text returns to the composer.
func (b *Box) Cancel(id string) { b.run(b.m.Dispatch(mo.Cancel{ID: id})) }

func (b *Box) run(effs []mo.Effect) {
	changed := false
	for _, e := range effs {
		switch x := e.(type) {
		case mo.Send:
			b.send(x.Entry)
		case mo.Changed:
			changed = true
		case mo.Accepted:
			if f := b.waiting[x.ID]; f != nil {
				delete(b.waiting, x.ID)
				f(nil)
			}
		case mo.Bounced:
			if f := b.waiting[x.ID]; f != nil {
				delete(b.waiting, x.ID)
				err := b.errs[x.ID]
				if err == nil {
					err = errors.New(x.Err)
				}
				f(err)
			}
			delete(b.errs, x.ID)
		case mo.Restore:
			if b.Restore != nil {
				b.Restore(x.Session, x.Text)
			}
		case mo.Arm:
			gen, after := x.Gen, x.After
			b.async(func() {
				time.Sleep(after)
				b.deliver(func() { b.run(b.m.Dispatch(mo.Fired{Gen: gen})) })
			})
		}
	}
	if changed {
		b.save()
		if b.Changed != nil {
			b.Changed()
		}
	}
}

// stored are the entries kept under the page's key, by any tab.
func stored() []mo.Entry {
	var kept []mo.Entry
	if ls := app.Window().Get("localStorage"); ls.Truthy() {
		if v := ls.Call("getItem", storageKey); v.Truthy() {
			_ = json.Unmarshal([]byte(v.String()), &kept)
		}
	}
	return kept
}

// save writes this tab's entries over the stored ones, keeping those of other tabs.
func (b *Box) save() {
	ls := app.Window().Get("localStorage")
	if !ls.Truthy() {
		return
	}
	es := mo.Share(stored(), b.m.Entries(), func(id string) bool { return b.held[id] })
	if len(es) == 0 {
		ls.Call("removeItem", storageKey)
		return
	}
	data, err := json.Marshal(es)
	if err == nil {
		ls.Call("setItem", storageKey, string(data))
	}
}

// send runs one request; its answer comes back on the UI goroutine.
func (b *Box) send(e mo.Entry) {
	client := b.client
	mode := protocol.ModeQueue
	if e.Steer {
		mode = protocol.ModeSteer
	}
	b.async(func() {
		resp, err := client.SendPromptOnce(context.Background(), e.Session, protocol.SendPromptRequest{Text: e.Text, AttemptID: e.ID, Mode: mode})
		b.deliver(func() {
			r := Classify(err)
			if r == mo.Rejected {
				b.errs[e.ID] = err
			}
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			b.run(b.m.Dispatch(mo.Settled{ID: e.ID, Result: r, Known: resp.Duplicate, Err: msg}))
		})
	})
}

// adopt makes ctx the one the box answers on, and runs what arrived while no page was
// mounted.
func (b *Box) adopt(ctx app.Context) {
	b.mu.Lock()
	b.ctx = ctx
	b.mu.Unlock()
	b.deliver(nil)
}

// async runs f on a goroutine of the current page's.
func (b *Box) async(f func()) {
	b.mu.Lock()
	ctx := b.ctx
	b.mu.Unlock()
	ctx.Async(f)
}

// deliver runs f (nil: nothing new) and whatever else waits on the UI goroutine of the page
// mounted now; a Dispatch on a dismounted page's context does nothing, so while none is
// mounted they wait for the next page's adopt.
func (b *Box) deliver(f func()) {
	b.mu.Lock()
	if f != nil {
		b.arrived = append(b.arrived, f)
	}
	ctx := b.ctx
	b.mu.Unlock()
	ctx.Dispatch(func(app.Context) {
		b.mu.Lock()
		fs := b.arrived
		b.arrived = nil
		b.mu.Unlock()
		for _, f := range fs {
			f()
		}
	})
}

// Classify says how a request went: no answer, or an answer that says to try later (a
// server or an edge whose runtime is away answers 5xx), is worth another try.
func Classify(err error) mo.Result {
	var apiErr *api.Error
	switch {
	case err == nil:
		return mo.Done
	case errors.Is(err, api.ErrUnreachable), errors.As(err, &apiErr) && apiErr.Retryable():
		return mo.Unreachable
	}
	return mo.Rejected
}
