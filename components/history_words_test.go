package components

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/components/viewtest"
	"parley/protocol"
)

// TestADeclinedQuestionReadsDeclined: the history words a question or form said no to as
// "Declined"; only an approval is "Rejected". A reason follows as the thread says it
// ("Declined: not now", "Rejected: not now"; docs/qa-round10.md).
func TestADeclinedQuestionReadsDeclined(t *testing.T) {
	entry := func(kind protocol.DecisionKind) protocol.HistoryEntry {
		return protocol.HistoryEntry{QueueEntry: protocol.QueueEntry{Decision: protocol.Decision{Session: "s1", QuestionAsked: protocol.QuestionAsked{ID: "d1",
			Request: protocol.DecisionRequest{Kind: kind, Message: "Which?"}}}}, Outcome: protocol.HistoryRejected, Reason: "not now"}
	}
	for kind, want := range map[protocol.DecisionKind]string{
		protocol.KindAsk:      "Declined: not now",
		protocol.KindConfirm:  "Declined: not now",
		protocol.KindApproval: "Rejected: not now",
	} {
		html := viewtest.Render(t, &ApprovalsPage{tab: tabHistory, history: []protocol.HistoryEntry{entry(kind)}})
		assert.Contains(t, html, `<span class="history-outcome">`+want+`</span>`, kind)
	}
}
