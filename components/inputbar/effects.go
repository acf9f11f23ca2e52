package inputbar

import (
	"context"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/hub"
	"parley/machine/input"
	"parley/slash"
)

// This file runs the machines' effects: the input machine's and the slash pipeline's.

// apply runs the machine's effects.
func (sh *shell) apply(sc *scope, effs []input.Effect) {
	chips := false // a SetView wrote a chip: tint checks every glyph after the last one
	for i := 0; i < len(effs); i++ {
		switch x := effs[i].(type) {
		case input.SetView:
			if sc == sh.cur {
				text := x.Text
				if hasChip(text) {
					text, chips = sh.inView(sc.m, x), true
				}
				sh.ta.Call("setRangeText", text, x.Start, x.End)
				sh.ta.Call("setSelectionRange", x.SelStart, x.SelEnd)
				if len(text) > 80 || strings.ContainsRune(text, '\n') {
					// A paste's lines: the textarea stays where it was scrolled, and the
					// caret after them went out of sight (QA round 21). A caret at the end
					// brings the end into view, as the browser's own paste does.
					if x.SelEnd == x.SelStart && x.SelEnd == sh.ta.Get("textLength").Int() {
						sh.ta.Set("scrollTop", sh.ta.Get("scrollHeight"))
					}
				}
				sh.lastSel = input.Range{Start: x.SelStart, End: x.SelEnd}
				sh.bdDirty = true
			}
		case input.ChipRemoved:
			if sc == sh.cur {
				sh.bdDirty = true
			}
		case input.Adjudicate:
			sh.runSlash(sc, sc.sl.Dispatch(slash.Adjudicate{Attempt: x.Attempt, Draft: x.Draft}))
		case input.Serialize:
			text, ok := Serialize(x.Source, x.Ref)
			var err error
			if !ok {
				err = input.ErrNoOwner
			}
			effs = append(effs, sc.m.Dispatch(input.Serialized{Attempt: x.Attempt, ID: x.ID, Text: text, Err: err})...)
		case input.DefaultSink:
			sh.send(sc, x.Attempt, x.Text, x.Mode)
		case input.BeginSubmit:
			// Server commands are claimed for the ghost hint and the guard tiers; they travel
			// as text, and the server's door runs them.
			sh.send(sc, x.Attempt, x.Text, x.Mode)
		case input.Abort:
			if cancel := sc.cancels[x.Attempt]; cancel != nil {
				cancel()
			}
		case input.Notice:
			sh.ctx.NewActionWithValue(ActionNotice, hub.NoticeOf(x, sc.lastErr))
			sc.noticed = x.Restored
		case input.MatchPaste:
			sh.matchPaste(sc, x)
		}
	}
	if chips && sc == sh.cur {
		sh.tint(sc)
	}
	sh.scheduleSave()
}

// runSlash runs the controller's effects.
func (sh *shell) runSlash(sc *scope, effs []slash.Effect) {
	for _, ef := range effs {
		switch x := ef.(type) {
		case slash.FetchCandidates, slash.RunEnterMatch, slash.Warm:
			sl := sc.sl
			sh.ctx.Async(func() {
				ev, ok := sl.Perform(context.Background(), x)
				if !ok {
					return
				}
				sh.ctx.Dispatch(func(ctx app.Context) {
					ctx.PreventUpdate()
					if sc.sl == sl {
						sh.runSlash(sc, sl.Dispatch(ev))
						sh.flush()
					}
				})
			})
		case slash.ShowMenu:
			sh.setMenu(sc, sc.sl.Controller().Menu())
		case slash.HideMenu:
			sh.setMenu(sc, slash.Menu{Active: -1})
		case slash.Adjudicated:
			sh.apply(sc, sc.m.Dispatch(x.Answer()))
		case slash.Decorate:
			sc.refs = sc.sl.Controller().TextRefs()
			if sc == sh.cur {
				sh.bdDirty = true
			}
		case slash.Picked:
			if x.Rewrote {
				sh.observe(sc)
			}
			if x.Send {
				// Enter on a command typed whole: accepted and sent in one press.
				sh.submit(sc, input.Queue)
			}
		}
	}
}

func (sh *shell) setMenu(sc *scope, m slash.Menu) {
	sc.menu = m
	if sc == sh.cur {
		if sh.voice.follow(sh.menu, m) {
			sh.settleVoice()
		}
		sh.menu = m
		sh.ctx.Update()
		if id := m.ActiveID(); id != "" {
			// After the render that marks it: the active option stays in view as ↑↓ move.
			sh.ctx.Defer(func(app.Context) {
				if el := app.Window().GetElementByID(listboxID + "-" + id); el.Truthy() {
					el.Call("scrollIntoView", map[string]any{"block": "nearest"})
				}
			})
		}
	}
}

// settleVoice says the menu's count once it holds still for menuSettle (menuVoice): each
// change starts the wait again.
func (sh *shell) settleVoice() {
	sh.voiceGen++
	gen := sh.voiceGen
	sh.ctx.After(menuSettle, func(ctx app.Context) {
		if gen != sh.voiceGen || sh.closed {
			ctx.PreventUpdate()
			return
		}
		was := sh.voice.said
		if sh.voice.settle(sh.menu); sh.voice.said == was {
			ctx.PreventUpdate()
		}
	})
}

// flush brings the view in line with the current scope: the backdrop when it must be
// redrawn, the ghost hint, the send button.
func (sh *shell) flush() {
	sc := sh.cur
	if sc == nil {
		return
	}
	if sh.bdDirty {
		if sc.stale {
			sh.observe(sc) // the marks must be the draft's before they are drawn
		}
		sh.bdDirty = false
		sh.stats.Rebuilds++
		sh.bd.rebuild(sc.m, sc.refs, sh.sizer.glyph)
		sh.bd.root.Set("scrollTop", sh.ta.Get("scrollTop"))
	}
	sh.bd.setGhost(sc.m.Ghost())
	if sc.noticed && sc.m.Len() == 0 {
		sc.noticed = false
		sh.ctx.NewActionWithValue(ActionNotice, hub.Notice{Withdraw: true})
	}
	if empty := sc.m.Len() == 0; empty != sh.empty {
		sh.empty = empty
		sh.placeholder()
		sh.ctx.Update()
	}
}

// placeholder gives the textarea its placeholder only while the draft is empty, at once
// (the render that follows agrees: Render names it only then). A placeholder over a draft
// is never shown, and Chromium restyles it on every edit (it sets the placeholder's inline
// display each time): one style recalc per key that the bare textarea does not pay
// (docs/composer.md, "The keystroke budget against the floor").
func (sh *shell) placeholder() {
	if sh.empty && sh.bar.Placeholder != "" {
		sh.ta.Call("setAttribute", "placeholder", sh.bar.Placeholder)
	} else {
		sh.ta.Call("removeAttribute", "placeholder")
	}
}
