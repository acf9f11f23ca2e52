//go:build !wasm

package components

import "parley/protocol"

// preRenderSeed is the seed of the page being pre-rendered: the server renders one page at a
// time (server/prerender_locale.go), and sets it for that render.
var preRenderSeed *protocol.Seed

// PreRenderSeed sets the seed the next pre-render shows (nil for none).
func PreRenderSeed(seed *protocol.Seed) { preRenderSeed = seed }

// pageSeed is nil outside the browser: the pre-render takes its seed in OnPreRender.
func pageSeed() *protocol.Seed { return nil }
