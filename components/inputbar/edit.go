package inputbar

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/input"
	"parley/machine/utf16x"
	"parley/slash"
)

// This file turns the textarea's edits into the input machine's events, and decides when the
// slash controller must look at the draft: only near a trigger, so most keystrokes cost
// O(edit).

// machine dispatches ev, applies its effects and lets the controller see the result.
func (sh *shell) machine(sc *scope, ev input.Event) {
	sh.apply(sc, sc.m.Dispatch(ev))
	sh.observe(sc)
}

func (sh *shell) beforeInput(e app.Event) {
	sc := sh.cur
	switch t := e.Get("inputType").String(); t {
	case "historyUndo":
		// The browser's own undo would fork a second history: the machine's is the one.
		e.PreventDefault()
		sh.machine(sc, input.Undo{})
		return
	case "historyRedo":
		e.PreventDefault()
		sh.machine(sc, input.Redo{})
		return
	case "insertText":
		if sh.swallow != "" && e.Get("data").String() == sh.swallow {
			sh.swallow = ""
			e.PreventDefault()
			return
		}
		fallthrough
	default:
		if sh.composing || e.Get("isComposing").Truthy() {
			sh.before = input.BeforeInput{}
			return
		}
		sel := sh.selection()
		sh.before = input.BeforeInput{Type: t, Start: sel.Start, End: sel.End, Len: sc.m.Len()}
	}
}

// input turns the textarea's change into the machine's event: a delta derived from what
// beforeinput saw, so a keystroke never copies the draft into Go; the whole value only
// when the delta cannot be known.
func (sh *shell) input(e app.Event) {
	if sh.composing || e.Get("isComposing").Truthy() {
		sh.before = input.BeforeInput{}
		return
	}
	sc := sh.cur
	before := sh.before
	sh.before = input.BeforeInput{}
	now := time.Now()
	var ev input.Event
	after := input.AfterInput{Len: sh.ta.Get("textLength").Int(), Caret: sh.ta.Get("selectionStart").Int()}
	if d, ok := input.DeriveEdit(before, sc.m.Len(), after); ok {
		text := ""
		if d.TextEnd > d.TextStart {
			text = fromView(sh.substring.Call("call", sh.ta.Get("value"), d.TextStart, d.TextEnd).String())
		}
		ev = input.Edit{Start: d.Start, End: d.End, Text: text, At: now}
	}
	if ev == nil {
		sh.stats.FullReads++
		ev = input.DraftChanged{Draft: fromView(sh.ta.Get("value").String()), At: now}
	}
	sh.edit(sc, ev)
}

// edit applies a typed change. The controller sees the draft only when the change could
// touch a trigger or a plain-text reference (or a menu is open); otherwise the keystroke
// costs the machine's O(edit) work and one text node's replaceData.
func (sh *shell) edit(sc *scope, ev input.Event) {
	x, delta := ev.(input.Edit)
	observe := !delta || sh.touchesTrigger(sc, x)
	rev := sc.m.Rev()
	effs := sc.m.Dispatch(ev)
	sh.apply(sc, effs)
	if delta && !observe {
		observe = sh.nearTrigger(sc, x.Start, x.Start+utf16x.Len(x.Text))
	}
	if observe {
		sh.observe(sc)
	} else if sc.m.Rev() != rev {
		sc.stale = true
	}
	if delta && !sh.bdDirty && len(effs) == 0 {
		if !sh.bd.edit(x.Start, x.End, x.Text, utf16x.Len(x.Text)) {
			sh.bdDirty = true
		}
	} else if sc.m.Rev() != rev || !delta {
		sh.bdDirty = true
	}
	if n := sh.ta.Get("textLength").Int(); n != sc.m.Len() {
		// The derived edit was wrong: take the whole value once, and redraw.
		sh.apply(sc, sc.m.Dispatch(input.DraftChanged{Draft: fromView(sh.ta.Get("value").String()), At: time.Now()}))
		sh.observe(sc)
		sh.bdDirty = true
	}
	sel := sh.selection()
	sh.lastSel = sel
}

// touchesTrigger reports, before the edit, whether it inserts or deletes a trigger
// character, or a hit or menu is live: the controller must then see the draft.
func (sh *shell) touchesTrigger(sc *scope, x input.Edit) bool {
	if _, ok := sc.sl.Controller().Hit(); ok || sc.menu.Open || sc.m.Phase() != input.Plain {
		return true
	}
	if slash.HasTrigger(x.Text) {
		return true
	}
	if x.End > x.Start && slash.HasTrigger(sc.m.Slice(x.Start, x.End)) {
		return true
	}
	return slash.TierOf(sc.m.Phase()) != sc.tier
}

// nearTrigger reports, after the edit, whether the name run around [s, e) is bound to a
// trigger on either side (slash.Near), reading only a window of the draft around it.
func (sh *shell) nearTrigger(sc *scope, s, e int) bool {
	return slash.Near(sc.m.Slice(s-slash.Window, s), sc.m.Slice(e, e+slash.Window), s-slash.Window > 0, e+slash.Window < sc.m.Len())
}

// observe tells the controller the draft and the selection.
func (sh *shell) observe(sc *scope) {
	sh.stats.Observes++
	sc.tier = slash.TierOf(sc.m.Phase())
	sc.stale = false
	sel := sc.m.Selection()
	if sc == sh.cur {
		sel = sh.selection()
	}
	sh.runSlash(sc, sc.sl.Dispatch(slash.DraftObserved{Draft: sc.m.Draft(), SelStart: sel.Start, SelEnd: sel.End, Rev: sc.m.Rev(), Tier: sc.tier}))
}

// caretMoved follows a selection change that was no edit: it ends a paste's matching and
// may enter or leave a trigger.
func (sh *shell) caretMoved() {
	sc := sh.cur
	sel := sh.selection()
	if sel == sh.lastSel {
		return
	}
	sh.lastSel = sel
	sc.m.Dispatch(input.InvalidatePaste{})
	if _, ok := sc.sl.Controller().Hit(); ok || sc.menu.Open || sc.stale || sh.nearTrigger(sc, sel.Start, sel.Start) {
		sh.observe(sc)
	}
}

func (sh *shell) selection() input.Range {
	return input.Range{Start: sh.ta.Get("selectionStart").Int(), End: sh.ta.Get("selectionEnd").Int()}
}
