package server

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"parley/app/locale"
	"parley/components"
	"parley/i18n"
)

// The pre-rendered page is in the browser's language (Accept-Language), so a Chinese browser
// reads Chinese before the wasm takes over (docs/i18n.md, "Which locale"). go-app renders
// the page in the request's goroutine from the views, which read app/locale: one render at
// a time is told the request's locale, and the shell's lang attribute with it.
var preRender sync.Mutex

func (b *Bundle) page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l := i18n.FromBrowser(acceptLanguages(r.Header.Get("Accept-Language")))
		if q, ok := i18n.Parse(r.URL.Query().Get("lang")); ok {
			l = q // a link that names its language (?lang=zh), as the page will read it
		}
		w.Header().Add("Vary", "Accept-Language")
		preRender.Lock()
		defer preRender.Unlock()
		b.app.Lang, b.app.LoadingLabel = l.Tag(), loadingLabel(l)
		locale.PreRender(l)
		components.PreRenderSeed(seedOf(r)) // the session's newest window, if it has one (seed.go)
		defer components.PreRenderSeed(nil)
		b.app.ServeHTTP(w, r)
	})
}

// acceptLanguages lists an Accept-Language header's tags, most wanted first (q=0 refuses a
// tag); equal weights keep their order.
func acceptLanguages(header string) []string {
	type tag struct {
		name string
		q    float64
	}
	var tags []tag
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.ReplaceAll(strings.TrimSpace(params), " ", ""), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if name = strings.TrimSpace(name); name != "" && name != "*" && q > 0 {
			tags = append(tags, tag{name, q})
		}
	}
	out := make([]string, 0, len(tags))
	for len(tags) > 0 {
		best := 0
		for i, t := range tags {
			if t.q > tags[best].q {
				best = i
			}
		}
		out = append(out, tags[best].name)
		tags = append(tags[:best], tags[best+1:]...)
	}
	return out
}
