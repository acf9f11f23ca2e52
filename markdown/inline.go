package markdown

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is a parsed inline, or a run of * _ ~ that may still become emphasis.
type piece struct {
	node        Node
	delim       byte // 0 for a node
	n, orig     int  // characters left in the run; its length as written
	open, close bool
}

type inlineParser struct {
	src    string
	inLink bool // inside a link's text: links do not nest
	buf    strings.Builder
	ps     []piece
}

// parseInlines parses a block's text into inlines.
func parseInlines(s string, inLink bool) []Node {
	// Most cells, items and lines have no markup: one text, no parser (the wasm's allocator
	// and collector make each allocation dear).
	special := 0
	for k := 0; k < len(s); k++ {
		if strings.IndexByte("\\`*_~![<&\n", s[k]) >= 0 {
			special++
		}
	}
	if special == 0 && !strings.Contains(s, "http") {
		if s == "" {
			return nil
		}
		return []Node{{Kind: KindText, Text: s}}
	}
	p := &inlineParser{src: s, inLink: inLink, ps: make([]piece, 0, 2*special+1)}
	p.run()
	return emphasis(p.ps)
}

func (p *inlineParser) flush() {
	if p.buf.Len() > 0 {
		p.ps = append(p.ps, piece{node: Node{Kind: KindText, Text: p.buf.String()}})
		p.buf.Reset()
	}
}

func (p *inlineParser) add(n Node) {
	p.flush()
	p.ps = append(p.ps, piece{node: n})
}

func (p *inlineParser) run() {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && isASCIIPunct(s[i+1]) {
				p.buf.WriteByte(s[i+1])
				i += 2
				continue
			}
			if i+1 < len(s) && s[i+1] == '\n' {
				p.add(Node{Kind: KindBreak})
				i = skipSpaces(s, i+2)
				continue
			}
		case '`':
			n := runLen(s, i, '`')
			if end := codeEnd(s, i+n, n); end >= 0 {
				p.add(Node{Kind: KindCode, Text: codeText(s[i+n : end])})
				i = end + n
			} else {
				p.buf.WriteString(s[i : i+n])
				i += n
			}
			continue
		case '*', '_', '~':
			n := runLen(s, i, c)
			before, _ := utf8.DecodeLastRuneInString(s[:i])
			after, _ := utf8.DecodeRuneInString(s[i+n:])
			if i == 0 {
				before = ' '
			}
			if i+n == len(s) {
				after = ' '
			}
			left := !isSpace(after) && (!isPunct(after) || isSpace(before) || isPunct(before))
			right := !isSpace(before) && (!isPunct(before) || isSpace(after) || isPunct(after))
			open, close := left, right
			if c == '_' { // snake_case_words stay words
				open = left && (!right || isPunct(before))
				close = right && (!left || isPunct(after))
			}
			p.flush()
			p.ps = append(p.ps, piece{delim: c, n: n, orig: n, open: open, close: close})
			i += n
			continue
		case '!':
			if !p.inLink && i+1 < len(s) && s[i+1] == '[' {
				if n, end, ok := p.link(i+1, true); ok {
					p.add(n)
					i = end
					continue
				}
			}
		case '[':
			if !p.inLink {
				if n, end, ok := p.link(i, false); ok {
					p.add(n)
					i = end
					continue
				}
			}
		case '<':
			if !p.inLink {
				if n, end, ok := autolink(s, i); ok {
					p.add(n)
					i = end
					continue
				}
			}
		case '&':
			if r, n := entity(s[i:]); n > 0 {
				p.buf.WriteString(r)
				i += n
				continue
			}
		case '\n':
			t := p.buf.String()
			trimmed := strings.TrimRight(t, " ")
			p.buf.Reset()
			p.buf.WriteString(trimmed)
			if len(t)-len(trimmed) >= 2 {
				p.add(Node{Kind: KindBreak})
			} else {
				p.buf.WriteByte('\n')
			}
			i = skipSpaces(s, i+1)
			continue
		case 'h':
			if !p.inLink && (i == 0 || strings.IndexByte(" \t\n(*_~", s[i-1]) >= 0) {
				if end := bareURL(s, i); end > 0 {
					u := s[i:end]
					p.add(Node{Kind: KindLink, URL: safeURL(u), Children: []Node{{Kind: KindText, Text: u}}})
					i = end
					continue
				}
			}
		}
		p.buf.WriteByte(c)
		i++
	}
	p.flush()
}

