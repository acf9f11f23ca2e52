package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/i18n"
	"parley/protocol"
)

// The approvals queue as the list draws it (docs/approvals.md, "A list that holds still"):
// what is under the pointer never moves and a key never answers an entry it was not pressed
// on. New entries go at the end; an entry that ended keeps its place, inert, while the
// pointer is over the list (or the focus is in a field of an entry); the focus leaves an
// entry that ended for the next one.

// shownEntry is an entry of the list; gone says it ended (the words it shows instead).
type shownEntry struct {
	protocol.QueueEntry
	gone string
}

// reconcile draws the queue just read: the entries the list already shows keep their order,
// those that ended are marked so, and new ones go at the end.
func (p *ApprovalsPage) reconcile(ctx app.Context) {
	live := make(map[string]protocol.QueueEntry, len(p.queue))
	for _, e := range p.queue {
		live[e.ID] = e
	}
	out := make([]shownEntry, 0, len(p.queue)+len(p.shown))
	drawn := make(map[string]bool, len(p.shown))
	for _, s := range p.shown {
		drawn[s.ID] = true
		if e, ok := live[s.ID]; ok && s.gone == "" {
			out = append(out, shownEntry{QueueEntry: e})
			continue
		}
		if s.gone == "" {
			s.gone = tr(i18n.EntryEndedElsewhere)
			if p.ended[s.ID] {
				s.gone = tr(i18n.EntryAnswered)
			}
		}
		out = append(out, s)
	}
	for _, e := range p.queue {
		if !drawn[e.ID] {
			out = append(out, shownEntry{QueueEntry: e})
		}
	}
	p.shown = out
	p.settle(ctx)
}

// settle moves the keyboard off an entry that ended (to the next one, else the one before)
// and takes the ended entries out once nothing holds them in place.
func (p *ApprovalsPage) settle(ctx app.Context) {
	focused, onEntry := "", false
	if app.IsClient {
		focused, onEntry = entryOf(app.Window().Get("document").Get("activeElement"))
	}
	if focused != "" && p.liveIndex(focused) < 0 {
		p.selected = focused // the focus was in it: the keyboard moves on from there
	}
	if p.confirm != "" && p.liveIndex(p.confirmID) < 0 {
		p.confirm, p.confirmID = "", ""
	}
	if p.liveIndex(p.selected) < 0 {
		from := p.selected
		p.selected = p.nextLive(from)
		if focused != "" && focused == from {
			p.focusSelected(ctx)
			focused, onEntry = p.selected, true
		}
	}
	hold := p.pointerIn || (focused != "" && !onEntry)
	if hold {
		return
	}
	kept := p.shown[:0:0]
	for _, s := range p.shown {
		if s.gone == "" {
			kept = append(kept, s)
		}
	}
	if len(kept) == len(p.shown) {
		return
	}
	p.shown = kept
	if focused != "" {
		// go-app reuses the list's items by place: the item that held the focus may now draw
		// another entry, so the focus goes back to its own.
		p.focusSelected(ctx)
	}
}

// liveIndex is the place of a decision in the queue, or -1 when it is not waiting.
func (p *ApprovalsPage) liveIndex(id string) int {
	for i, e := range p.queue {
		if e.ID == id && id != "" {
			return i
		}
	}
	return -1
}

// nextLive is the entry the keyboard goes to when from ended: the next waiting one in the
// list, else the one before, else the first.
func (p *ApprovalsPage) nextLive(from string) string {
	at := -1
	for i, s := range p.shown {
		if s.ID == from {
			at = i
		}
	}
	if at >= 0 {
		for i := at + 1; i < len(p.shown); i++ {
			if p.shown[i].gone == "" {
				return p.shown[i].ID
			}
		}
		for i := at - 1; i >= 0; i-- {
			if p.shown[i].gone == "" {
				return p.shown[i].ID
			}
		}
	}
	for _, s := range p.shown {
		if s.gone == "" {
			return s.ID
		}
	}
	return ""
}

// step is the waiting entry after (or before) id in the list, "" at an end.
func (p *ApprovalsPage) step(id string, down bool) string {
	at := -1
	for i, s := range p.shown {
		if s.ID == id {
			at = i
		}
	}
	d := 1
	if !down {
		d = -1
	}
	for i := at + d; at >= 0 && i >= 0 && i < len(p.shown); i += d {
		if p.shown[i].gone == "" {
			return p.shown[i].ID
		}
	}
	return ""
}
