package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/app/store"
	"parley/components/markdown"
	"parley/i18n"
	"parley/machine/excerpt"
	md "parley/markdown"
)

// text draws the message's text: a long prompt folded (longText), else messageText.
func (m *MessageItem) text() app.UI {
	if m.Message.Role == store.RoleUser {
		text := shownText(m.Message)
		if head, folded := excerpt.Head(text); folded {
			return m.longText(text, head)
		}
	}
	return messageText(m.Message)
}

// messageText draws a message's text. Only the agent's own words are Markdown: the person's
// prompt, Parley's and scripts' notices and any error text are shown exactly as written.
//
// While the agent's message streams, its finished chunks are Markdown and the chunk still
// growing is its tail: one text node that each token is written into without a go-app
// render (components/stream.go), which keeps typing fast during a stream. The Markdown is
// drawn again only when a chunk finishes, about once a paragraph (md.StreamCut), and the
// tail turns into Markdown when the message is complete.
func messageText(m store.Message) app.UI {
	text := shownText(m)
	// dir="auto" (QA round 12 #13): Arabic or Hebrew words are laid out right to left, each
	// text by its first strong character; the page's chrome around it stays left to right.
	// Markdown is directed block by block (components/markdown), and the container by what
	// is outside a block: a stream's growing tail.
	if m.Role == store.RoleUser {
		return promptText(text)
	}
	if m.Role != store.RoleAgent || m.From != "" {
		return app.Div().Class("msg-text").Attr("dir", "auto").Text(text)
	}
	if m.Status != store.StatusStreaming {
		return app.Div().Class("msg-text").Attr("dir", "auto").Body(&markdown.View{Text: text})
	}
	cut, resume := md.StreamCutFrom(text, 0)
	tail := text[cut:]
	shape := md.ShapeTail(tail)
	settled := cut + shape.Settled
	return app.Div().Class("msg-text").Attr("dir", "auto").Body(
		app.If(settled > 0, func() app.UI { return &markdown.View{Text: text[:settled]} }),
		streamTail(cut, resume, shape, tail[shape.Body:shape.End]),
	)
}

// longText draws a person's prompt too long to show whole (QA round 12 #15: a 100 KB paste
// was drawn whole): its first lines (excerpt.Head) and a toggle for the rest, as a command
// shows its first line and its code on request. Folded, the page holds only the head, so a
// long paste costs the thread's layout nothing. Copy still copies it all.
func (m *MessageItem) longText(text, head string) app.UI {
	label := tr(i18n.ShowLess)
	if !m.showAll {
		text, label = head+"…", tr(i18n.ShowAll)
	}
	return app.Div().Class("msg-text").Attr("dir", "auto").Body(
		app.Span().Text(text),
		foldToggle("msg-toggle", label, &m.showAll),
	)
}

// foldToggle is the button under a folded text (a command's code, a long prompt): its label
// says what a press does, aria-expanded whether the text is open; a press flips *open.
func foldToggle(class, label string, open *bool) app.UI {
	return app.Button().Type("button").Class("link-button "+class).
		Aria("expanded", boolText(*open)).
		Text(label).
		OnClick(func(ctx app.Context, e app.Event) { *open = !*open })
}

// streamTail is a streaming message's growing chunk, as text; data-cut says where it begins,
// so paintStream can tell whether a token only lengthened it, data-resume where its scan
// for the cut may start (md.StreamCutFrom), so a token costs a scan of the last chunks only,
// and data-shape how the chunk is drawn (md.TailShape): a code block still open is drawn as
// one, and its lines are written into its code.
func streamTail(cut, resume int, shape md.TailShape, text string) app.UI {
	tag, class := "span", tailClass
	if shape.Code {
		tag = "code"
		if shape.Lang != "" {
			class += " language-" + shape.Lang
		}
	}
	tail := app.Elem(tag).Class(class).DataSet("cut", cut).DataSet("resume", resume).DataSet("shape", shape.Key()).Text(text)
	if !shape.Code {
		return tail
	}
	return &markdown.CodeBlock{Lang: shape.Lang, Growing: tail}
}

// shownText is a message's text as the page shows (and copies) it: Parley's fixed words in
// the page's locale, by their phrase; anything else exactly as it was written.
func shownText(m store.Message) string {
	if m.Phrase != nil {
		if text, ok := locale.Current().Phrase(m.Phrase.Code, m.Phrase.Args); ok {
			return text
		}
	}
	return m.Text
}
