// Package domtest parses app.HTMLString's output into a small tree that native component
// tests assert on by structure: go-app writes attributes in a map's order, so comparing
// strings would be brittle.
package domtest

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/require"
)

// Node is a parsed element of app.HTMLString's output: enough of a DOM to assert on
// structure without depending on the order go-app writes attributes in (a map's).
type Node struct {
	Tag   string
	Attrs map[string]string
	Kids  []*Node
	Text  string // a text node's text
}

var (
	tagRE    = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>]+(?:="(?:[^"\\]|\\.)*")?)*)\s*>`)
	attrRE   = regexp.MustCompile(`([^\s=]+)(="(?:[^"\\]|\\.)*")?`)
	selRE    = regexp.MustCompile(`([a-z][a-z0-9-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:=([^\]]*))?\]`)
	voidTags = map[string]bool{"input": true, "br": true, "img": true, "hr": true, "meta": true, "link": true, "source": true, "wbr": true}
)

// Render parses ui rendered by go-app.
func Render(t *testing.T, ui app.UI) *Node {
	t.Helper()
	return Parse(t, app.HTMLString(ui))
}

// Parse parses go-app HTML.
func Parse(t *testing.T, s string) *Node {
	t.Helper()
	root := &Node{Tag: "#root"}
	stack := []*Node{root}
	addText := func(txt string) {
		if txt = strings.TrimSpace(txt); txt != "" {
			top := stack[len(stack)-1]
			top.Kids = append(top.Kids, &Node{Text: html.UnescapeString(txt)})
		}
	}
	pos := 0
	for _, m := range tagRE.FindAllStringSubmatchIndex(s, -1) {
		addText(s[pos:m[0]])
		pos = m[1]
		tag := s[m[4]:m[5]]
		if m[3] > m[2] {
			if top := stack[len(stack)-1]; top.Tag != tag {
				t.Fatalf("</%s> closes <%s> in:\n%s", tag, top.Tag, s)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		n := &Node{Tag: tag, Attrs: map[string]string{}}
		for _, a := range attrRE.FindAllStringSubmatch(s[m[6]:m[7]], -1) {
			v := ""
			if a[2] != "" {
				uq, err := strconv.Unquote(a[2][1:])
				require.NoError(t, err, "attribute %s", a[0])
				v = uq
			}
			n.Attrs[a[1]] = v
		}
		top := stack[len(stack)-1]
		top.Kids = append(top.Kids, n)
		if !voidTags[tag] {
			stack = append(stack, n)
		}
	}
	addText(s[pos:])
	if len(stack) != 1 {
		t.Fatalf("<%s> is not closed in:\n%s", stack[len(stack)-1].Tag, s)
	}
	return root
}

// HasClass reports whether n has class c.
func (n *Node) HasClass(c string) bool {
	return n.Tag != "" && n.Attrs != nil && containsWord(n.Attrs["class"], c)
}

func containsWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

// matches reports whether n matches one compound selector: tag, #id, .class, [attr],
// [attr=value].
func (n *Node) Matches(sel string) bool {
	if n.Attrs == nil {
		return false
	}
	for _, m := range selRE.FindAllStringSubmatch(sel, -1) {
		switch {
		case m[1] != "":
			if n.Tag != m[1] {
				return false
			}
		case m[2] != "":
			if n.Attrs["id"] != m[2] {
				return false
			}
		case m[3] != "":
			if !n.HasClass(m[3]) {
				return false
			}
		default:
			v, ok := n.Attrs[m[4]]
			if !ok || strings.Contains(m[0], "=") && v != m[5] {
				return false
			}
		}
	}
	return true
}

// all returns the descendants matching sel, in document order.
func (n *Node) All(sel string) []*Node {
	var out []*Node
	var walk func(*Node)
	walk = func(p *Node) {
		for _, k := range p.Kids {
			if k.Matches(sel) {
				out = append(out, k)
			}
			walk(k)
		}
	}
	walk(n)
	return out
}

// One returns the only descendant matching sel, failing the test otherwise.
func (n *Node) One(t *testing.T, sel string) *Node {
	t.Helper()
	got := n.All(sel)
	if len(got) != 1 {
		t.Fatalf("%q matches %d elements, want 1", sel, len(got))
	}
	return got[0]
}

// textContent is the element's text, its text nodes joined by spaces.
func (n *Node) TextContent() string {
	if n.Attrs == nil {
		return n.Text
	}
	var parts []string
	for _, k := range n.Kids {
		if s := k.TextContent(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// flag reports whether a boolean attribute is on. go-app writes a true value bare
// (`disabled`) and a false one as the string (`disabled="false"`).
func (n *Node) Flag(name string) bool {
	v, ok := n.Attrs[name]
	return ok && (v == "" || v == "true")
}

// Texts returns each node's text content.
func Texts(ns []*Node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.TextContent())
	}
	return out
}

// ---- the container
