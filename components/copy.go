package components

import (
	"time"

	"parley/i18n"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// copiedFor is how long a copy button says "Copied".
const copiedFor = 2 * time.Second

// CopyButton copies a message's text as it was written (the Markdown source of an agent's
// reply, a prompt as typed). The Clipboard API exists only in a secure context (https or
// localhost), so its absence is a status too.
type CopyButton struct {
	app.Compo
	Text string
	// Reachable says Tab stops at the button: only the message holding the log's tab stop
	// has its Copy in the Tab order (thread_keys.go).
	Reachable bool

	status i18n.Msg // 0 ready, else what the last copy did (Copied, CopyFailed)
	gen    int
}

// OnMount relabels the button when the locale switches.
func (b *CopyButton) OnMount(ctx app.Context) { relabel(ctx) }

// Render draws the button; its outcome is announced, since a label change is not read out.
func (b *CopyButton) Render() app.UI {
	text, class, said := tr(i18n.Copy), "msg-action msg-copy", ""
	if b.status != 0 {
		text, said = tr(b.status), tr(b.status)
	}
	if b.status == i18n.Copied {
		class += " is-copied"
	}
	tab := -1
	if b.Reachable {
		tab = 0
	}
	return app.Button().Type("button").Class(class).TabIndex(tab).
		Aria("label", tr(i18n.CopyMessage)).
		OnClick(b.copy).
		Body(app.Text(text), app.Span().Class("sr-only").Aria("live", "polite").Text(said))
}

func (b *CopyButton) copy(ctx app.Context, e app.Event) {
	clip := app.Window().Get("navigator").Get("clipboard")
	if !clip.Truthy() {
		b.show(ctx, i18n.CopyFailed)
		return
	}
	var done, failed app.Func
	release := func() { done.Release(); failed.Release() }
	done = app.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) { b.show(ctx, i18n.Copied) })
		release()
		return nil
	})
	failed = app.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) { b.show(ctx, i18n.CopyFailed) })
		release()
		return nil
	})
	clip.Call("writeText", b.Text).Call("then", done, failed)
}

func (b *CopyButton) show(ctx app.Context, status i18n.Msg) {
	b.status = status
	b.gen++
	gen := b.gen
	ctx.After(copiedFor, func(ctx app.Context) {
		if b.gen == gen {
			b.status = 0
		}
	})
}
