// Package clipboard copies text for the copy buttons (a message's, a code block's) and keeps
// what the last copy did, for the button to say.
package clipboard

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/i18n"
)

// shownFor is how long a button says what its copy did.
const shownFor = 2 * time.Second

// Status is a copy button's state; its zero value is ready.
type Status struct {
	// Msg is 0 when ready, else what the last copy did (i18n.Copied, i18n.CopyFailed).
	Msg i18n.Msg
	gen int // which copy a reset belongs to, so an old timer does not clear a new status
}

// Copy writes text to the clipboard, and s says how it went. The Clipboard API exists only
// in a secure context (https or localhost), so its absence is a status too.
func (s *Status) Copy(ctx app.Context, text string) {
	clip := app.Window().Get("navigator").Get("clipboard")
	if !clip.Truthy() {
		s.show(ctx, i18n.CopyFailed)
		return
	}
	var done, failed app.Func
	release := func() { done.Release(); failed.Release() }
	done = app.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) { s.show(ctx, i18n.Copied) })
		release()
		return nil
	})
	failed = app.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) { s.show(ctx, i18n.CopyFailed) })
		release()
		return nil
	})
	clip.Call("writeText", text).Call("then", done, failed)
}

func (s *Status) show(ctx app.Context, msg i18n.Msg) {
	s.Msg = msg
	s.gen++
	gen := s.gen
	ctx.After(shownFor, func(ctx app.Context) {
		if s.gen == gen {
			s.Msg = 0
		}
	})
}
