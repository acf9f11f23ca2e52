package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/components/markdown"
)

// messageText draws a message's text. Only the agent's own words are Markdown: the person's
// prompt, Parley's and scripts' notices and any error text are shown exactly as written.
func messageText(m store.Message) app.UI {
	if m.Role == store.RoleAgent && m.From == "" {
		return app.Div().Class("msg-text").Body(&markdown.View{Text: m.Text})
	}
	return app.Div().Class("msg-text").Text(m.Text)
}
