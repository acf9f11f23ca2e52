package components

import (
	"parley/components/internal/clipboard"
	"parley/i18n"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// CopyButton copies a message's text as it was written (the Markdown source of an agent's
// reply, a prompt as typed). The Clipboard API exists only in a secure context (https or
// localhost), so its absence is a status too.
type CopyButton struct {
	app.Compo
	Text string
	// Reachable says Tab stops at the button: only the message holding the log's tab stop
	// has its Copy in the Tab order (thread_keys.go).
	Reachable bool

	copied clipboard.Status
}

// OnMount relabels the button when the locale switches.
func (b *CopyButton) OnMount(ctx app.Context) { relabel(ctx) }

// Render draws the button; its outcome is announced, since a label change is not read out.
func (b *CopyButton) Render() app.UI {
	text, class, said := tr(i18n.Copy), "msg-action msg-copy", ""
	if b.copied.Msg != 0 {
		text, said = tr(b.copied.Msg), tr(b.copied.Msg)
	}
	if b.copied.Msg == i18n.Copied {
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

func (b *CopyButton) copy(ctx app.Context, e app.Event) { b.copied.Copy(ctx, b.Text) }
