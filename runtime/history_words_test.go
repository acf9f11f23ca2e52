package runtime

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/i18n"
	"parley/protocol"
)

// TestHistoryWordsByPhrase: the approvals history's fixed words (a batch answered request by
// request, why a decision was aborted) carry their phrase, whose English is the entry's
// text, and read in Chinese; a reason of someone's own has none.
func TestHistoryWordsByPhrase(t *testing.T) {
	asked := protocol.QuestionAsked{ID: "d1", Request: protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Allow these 3 requests?",
		Options: []protocol.ApprovalOption{{Value: protocol.OptionAllow, Label: "Approve"}, {Value: protocol.OptionDeny, Label: "Reject"}}}}
	event := func(typ protocol.EventType, v any) protocol.Event {
		data, _ := json.Marshal(v)
		return protocol.Event{Type: typ, Data: data}
	}
	answerWhy := func(why string, items ...string) protocol.Event {
		content, _ := json.Marshal(protocol.ApprovalAnswer{Items: items, Instruction: why})
		return event(protocol.EventQuestionReplied, protocol.QuestionReplied{ID: "d1", Action: protocol.ActionAccept, Content: content})
	}
	answer := func(items ...string) protocol.Event { return answerWhy("", items...) }
	rejected := func(outcome protocol.Outcome, reason string) protocol.Event {
		return event(protocol.EventQuestionRejected, protocol.QuestionRejected{ID: "d1", Outcome: outcome, Reason: reason})
	}
	for _, tt := range []struct {
		name          string
		end           protocol.Event
		outcome, text string
		phrase        *protocol.Phrase
		zh            string
		answer        bool // the phrase is the answer's, else the reason's
	}{
		{"two of three", answer("allow", "deny", "allow"), protocol.HistoryApproved, "Approved 2 of 3",
			&protocol.Phrase{Code: "hist_approved_n_of_m", Args: []string{"2", "3"}}, "批准了 3 个中的 2 个", true},
		{"two of three, and why not the third", answerWhy("not that one", "allow", "deny", "allow"), protocol.HistoryApproved, "Approved 2 of 3; the others rejected: not that one",
			&protocol.Phrase{Code: "hist_approved_n_of_m_why", Args: []string{"2", "3", "not that one"}}, "批准了 3 个中的 2 个；其余的已拒绝：not that one", true},
		{"none of two", answer("deny", "deny"), protocol.HistoryRejected, "Rejected all, one by one",
			&protocol.Phrase{Code: "hist_rejected_each"}, "逐个全部拒绝", true},
		{"stopped", rejected(protocol.OutcomeAborted, protocol.ReasonStopped), protocol.HistoryAborted, "its turn was stopped",
			&protocol.Phrase{Code: "abort_stopped"}, "它所在的这一轮被停止了", false},
		{"withdrawn", rejected(protocol.OutcomeAborted, protocol.ReasonWithdrawn), protocol.HistoryAborted, "the asker no longer needed it",
			&protocol.Phrase{Code: "abort_withdrawn"}, "提问方已不再需要它", false},
		{"orphaned", rejected(protocol.OutcomeAborted, protocol.ReasonOrphaned), protocol.HistoryAborted, "the server restarted before it was answered",
			&protocol.Phrase{Code: "abort_orphaned"}, "服务器在回答之前重启了", false},
		{"timed out", rejected(protocol.OutcomeDeclined, protocol.ReasonTimeout), protocol.HistoryTimedOut, "no answer in time",
			&protocol.Phrase{Code: "abort_no_answer"}, "没有及时回答", false},
		{"a newer reason", rejected(protocol.OutcomeAborted, "superseded"), protocol.HistoryAborted, "superseded", nil, "superseded", false},
	} {
		h := historyOf(asked, tt.end)
		text, p := h.Reason, h.ReasonPhrase
		if tt.answer {
			text, p = h.Answer, h.AnswerPhrase
		}
		assert.Equal(t, tt.outcome, h.Outcome, tt.name)
		assert.Equal(t, tt.text, text, tt.name)
		assert.Equal(t, tt.phrase, p, tt.name)
		assert.Equal(t, tt.zh, i18n.Chinese.Say(p, text), tt.name)
	}
}
