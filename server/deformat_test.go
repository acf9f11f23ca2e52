package server

import (
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
)

// TestDeformatWritesTheBodyAsTheWasmBuildsIt: go-app's indentation goes, text (its own
// newlines and spaces too) stays as it was, and an attribute holding a quote, a newline and
// markup is one HTML-escaped value.
func TestDeformatWritesTheBodyAsTheWasmBuildsIt(t *testing.T) {
	body := app.Div().Body(
		app.Div().Class("msg-text").Text("  two\n  lines  "),
		app.Div().Class("md").Body(
			app.P().Body(app.Text("run "), app.Code().Text("ls -la"), app.Text(" then\nlook")),
			app.P().Text(""),
			app.Img().Src("/x.png"),
			app.Div().Title(`he said "hi"`+"\n"+`"><img src=x onerror=alert(1)>`).Body(app.Span().Text("a & b <c>")),
		),
	)
	page := []byte(app.HTMLString(body))
	got := string(deformatAt(page, 0, 0))
	assert.Equal(t, ``+
		`<div><div class="msg-text">  two`+"\n"+`  lines  </div><div class="md"><p>run <code>ls -la</code> then`+"\n"+
		`look</p><p></p><img src="/x.png"><div title="he said &#34;hi&#34;`+"\n"+`&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"><span>a &amp; b &lt;c&gt;</span></div></div></div>`, got)

	broken := []byte("<html><body>\n  <div>oops</span>\n</body></html>")
	assert.Equal(t, string(broken), string(deformatBody(broken)), "what it cannot read is left as it is")
}
