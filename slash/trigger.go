package slash

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"parley/machine/enum"
	"parley/machine/input"
	"parley/machine/utf16x"
)

// Tier is the guard tier: which triggers the input's phase lets fire.
type Tier int

const (
	// Plain: no claim; `/` and `@` fire at any boundary.
	Plain Tier = iota
	// Claimed: the draft is in command mode; a second command makes no sense, so `/` is
	// suppressed, but `@` references stay live inside the arguments.
	Claimed
	// Frozen: adjudicating or submitting; the draft is not the user's to change.
	Frozen
)

var tierNames = [...]string{Plain: "plain", Claimed: "claimed", Frozen: "frozen"}

// String returns the tier's name.
func (t Tier) String() string { return enum.Name(tierNames[:], t) }

// allows reports whether trigger may fire in tier t.
func (t Tier) allows(trigger byte) bool {
	switch t {
	case Plain:
		return true
	case Claimed:
		return trigger == '@'
	}
	return false
}

// Hit is an active trigger at the caret.
type Hit struct {
	Trigger rune   // '/' or '@'
	Query   string // the name characters between the trigger and the caret
	// Command names the command whose argument an ArgTrigger hit completes ("" otherwise).
	Command string
	// Span covers the trigger and the whole name run around the caret, so a pick replaces
	// "/rev|iew" entirely. Rev is left zero by Detect; the controller stamps the draftRev.
	Span input.Span
}

// Leads reports whether the hit starts the draft (after white space only: Detect's span of
// such a `/` hit starts at 0). A command is one only there (the server's door reads it at
// the prompt's start, as in Claude Code and Codex), so its source offers nothing elsewhere:
// a menu it offered mid-draft had no pick that could work.
func (h Hit) Leads() bool { return h.Span.Start == 0 }

// Detect finds the trigger the caret (a collapsed selection, in UTF-16 code units) sits in.
// It walks back from the caret over name characters; the character before them must be a
// trigger that tier allows, itself at a boundary, and the name run must not continue into a
// path or an address. An `@` reference's name is a path: its run goes on over '/' (see
// pathStart), so `@src/ma|` asks for "src/ma", and `@./src/ma|` for it too.
func Detect(draft string, caret int, tier Tier) (Hit, bool) {
	if tier == Frozen || caret < 0 {
		return Hit{}, false
	}
	b, caret := utf16x.ByteOffset(draft, caret)
	i := nameStart(draft, b)
	path := false
	if i > 0 && draft[i-1] == '/' && !boundaryBefore(draft, i-1) {
		i, path = pathStart(draft, i), true
	}
	if i == 0 || !isTrigger(draft[i-1]) || path && draft[i-1] != '@' || !tier.allows(draft[i-1]) || !boundaryBefore(draft, i-1) {
		return Hit{}, false
	}
	end := nameEnd(draft, b)
	if draft[i-1] == '@' {
		if i < len(draft) && draft[i] == '/' {
			return Hit{}, false // `@/etc`: a path from the root is not the workspace's
		}
		end = pathEnd(draft, b)
	}
	if !endsCleanly(draft, end) {
		return Hit{}, false
	}
	q := draft[i:b]
	for draft[i-1] == '@' && len(q) > 1 && q[0] == '.' && q[1] == '/' {
		// `@./src` is `@src`: the workspace is where a path starts, so a leading "./" (or
		// "./" again, or ".//") names nothing and the files source matches nothing with it.
		// The span keeps it: a pick replaces the whole "@./src".
		q = q[2:]
		for q != "" && q[0] == '/' {
			q = q[1:]
		}
	}
	start := caret - utf16x.Len(draft[i-1:b])
	if draft[i-1] == '/' && strings.TrimLeftFunc(draft[:i-1], unicode.IsSpace) == "" {
		// Only white space before the slash: the server's door still reads a command there
		// (protocol.ResolveCommand trims it), so the hit leads, and a pick replaces the white
		// space too: a command's claim starts the draft.
		start = 0
	}
	return Hit{
		Trigger: rune(draft[i-1]),
		Query:   q,
		Span:    input.Span{Start: start, End: caret + utf16x.Len(draft[b:end])},
	}, true
}

// nameStart returns the byte index where the run of name characters ending at i starts.
func nameStart(s string, i int) int {
	for i > 0 {
		if c := s[i-1]; c < utf8.RuneSelf {
			if !nameByte[c] {
				break
			}
			i--
			continue
		}
		r, size := decodeLast(s[:i])
		if !IsNameRune(r) {
			break
		}
		i -= size
	}
	return i
}

// pathStart returns where the run of name characters and '/' that ends at a name run
// starting at i (right after a '/') starts. A '/' inside a word is never a command's trigger
// (one only starts a word), so such a run is text, or the path of the `@` before it: files
// are named by their path from the workspace, and the files source finds "src/main.go" for
// "src/ma" (QA: a `/` typed after `@src` closed the menu, and Enter sent the half-typed path).
func pathStart(s string, i int) int {
	for i > 0 && s[i-1] == '/' {
		i = nameStart(s, i-1)
	}
	return i
}

// spanOf is the span around a caret, before units back and after units on.
func spanOf(caret, before, after int) input.Span {
	return input.Span{Start: caret - before, End: caret + after}
}
