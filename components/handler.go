// Package components holds Parley's go-app views. Views are thin: they turn DOM events into
// calls on the app's wiring and render its state.
package components

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Routes registers the pages. The conversation root serves both the hero (no session) and a
// session, so moving between them keeps the outer frame.
func Routes() {
	app.Route("/", func() app.Composer { return &Conversation{} })
	app.Route("/approvals", func() app.Composer { return &ApprovalsPage{} })
	routeSessions(func() app.Composer { return &Conversation{} })
	app.Route("/mcp", func() app.Composer { return &MCPPage{} })
}

// sessionPattern is a session's path. The server routes it with go-app's RouteWithRegexp;
// the browser with isSessionPath, the same rule by hand, so that the wasm does not link
// regexp and the unicode tables behind it (routes_wasm.go, docs/wasm-size.md).
const sessionPattern = `^/s/[A-Za-z0-9_-]+$`

// isSessionPath reports whether path matches sessionPattern.
func isSessionPath(path string) bool {
	id, ok := strings.CutPrefix(path, "/s/")
	if !ok || id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}
