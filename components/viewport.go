package components

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// watchViewport keeps the composer above a phone's on-screen keyboard where the browser does
// not resize the page for it (interactive-widget=resizes-content, set in the page's
// viewport meta, does in Chromium): --parley-vh follows the visual viewport's height, and the
// layout is that tall (web/parley.css, "phone").
func watchViewport() {
	vv := app.Window().Get("visualViewport")
	if !vv.Truthy() {
		return
	}
	root := app.Window().Get("document").Get("documentElement")
	set := app.FuncOf(func(this app.Value, args []app.Value) any {
		root.Get("style").Call("setProperty", "--parley-vh", app.Window().Get("String").Invoke(vv.Get("height")).String()+"px")
		return nil
	})
	vv.Call("addEventListener", "resize", set)
	set.Invoke()
}
