package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"

	"parley/i18n"
)

// The loading label ("Loading Parley 42%") in the page's locale (docs/i18n.md, "Which
// locale"). go-app writes it twice: into the pre-rendered page, which is in the request's
// Accept-Language (page sets the label with the lang), and as a constant of its app.js, the
// one script every page loads and the service worker caches for all of them, whatever their
// language. So app.js is not served per language: its constant is rewritten to pick the
// label by the page's own lang attribute as it runs, from every locale's label.
var loadingLabels = [...]string{i18n.English: "Loading Parley {progress}%", i18n.Chinese: "正在加载 Parley {progress}%"}

// loadingLabel is the loading label in l.
func loadingLabel(l i18n.Locale) string {
	if int(l) < 0 || int(l) >= len(loadingLabels) {
		l = i18n.English
	}
	return loadingLabels[l]
}

// labelConst is app.js's constant, as go-app writes it.
var labelConst = regexp.MustCompile(`const goappLoadingLabel = "[^"\n]*";`)

// labelByLang is the constant that replaces it: the label of the page's lang, else English.
func labelByLang() []byte {
	byTag := map[string]string{}
	for _, l := range i18n.All {
		byTag[l.Tag()] = loadingLabel(l)
	}
	table, _ := json.Marshal(byTag)
	en, _ := json.Marshal(loadingLabel(i18n.English))
	return []byte("const goappLoadingLabel = " + string(table) + "[document.documentElement.lang] || " + string(en) + ";")
}

// appJS serves go-app's app.js with its loading label picked by the page's lang.
func (b *Bundle) appJS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &bodyRecorder{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		body := rec.body.Bytes()
		if rec.status == http.StatusOK {
			body = labelConst.ReplaceAll(body, labelByLang())
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.status)
		_, _ = w.Write(body)
	})
}

// bodyRecorder holds an answer back until it is whole.
type bodyRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bodyRecorder) Header() http.Header         { return b.header }
func (b *bodyRecorder) WriteHeader(status int)      { b.status = status }
func (b *bodyRecorder) Write(p []byte) (int, error) { return b.body.Write(p) }
