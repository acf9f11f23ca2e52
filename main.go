// Parley is a web chat for AI agents whose composer is the one place where every user
// decision lands. This package is both sides of the program: in the browser (GOOS=js) it
// runs the go-app views; natively, server.go reads the flags, takes the data folder and
// starts the runtime and package server, which serves the views, the API and the socket.
package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/components"
)

// Routes live in init, not main: `go test` never runs main, and a handler without routes
// answers 404.
func init() {
	components.Routes()
}

func main() {
	app.RunWhenOnBrowser() // never returns in the browser
	serve()
}