// link parses [text](dest "title") or, for an image, ![alt](src) with s[i] the '['. It returns
// the node and where it ends.
func (p *inlineParser) link(i int, image bool) (Node, int, bool) {
	s := p.src
	close := closeBracket(s, i)
	if close < 0 || close+1 >= len(s) || s[close+1] != '(' {
		return Node{}, 0, false
	}
	dest, end, ok := destination(s, close+2)
	if !ok {
		return Node{}, 0, false
	}
	inner := s[i+1 : close]
	if image {
		return Node{Kind: KindImage, URL: safeURL(dest), Text: PlainText(parseInlines(inner, true))}, end, true
	}
	return Node{Kind: KindLink, URL: safeURL(dest), Children: parseInlines(inner, true)}, end, true
}

// closeBracket finds the ']' that closes the '[' at i, past code spans and escapes.
func closeBracket(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '`':
			n := runLen(s, j, '`')
			if end := codeEnd(s, j+n, n); end >= 0 {
				j = end + n - 1
			} else {
				j += n - 1
			}
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// destination parses a link's destination and optional title from s[i:] up to the ')'.
func destination(s string, i int) (string, int, bool) {
	i = skipWhite(s, i)
	var raw string
	if i < len(s) && s[i] == '<' {
		j := i + 1
		for ; j < len(s) && s[j] != '>'; j++ {
			if s[j] == '\n' || s[j] == '<' {
				return "", 0, false
			}
			if s[j] == '\\' {
				j++
			}
		}
		if j >= len(s) {
			return "", 0, false
		}
		raw, i = s[i+1:j], j+1
	} else {
		j, depth := i, 0
	loop:
		for ; j < len(s); j++ {
			switch c := s[j]; {
			case c == '\\':
				j++
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break loop
				}
				depth--
			case c <= ' ':
				break loop
			}
		}
		if j > len(s) {
			j = len(s)
		}
		raw, i = s[i:j], j
	}
	i = skipWhite(s, i)
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '(') {
		closing := s[i]
		if closing == '(' {
			closing = ')'
		}
		j := i + 1
		for ; j < len(s) && s[j] != closing; j++ {
			if s[j] == '\\' {
				j++
			}
		}
		if j >= len(s) {
			return "", 0, false
		}
		i = skipWhite(s, j+1)
	}
	if i >= len(s) || s[i] != ')' {
		return "", 0, false
	}
	return unescape(raw), i + 1, true
}

// autolink parses <scheme:...> or <user@host> at s[i].
func autolink(s string, i int) (Node, int, bool) {
	end := strings.IndexByte(s[i:], '>')
	if end < 0 {
		return Node{}, 0, false
	}
	body := s[i+1 : i+end]
	if body == "" || strings.ContainsAny(body, " <\n\t") {
		return Node{}, 0, false
	}
	text := []Node{{Kind: KindText, Text: body}}
	if c := strings.IndexByte(body, ':'); c >= 2 && c <= 32 && isScheme(body[:c]) {
		return Node{Kind: KindLink, URL: safeURL(body), Children: text}, i + end + 1, true
	}
	if at := strings.IndexByte(body, '@'); at > 0 && strings.IndexByte(body[at+1:], '.') > 0 && !strings.ContainsAny(body, `\:"`) {
		return Node{Kind: KindLink, URL: safeURL("mailto:" + body), Children: text}, i + end + 1, true
	}
	return Node{}, 0, false
}

func isScheme(s string) bool {
	for k := 0; k < len(s); k++ {
		c := s[k]
		alpha := c|0x20 >= 'a' && c|0x20 <= 'z'
		if !alpha && (k == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-')) {
			return false
		}
	}
	return true
}

