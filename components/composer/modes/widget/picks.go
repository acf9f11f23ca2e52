package widget

import (
	"strings"

	"parley/components/internal/tabstore"
	"parley/protocol"
)

// A batch's answers picked request by request are kept as a decision's unfinished answer is
// (a question's answers, an approval's words): in the tab's sessionStorage under the
// decision's id, so a reload keeps them until the batch ends (QA round 12 #18). The thread's
// composer forgets them when the decision leaves its pending list (PicksPrefix), the
// approvals screen when the entry ends (reconcile). They are kept as a letter a request:
// "a" allow, "d" deny, "-" none yet.

// KeptPicks are the answers kept for a batch of n requests, or none picked yet. Kept ones
// that do not fit (another version's, a damaged one) start afresh; a letter it does not
// know is no answer.
func KeptPicks(decision string, n int) []string {
	if p := picked[decision]; len(p) == n {
		return p
	}
	picks := make([]string, n)
	kept := tabstore.Get(PicksPrefix + decision)
	if len(kept) != n {
		return picks
	}
	for i := range n {
		switch kept[i] {
		case 'a':
			picks[i] = protocol.OptionAllow
		case 'd':
			picks[i] = protocol.OptionDeny
		}
	}
	return picks
}

// picked are the answers picked in this page, by decision: the composer and the batch's card
// in the thread read the same, so a request marked Reject in either is marked in both, and
// "approve all" in either never approves it (machine/batch).
var picked = map[string][]string{}

// KeepPicks keeps a batch's answers; none forgets them.
func KeepPicks(decision string, picks []string) {
	picked[decision] = picks
	kept := []byte(strings.Repeat("-", len(picks)))
	for i, v := range picks {
		switch v {
		case protocol.OptionAllow:
			kept[i] = 'a'
		case protocol.OptionDeny:
			kept[i] = 'd'
		}
	}
	tabstore.Set(PicksPrefix+decision, string(kept))
}

// PicksPrefix is the sessionStorage prefix of a batch's kept picks, by the decision's id.
const PicksPrefix = "parley.picks."

// RequestWords names a batch's request by its command's first line, cut at 80 characters:
// the label of the group of its answers ("Answer request 1: echo one"), in the thread's card
// and in the composer alike. A screen reader heard "Answer request 2, Allow" and no command
// (QA round 22), then the composer's "%!s(BADINDEX)" where its command was left out (QA
// round 26).
func RequestWords(details string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(details), "\n")
	if r := []rune(line); len(r) > 80 {
		line = string(r[:79]) + "…"
	}
	return line
}
