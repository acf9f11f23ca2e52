//go:build !wasm

package components

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// Handler describes the app shell: the page, its manifest and its service worker.
// version must change with the wasm; wasmSize is app.wasm's uncompressed length, which the
// loader's progress counts against even when the bytes arrive compressed.
func Handler(version, wasmSize string) *app.Handler {
	return &app.Handler{
		Name:            "Parley",
		ShortName:       "Parley",
		Title:           "Parley",
		Description:     "A chat for AI agents, where every decision lands in the composer.",
		Lang:            "en",
		BackgroundColor: "#0f1115",
		ThemeColor:      "#0f1115",
		LoadingLabel:    "Loading Parley {progress}%",
		Icon: app.Icon{
			Default:  "/web/icon-192.png",
			Large:    "/web/icon-512.png",
			Maskable: "/web/icon-maskable-512.png", // full bleed, the mark inside the safe zone
			SVG:      "/web/icon.svg",
		},
		Styles:            []string{"/web/parley.css"},
		Scripts:           []string{"/web/early.js"},
		Version:           version,
		WasmContentLength: wasmSize,
		// The composer's chip font (tools/chipfont, 740 bytes): preloaded, so a chip never
		// lays out before it, and cached by the service worker. Fonts load in CORS mode.
		Fonts: []string{"/web/chip.ttf crossorigin=anonymous"},
	}
}
