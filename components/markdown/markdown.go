// Package markdown draws the agent's Markdown as go-app elements. Parsing is parley/markdown's
// (pure, no raw HTML); this package only maps its nodes to elements, and every piece of text
// reaches the page as a text node, never through innerHTML.
//
// A message re-renders as it streams. View cuts it into top-level chunks and gives each to a
// Block component whose only prop is the chunk's source: go-app skips a component whose props
// are unchanged, so a delta re-parses and re-renders only the chunk it lands in, the last one.
package markdown

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/components/internal/clipboard"
	"parley/i18n"
	md "parley/markdown"
)

// View is a Markdown text, drawn block by block.
type View struct {
	app.Compo
	Text string
}

// Render cuts the text into chunks; it parses none of them (the Blocks do, when changed).
func (v *View) Render() app.UI {
	chunks := md.Split(v.Text)
	return app.Div().Class("md").Body(
		app.Range(chunks).Slice(func(i int) app.UI { return &Block{Source: chunks[i]} }),
	)
}

// Block is one top-level chunk of a text.
type Block struct {
	app.Compo
	Source string
}

// rendered, when set, hears of each Block render: tests use it to see which blocks re-render.
var rendered func(source string)

// Render parses the chunk and draws it.
func (b *Block) Render() app.UI {
	if rendered != nil {
		rendered(b.Source)
	}
	// Each block takes its direction from its own first strong character (QA round 12 #13):
	// an Arabic paragraph right to left beside an English one.
	return app.Div().Class("md-block").Attr("dir", "auto").Body(blocks(md.Parse(b.Source), false)...)
}

// Elements go-app has a type for but the rest of Parley does not use are made with app.Elem:
// each typed element links its whole generated method set, and the seventeen this view
// needs cost 52 KB of brotli that way (docs/markdown.md).

func blocks(ns []md.Node, tight bool) []app.UI {
	out := make([]app.UI, 0, len(ns))
	for _, n := range ns {
		out = append(out, block(n, tight))
	}
	return out
}

// block draws a block node. In a tight list an item's paragraphs are bare inlines, as
// CommonMark renders them, so the list keeps no paragraph spacing.
func block(n md.Node, tight bool) app.UI {
	switch n.Kind {
	case md.KindParagraph:
		if tight {
			return app.Span().Body(inlines(n.Children)...)
		}
		return app.Elem("p").Body(inlines(n.Children)...)
	case md.KindHeading:
		return heading(n.Level, inlines(n.Children))
	case md.KindCodeBlock:
		return &CodeBlock{Code: n.Text, Lang: n.Info}
	case md.KindQuote:
		return app.Elem("blockquote").Body(blocks(n.Children, false)...)
	case md.KindList:
		items := make([]app.UI, 0, len(n.Children))
		for _, it := range n.Children {
			items = append(items, app.Elem("li").Body(blocks(it.Children, n.Tight)...))
		}
		if n.Ordered {
			ol := app.Elem("ol")
			if n.Level != 1 {
				ol = ol.Attr("start", n.Level)
			}
			return ol.Body(items...)
		}
		return app.Elem("ul").Body(items...)
	case md.KindTable:
		return table(n)
	case md.KindRule:
		return app.ElemSelfClosing("hr")
	}
	return app.Span().Body(inlines([]md.Node{n})...)
}

// heading is a message's heading one level down: the page's own h1 is its title, and a reply's
// "# Plan" read as a second page title to a screen reader (QA round 24). Its size is its
// Markdown level's (md-h1…).
func heading(level int, body []app.UI) app.UI {
	level = min(max(level, 1), 6)
	return app.Elem("h" + strconv.Itoa(min(level+1, 6))).Class("md-h" + strconv.Itoa(level)).Body(body...)
}

// table draws a table inside a scroller, so a wide one scrolls instead of widening the bubble.
func table(n md.Node) app.UI {
	row := func(r md.Node, header bool) app.UI {
		cells := make([]app.UI, 0, len(r.Children))
		for _, c := range r.Children {
			var cell app.UI
			if header {
				th := app.Elem("th").Attr("scope", "col").Body(inlines(c.Children)...)
				if c.Align != md.AlignNone {
					th = th.Style("text-align", c.Align.String())
				}
				cell = th
			} else {
				td := app.Elem("td").Body(inlines(c.Children)...)
				if c.Align != md.AlignNone {
					td = td.Style("text-align", c.Align.String())
				}
				cell = td
			}
			cells = append(cells, cell)
		}
		return app.Elem("tr").Body(cells...)
	}
	var head app.UI
	var body []app.UI
	for i, r := range n.Children {
		if i == 0 {
			head = row(r, true)
			continue
		}
		body = append(body, row(r, false))
	}
	t := app.Elem("table").Body(app.Elem("thead").Body(head), app.If(len(body) > 0, func() app.UI { return app.Elem("tbody").Body(body...) }))
	return app.Div().Class("md-table").Body(t)
}

