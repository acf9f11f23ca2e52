package slash

import (
	"strings"
	"unicode/utf8"

	"parley/machine/input"
)

// TierOf is the guard tier of the input machine's phase: a claimed draft keeps `@` live and
// suppresses `/`, and a draft that is being adjudicated or sent is frozen.
func TierOf(p input.Phase) Tier {
	switch p {
	case input.Claimed:
		return Claimed
	case input.Adjudicating, input.Submitting:
		return Frozen
	}
	return Plain
}

// HasTrigger reports whether s holds a trigger character. An edit that inserts or removes
// one may make or break a hit anywhere after it, so the controller must see the draft.
func HasTrigger(s string) bool { return strings.ContainsAny(s, "/@") }

// Window is how much text on each side of an edit Near needs, in units: a name run longer
// than that counts as bound to a trigger, which costs one needless observation and is never
// wrong.
const Window = 48

// Near reports, after an edit, whether the name run around it is bound to a trigger on
// either side: only then can the hit or a plain-text reference change, so an edit that is
// not near one need not be shown to the Controller. before is the draft up to the edit's
// start and after the draft from its end, each cut to Window units; cutBefore and cutAfter
// report whether the draft goes on beyond them.
func Near(before, after string, cutBefore, cutAfter bool) bool {
	i := len(before)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(before[:i])
		if !IsNameRune(r) {
			if r == '/' || r == '@' {
				return true
			}
			break
		}
		i -= size
	}
	if i == 0 && cutBefore {
		return true
	}
	j := 0
	for j < len(after) {
		r, size := utf8.DecodeRuneInString(after[j:])
		if !IsNameRune(r) {
			if r == '/' || r == '@' {
				return true
			}
			break
		}
		j += size
	}
	return j == len(after) && cutAfter
}
