package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/components/inputbar"
)

// actionCloseMenu says the session list was used: close it.
const actionCloseMenu = "parley.close-menu"

// Composer is the input area under the thread: the queued prompts and the input bar. (The
// lead moves the bar into the composer container's conversation.composer.bar slot and the
// dock into conversation.input.dock.)
type Composer struct {
	app.Compo
	Session     string
	Placeholder string
	Disabled    bool // nothing can be sent from here (no access, no such session)
	Working     bool // a turn runs: Enter queues, Alt+Enter steers
	Queued      []store.Message
}

// Render draws the dock above the bar.
func (c *Composer) Render() app.UI {
	return app.Div().Class("composer").Body(
		&inputbar.QueueDock{Queued: c.Queued},
		&inputbar.Bar{Session: c.Session, Disabled: c.Disabled, Working: c.Working, Placeholder: c.Placeholder},
	)
}
