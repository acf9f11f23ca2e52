package components

import (
	"time"

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

	status string // "" ready, else what the last copy did ("Copied", "Copy failed")
	gen    int
}

// Render draws the button; its outcome is announced, since a label change is not read out.
func (b *CopyButton) Render() app.UI {
	text, class := "Copy", "msg-action msg-copy"
	if b.status != "" {
		text = b.status
	}
	if b.status == "Copied" {
		class += " is-copied"
	}
	return app.Button().Type("button").Class(class).
		Aria("label", "Copy message").
		OnClick(b.copy).
		Body(app.Text(text), app.Span().Class("sr-only").Aria("live", "polite").Text(b.status))
}

func (b *CopyButton) copy(ctx app.Context, e app.Event) {
	clip := app.Window().Get("navigator").Get("clipboard")
	if !clip.Truthy() {
		b.show(ctx, "Copy failed")
		return
	}
	var done, failed app.Func
	release := func() { done.Release(); failed.Release() }
	done = app.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) { b.show(ctx, "Copied") })
		release()
		return nil
	})
	failed = app.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) { b.show(ctx, "Copy failed") })
		release()
		return nil
	})
	clip.Call("writeText", b.Text).Call("then", done, failed)
}

func (b *CopyButton) show(ctx app.Context, status string) {
	b.status = status
	b.gen++
	gen := b.gen
	ctx.After(copiedFor, func(ctx app.Context) {
		if b.gen == gen {
			b.status = ""
		}
	})
}
