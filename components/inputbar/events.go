package inputbar

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/input"
	"parley/slash"
)

// This file translates the textarea's DOM events into the machines' events.

func (b *Bar) live() (*shell, bool) {
	sh := b.sh
	return sh, sh != nil && sh.cur != nil && !b.Disabled
}

// listen handles the textarea's per-keystroke events with listeners of its own: they run
// straight in the browser's event, outside go-app's dispatch, and touch no go-app state, so
// a keystroke never renders a component.
func (sh *shell) listen() {
	on := func(name string, h func(e app.Event)) {
		f := app.FuncOf(func(_ app.Value, args []app.Value) any {
			if len(args) == 0 || sh.cur == nil || sh.bar.Disabled {
				return nil
			}
			t0 := time.Now()
			if sh.benchKeys && name == "keydown" {
				sh.perKey = append(sh.perKey, 0)
			}
			h(app.Event{Value: args[0]})
			sh.flush()
			sh.timed(t0)
			return nil
		})
		var listener app.Value = f
		if name == "keyup" {
			// A typed character's caret is read at its input event, so its keyup has nothing
			// to do: web/early.js's filter enters the wasm only for a key that can move the
			// caret without an edit (or the Space a command name took), one wasm entry fewer
			// per typed key (docs/composer.md, "The keystroke budget").
			if filter := app.Window().Get("parleyCaretKeyups"); filter.Truthy() {
				listener = filter.Invoke(f)
			}
		}
		sh.ta.Call("addEventListener", name, listener)
		sh.taListeners = append(sh.taListeners, taListener{name, f, listener})
	}
	on("keydown", sh.keyDown)
	on("beforeinput", sh.beforeInput)
	on("input", sh.input)
	on("keyup", func(e app.Event) {
		if !sh.composing {
			sh.swallow = ""
			sh.caretMoved()
		}
	})
}

// composition is when the input method's composition in the bar began; zero when none is
// open. One bar at a time takes keys.
var composition time.Time

// ComposingSince says since when an input method has been composing in the bar: a decision
// shown now would take the focus from the composition and keep its half-converted letters.
func ComposingSince() (time.Time, bool) { return composition, !composition.IsZero() }

type taListener struct {
	name     string
	f        app.Func
	listener app.Value // what was added: f, or the JS filter around it
}

func (b *Bar) onCompositionStart(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.composing = true
		composition = time.Now()
		// While an IME composes, the textarea shows its own text: the backdrop cannot follow
		// a composition it is not told about.
		sh.field.Get("classList").Call("add", "composing")
	}
}

func (b *Bar) onCompositionEnd(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.composing = false
		composition = time.Time{}
		sh.field.Get("classList").Call("remove", "composing")
		sh.before = input.BeforeInput{}
		sh.edit(sh.cur, input.DraftChanged{Draft: fromView(sh.ta.Get("value").String()), At: time.Now()})
		sh.flush()
	}
}

func (b *Bar) onPaste(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.paste(e)
		sh.flush()
	}
}

func (b *Bar) onCopy(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.copy(e, false)
		sh.flush()
	}
}

func (b *Bar) onCut(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.copy(e, true)
		sh.flush()
	}
}

func (b *Bar) onScroll(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh := b.sh; sh != nil {
		sh.bd.catchUp() // its text must reach as far as the textarea's to scroll as far
		sh.bd.root.Set("scrollTop", sh.ta.Get("scrollTop"))
	}
}

func (b *Bar) onClick(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.clickChip(e)
		sh.caretMoved()
		sh.flush()
	}
}

func (b *Bar) onBlur(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.runSlash(sh.cur, sh.cur.sl.Dispatch(slash.Dismiss{}))
		sh.flush()
	}
}

func (b *Bar) onSendClick(ctx app.Context, e app.Event) { b.clickSubmit(ctx, input.Queue) }

func (b *Bar) onSteerClick(ctx app.Context, e app.Event) { b.clickSubmit(ctx, input.Steer) }

func (b *Bar) clickSubmit(ctx app.Context, mode input.Mode) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.submit(sh.cur, mode)
		sh.ta.Call("focus")
		sh.flush()
	}
}

// choose picks the menu option the person clicked, by its identity (slash.Choose).
func (b *Bar) choose(ctx app.Context, id string) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.runSlash(sh.cur, sh.cur.sl.Dispatch(slash.Choose{ID: id}))
		sh.ta.Call("focus")
		sh.flush()
	}
}
