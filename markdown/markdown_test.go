package markdown

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// dump writes a tree compactly: kind, its fields in brackets, its children in parentheses,
// and text quoted. p("a " em("b")) is a paragraph holding a text and an emphasis.
func dump(ns []Node) string {
	var b strings.Builder
	for i, n := range ns {
		if i > 0 {
			b.WriteByte(' ')
		}
		if n.Kind == KindText {
			fmt.Fprintf(&b, "%q", n.Text)
			continue
		}
		b.WriteString(n.Kind.String())
		var f []string
		if n.Text != "" {
			f = append(f, fmt.Sprintf("%q", n.Text))
		}
		if n.Info != "" {
			f = append(f, "info="+n.Info)
		}
		if n.URL != "" {
			f = append(f, "url="+n.URL)
		}
		if n.Level != 0 {
			f = append(f, fmt.Sprint(n.Level))
		}
		if n.Ordered {
			f = append(f, "ordered")
		}
		if n.Kind == KindList && !n.Tight {
			f = append(f, "loose")
		}
		if n.Align != AlignNone {
			f = append(f, n.Align.String())
		}
		if len(f) > 0 {
			b.WriteString("[" + strings.Join(f, " ") + "]")
		}
		if len(n.Children) > 0 {
			b.WriteString("(" + dump(n.Children) + ")")
		}
	}
	return b.String()
}

