//go:build wasm

package components

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/protocol"
)

// pageSeed reads the page's seed, once: the element goes, so a later visit to the session
// (within this page) follows the socket as any other.
func pageSeed() *protocol.Seed {
	el := app.Window().GetElementByID(SeedElementID)
	if !el.Truthy() {
		return nil
	}
	text := el.Get("textContent").String()
	el.Call("remove")
	var seed protocol.Seed
	if err := json.Unmarshal([]byte(text), &seed); err != nil {
		return nil // the socket sends the window, as without a seed
	}
	return &seed
}
