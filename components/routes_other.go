//go:build !wasm

package components

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// routeSessions routes session paths on the server, which pre-renders them.
func routeSessions(newComponent func() app.Composer) {
	app.RouteWithRegexp(sessionPattern, newComponent)
}

// OnPreRender lays out a session's address as the session's page, not the hero: the
// pre-rendered page is what a person sees while the wasm loads (docs/input.md, "The
// hand-off"), and the wasm then fills in the same layout.
func (c *Conversation) OnPreRender(ctx app.Context) {
	c.session = sessionOfPath(ctx.Page().URL().Path)
	c.thread.Title = c.titleOf(c.session)
	c.applySeed(preRenderSeed, ctx.Page().URL().Path) // its newest window, if the server read it (seed.go)
}
