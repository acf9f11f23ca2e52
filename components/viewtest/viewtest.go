// Package viewtest mounts components on go-app's test engine for the components' native
// tests: what a view renders for a given state, without a browser.
package viewtest

import (
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/require"
)

// Mount loads c on a new test engine, runs what it dispatched, and returns the engine (to
// drive it further) with c's HTML.
func Mount(t testing.TB, c app.Composer) (app.TestEngine, string) {
	t.Helper()
	e := app.NewTestEngine()
	require.NoError(t, e.Load(c))
	e.ConsumeAll()
	return e, app.HTMLString(c)
}

// Render is c's HTML once mounted.
func Render(t testing.TB, c app.Composer) string {
	t.Helper()
	_, html := Mount(t, c)
	return html
}
