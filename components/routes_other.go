//go:build !wasm

package components

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// routeSessions routes session paths on the server, which pre-renders them.
func routeSessions(newComponent func() app.Composer) {
	app.RouteWithRegexp(sessionPattern, newComponent)
}
