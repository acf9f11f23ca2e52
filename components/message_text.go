package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/app/store"
	"parley/components/markdown"
)

// messageText draws a message's text. Only the agent's own words are Markdown: the person's
// prompt, Parley's and scripts' notices and any error text are shown exactly as written.
// While a message streams it is plain text, one text node that each token is written into
// without a go-app render (components/stream.go), which keeps typing fast during a stream;
// it turns into Markdown once, when the message is complete.
func messageText(m store.Message) app.UI {
	text := shownText(m)
	if m.Role == store.RoleAgent && m.From == "" && m.Status != store.StatusStreaming {
		return app.Div().Class("msg-text").Body(&markdown.View{Text: text})
	}
	return app.Div().Class("msg-text").Text(text)
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
