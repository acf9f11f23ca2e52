//go:build wasm

package components

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// routeSessions routes session paths in the browser. app.RouteFunc is added to go-app by
// tools/wasmpatch: RouteWithRegexp would link regexp (about 90 KB of the brotli bundle).
func routeSessions(newComponent func() app.Composer) { app.RouteFunc(isSessionPath, newComponent) }