func TestParse(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"paragraph", "hello", `paragraph("hello")`},
		{"soft break", "a\nb", `paragraph("a\nb")`},
		{"hard break", "a  \nb\\\nc", `paragraph("a" break "b" break "c")`},
		{"emphasis", "*a* _b_ **c** __d__ ***e***", `paragraph(emph("a") " " emph("b") " " strong("c") " " strong("d") " " emph(strong("e")))`},
		{"nested emphasis", "*a **b** c*", `paragraph(emph("a " strong("b") " c"))`},
		{"snake_case stays", "snake_case_word and 2*3*4", `paragraph("snake_case_word and 2" emph("3") "4")`},
		{"unclosed", "**a *b", `paragraph("**a *b")`},
		{"strike", "~~a~~ ~b~", `paragraph(strike("a") " ~b~")`},
		{"code span", "`a*b*` ``x ` y`` ` `", "paragraph(code[\"a*b*\"] \" \" code[\"x ` y\"] \" \" code[\" \"])"},
		{"unclosed code", "`a", "paragraph(\"`a\")"},
		{"escapes", `\*a\* \<b\> \\`, `paragraph("*a* <b> \\")`},
		{"entities", "&amp; &lt;b&gt; &#65;&#x42; &bogus; &#0;", "paragraph(\"& <b> AB &bogus; \uFFFD\")"},
		{"atx", "# One\n###### Six ##\n####### seven", `heading[1]("One") heading[6]("Six") paragraph("####### seven")`},
		{"setext", "Title\n===\nSub\n---", `heading[1]("Title") heading[2]("Sub")`},
		{"rule", "a\n\n***\n- - -", `paragraph("a") rule rule`},
		{"fence", "```go\nx := 1\n\n```\nafter", `code-block["x := 1\n" info=go] paragraph("after")`},
		{"unclosed fence", "~~~\ncode", `code-block["code"]`},
		// QA round 21: a Makefile's recipe tab came out as four spaces.
		{"a fence keeps its tabs", "```make\nall:\n\tgo build\n```\n\tindented", `code-block["all:\n\tgo build" info=make] code-block["indented"]`},
		{"fence info with backtick is prose", "```a`b\nx", "paragraph(\"```a`b\\nx\")"},
		{"indented code", "    a\n\n    b\nc", `code-block["a\n\nb"] paragraph("c")`},
		{"quote", "> a\nlazy\n> > b", `quote(paragraph("a\nlazy") quote(paragraph("b")))`},
		{"bullets", "- a\n- b\n  - c\n* d", `list(item(paragraph("a")) item(paragraph("b") list(item(paragraph("c"))))) list(item(paragraph("d")))`},
		{"ordered", "3. a\n4) b", `list[3 ordered](item(paragraph("a"))) list[4 ordered](item(paragraph("b")))`},
		{"loose", "- a\n\n- b", `list[loose](item(paragraph("a")) item(paragraph("b")))`},
		{"item with code", "1. run\n\n   ```sh\n   make\n   ```", `list[1 ordered loose](item(paragraph("run") code-block["make" info=sh]))`},
		{"numbers are prose", "in\n1990. we", `paragraph("in\n1990. we")`},
		{"table", "| a | b |\n|:-|-:|\n| 1 | 2 \\| 3 |\n| x |", `table(row(cell[left]("a") cell[right]("b")) row(cell[left]("1") cell[right]("2 | 3")) row(cell[left]("x") cell[right]))`},
		{"no table without delimiter", "a | b\nc | d", `paragraph("a | b\nc | d")`},
		{"link", `[a *b*](https://x.y/p?q=1 "t")`, `paragraph(link[url=https://x.y/p?q=1]("a " emph("b")))`},
		{"link in brackets", "[a](<https://x.y/a b>)", `paragraph(link[url=https://x.y/a%20b]("a"))`},
		{"link parens", "[a](https://x.y/f(1))", `paragraph(link[url=https://x.y/f(1)]("a"))`},
		{"no nested links", "[a [b](https://y)](https://x)", `paragraph(link[url=https://x]("a [b](https://y)"))`},
		{"mailto", "[m](mailto:a@b.c) <a@b.c>", `paragraph(link[url=mailto:a@b.c]("m") " " link[url=mailto:a@b.c]("a@b.c"))`},
		{"autolink", "<https://a.b/c>", `paragraph(link[url=https://a.b/c]("https://a.b/c"))`},
		{"bare url", "see https://a.b/c). or (http://x.y/(z))", `paragraph("see " link[url=https://a.b/c]("https://a.b/c") "). or (" link[url=http://x.y/(z)]("http://x.y/(z)") ")")`},
		{"image", "![a *cat*](https://i/c.png)", `paragraph(image["a cat" url=https://i/c.png])`},
		{"reference links are text", "[a][b]\n\n[b]: https://x", `paragraph("[a][b]") paragraph("[b]: " link[url=https://x]("https://x"))`},
		{"html is text", "<b>x</b> <script>alert(1)</script>", `paragraph("<b>x</b> <script>alert(1)</script>")`},
		{"html block is text", "<div onclick=\"x\">\n\nhi</div>", `paragraph("<div onclick=\"x\">") paragraph("hi</div>")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dump(Parse(tt.in)); got != tt.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnsafeLinksLoseTheirURL(t *testing.T) {
	for _, in := range []string{
		"[x](javascript:alert(1))",
		"[x](JaVaScRiPt:alert(1))",
		"[x](&#106;avascript:alert(1))",
		"[x](&#x6A;avascript:alert(1))",
		"[x](java&#9;script:alert(1))",
		"[x](java\\\tscript:alert(1))",
		"[x](%6Aavascript:alert(1))",
		"[x](data:text/html,<script>alert(1)</script>)",
		"[x](file:///etc/passwd)",
		"[x](vbscript:msgbox)",
		"[x](//evil.example/)",
		"[x](/api/sessions)",
		"[x](http:)",
		"[x](https:&#10;//a)",
		"<javascript:alert(1)>",
		"<JAVASCRIPT:alert(1)>",
		"![x](javascript:alert(1))",
		"![x](data:image/png;base64,AAAA)",
	} {
		var walk func([]Node)
		walk = func(ns []Node) {
			for _, n := range ns {
				if n.URL != "" {
					t.Errorf("%q: kept the URL %q", in, n.URL)
				}
				walk(n.Children)
			}
		}
		walk(Parse(in))
	}
}

func TestSafeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.b":    "https://a.b",
		"HTTP://A.B":     "HTTP://A.B",
		"mailto:a@b.c":   "mailto:a@b.c",
		"https://":       "",
		"https://a\nb":   "",
		" https://a.b":   "",
		"javascript:x":   "",
		"httpsx://a.b":   "",
		"ftp://a.b":      "",
		"https://a\x7fb": "",
	} {
		if got := safeURL(in); got != want {
			t.Errorf("safeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"paragraphs", "a\nb\n\nc\n\n\n", []string{"a\nb", "c"}},
		{"fence keeps its blank lines", "```\na\n\nb\n```\n\nc", []string{"```\na\n\nb\n```", "c"}},
		{"unclosed fence", "```\na\n\nb", []string{"```\na\n\nb"}},
		{"indented lines and the next item continue", "- a\n\n  b\n\n- c\n\nd", []string{"- a\n\n  b\n\n- c", "d"}},
		{"another kind of list is cut", "- a\n\n* b\n\n1. c\n\n2) d", []string{"- a", "* b", "1. c", "2) d"}},
		{"a rule is cut", "* a\n\n* * *", []string{"* a", "* * *"}},
		{"tab continues", "- a\n\n\tb", []string{"- a\n\n\tb"}},
		{"no blank, no cut", "# h\ntext", []string{"# h\ntext"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.in)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("Split(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplitParsesAsTheWhole holds Split's promise on a message of every kind of block: the
// chunks parsed one by one are the whole text parsed at once.
func TestSplitParsesAsTheWhole(t *testing.T) {
	for _, in := range []string{streamed, "- a\n- b\n\nx\n\n> q\n\n| a |\n|---|\n| 1 |\n\n---\n\n    code\n\n1. one\n\n   two\n2. three"} {
		var parts []Node
		for _, c := range Split(in) {
			parts = append(parts, Parse(c)...)
		}
		if got, want := dump(parts), dump(Parse(in)); got != want {
			t.Errorf("split then parsed\n got %s\nwant %s", got, want)
		}
	}
}

// streamed is an answer as a model writes one.
const streamed = "# Plan\n\nI will **read** the file, then `edit` it:\n\n1. Open `main.go`.\n2. Change the *handler*.\n\n```go\nfunc main() {\n\n\tfmt.Println(\"hi\")\n}\n```\n\n> Note: see [the docs](https://go.dev/doc/).\n\n| step | time |\n|------|-----:|\n| read | 1 s |\n\nDone."

// TestSplitIsStableAsTextGrows streams a message byte by byte: a chunk that is neither of the
// last two before a delta is unchanged after it.
func TestSplitIsStableAsTextGrows(t *testing.T) {
	prev := Split("")
	for i := 1; i <= len(streamed); i++ {
		next := Split(streamed[:i])
		for k := 0; k < len(prev)-2; k++ {
			if k >= len(next) || next[k] != prev[k] {
				t.Fatalf("at byte %d chunk %d changed: %q", i, k, prev[k])
			}
		}
		prev = next
	}
}

func TestStreamCut(t *testing.T) {
	tests := []struct {
		name, in string
		want     int
	}{
		{"empty", "", 0},
		{"one paragraph", "Hello from ", 0},
		{"a paragraph ended by a blank line is done", "a\nb\n\n", 5},
		{"a paragraph's line ended, no blank line yet", "a\nb\n", 0},
		{"a list stays open past a blank line", "- a\n\n", 0},
		{"a fence's blank line ends nothing", "```\na\n\n", 0},
		{"the next begun", "a\nb\n\nc", 5},
		{"leading blank lines are no chunk", "\n\nc", 0},
		{"a fence's blank lines", "```\na\n\nb", 0},
		{"after a closed fence", "```\na\n```\n\nnext", 11},
		{"a list's next item stays in it", "- a\n\n- b", 0},
		{"the third chunk", "a\n\nb\n\nc", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StreamCut(tt.in); got != tt.want {
				t.Errorf("StreamCut(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

// TestStreamCutAsTextGrows streams a message byte by byte and holds what a view relies on:
// text[:cut] is Split's chunks but the last, and the rest is the last chunk; and a cut that
// stays put means an unchanged prefix (so the view's Markdown need not be drawn again).
func TestStreamCutAsTextGrows(t *testing.T) {
	for _, msg := range []string{streamed, "1. a\n\n2\n\n3. c\n\nend"} {
		for i := 0; i <= len(msg); i++ {
			checkStreamCut(t, msg[:i])
		}
	}
}

func checkStreamCut(t *testing.T, text string) {
	t.Helper()
	cut := StreamCut(text)
	whole := Split(text)
	if cut == len(text) && len(whole) > 0 {
		// The last chunk is done (a blank line ended it): the cut is past it.
		if !strings.HasSuffix(strings.TrimRight(text, " \t\r"), "\n") {
			t.Fatalf("StreamCut(%q) = the whole text, which does not end in a blank line", text)
		}
		return
	}
	if len(whole) <= 1 {
		if cut != 0 {
			t.Fatalf("StreamCut(%q) = %d for one chunk", text, cut)
		}
		return
	}
	if got, want := fmt.Sprintf("%q", Split(text[:cut])), fmt.Sprintf("%q", whole[:len(whole)-1]); got != want {
		t.Fatalf("StreamCut(%q) = %d: the prefix splits into %s, want %s", text, cut, got, want)
	}
	if got, want := trimBlankLines(text[cut:]), whole[len(whole)-1]; got != want {
		t.Fatalf("StreamCut(%q) = %d: the rest is %q, want the last chunk %q", text, cut, got, want)
	}
}

func FuzzStreamCut(f *testing.F) {
	f.Add(streamed)
	f.Add("1. a\n\n2\n\n3. c")
	f.Fuzz(func(t *testing.T, text string) { checkStreamCut(t, text) })
}

// checkStreamCutFrom streams text in the pieces steps cuts it into (each step a length in
// bytes, 1 to 16) and holds that each call resumed from the last call's resume gives the cut
// a scan of the whole text gives, and resumes at a cut of that whole text.
func checkStreamCutFrom(t *testing.T, text string, steps []byte) {
	t.Helper()
	resume := 0
	for i, n := 0, 0; n < len(text); i++ {
		step := 1
		if len(steps) > 0 {
			step = int(steps[i%len(steps)])%16 + 1
		}
		n = min(n+step, len(text))
		grown := text[:n]
		cut, next := StreamCutFrom(grown, resume)
		if want := StreamCut(grown); cut != want {
			t.Fatalf("StreamCutFrom(%q, %d) = %d, want %d as a whole scan gives", grown, resume, cut, want)
		}
		if next < resume || next > n {
			t.Fatalf("StreamCutFrom(%q, %d) resumes at %d, before the last resume or past the text", grown, resume, next)
		}
		if next > 0 {
			if got, want := fmt.Sprintf("%q", Split(grown[:next])), fmt.Sprintf("%q", Split(grown)[:len(Split(grown[:next]))]); got != want {
				t.Fatalf("StreamCutFrom(%q, %d) resumes at %d, not a cut: %s against %s", grown, resume, next, got, want)
			}
		}
		resume = next
	}
}

func TestStreamCutFromAsTextGrows(t *testing.T) {
	// "2" turning into "2. b" folds a chunk back into the list before it.
	for _, msg := range []string{streamed, "1. a\n\n2\n\n3. c\n\nend", "1. a\n\n2. b\n\nend"} {
		for _, steps := range [][]byte{nil, {2}, {6, 0, 14, 3}} {
			checkStreamCutFrom(t, msg, steps)
		}
	}
	checkStreamCutFrom(t, long, []byte{15, 9, 12})
}

func FuzzStreamCutFrom(f *testing.F) {
	f.Add(streamed, []byte{3, 1, 4})
	f.Add("1. a\n\n2\n\n3. c", []byte{0})
	f.Add("a\n\n1\n\n1. b\n\nc", []byte{5})
	f.Add("- a\n\n- b", []byte{0})
	f.Fuzz(func(t *testing.T, text string, steps []byte) { checkStreamCutFrom(t, text, steps) })
}

// BenchmarkStreamCutFrom is BenchmarkStreamCut as paintStream pays it: resumed from the
// chunk before the last, as a token lands on a long answer.
func BenchmarkStreamCutFrom(b *testing.B) {
	_, resume := StreamCutFrom(long, 0)
	b.ReportAllocs()
	for b.Loop() {
		StreamCutFrom(long, resume)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{streamed, "*a **b", "[x](javascript:1)", "<a@b.c>", "> - ```\n>\n", "|a|\n|-|\n", "&#x110000;", "\t- a\n\t\t- b", "[![a](https://i)](https://l)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns := Parse(s)
		var walk func([]Node, int)
		walk = func(ns []Node, depth int) {
			if depth > 3*maxDepth+8 {
				t.Fatalf("nested %d deep", depth)
			}
			for _, n := range ns {
				if n.URL != "" && safeURL(n.URL) != n.URL {
					t.Fatalf("unsafe URL %q", n.URL)
				}
				if codeLang(n.Info) != n.Info {
					t.Fatalf("code language %q is not a plain word", n.Info)
				}
				if !utf8.ValidString(n.Text) && utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 from valid input: %q", n.Text)
				}
				walk(n.Children, depth+1)
			}
		}
		walk(ns, 0)
		// Split's promise: the chunks parsed one by one are the whole text parsed at once.
		var parts []Node
		for _, c := range Split(s) {
			if c == "" || !strings.Contains(s, c) {
				t.Fatalf("chunk %q is not in the text", c)
			}
			parts = append(parts, Parse(c)...)
		}
		if got, want := dump(parts), dump(Parse(trimBlankLines(s))); got != want {
			t.Fatalf("split then parsed\n got %s\nwant %s", got, want)
		}
	})
}

// long is a long answer: the streamed one forty times over, about 14 KB.
var long = strings.Repeat(streamed+"\n\n", 40)

// BenchmarkParse is the cost of parsing a whole long answer at once.
func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(long)))
	for b.Loop() {
		Parse(long)
	}
}

// BenchmarkParseChunks is what the view does on a first render: parse each chunk on its own.
// A streaming delta costs one chunk of these.
func BenchmarkParseChunks(b *testing.B) {
	chunks := Split(long)
	b.SetBytes(int64(len(long)))
	b.ReportMetric(float64(len(chunks)), "chunks")
	for b.Loop() {
		for _, c := range chunks {
			Parse(c)
		}
	}
}

// BenchmarkSplit is the rest of a delta's cost: cutting the whole long text into chunks.
func BenchmarkSplit(b *testing.B) {
	b.SetBytes(int64(len(long)))
	for b.Loop() {
		Split(long)
	}
}

// BenchmarkStreamCut is what a streamed token costs the thread besides writing the tail: the
// cut of the whole long text (components/stream.go's paintStream), with no allocation.
func BenchmarkStreamCut(b *testing.B) {
	b.SetBytes(int64(len(long)))
	b.ReportAllocs()
	for b.Loop() {
		StreamCut(long)
	}
}
