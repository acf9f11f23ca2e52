package markdown

import "strings"

// maxDepth bounds how deep quotes and lists nest. Deeper markers read as text: a message of
// ten thousand ">" would otherwise cost ten thousand nested elements and a quadratic parse.
const maxDepth = 16

func isBlank(l string) bool {
	return strings.Trim(l, " \t\r") == ""
}

// trimIndent strips the leading spaces (and tabs, to the next multiple of 4) and says how many
// columns they took.
func trimIndent(l string) (string, int) {
	col := 0
	i := 0
	for ; i < len(l); i++ {
		switch l[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return l[i:], col
		}
	}
	return "", col
}

// indented reports whether l starts with n spaces.
func indented(l string, n int) bool {
	if len(l) < n {
		return false
	}
	for k := 0; k < n; k++ {
		if l[k] != ' ' {
			return false
		}
	}
	return true
}

// stripCols removes up to n columns of leading spaces (lines reach here with tabs expanded).
func stripCols(l string, n int) string {
	i := 0
	for i < n && i < len(l) && l[i] == ' ' {
		i++
	}
	return l[i:]
}

// fenceInfo is an open code fence: its character and length, and the opening's indentation.
type fenceInfo struct {
	char   byte
	n      int
	indent int
}

// openFence reports whether t (indentation already stripped) opens a code fence.
func openFence(t string) (fenceInfo, bool) {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return fenceInfo{}, false
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0) {
		return fenceInfo{}, false
	}
	return fenceInfo{char: t[0], n: n}, true
}

// closes reports whether t (indentation stripped) closes the fence.
func (f fenceInfo) closes(t string) bool {
	n := 0
	for n < len(t) && t[n] == f.char {
		n++
	}
	return n >= f.n && isBlank(t[n:])
}

// atx parses an ATX heading ("## Title ##").
func atx(t string) (int, string, bool) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	s := strings.TrimSpace(t[n:])
	// A closing run of #s goes, when a space stands before it (or it is all there is).
	if e := strings.TrimRight(s, "#"); e == "" {
		s = ""
	} else if len(e) < len(s) && (e[len(e)-1] == ' ' || e[len(e)-1] == '\t') {
		s = strings.TrimSpace(e)
	}
	return n, s, true
}

// isRule reports whether t is a thematic break: three or more of one of - * _, spaces allowed.
func isRule(t string) bool {
	if t == "" || (t[0] != '-' && t[0] != '*' && t[0] != '_') {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case t[0]:
			n++
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return n >= 3
}

// setext returns the level of a setext underline (=== is 1, --- is 2), or 0.
func setext(t string) int {
	t = strings.TrimRight(t, " \t\r")
	if t == "" || strings.Trim(t, string(t[0])) != "" {
		return 0
	}
	switch t[0] {
	case '=':
		return 1
	case '-':
		return 2
	}
	return 0
}

// marker is a list item's marker.
type marker struct {
	ordered bool
	char    byte // the bullet, or the ordered delimiter ('.' or ')')
	start   int
	width   int  // the marker and the spaces after it: where the item's content starts
	empty   bool // nothing follows the marker on its line
}

// listMarker parses a list marker at the start of t (indentation stripped).
func listMarker(t string) (marker, bool) {
	var m marker
	n := 0
	switch {
	case t != "" && (t[0] == '-' || t[0] == '+' || t[0] == '*'):
		m.char, n = t[0], 1
	default:
		for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
			m.start = m.start*10 + int(t[n]-'0')
			n++
		}
		if n == 0 || n >= len(t) || (t[n] != '.' && t[n] != ')') {
			return marker{}, false
		}
		m.ordered, m.char = true, t[n]
		n++
	}
	rest := t[n:]
	if isBlank(rest) {
		m.width, m.empty = n+1, true
		return m, true
	}
	if rest[0] == '\t' { // a tab after the marker separates like one space
		m.width = n + 1
		return m, true
	}
	if rest[0] != ' ' {
		return marker{}, false
	}
	s := 0
	for s < len(rest) && rest[s] == ' ' {
		s++
	}
	if s >= 5 { // the content is indented code: one space belongs to the marker
		s = 1
	}
	m.width = n + s
	return m, true
}

