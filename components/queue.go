package components

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/components/composer/modes/widget"
	"parley/i18n"
	"parley/protocol"
)

// The approvals queue as the list draws it (docs/approvals.md, "A list that holds still"):
// what is under the pointer never moves and a key never answers an entry it was not pressed
// on. New entries go at the end; an entry that ended keeps its place, hidden under a note, while the
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
	out := make([]shownEntry, 0, len(p.queue)+len(p.shown))
	for _, s := range p.shown {
		if i := p.liveIndex(s.ID); i >= 0 && s.gone == "" {
			out = append(out, shownEntry{QueueEntry: p.queue[i]})
			continue
		}
		if s.gone == "" {
			s.gone = tr(i18n.EntryEndedElsewhere)
			if p.ended[s.ID] || p.answering[s.ID] {
				s.gone = tr(i18n.EntryAnswered)
			}
			widget.KeepPicks(s.ID, nil)
		}
		out = append(out, s)
	}
	for _, e := range p.queue {
		if p.shownIndex(e.ID) < 0 {
			out = append(out, shownEntry{QueueEntry: e})
		}
	}
	p.shown = out
	p.settle(ctx)
}

// settle moves the keyboard off an entry that ended (to the next one, else the one before)
// and takes the ended entries out once nothing holds them in place.
func (p *ApprovalsPage) settle(ctx app.Context) {
	focused, onEntry, pointed := "", false, false
	if app.IsClient {
		doc := app.Window().Get("document")
		focused, onEntry = entryOf(doc.Get("activeElement"))
		pointed = doc.Call("querySelector", ".queue-list:hover").Truthy() && p.pointerOver(ctx)
	}
	if focused != "" && p.liveIndex(focused) < 0 && p.shownIndex(focused) >= 0 {
		// The focus was in it: the keyboard moves on from there. Not from an entry taken
		// out of the list already: the page moved on from it, and its focus is on its way to
		// the next one; taken again as the place to move from, it found no place and sent
		// the keyboard to the first entry (QA round 26).
		p.selected = focused
	}
	confirming := p.confirm != "" && p.liveIndex(p.confirmID) < 0
	if confirming {
		// The entry being confirmed ended elsewhere: the status region says so, for the
		// confirmation goes without a word and the focus moves on (QA round 25).
		if i := p.shownIndex(p.confirmID); i >= 0 {
			what := asked(p.shown[i].Request)
			if len(what) > maxSaidAsked {
				what = headAndTail(what, maxSaidAsked)
			}
			p.said = tr(i18n.ConfirmEndedElsewhere, what)
		}
		p.confirm, p.confirmID = "", ""
	}
	if p.liveIndex(p.selected) < 0 {
		from := p.selected
		p.selected = p.nextLive(from)
		if focused != "" && focused == from {
			p.moved()
			// The person's next Enter was meant for the confirmation, however late it
			// comes: it opens nothing (the next one does).
			p.enterMeantForConfirm = confirming
			p.focusSelected(ctx)
			focused, onEntry = p.selected, true
		}
	}
	hold := pointed || (focused != "" && !onEntry)
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

// touchHold is how long the list holds still after a finger's tap, for a second tap.
const touchHold = 1500 * time.Millisecond

// pointerOver says whether the pointer :hover finds over the list is still there. A mouse's
// is. A finger's is not, once lifted, though the page keeps :hover where it touched: on a
// phone the answered entry stayed under its note until the next tap elsewhere (QA round 26).
// The list holds still for touchHold after a tap, then settles again.
func (p *ApprovalsPage) pointerOver(ctx app.Context) bool {
	at := app.Window().Get("parleyTouchAt").Float()
	if at == 0 {
		return true
	}
	left := touchHold - time.Duration((app.Window().Get("performance").Call("now").Float()-at)*float64(time.Millisecond))
	if left <= 0 {
		return false
	}
	if !p.settleLater {
		p.settleLater = true
		ctx.After(left, func(ctx app.Context) {
			p.settleLater = false
			p.settle(ctx)
		})
	}
	return true
}

// moved says the page moved the keyboard to the selected entry, now: not the person.
func (p *ApprovalsPage) moved() { p.focusByPage, p.movedAt = p.selected, clock() }

// unanswered corrects the note of an entry that left while this page's answer to it was on
// its way, and the answer failed: it ended elsewhere after all.
func (p *ApprovalsPage) unanswered(id string) {
	for i, s := range p.shown {
		if s.ID == id && s.gone != "" {
			p.shown[i].gone = tr(i18n.EntryEndedElsewhere)
		}
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
	if id := cmpOr(p.step(from, true), p.step(from, false)); id != "" || len(p.queue) == 0 {
		return id
	}
	return p.queue[0].ID
}

func (p *ApprovalsPage) shownIndex(id string) int {
	for i, s := range p.shown {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// step is the waiting entry after (or before) id in the list, "" at an end.
func (p *ApprovalsPage) step(id string, down bool) string {
	at, d := p.shownIndex(id), 1
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
