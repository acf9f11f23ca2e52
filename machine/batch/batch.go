// Package batch decides what a batch approval's "approve all" does once the person answered
// some of its requests one by one (docs/approvals.md). A request marked Reject is never
// approved by it (QA round 14 #1: Ctrl+Enter ran a command its row said Reject): with any
// request marked Reject, "approve all" approves the others and rejects the marked ones,
// request by request, and its label says so. The composer's approval mode, the thread's card
// and the approvals screen ask it; the picks themselves are kept by the views
// (components/composer/modes/widget, picks.go). The words typed to reject go only with the
// requests not marked Allow (Rejecting).
//
// The package is pure: it imports nothing of the browser, go-app, the network or the clock.
package batch

import (
	"parley/i18n"
	"parley/protocol"
)

// Plan is what "approve all" sends with the picks made.
type Plan struct {
	// Items is the answer request by request, in order: "deny" where the person marked
	// Reject, "allow" everywhere else.
	Items []string
	// Approve and Reject count them.
	Approve, Reject int
}

// Of plans "approve all" for a batch of n requests with its picks ("allow", "deny", "" for
// none; picks of another length are none). ok is false when no request is marked Reject:
// the batch's own approving option is sent as it is.
func Of(picks []string, n int) (p Plan, ok bool) {
	p, ok = planned(picks, n, func(pick string) bool { return pick == protocol.OptionDeny })
	return p, ok && p.Reject > 0
}

// Rejecting plans "reject with these words" (the words typed in the composer's field, and
// Enter) for a batch of n requests with its picks: a request marked Allow stays approved,
// and every other one is rejected with the words as its reason (QA round 26: the words
// rejected a request the person had marked Allow). ok is false when none is marked Allow:
// the words reject the batch as a whole. A plan that rejects none (every request marked
// Allow) has nothing for the words to go with.
func Rejecting(picks []string, n int) (p Plan, ok bool) {
	p, ok = planned(picks, n, func(pick string) bool { return pick != protocol.OptionAllow })
	return p, ok && p.Approve > 0
}

// planned answers each of n requests as its pick says: rejected where rejects holds, else
// approved. ok is false for picks of another length (none).
func planned(picks []string, n int, rejects func(pick string) bool) (Plan, bool) {
	if len(picks) != n {
		return Plan{}, false
	}
	p := Plan{Items: make([]string, n)}
	for k, pick := range picks {
		if rejects(pick) {
			p.Items[k] = protocol.OptionDeny
			p.Reject++
		} else {
			p.Items[k] = protocol.OptionAllow
			p.Approve++
		}
	}
	return p, true
}

// Label is what the approving option then says: "Approve 1, reject 1".
func (p Plan) Label(l i18n.Locale) string { return l.T(i18n.BatchApproveSome, p.Approve, p.Reject) }