// interrupts reports whether line l starts a block that ends a paragraph before it.
func interrupts(l string, depth int) bool {
	t, ind := trimIndent(l)
	if ind >= 4 || t == "" {
		return false
	}
	if _, _, ok := atx(t); ok {
		return true
	}
	if _, ok := openFence(t); ok {
		return true
	}
	if isRule(t) {
		return true
	}
	if depth >= maxDepth {
		return false
	}
	if t[0] == '>' {
		return true
	}
	// Only a non-empty bullet, or an ordered item numbered 1, interrupts: "in 1990. we" is prose.
	m, ok := listMarker(t)
	return ok && !m.empty && (!m.ordered || m.start == 1)
}

// parseBlocks parses lines (tabs in indentation expanded) into blocks.
func parseBlocks(ls []string, depth int) []Node {
	// A quote's or an item's lines can start with a tab once their marker is cut off.
	expandOutsideFences(ls, func(l string) bool { return l[0] == '\t' || l[0] == ' ' })
	var out []Node
	for i := 0; i < len(ls); {
		l := ls[i]
		if isBlank(l) {
			i++
			continue
		}
		t, ind := trimIndent(l)
		switch {
		case ind >= 4:
			var code []string
			j := i
			for ; j < len(ls) && (isBlank(ls[j]) || strings.HasPrefix(ls[j], "    ")); j++ {
				code = append(code, stripCols(ls[j], 4))
			}
			for len(code) > 0 && isBlank(code[len(code)-1]) {
				code = code[:len(code)-1]
			}
			out = append(out, Node{Kind: KindCodeBlock, Text: strings.Join(code, "\n")})
			i = j
			continue
		}
		if f, ok := openFence(t); ok {
			var code []string
			j := i + 1
			for ; j < len(ls); j++ {
				if ct, ci := trimIndent(ls[j]); ci <= 3 && f.closes(ct) {
					j++
					break
				}
				code = append(code, strings.TrimRight(stripCols(ls[j], ind), "\r"))
			}
			out = append(out, Node{Kind: KindCodeBlock, Info: fenceLang(t, f), Text: strings.Join(code, "\n")})
			i = j
			continue
		}
		if lvl, s, ok := atx(t); ok {
			out = append(out, Node{Kind: KindHeading, Level: lvl, Children: parseInlines(s, false)})
			i++
			continue
		}
		if isRule(t) {
			out = append(out, Node{Kind: KindRule})
			i++
			continue
		}
		if t[0] == '>' && depth < maxDepth {
			var inner []string
			j := i
			for ; j < len(ls); j++ {
				qt, qi := trimIndent(ls[j])
				if qi <= 3 && qt != "" && qt[0] == '>' {
					qt = qt[1:]
					if qt != "" && qt[0] == ' ' {
						qt = qt[1:]
					}
					inner = append(inner, qt)
					continue
				}
				// A lazy line: prose right after the quote's prose continues it.
				if j > i && !isBlank(ls[j]) && !isBlank(inner[len(inner)-1]) && !interrupts(ls[j], depth) {
					inner = append(inner, qt)
					continue
				}
				break
			}
			out = append(out, Node{Kind: KindQuote, Children: parseBlocks(inner, depth+1)})
			i = j
			continue
		}
		if m, ok := listMarker(t); ok && depth < maxDepth {
			list, j := parseList(ls, i, m, depth)
			out = append(out, list)
			i = j
			continue
		}
		if tbl, j, ok := parseTable(ls, i, depth); ok {
			out = append(out, tbl)
			i = j
			continue
		}
		// A paragraph, or a setext heading when an underline ends it.
		para := []string{t}
		j := i + 1
		level := 0
		for ; j < len(ls); j++ {
			pl := ls[j]
			if isBlank(pl) {
				break
			}
			pt, pi := trimIndent(pl)
			if pi <= 3 {
				if level = setext(pt); level > 0 {
					j++
					break
				}
			}
			if interrupts(pl, depth) || startsTable(ls, j) {
				break
			}
			para = append(para, pt)
		}
		text := strings.TrimRight(strings.Join(para, "\n"), " \t\r")
		if level > 0 {
			out = append(out, Node{Kind: KindHeading, Level: level, Children: parseInlines(text, false)})
		} else {
			out = append(out, Node{Kind: KindParagraph, Children: parseInlines(text, false)})
		}
		i = j
	}
	return out
}

