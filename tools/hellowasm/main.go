// Command hellowasm is the first render's floor (make bench, BenchmarkFirstRenderFloor): the
// smallest go-app program, built with Parley's toolchain and served by Parley's own server in
// place of Parley's bundle, so what Parley's first render costs beyond it is Parley's.
package main

import "github.com/maxence-charriere/go-app/v10/pkg/app"

type hello struct{ app.Compo }

func (h *hello) Render() app.UI { return app.H1().Text("Hello, world") }

// OnMount marks the render as Parley's page does, so one probe reads both.
func (h *hello) OnMount(app.Context) {
	app.Window().Get("performance").Call("mark", "parley-ready")
	app.Window().Get("document").Get("documentElement").Call("setAttribute", "data-ready", "")
}

func main() {
	app.Route("/", func() app.Composer { return &hello{} })
	app.RouteWithRegexp(".*", func() app.Composer { return &hello{} })
	app.RunWhenOnBrowser()
}
