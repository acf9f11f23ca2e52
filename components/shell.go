//go:build !wasm

package components

import (
	_ "embed"
	"encoding/json"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Theme colours of the two colour schemes (web/parley.css's --bg): the manifest, the
// browser's title bar and an installed app's window use them.
const (
	themeDark  = "#0f1115"
	themeLight = "#f7f8fb"
)

// appWorkerJS is the service worker (docs/pwa.md): go-app's caching, every app route served
// from the cache when the server cannot be reached, and notifications that keep their title,
// tag and renotify. go-app fills in {{.Version}} and {{.ResourcesToCache}}.
//
//go:embed app-worker.js
var appWorkerJS string

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
		BackgroundColor: themeDark,
		// Empty: go-app's own theme-color meta has no media and would win over both below.
		ThemeColor:   "",
		LoadingLabel: "Loading Parley {progress}%",
		Icon: app.Icon{
			Default:  "/web/icon-192.png",
			Large:    "/web/icon-512.png",
			Maskable: "/web/icon-maskable-512.png", // full bleed, the mark inside the safe zone
			SVG:      "/web/icon.svg",
		},
		RawHeaders: []string{
			`<meta name="theme-color" media="(prefers-color-scheme: dark)" content="` + themeDark + `">`,
			`<meta name="theme-color" media="(prefers-color-scheme: light)" content="` + themeLight + `">`,
			// The last viewport meta wins: the on-screen keyboard resizes the page, so the
			// composer stays above it (docs/pwa.md, "Phones").
			`<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover, interactive-widget=resizes-content">`,
		},
		Styles:                []string{"/web/parley.css"},
		Scripts:               []string{"/web/early.js"},
		Version:               version,
		WasmContentLength:     wasmSize,
		ServiceWorkerTemplate: appWorkerJS,
		// The composer's chip font (tools/chipfont, 1,360 bytes): preloaded, so a chip never
		// lays out before it, and cached by the service worker. Fonts load in CORS mode.
		Fonts: []string{"/web/chip.ttf crossorigin=anonymous"},
	}
}

// Manifest is the web app manifest. go-app's has no id and one theme colour, so the server
// serves this one at /manifest.webmanifest instead.
func Manifest() []byte {
	type icon struct {
		Src     string `json:"src"`
		Type    string `json:"type"`
		Sizes   string `json:"sizes"`
		Purpose string `json:"purpose,omitempty"`
	}
	type colours struct {
		ThemeColor      string `json:"theme_color"`
		BackgroundColor string `json:"background_color"`
	}
	m := struct {
		ID              string `json:"id"`
		Name            string `json:"name"`
		ShortName       string `json:"short_name"`
		Description     string `json:"description"`
		Lang            string `json:"lang"`
		Scope           string `json:"scope"`
		StartURL        string `json:"start_url"`
		Display         string `json:"display"`
		ThemeColor      string `json:"theme_color"`
		BackgroundColor string `json:"background_color"`
		Icons           []icon `json:"icons"`
		// The dark scheme's colours (Chromium's manifest "user_preferences"); the plain
		// fields above are the light scheme's, which an installed window uses by default.
		UserPreferences map[string]colours `json:"user_preferences"`
	}{
		ID:              "/",
		Name:            "Parley",
		ShortName:       "Parley",
		Description:     "A chat for AI agents, where every decision lands in the composer.",
		Lang:            "en",
		Scope:           "/",
		StartURL:        "/",
		Display:         "standalone",
		ThemeColor:      themeLight,
		BackgroundColor: themeLight,
		Icons: []icon{
			{Src: "/web/icon-192.png", Type: "image/png", Sizes: "192x192", Purpose: "any"},
			{Src: "/web/icon-512.png", Type: "image/png", Sizes: "512x512", Purpose: "any"},
			{Src: "/web/icon-maskable-512.png", Type: "image/png", Sizes: "512x512", Purpose: "maskable"},
		},
		UserPreferences: map[string]colours{
			"color_scheme_dark": {ThemeColor: themeDark, BackgroundColor: themeDark},
		},
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // a fixed value
	}
	return b
}