// bareURL returns where an http(s) URL written without brackets at s[i] ends, or 0.
// Trailing punctuation is the sentence's, and so is a ')' that opens nowhere in the URL.
func bareURL(s string, i int) int {
	rest := s[i:]
	var n int
	switch {
	case strings.HasPrefix(rest, "https://"):
		n = 8
	case strings.HasPrefix(rest, "http://"):
		n = 7
	default:
		return 0
	}
	end := i + n
	for end < len(s) && s[end] > ' ' && s[end] != '<' {
		end++
	}
	for end > i+n {
		c := s[end-1]
		if strings.IndexByte("?!.,:;*_~'\"", c) >= 0 {
			end--
			continue
		}
		if c == ')' && strings.Count(s[i:end], "(") < strings.Count(s[i:end], ")") {
			end--
			continue
		}
		break
	}
	if end == i+n {
		return 0
	}
	return end
}

// safeURL returns u if it is an http(s) or mailto URL, else "". An allowlist of prefixes
// rather than a blocklist of schemes: "JaVaScRiPt:", "java\tscript:" (browsers drop tabs and
// newlines in URLs) and "&#106;avascript:" (decoded before this check) all fail it.
//
// The characters that could end an HTML attribute are percent-encoded, as a browser would
// send them anyway: go-app's server-side HTML (HTMLString, pre-rendering) quotes attribute
// values with strconv.Quote, which is not HTML escaping, so a '"' there would break out.
func safeURL(u string) string {
	for k := 0; k < len(u); k++ {
		if u[k] < ' ' || u[k] == 0x7f {
			return ""
		}
	}
	for _, prefix := range [...]string{"https://", "http://", "mailto:"} {
		if len(u) > len(prefix) && strings.EqualFold(u[:len(prefix)], prefix) {
			return attrSafe(u)
		}
	}
	return ""
}

// attrSafe percent-encodes what strconv.Quote would not keep as itself, and what ends an
// attribute; it returns "" for a URL that is not UTF-8.
func attrSafe(u string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for k := 0; k < len(u); {
		r, size := utf8.DecodeRuneInString(u[k:])
		if r == utf8.RuneError && size == 1 {
			return ""
		}
		if strings.ContainsRune("\"'<> `\\", r) || r >= utf8.RuneSelf && !unicode.IsPrint(r) {
			for _, c := range []byte(u[k : k+size]) {
				b.WriteByte('%')
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
			}
		} else {
			b.WriteString(u[k : k+size])
		}
		k += size
	}
	return b.String()
}

// codeLang returns a code block's language if it is a plain word ("go", "c++", "objective-c"),
// else "": it becomes a class name and a label.
func codeLang(info string) string {
	for k := 0; k < len(info); k++ {
		c := info[k]
		if !(c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("+#._-", c) >= 0) {
			return ""
		}
	}
	return info
}

// unescape resolves backslash escapes and entities in a destination or an info string.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i += 2
			continue
		case s[i] == '&':
			if r, n := entity(s[i:]); n > 0 {
				b.WriteString(r)
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// entities are the named references decoded; any other name stays as written. Go's html
// package knows all 2,231 of them, but its table would cost the wasm tens of kilobytes.
var entities = map[string]string{
	"amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u00a0",
	"copy": "©", "reg": "®", "trade": "™", "hellip": "…", "mdash": "—", "ndash": "–",
	"laquo": "«", "raquo": "»", "times": "×", "rarr": "→", "larr": "←", "deg": "°",
}

// entity decodes an entity reference at the start of s and says how long it was (0 if none).
func entity(s string) (string, int) {
	semi := strings.IndexByte(s, ';')
	if semi < 2 || semi > 33 {
		return "", 0
	}
	name := s[1:semi]
	if name[0] != '#' {
		if r, ok := entities[name]; ok {
			return r, semi + 1
		}
		return "", 0
	}
	var v uint64
	var err error
	switch {
	case len(name) > 2 && (name[1] == 'x' || name[1] == 'X') && len(name) <= 8:
		v, err = strconv.ParseUint(name[2:], 16, 32)
	case len(name) > 1 && len(name) <= 8 && name[1] != '+' && name[1] != '-':
		v, err = strconv.ParseUint(name[1:], 10, 32)
	default:
		return "", 0
	}
	if err != nil {
		return "", 0
	}
	r := rune(v)
	if r == 0 || !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	return string(r), semi + 1
}

// codeEnd finds the backtick run of exactly n that closes a code span opened before s[from:].
func codeEnd(s string, from, n int) int {
	for j := from; j < len(s); {
		if s[j] != '`' {
			j++
			continue
		}
		m := runLen(s, j, '`')
		if m == n {
			return j
		}
		j += m
	}
	return -1
}

// codeText is a code span's content: newlines read as spaces, and one space is stripped from
// each end when both have one, so a span can begin or end with a backtick.
func codeText(c string) string {
	c = strings.ReplaceAll(c, "\n", " ")
	if len(c) >= 2 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
		c = c[1 : len(c)-1]
	}
	return c
}

