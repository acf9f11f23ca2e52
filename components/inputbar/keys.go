package inputbar

import (
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/input"
	"parley/machine/keymap"
	"parley/slash"
)

// barAction is what a key does to the input bar, once the slash menu has passed on it.
type barAction int

const (
	barUndo barAction = iota + 1
	barRedo
	barNewline
	barSteer
	barSend
	barRelease
)

// barKeys are the input bar's bindings, in match order: Ctrl+Enter (whatever else is held)
// comes before the Enters that send. Shift+Enter is no binding: the browser's own line
// break. Undo and redo go through the machine, which keeps the one undo history; so does
// Ctrl+Enter's line break (the browser's execCommand would fork a second one).
var barKeys = keymap.Map[barAction]{
	{Keys: []string{"z"}, Mods: keymap.Primary, Action: barUndo, Help: keymap.Help{Key: "mod+z", Desc: "undo"}},
	{Keys: []string{"z"}, Mods: keymap.Primary | keymap.Shift, Action: barRedo, Help: keymap.Help{Key: "mod+shift+z", Desc: "redo"}},
	{Keys: []string{"y"}, Mods: keymap.Ctrl, Optional: keymap.Meta, Action: barRedo, Help: keymap.Help{Key: "ctrl+y", Desc: "redo"}},
	{Keys: []string{"Enter"}, Mods: keymap.Ctrl, Optional: keymap.Alt | keymap.Meta, Action: barNewline, Help: keymap.Help{Key: "ctrl+enter", Desc: "new line"}},
	{Keys: []string{"Enter"}, Mods: keymap.Alt, Optional: keymap.Meta, Action: barSteer, Help: keymap.Help{Key: "alt+enter", Desc: "steer the running turn"}},
	{Keys: []string{"Enter"}, Optional: keymap.Meta, Action: barSend, Help: keymap.Help{Key: "enter", Desc: "send"}},
	{Keys: []string{"Escape"}, Optional: keymap.Shift | keymap.Ctrl | keymap.Alt | keymap.Meta, Action: barRelease, Help: keymap.Help{Key: "esc", Desc: "leave the command"}},
}

func (sh *shell) keyDown(e app.Event) {
	sc := sh.cur
	k := slash.Key{
		Key:       e.Get("key").String(),
		Shift:     e.Get("shiftKey").Truthy(),
		Ctrl:      e.Get("ctrlKey").Truthy(),
		Alt:       e.Get("altKey").Truthy(),
		Meta:      e.Get("metaKey").Truthy(),
		Composing: sh.composing || e.Get("isComposing").Truthy(),
		KeyCode:   e.Get("keyCode").Int(),
	}
	// Held: an Enter meant for a question that ended under the person (input.Handback).
	held := sh.handback.Key(time.Now())
	if sc.stale && (k.Key == " " || k.Key == "Tab" || strings.HasPrefix(k.Key, "Arrow")) {
		// Space and the menu keys read the controller's hit. Unobserved edits never made
		// one (an edit near a trigger is always observed), so only a caret bound to a
		// trigger needs the controller to look again.
		if sel := sh.selection(); sh.nearTrigger(sc, sel.Start, sel.End) {
			sh.observe(sc)
		}
	}
	effs := sc.sl.Dispatch(k)
	prevented := slash.Prevented(effs)
	if prevented {
		e.PreventDefault()
		if k.Key == " " {
			sh.swallow = " "
		}
	}
	sh.runSlash(sc, effs)
	if prevented || k.IME() {
		return
	}
	act, ok := barKeys.Match(keymap.Key(k))
	if !ok {
		return
	}
	switch act {
	case barUndo:
		e.PreventDefault()
		sh.machine(sc, input.Undo{})
	case barRedo:
		e.PreventDefault()
		sh.machine(sc, input.Redo{})
	case barNewline:
		e.PreventDefault()
		sh.machine(sc, input.Newline{Selection: sh.selection(), At: time.Now()})
	case barSend, barSteer:
		if act == barSend && touchKeyboard() {
			// A touch keyboard's return is its only way to break a line (it has no
			// Shift+Enter): the browser breaks it, and the Send button sends, as the hint says.
			return
		}
		e.PreventDefault()
		if held && sh.handback.Holds(sc.m.Draft()) {
			return // meant for the question that ended
		}
		mode := input.Queue
		if act == barSteer {
			mode = input.Steer
		}
		sh.submit(sc, mode)
	case barRelease:
		if sc.m.Phase() == input.Claimed {
			sh.machine(sc, input.Release{})
		}
	}
}
