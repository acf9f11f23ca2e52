package server

import (
	"bytes"
	"errors"
	"html"
	"strconv"
)

// The pre-render's markup as the wasm builds it (docs/seed.md, "The same page twice").
// go-app writes a pre-rendered page for people to read: each element's children on lines of
// their own, indented, and each attribute's value quoted as Go quotes a string. A seeded page
// shows messages, and both bite there: a message's text is laid out white-space: pre-wrap (a
// model's markdown pre-line), so the indentation showed as blank lines that the wasm's page,
// built node by node, does not have; and an attribute quoted the Go way ends at a `\"`, so a
// quote in a message's words (a title, a label) would end it and let what follows be markup.
// deformat writes the body again as go-app's encoder would with neither: every formatting
// newline and indent gone, every attribute HTML-escaped.

// voidElements have no closing tag (go-app's self-closing ones).
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true}

var errNotGoApp = errors.New("not go-app's encoding")

// deformatBody rewrites the page's <body> element (go-app writes it at depth 1); a page it
// cannot read as go-app's is answered as it is.
func deformatBody(page []byte) []byte {
	start := bytes.Index(page, []byte("<body"))
	if start < 0 {
		return page
	}
	return deformatAt(page, start, 1)
}

// deformatAt rewrites the element go-app wrote at depth that starts at page[start].
func deformatAt(page []byte, start, depth int) []byte {
	d := deformatter{in: page, pos: start}
	d.out.Grow(len(page))
	d.out.Write(page[:start])
	if err := d.element(depth); err != nil {
		return page
	}
	d.out.Write(page[d.pos:])
	return d.out.Bytes()
}

type deformatter struct {
	in  []byte
	pos int
	out bytes.Buffer
}

func (d *deformatter) at(s string) bool { return bytes.HasPrefix(d.in[d.pos:], []byte(s)) }

func indent(depth int) string {
	b := make([]byte, depth*2)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// element reads one element that starts at d.pos ('<'), written by go-app at depth.
func (d *deformatter) element(depth int) error {
	if !d.at("<") || d.at("</") {
		return errNotGoApp
	}
	d.pos++
	nameStart := d.pos
	for d.pos < len(d.in) && d.in[d.pos] != ' ' && d.in[d.pos] != '>' {
		d.pos++
	}
	tag := string(d.in[nameStart:d.pos])
	d.out.WriteString("<" + tag)
	if err := d.attributes(); err != nil {
		return err
	}
	if voidElements[tag] {
		return nil
	}
	closing := "</" + tag + ">"
	switch {
	case d.at(closing): // no children
	case d.at("\n"): // children on lines of their own
		d.pos++
		inner, end := indent(depth+1), indent(depth)+closing
		for !d.at(end) {
			switch {
			case d.at("\n"): // an empty text, which writes only its line's end
				d.pos++
			case d.at(inner + "<"):
				d.pos += len(inner)
				if err := d.element(depth + 1); err != nil {
					return err
				}
				if !d.at("\n") {
					return errNotGoApp
				}
				d.pos++
			case d.at(inner):
				// A text, up to the line's end before the next tag (text has no '<').
				d.pos += len(inner)
				next := bytes.IndexByte(d.in[d.pos:], '<')
				if next < 0 {
					return errNotGoApp
				}
				nl := bytes.LastIndexByte(d.in[d.pos:d.pos+next], '\n')
				if nl < 0 {
					return errNotGoApp
				}
				d.out.Write(d.in[d.pos : d.pos+nl])
				d.pos += nl + 1
			default:
				return errNotGoApp
			}
		}
		d.pos += len(end) - len(closing)
	default: // one text, written inline
		next := bytes.IndexByte(d.in[d.pos:], '<')
		if next < 0 {
			return errNotGoApp
		}
		d.out.Write(d.in[d.pos : d.pos+next])
		d.pos += next
		if !d.at(closing) {
			return errNotGoApp
		}
	}
	d.pos += len(closing)
	d.out.WriteString(closing)
	return nil
}

// attributes reads a tag's attributes up to its '>': ` name` or ` name="Go-quoted"`.
func (d *deformatter) attributes() error {
	for {
		switch {
		case d.at(">"):
			d.pos++
			d.out.WriteByte('>')
			return nil
		case d.at(" "):
			d.pos++
			nameStart := d.pos
			for d.pos < len(d.in) && d.in[d.pos] != '=' && d.in[d.pos] != ' ' && d.in[d.pos] != '>' {
				d.pos++
			}
			d.out.WriteByte(' ')
			d.out.Write(d.in[nameStart:d.pos])
			if !d.at("=") {
				continue
			}
			d.pos++
			end := d.pos + 1 // the closing quote: the first '"' no backslash escapes
			for ; end < len(d.in) && d.in[end] != '"'; end++ {
				if d.in[end] == '\\' {
					end++
				}
			}
			if !d.at(`"`) || end >= len(d.in) {
				return errNotGoApp
			}
			quoted := string(d.in[d.pos : end+1])
			value, err := strconv.Unquote(quoted)
			if err != nil {
				return errNotGoApp
			}
			d.pos += len(quoted)
			d.out.WriteString(`="` + html.EscapeString(value) + `"`)
		default:
			return errNotGoApp
		}
	}
}
