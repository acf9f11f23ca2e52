package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheLoadingLabelSpeaksThePagesLanguage: the pre-rendered page's loading label is in the
// request's Accept-Language, and app.js (one for every page, cached by the service worker)
// picks the label by the page's lang as it runs, holding every locale's, English the default.
func TestTheLoadingLabelSpeaksThePagesLanguage(t *testing.T) {
	ts, _ := testServer(t)
	page := func(lang string) string {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/", nil)
		req.Header.Set("Accept-Language", lang)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	zh, en := page("zh-CN,zh;q=0.9"), page("en-US")
	assert.Contains(t, zh, "正在加载 Parley 0%")
	assert.NotContains(t, zh, "Loading Parley")
	assert.Contains(t, en, "Loading Parley 0%")
	assert.NotContains(t, en, "正在加载")

	resp, js := request(t, http.MethodGet, ts.URL+"/app.js", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(js), `const goappLoadingLabel = {"en":"Loading Parley {progress}%","zh-Hans":"正在加载 Parley {progress}%"}[document.documentElement.lang] || "Loading Parley {progress}%";`)
	assert.Equal(t, 1, strings.Count(string(js), "goappLoadingLabel = "), "the one constant, rewritten")
	assert.Contains(t, string(js), `goappLoadingLabel.replace("{progress}", progress)`, "the loader still formats it")
}
