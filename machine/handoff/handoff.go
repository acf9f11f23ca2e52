// Package handoff decides how the keys typed before the input bar was live join its draft
// (docs/input.md, "The hand-off"). web/early.js holds them: the text typed since the last
// Enter, and each Enter as a send with the text before it. The shell takes them when its
// textarea is ready, and Take says what it then does.
package handoff

import (
	"strings"
	"unicode"
)

// Early is what web/early.js held.
type Early struct {
	// Sends are the texts an Enter was pressed after, in order.
	Sends []string
	// Text is what was typed since the last Enter.
	Text string
}

// Empty reports whether nothing was typed.
func (e Early) Empty() bool { return len(e.Sends) == 0 && e.Text == "" }

// Plan is what the shell does with the early keys.
type Plan struct {
	// Submit says Send goes out first, through the bar's own submit (so it is adjudicated
	// and settles like any Enter).
	Submit bool
	Send   string
	// Draft is the bar's draft afterwards.
	Draft string
}

// Take joins the early keys to draft, what the bar holds already (a draft saved in an
// earlier visit, which the pre-rendered box did not show).
//
//   - No Enter: the draft, then the typed text after a space (unless one side already has
//     white space there), so the two never run into one word and neither is lost.
//   - An Enter: the text before the first Enter that has something to send is sent; the
//     bar's draft stays as it was, and gets what was typed after the Enter. An Enter on a
//     blank box sends nothing, as in the live bar.
//   - More Enters: one attempt runs at a time, so only the first goes out. The later ones
//     stay in the draft as lines, for the person to send: never sent unseen, never lost.
func Take(draft string, e Early) Plan {
	var p Plan
	rest := e.Sends
	for len(rest) > 0 {
		s := rest[0]
		rest = rest[1:]
		if !blank(s) {
			p.Submit, p.Send = true, s
			break
		}
	}
	var later []string
	for _, s := range rest {
		if !blank(s) {
			later = append(later, s)
		}
	}
	if e.Text != "" || len(later) == 0 {
		later = append(later, e.Text)
	}
	p.Draft = join(draft, strings.Join(later, "\n"))
	return p
}

// join puts b after a with one space between, unless white space already stands at the seam
// (a draft that ends in a space, keys that began with one): a second would only be a gap to
// delete.
func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case strings.TrimRightFunc(a, unicode.IsSpace) != a || strings.TrimLeftFunc(b, unicode.IsSpace) != b:
		return a + b
	}
	return a + " " + b
}

// blank reports whether s is only white space, which the bar does not send.
func blank(s string) bool { return strings.TrimFunc(s, unicode.IsSpace) == "" }
