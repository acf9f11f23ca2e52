package inputbar

import (
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/input"
)

// This file is the clipboard: copy and cut write the chips' clipboard projection, paste
// goes through the machine's paste transaction, and a click selects a whole chip.

// paste goes through paste-begin: the references the hot snapshot knows become chips in the
// same transaction (one undo), and the matcher looks for more asynchronously.
func (sh *shell) paste(e app.Event) {
	dt := e.Get("clipboardData")
	if !dt.Truthy() {
		return
	}
	e.PreventDefault()
	text := strings.ReplaceAll(dt.Call("getData", "text/plain").String(), "\r\n", "\n")
	if text == "" {
		return
	}
	sc := sh.cur
	if sc.stale {
		sh.observe(sc)
	}
	sh.machine(sc, input.PasteBegin{Text: text, Selection: sh.selection(), Components: sh.known.MatchSync(text), At: time.Now()})
}

// copy puts the selection's clipboard projection on the clipboard: chips expand to their
// text. A cut then deletes the selection through the machine.
func (sh *shell) copy(e app.Event, cut bool) {
	sc := sh.cur
	sel := sh.selection()
	if sel.Start == sel.End {
		return
	}
	dt := e.Get("clipboardData")
	if !dt.Truthy() {
		return
	}
	e.PreventDefault()
	dt.Call("setData", "text/plain", sc.m.ClipboardText(sel.Start, sel.End))
	if cut {
		sh.machine(sc, input.InsertText{Span: input.Span{Start: sel.Start, End: sel.End, Rev: sc.m.Rev()}})
	}
}

// clickChip selects a whole chip that a mouse click landed on.
func (sh *shell) clickChip(e app.Event) {
	sel := sh.selection()
	if sel.Start != sel.End {
		return
	}
	x, y := e.Get("clientX").Float(), e.Get("clientY").Float()
	for _, p := range []int{sel.Start - 1, sel.Start} {
		nd, ok := sh.bd.chipAt(p)
		if !ok {
			continue
		}
		r := nd.el.Call("getBoundingClientRect")
		if x >= r.Get("left").Float() && x <= r.Get("right").Float() && y >= r.Get("top").Float() && y <= r.Get("bottom").Float() {
			sh.ta.Call("setSelectionRange", nd.start, nd.start+1)
			return
		}
	}
}
