package markdown

import (
	"regexp"
	"strings"
	"testing"

	"parley/components/viewtest"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/locale"
	"parley/components/internal/clipboard"
	"parley/i18n"
	md "parley/markdown"
)

var (
	space    = regexp.MustCompile(`\s+`)
	tagSpace = regexp.MustCompile(`\s*(<[^>]*>)\s*`)
	attrs    = regexp.MustCompile(` [a-z-]+(="[^"]*")?`)
	openTag  = regexp.MustCompile(`<[a-z0-9]+( [a-z-]+(="[^"]*")?)+>`)
)

// flat is HTMLString without its indentation and with each tag's attributes sorted (go-app
// keeps them in a map), so a table of expected HTML can be written on one line.
func flat(html string) string {
	html = tagSpace.ReplaceAllString(space.ReplaceAllString(html, " "), "$1")
	return openTag.ReplaceAllStringFunc(html, func(tag string) string {
		as := attrs.FindAllString(tag, -1)
		name := tag[:strings.IndexByte(tag, ' ')]
		sortStrings(as)
		return name + strings.Join(as, "") + ">"
	})
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

const ext = ` rel="noopener noreferrer" target="_blank"`

func TestRender(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"paragraphs", "a *b* **c** `d` ~~e~~\n\nnext", `<p>a<em>b</em><strong>c</strong><code>d</code><del>e</del></p></div><div class="md-block" dir="auto"><p>next</p>`},
		{"break", "a  \nb", `<p>a<br>b</p>`},
		{"headings a level down (the page title is the h1)", "# A\n### C\n###### F", `<h2 class="md-h1">A</h2><h4 class="md-h3">C</h4><h6 class="md-h6">F</h6>`},
		{"code block", "```go\nx < y\n```", `<div class="md-code" dir="ltr"><div class="md-code-bar"><span class="md-code-lang">go</span><button aria-label="Copy code" class="md-copy" type="button">Copy</button><span aria-live="polite" class="sr-only"></span></div><pre><code class="language-go">x &lt; y</code></pre></div>`},
		{"code block without language", "    x", `<pre><code>x</code></pre>`},
		{"tight list", "- a\n- b\n  1. c", `<ul><li><span>a</span></li><li><span>b</span><ol><li><span>c</span></li></ol></li></ul>`},
		{"loose list", "- a\n\n  b", `<ul><li><p>a</p><p>b</p></li></ul>`},
		{"ordered from 3", "3. a", `<ol start="3"><li><span>a</span></li></ol>`},
		{"quote", "> a\n> > b", `<blockquote><p>a</p><blockquote><p>b</p></blockquote></blockquote>`},
		{"rule", "---", `<hr>`},
		{"table", "| a | b |\n|---|--:|\n| 1 | 2 |", `<div class="md-table"><table><thead><tr><th scope="col">a</th><th scope="col" style="text-align:right">b</th></tr></thead><tbody><tr><td>1</td><td style="text-align:right">2</td></tr></tbody></table></div>`},
		{"link", "[a](https://x.y)", `<p><a href="https://x.y"` + ext + `>a</a></p>`},
		{"mailto", "<me@x.y>", `<p><a href="mailto:me@x.y"` + ext + `>me@x.y</a></p>`},
		{"image is a link", "![a cat](https://i/c.png)", `<p><a class="md-image" href="https://i/c.png"` + ext + ` title="https://i/c.png">a cat</a></p>`},
		{"image without alt", "![](https://i/c.png)", `>image</a>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, html := viewtest.Mount(t, &View{Text: tt.in})
			assert.Contains(t, flat(html), tt.want)
		})
	}
}

// TestNoRawHTML feeds markup and script vectors in; each must come out as text or a plain
// element, never as a tag, an event handler or a script URL.
func TestNoRawHTML(t *testing.T) {
	tests := []struct{ name, in, wantText string }{
		{"script", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"img onerror", `<img src=x onerror="alert(1)">`, "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;"},
		{"html block", "<div>\n<iframe src=\"https://e\">\n</div>", "&lt;iframe"},
		{"entity-encoded tag", "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"numeric entity tag", "&#60;img src=x onerror=alert(1)&#62;", "&lt;img src=x onerror=alert(1)&gt;"},
		{"javascript link", "[x](javascript:alert(1))", "<p>x</p>"},
		{"mixed case scheme", "[x](JaVaScRiPt:alert(1))", "<p>x</p>"},
		{"entity in scheme", "[x](&#106;avascript:alert(1))", "<p>x</p>"},
		{"tab in scheme", "[x](java&#9;script:alert(1))", "<p>x</p>"},
		{"data link", "[x](data:text/html;base64,PHNjcmlwdD4=)", "<p>x</p>"},
		{"file link", "[x](file:///etc/passwd)", "<p>x</p>"},
		{"relative link", "[x](/api/sessions)", "<p>x</p>"},
		{"javascript autolink", "<javascript:alert(1)>", "<p>javascript:alert(1)</p>"},
		{"javascript image", "![x](javascript:alert(1))", "<p>x</p>"},
		{"attribute breakout", `[x](https://a.b/"onmouseover="alert(1))`, `href="https://a.b/%22onmouseover=%22alert(1)"`},
		{"attribute breakout in brackets", "[x](<https://a.b/' onclick='x>)", `href="https://a.b/%27%20onclick=%27x"`},
		{"code keeps markup as text", "```html\n<script>alert(1)</script>\n```", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"language class breakout", "```\"><script>\nx\n```", `<pre><code>x</code></pre>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, html := viewtest.Mount(t, &View{Text: tt.in})
			assertSafe(t, html)
			assert.Contains(t, flat(html), tt.wantText)
		})
	}
}

var (
	tag       = regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)([^>]*)>`)
	attrName  = regexp.MustCompile(`\s([a-zA-Z-]+)=`)
	hrefValue = regexp.MustCompile(`href="([^"]*)"`)
)

// allowed are the elements the view draws; anything else in its HTML came from the text.
var allowed = map[string]bool{"div": true, "p": true, "span": true, "em": true, "strong": true, "del": true, "code": true, "pre": true, "br": true, "a": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "ul": true, "ol": true, "li": true, "blockquote": true, "hr": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "button": true}

func assertSafe(t testing.TB, html string) {
	t.Helper()
	if strings.ContainsAny(tag.ReplaceAllString(html, ""), "<>") {
		t.Fatalf("a bracket outside a tag (an attribute value broke out?) in %s", html)
	}
	for _, m := range tag.FindAllStringSubmatch(html, -1) {
		if !allowed[m[2]] {
			t.Fatalf("element <%s> in %s", m[2], html)
		}
		if strings.ContainsAny(m[3], "\\'<") {
			t.Fatalf("an attribute value that needs escaping in %s", m[0])
		}
		for _, a := range attrName.FindAllStringSubmatch(m[3], -1) {
			if strings.HasPrefix(strings.ToLower(a[1]), "on") {
				t.Fatalf("attribute %s in %s", a[1], m[0])
			}
		}
	}
	for _, m := range hrefValue.FindAllStringSubmatch(html, -1) {
		h := strings.ToLower(m[1])
		if !strings.HasPrefix(h, "https://") && !strings.HasPrefix(h, "http://") && !strings.HasPrefix(h, "mailto:") {
			t.Fatalf("href %q in %s", m[1], html)
		}
	}
}

// streamed is an answer as a model writes one: every kind of block, code with blank lines.
const streamed = "# Plan\n\nI will **read** the file, then `edit` it:\n\n1. Open `main.go`.\n\n   Read it.\n\n2. Change the *handler*.\n\n```go\nfunc main() {\n\n\tfmt.Println(\"hi\")\n}\n```\n\n> Note: see [the docs](https://go.dev/doc/).\n\n| step | time |\n|------|-----:|\n| read | 1 s |\n\n---\n\nDone, in two steps."

// host holds a message as the thread does: the text is its state, View its child.
type host struct {
	app.Compo
	text string
	ctx  app.Context
}

func (h *host) OnPreRender(ctx app.Context) { h.ctx = ctx }
func (h *host) Render() app.UI              { return app.Div().Body(&View{Text: h.text}) }

// TestStreamingRendersOnlyTheGrowingBlock streams a message in small deltas, as the socket
// delivers them, and records which Blocks render: a delta re-renders the block it lands in
// (and one it starts), never a completed block before them. The message has a loose list.
func TestStreamingRendersOnlyTheGrowingBlock(t *testing.T) {
	var renders []string
	rendered = func(s string) { renders = append(renders, s) }
	defer func() { rendered = nil }()

	h := &host{}
	e, _ := viewtest.Mount(t, h)
	require.NotNil(t, h.ctx, "OnPreRender gives the test a context")
	total, deltas := 0, 0
	for i := 0; i < len(streamed); deltas++ {
		before := len(md.Split(h.text))
		i += min(len(streamed)-i, 1+i%7)
		renders = renders[:0]
		h.ctx.Dispatch(func(app.Context) { h.text = streamed[:i] })
		e.ConsumeAll()
		after := md.Split(h.text)
		require.LessOrEqual(t, len(renders), 2, "at byte %d: %q", i, renders)
		for _, r := range renders {
			// The last block grows; the one before it changes only when a new line turns out
			// to be its list's next item ("2" becoming "2. ").
			require.GreaterOrEqualf(t, indexOf(after, r), before-2, "at byte %d a completed block re-rendered: %q", i, r)
		}
		total += len(renders)
	}
	assert.Contains(t, flat(app.HTMLString(h)), "<p>Done, in two steps.</p>")
	assert.Equal(t, "<div>"+flat(app.HTMLString(&View{Text: streamed}))+"</div>", flat(app.HTMLString(h)), "streamed, the message ends as it would have rendered whole")
	t.Logf("%d deltas, %d block renders (%d blocks)", deltas, total, len(md.Split(streamed)))
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func TestCopyButtonSaysWhatHappened(t *testing.T) {
	_, ready := viewtest.Mount(t, &CodeBlock{Code: "make run", Lang: "sh"})
	assert.Contains(t, flat(ready), `<button aria-label="Copy code" class="md-copy" type="button">Copy</button><span aria-live="polite" class="sr-only"></span>`)
	copied := flat(app.HTMLString(&CodeBlock{Code: "make run", copied: clipboard.Status{Msg: i18n.Copied}}))
	assert.Contains(t, copied, `<button aria-label="Copied" class="md-copy is-copied" type="button">Copied</button><span aria-live="polite" class="sr-only">Copied</span>`)
	assert.Contains(t, copied, `<pre><code>make run</code></pre>`)

	// In the page's locale.
	locale.Use(i18n.Chinese)
	defer locale.Use(i18n.English)
	assert.Contains(t, flat(app.HTMLString(&CodeBlock{Code: "make run"})), `<button aria-label="复制代码" class="md-copy" type="button">复制</button>`)
	assert.Contains(t, flat(app.HTMLString(&CodeBlock{Code: "make run", copied: clipboard.Status{Msg: i18n.CopyFailed}})), `>复制失败</span>`)
}

// FuzzView renders any text and checks the HTML holds only the view's own elements, no event
// handler attribute, no attribute value that breaks out, and no href but http(s) and mailto.
func FuzzView(f *testing.F) {
	for _, s := range []string{streamed, "<script>alert(1)</script>", "[x](javascript:alert(1))", `[x](https://a/"><img src=x onerror=alert(1)>)`, "```\"><svg onload=alert(1)>\nx\n```", "![\"><x](https://i)", "<img src=x onerror=alert(1)>", "| <b> |\n|-|\n| &lt;i&gt; |"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assertSafe(t, app.HTMLString(&View{Text: s}))
	})
}
