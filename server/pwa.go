package server

import (
	"net/http"

	"parley/components"
)

// manifest is the web app manifest (components.Manifest): go-app's own has no id.
var manifest = components.Manifest()

func serveManifest(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/manifest+json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(manifest)
}
