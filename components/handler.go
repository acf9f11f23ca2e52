// Package components holds Parley's go-app views. Views are thin: they turn DOM events into
// calls on the app's wiring and render its state.
package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Routes registers the pages. The conversation root serves both the hero (no session) and a
// session, so moving between them keeps the outer frame.
func Routes() {
	app.Route("/", func() app.Composer { return &Conversation{} })
	app.Route("/approvals", func() app.Composer { return &ApprovalsPage{} })
	app.RouteWithRegexp(`^/s/[A-Za-z0-9_-]+$`, func() app.Composer { return &Conversation{} })
	app.Route("/mcp", func() app.Composer { return &MCPPage{} })
}