func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// skipWhite skips spaces and at most one line ending, as between a link's parts.
func skipWhite(s string, i int) int {
	i = skipSpaces(s, i)
	if i < len(s) && s[i] == '\n' {
		i = skipSpaces(s, i+1)
	}
	return i
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }

func isPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

// emphasis turns runs of * _ ~ into emphasis, strong and strikethrough, after CommonMark's
// "process emphasis": each closer, left to right, takes the nearest opener that fits.
func emphasis(ps []piece) []Node {
	// bottom[char][orig%3][open] is where a search for an opener may stop: below it, a
	// closer of that shape already found none (keeps "*a *a *a ..." linear).
	var bottom [3][3][2]int
	for a := range bottom {
		for b := range bottom[a] {
			bottom[a][b] = [2]int{-1, -1}
		}
	}
	ci := func(c byte) int { return strings.IndexByte("*_~", c) }
	for c := 0; c < len(ps); c++ {
		cl := &ps[c]
		if cl.delim == 0 || !cl.close || cl.n == 0 {
			continue
		}
		op := 0
		if cl.open {
			op = 1
		}
		b := &bottom[ci(cl.delim)][cl.orig%3][op]
		found := -1
		for o := c - 1; o > *b; o-- {
			q := &ps[o]
			if q.delim != cl.delim || !q.open || q.n == 0 {
				continue
			}
			if cl.delim == '~' {
				if q.n != 2 || cl.n != 2 {
					continue
				}
			} else if (q.close || cl.open) && (q.orig+cl.orig)%3 == 0 && (q.orig%3 != 0 || cl.orig%3 != 0) {
				continue
			}
			found = o
			break
		}
		if found < 0 {
			*b = c - 1
			continue
		}
		q := &ps[found]
		use, kind := 1, KindEmph
		switch {
		case cl.delim == '~':
			use, kind = 2, KindStrike
		case cl.n >= 2 && q.n >= 2:
			use, kind = 2, KindStrong
		}
		q.n -= use
		cl.n -= use
		ps[found+1] = piece{node: Node{Kind: kind, Children: nodes(ps[found+1 : c])}}
		ps = append(ps[:found+2], ps[c:]...) // in place: the closer moves down
		for a := range bottom {
			for k := range bottom[a] {
				for o := range bottom[a][k] {
					bottom[a][k][o] = min(bottom[a][k][o], found)
				}
			}
		}
		c = found // the loop's c++ lands on the closer again: it may have characters left
	}
	return nodes(ps)
}

// nodes turns pieces into nodes: runs left over are text, and neighbouring texts merge.
func nodes(ps []piece) []Node {
	out := make([]Node, 0, len(ps))
	for _, p := range ps {
		n := p.node
		if p.delim != 0 {
			if p.n == 0 {
				continue
			}
			n = Node{Kind: KindText, Text: strings.Repeat(string(p.delim), p.n)}
		}
		if n.Kind == KindText && len(out) > 0 && out[len(out)-1].Kind == KindText {
			out[len(out)-1].Text += n.Text
			continue
		}
		out = append(out, n)
	}
	return out
}