// parseList parses the list whose first item starts at line i, and returns the line after it.
func parseList(ls []string, i int, first marker, depth int) (Node, int) {
	list := Node{Kind: KindList, Ordered: first.ordered, Level: first.start, Tight: true}
	for i < len(ls) {
		t, ind := trimIndent(ls[i])
		m, ok := listMarker(t)
		if ind >= 4 || !ok || m.ordered != first.ordered || m.char != first.char || isRule(t) {
			break
		}
		w := ind + m.width
		var item []string
		if !m.empty {
			item = append(item, t[m.width:])
		}
		j := i + 1
		for ; j < len(ls); j++ {
			l := ls[j]
			switch {
			case isBlank(l):
				item = append(item, "")
				continue
			case indented(l, w):
				item = append(item, l[w:])
				continue
			case len(item) > 0 && !isBlank(item[len(item)-1]) && !interrupts(l, depth) && !startsItem(l):
				// A lazy line continues the item's prose.
				item = append(item, strings.TrimLeft(l, " "))
				continue
			}
			break
		}
		trailing := 0
		for len(item) > 0 && isBlank(item[len(item)-1]) {
			item = item[:len(item)-1]
			trailing++
		}
		for _, l := range item {
			if isBlank(l) {
				list.Tight = false
			}
		}
		list.Children = append(list.Children, Node{Kind: KindItem, Children: parseBlocks(item, depth+1)})
		i = j
		if trailing > 0 && i < len(ls) {
			if nt, ni := trimIndent(ls[i]); ni < 4 {
				if nm, ok := listMarker(nt); ok && nm.ordered == first.ordered && nm.char == first.char && !isRule(nt) {
					list.Tight = false
				}
			}
		}
	}
	return list, i
}

// startsItem reports whether l starts a list item (or a rule, which ends a list too).
func startsItem(l string) bool {
	t, ind := trimIndent(l)
	_, ok := listMarker(t)
	return ind < 4 && (ok || isRule(t))
}

// startsTable reports whether line i is a table's header row: the next line is its delimiter
// row with as many cells.
func startsTable(ls []string, i int) bool {
	if i+1 >= len(ls) || strings.IndexByte(ls[i], '|') < 0 {
		return false
	}
	aligns, ok := delimiterRow(ls[i+1])
	return ok && len(cells(ls[i])) == len(aligns)
}

func parseTable(ls []string, i, depth int) (Node, int, bool) {
	if !startsTable(ls, i) {
		return Node{}, i, false
	}
	aligns, _ := delimiterRow(ls[i+1])
	row := func(l string) Node {
		cs := cells(l)
		r := Node{Kind: KindRow, Children: make([]Node, len(aligns))}
		for k := range aligns {
			r.Children[k] = Node{Kind: KindCell, Align: aligns[k]}
			if k < len(cs) {
				r.Children[k].Children = parseInlines(cs[k], false)
			}
		}
		return r
	}
	tbl := Node{Kind: KindTable, Children: []Node{row(ls[i])}}
	j := i + 2
	for ; j < len(ls) && !isBlank(ls[j]) && !interrupts(ls[j], depth); j++ {
		tbl.Children = append(tbl.Children, row(ls[j]))
	}
	return tbl, j, true
}

// cells splits a table row on the pipes that are not escaped.
func cells(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var out []string
	start := 0
	for k := 0; k < len(l); k++ {
		switch l[k] {
		case '\\':
			k++
		case '|':
			out = append(out, strings.TrimSpace(l[start:k]))
			start = k + 1
		}
	}
	return append(out, strings.TrimSpace(l[start:]))
}

// delimiterRow parses a table's delimiter row ("| :-- | --: |").
func delimiterRow(l string) ([]Align, bool) {
	if strings.IndexByte(l, '-') < 0 {
		return nil, false
	}
	cs := cells(l)
	aligns := make([]Align, len(cs))
	for k, c := range cs {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		d := strings.Trim(c, ":")
		if d == "" || strings.Trim(d, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			aligns[k] = AlignCenter
		case left:
			aligns[k] = AlignLeft
		case right:
			aligns[k] = AlignRight
		}
	}
	return aligns, true
}
