package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/components/markdown"
)

// messageText draws a message's text. Only the agent's own words are Markdown: the person's
// prompt, Parley's and scripts' notices and any error text are shown exactly as written.
// While a message streams it is plain text, one text node that each token is written into
// without a go-app render (components/stream.go), which keeps typing fast during a stream;
// it turns into Markdown once, when the message is complete.
func messageText(m store.Message) app.UI {
	if m.Role == store.RoleAgent && m.From == "" && m.Status != store.StatusStreaming {
		return app.Div().Class("msg-text").Body(&markdown.View{Text: m.Text})
	}
	return app.Div().Class("msg-text").Text(m.Text)
}