func inlines(ns []md.Node) []app.UI {
	out := make([]app.UI, 0, len(ns))
	for _, n := range ns {
		switch n.Kind {
		case md.KindText:
			out = append(out, app.Text(n.Text))
		case md.KindEmph:
			out = append(out, app.Elem("em").Body(inlines(n.Children)...))
		case md.KindStrong:
			out = append(out, app.Elem("strong").Body(inlines(n.Children)...))
		case md.KindStrike:
			out = append(out, app.Elem("del").Body(inlines(n.Children)...))
		case md.KindCode:
			out = append(out, app.Elem("code").Text(n.Text))
		case md.KindBreak:
			out = append(out, app.ElemSelfClosing("br"))
		case md.KindLink:
			if n.URL == "" { // not http(s) or mailto: its text, unlinked
				out = append(out, inlines(n.Children)...)
				continue
			}
			out = append(out, link(n.URL).Body(inlines(n.Children)...))
		case md.KindImage:
			// Never loaded: a remote image would tell its host who reads the message.
			alt := n.Text
			if alt == "" {
				alt = "image"
			}
			if n.URL == "" {
				out = append(out, app.Text(alt))
				continue
			}
			out = append(out, link(n.URL).Class("md-image").Title(n.URL).Text(alt))
		}
	}
	return out
}

// link opens outside the app, in a new tab that gets no handle on this one nor a referrer.
func link(url string) app.HTMLA {
	return app.A().Href(url).Target("_blank").Rel("noopener noreferrer")
}

// CodeBlock is a fenced or indented code block with a button that copies its code.
type CodeBlock struct {
	app.Compo
	Code string
	Lang string
	// Growing, for a block still streaming, is its code element, which the thread writes
	// each line into without a render (docs/markdown.md); Copy copies what it shows then.
	Growing app.UI

	copied clipboard.Status
}

// Render draws the code with its language as a class ("language-go") for a highlighter.
func (c *CodeBlock) Render() app.UI {
	label, text, class, said := locale.T(i18n.CopyCode), locale.T(i18n.Copy), "md-copy", ""
	if c.copied.Msg != 0 {
		said = locale.T(c.copied.Msg)
		label, text = said, said
	}
	if c.copied.Msg == i18n.Copied {
		class += " is-copied"
	}
	var copyButton, code app.UI = app.Button().Type("button").Class(class).
		Aria("label", label).
		Text(text).
		OnClick(c.copy), c.Growing
	if code == nil && c.Lang != "" {
		code = app.Elem("code").Class("language-" + c.Lang).Text(c.Code)
	} else if code == nil {
		code = app.Elem("code").Text(c.Code)
	}
	// Code reads left to right, in a right-to-left block too.
	return app.Div().Class("md-code").Attr("dir", "ltr").Body(
		app.Div().Class("md-code-bar").Body(
			app.Span().Class("md-code-lang").Text(c.Lang),
			copyButton,
			// Announces the outcome: a label change alone is not read out.
			app.Span().Class("sr-only").Aria("live", "polite").Text(said),
		),
		app.Elem("pre").Body(code),
	)
}

// copy writes the code to the clipboard. A block still streaming copies the lines it shows
// now: the thread writes them into its code without a render, so c.Code does not hold them
// (QA round 27: Copy came only once the block was whole, and people copy a long block's first
// lines before it ends).
func (c *CodeBlock) copy(ctx app.Context, e app.Event) {
	code := c.Code
	if c.Growing != nil {
		if el := e.Get("currentTarget").Call("closest", ".md-code").Call("querySelector", "pre code"); el.Truthy() {
			code = el.Get("textContent").String()
		}
	}
	c.copied.Copy(ctx, code)
}

// OnMount words the button again when the page's locale switches.
func (c *CodeBlock) OnMount(ctx app.Context) {
	ctx.Handle(locale.ActionChanged, func(ctx app.Context, a app.Action) { ctx.Update() })
}
