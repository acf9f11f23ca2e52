package components

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/store"
	"parley/protocol"
)

func decisionMessage(status store.Status, req protocol.DecisionRequest) store.Message {
	return store.Message{Offset: 9, Role: store.RoleDecision, ID: "d1", Title: req.Message, Detail: req.Details, Status: status, Request: &req}
}

func TestDecisionCardAnswers(t *testing.T) {
	approval := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Allow running rm?", Details: `rm -rf "<b>x</b>"`,
		Options: []protocol.ApprovalOption{
			{Value: "allow", Label: "Approve", Tone: protocol.ToneAffirm},
			{Value: "allow", Label: "Approve, and always for rm", Description: "rm *", Tone: protocol.ToneAffirm},
			{Value: "deny", Label: "Reject", Tone: protocol.ToneDeny},
		}}
	cases := []struct {
		name    string
		req     protocol.DecisionRequest
		want    []string
		notWant []string
	}{
		{"approval: its own options, details as text, no extra decline", approval,
			[]string{"Approve, and always for rm", "rm *", "&lt;b&gt;x&lt;/b&gt;", "tone-deny"}, []string{"<b>", "Decline"}},
		{"confirm", protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Ship?", Schema: &protocol.Schema{Type: "boolean", TrueLabel: "Ship it"}},
			[]string{"Ship it", ">No<", "Decline"}, nil},
		{"single choice", protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Env?", Schema: &protocol.Schema{Type: "string", Enum: []string{"staging", "prod"}, EnumNames: []string{"Staging", "Production"}}},
			[]string{"Staging", "Production", "Decline"}, []string{"entry-input"}},
		{"text", protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Name?", Schema: &protocol.Schema{Type: "string", Title: "Name", Placeholder: "Ada"}},
			[]string{`class="entry-input"`, `aria-label="Name"`, `placeholder="Ada"`, "Send", "Decline"}, nil},
		{"multiline text", protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Body?", Schema: &protocol.Schema{Type: "string", Multiline: true}},
			[]string{"<textarea", "Send"}, nil},
		{"number", protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "How many?", Schema: &protocol.Schema{Type: "integer"}},
			[]string{`type="number"`}, nil},
		{"a form", protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "PR?", Schema: &protocol.Schema{Type: "object", Properties: protocol.Properties{{Key: "t", Schema: &protocol.Schema{Type: "string"}}}}},
			[]string{"several questions", "Decline"}, []string{"entry-input"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			html := mounted(t, &DecisionCard{Message: decisionMessage(store.StatusPending, c.req)})
			for _, w := range c.want {
				assert.Contains(t, html, w)
			}
			for _, w := range c.notWant {
				assert.NotContains(t, html, w)
			}
			assert.Contains(t, html, `role="group"`)
		})
	}

	ended := decisionMessage(store.StatusTimedOut, approval)
	ended.Result = "No response, timed out"
	html := mounted(t, &DecisionCard{Message: ended})
	assert.Contains(t, html, "No response, timed out")
	assert.NotContains(t, html, "choice-label", "an ended card offers no answers")
}

func TestDecisionCardTruncatesLongDetailsHeadAndTail(t *testing.T) {
	details := "HEAD" + strings.Repeat("x", 5000) + "TAIL"
	req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?", Details: details,
		Options: []protocol.ApprovalOption{{Value: "allow", Label: "Approve"}}}
	card := &DecisionCard{Message: decisionMessage(store.StatusPending, req)}
	html := mounted(t, card)
	assert.Contains(t, html, "HEAD")
	assert.Contains(t, html, "TAIL")
	assert.Contains(t, html, "bytes not shown")
	assert.Contains(t, html, "Show all")
	html = mounted(t, &DecisionCard{Message: card.Message, expanded: true})
	assert.Contains(t, html, strings.Repeat("x", 5000))
}

func TestRunCardShowsOutputAndResultAsText(t *testing.T) {
	html := runCardHTML(t, store.Message{Offset: 3, Role: store.RoleRun, ID: "slash-command:2", Title: "Script", Detail: "<i>out</i>\n", Status: store.StatusFailed, Result: "script:1:1: boom"})
	assert.Contains(t, html, "&lt;i&gt;out&lt;/i&gt;")
	assert.Contains(t, html, "status-failed")
	assert.Contains(t, html, "script:1:1: boom")
	assert.Contains(t, html, `data-run="slash-command:2"`)
}

func runCardHTML(t *testing.T, m store.Message) string {
	return mounted(t, &Thread{Messages: []store.Message{m}})
}

func TestStopSitsOutsideTheLog(t *testing.T) {
	html := mounted(t, &Thread{
		Messages: []store.Message{{Offset: 1, Role: store.RoleUser, Text: "hi"}},
		Working:  true,
	})
	start := strings.Index(html, `role="log"`)
	stop := strings.Index(html, `<div class="working-row"`)
	require.True(t, start >= 0 && stop > start)
	between := html[start:stop]
	assert.Equal(t, strings.Count(between, "<div")+1, strings.Count(between, "</div>"),
		"the log closes before the working row, so Stop is not announced with each message")
}

func TestToolReceiptIsTextWithHeadAndTail(t *testing.T) {
	long := "HEAD" + strings.Repeat("y", 3000) + "TAIL"
	m := store.Message{Offset: 5, Role: store.RoleTool, ID: "call_0", Title: "run_command",
		Detail: `{"argv":["echo","<b>hi</b>"]}`, Result: long, Status: store.StatusFailed}
	html := mounted(t, &Thread{Messages: []store.Message{m}})
	assert.Contains(t, html, "entry-tool status-failed")
	assert.Contains(t, html, `data-call="call_0"`)
	assert.Contains(t, html, "&lt;b&gt;hi&lt;/b&gt;", "a model's arguments are text")
	assert.NotContains(t, html, "<b>hi")
	assert.Contains(t, html, "HEAD")
	assert.Contains(t, html, "TAIL")
	assert.Contains(t, html, "bytes not shown")
	assert.Contains(t, html, "error")
}

func TestNoticesAndStreamsAreMarked(t *testing.T) {
	html := mounted(t, &Thread{Messages: []store.Message{
		{Offset: 1, Role: store.RoleAgent, From: protocol.FromParley, Text: "The model server cannot be reached"},
		{Offset: 2, Role: store.RoleAgent, Stream: "2-1", Status: store.StatusStreaming, Text: "<script>x</script>"},
		{Offset: 3, Role: store.RoleAgent, Stream: "2-2", Status: store.StatusInterrupted, Text: "Half"},
	}})
	assert.Contains(t, html, "msg msg-agent msg-notice")
	assert.Contains(t, html, "msg msg-agent msg-streaming")
	assert.Contains(t, html, "&lt;script&gt;x&lt;/script&gt;")
	assert.Contains(t, html, "Interrupted: the server stopped before this message ended")
}

// A card reused for another decision (the approvals screen's queue moved up) starts blank.
func TestDecisionCardForgetsWhatWasTypedForAnotherDecision(t *testing.T) {
	req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?", Options: []protocol.ApprovalOption{{Value: "deny", Label: "Reject", Tone: protocol.ToneDeny}}}
	card := &DecisionCard{Message: decisionMessage(store.StatusPending, req)}
	mounted(t, card)
	card.reason = "typed for d1"
	card.Render()
	assert.Equal(t, "typed for d1", card.reason, "the same decision keeps it")
	next := decisionMessage(store.StatusPending, req)
	next.ID = "d2"
	card.Message = next
	card.Render()
	assert.Empty(t, card.reason)
}

// A timed-out card offers Request retry, and nothing that answers.
func TestTimedOutCardOffersRequestRetry(t *testing.T) {
	req := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Deploy?"}
	m := decisionMessage(store.StatusTimedOut, req)
	html := mounted(t, &DecisionCard{Message: m})
	assert.Contains(t, html, "Request retry")
	assert.NotContains(t, html, "entry-reason")
	pending := mounted(t, &DecisionCard{Message: decisionMessage(store.StatusPending, req)})
	assert.NotContains(t, pending, "Request retry")
}
