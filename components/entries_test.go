package components

import (
	"encoding/json"
	"strings"
	"testing"

	"parley/components/internal/domtest"
	"parley/components/viewtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/store"
	"parley/protocol"
)

func decisionMessage(status store.Status, req protocol.DecisionRequest) store.Message {
	return store.Message{Offset: 9, Role: store.RoleDecision, ID: "d1", Title: req.Message, Detail: req.Details, Status: status, Request: &req}
}

// TestDecisionCardIsOneLineWhileOpen: the composer holds an open decision, so its card is
// one line that says so, with no answers of its own; once ended it states the outcome.
func TestDecisionCardIsOneLineWhileOpen(t *testing.T) {
	approval := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Allow running rm?", Details: `rm -rf "<b>x</b>"`,
		Options: []protocol.ApprovalOption{
			{Value: "allow", Label: "Approve", Tone: protocol.ToneAffirm},
			{Value: "deny", Label: "Reject", Tone: protocol.ToneDeny},
		}}
	confirm := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Ship?", Schema: &protocol.Schema{Type: "boolean"}}
	for req, kind := range map[*protocol.DecisionRequest]string{&approval: "Approval", &confirm: "Confirm"} {
		html := viewtest.Render(t, &DecisionCard{Message: decisionMessage(store.StatusPending, *req)})
		assert.Contains(t, html, "Waiting for your answer below")
		assert.Contains(t, html, `<span class="entry-kind">`+kind+`</span>`, "named as the composer names it")
		assert.Contains(t, html, `role="button"`)
		assert.Contains(t, html, `tabindex="0"`)
		for _, no := range []string{"<button", "Decline", "Approve", "choice", "rm -rf"} {
			assert.NotContains(t, html, no, "an open card offers nothing the composer has")
		}
	}

	ended := decisionMessage(store.StatusDeclined, approval)
	ended.Result = "Rejected: use printf instead"
	html := viewtest.Render(t, &DecisionCard{Message: ended})
	assert.Contains(t, html, `<div class="entry-outcome">Rejected: use printf instead</div>`)
	assert.Contains(t, html, "&lt;b&gt;x&lt;/b&gt;", "details are text")
	assert.NotContains(t, html, "Waiting")
	assert.Contains(t, html, `role="group"`)
}

func TestDecisionCardTruncatesLongDetailsHeadAndTail(t *testing.T) {
	details := "HEAD" + strings.Repeat("x", 5000) + "TAIL"
	req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?", Details: details,
		Options: []protocol.ApprovalOption{{Value: "allow", Label: "Approve"}}}
	card := &DecisionCard{Message: decisionMessage(store.StatusAnswered, req)}
	html := viewtest.Render(t, card)
	assert.Contains(t, html, "HEAD")
	assert.Contains(t, html, "TAIL")
	assert.Contains(t, html, "bytes not shown")
	assert.Contains(t, html, "Show all")
	html = viewtest.Render(t, &DecisionCard{Message: card.Message, expanded: true, shown: card.Message.ID})
	assert.Contains(t, html, strings.Repeat("x", 5000))
}

func TestRunCardShowsOutputAndResultAsText(t *testing.T) {
	html := runCardHTML(t, store.Message{Offset: 3, Role: store.RoleRun, ID: "slash-command:2", Title: "Script", Detail: "<i>out</i>\n", Status: store.StatusFailed, Result: "script:1:1: boom"})
	assert.Contains(t, html, "&lt;i&gt;out&lt;/i&gt;")
	assert.Contains(t, html, "status-failed")
	assert.Contains(t, html, "script:1:1: boom")
	assert.Contains(t, html, `data-run="slash-command:2"`)
	// One article to a screen reader, named by its title and its status.
	card := domtest.Parse(t, html).One(t, ".entry-run")
	assert.Equal(t, "article", card.Attrs["role"])
	assert.Equal(t, "run-slash-command:2-title run-slash-command:2-status", card.Attrs["aria-labelledby"])
	assert.Equal(t, "Script", card.One(t, "[id=run-slash-command:2-title]").TextContent())
	assert.Equal(t, "failed", card.One(t, "[id=run-slash-command:2-status]").TextContent())
}

func runCardHTML(t *testing.T, m store.Message) string {
	return viewtest.Render(t, &Thread{Messages: []store.Message{m}})
}

func TestStopSitsOutsideTheLog(t *testing.T) {
	html := viewtest.Render(t, &Thread{
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
	html := viewtest.Render(t, &Thread{Messages: []store.Message{m}})
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
	html := viewtest.Render(t, &Thread{Messages: []store.Message{
		{Offset: 1, Role: store.RoleAgent, From: protocol.FromParley, Text: "The model server cannot be reached"},
		{Offset: 2, Role: store.RoleAgent, Stream: "2-1", Status: store.StatusStreaming, Text: "<script>x</script>"},
		{Offset: 3, Role: store.RoleAgent, Stream: "2-2", Status: store.StatusInterrupted, Text: "Half"},
	}})
	assert.Contains(t, html, "msg msg-agent msg-notice")
	assert.Contains(t, html, "msg msg-agent msg-streaming")
	assert.Contains(t, html, "&lt;script&gt;x&lt;/script&gt;")
	assert.Contains(t, html, "Interrupted: the server stopped before this message ended")
}

// TestRunOutputIsShownOnce: a script's send() that repeats its run's result or output is not
// shown again beside the card; a message with other words is.
func TestRunOutputIsShownOnce(t *testing.T) {
	msgs := []store.Message{
		{Offset: 1, Role: store.RoleUser, Text: "/example greet"},
		{Offset: 2, Role: store.RoleRun, ID: "r", Title: "Function greet", Status: store.StatusDone, Result: "Hello, Ada.", Detail: "a.txt\nb.txt\n"},
		{Offset: 3, Role: store.RoleAgent, From: protocol.FromScript, Text: "Hello, Ada."},
		{Offset: 4, Role: store.RoleAgent, From: protocol.FromScript, Text: "a.txt\nb.txt"},
		{Offset: 5, Role: store.RoleAgent, From: protocol.FromScript, Text: "Something else"},
	}
	html := viewtest.Render(t, &Thread{Messages: msgs})
	assert.Equal(t, 1, strings.Count(html, "Hello, Ada."))
	assert.Equal(t, 1, strings.Count(html, "a.txt"))
	assert.Contains(t, html, "Something else")
	assert.Equal(t, 2, strings.Count(html, `class="msg-folded"`))

	// Words inside a line of the output are no repeat of it (QA round 21: "ok" and "2" were
	// hidden by "looking at 12 files").
	msgs = []store.Message{
		{Offset: 1, Role: store.RoleRun, ID: "r", Title: "Script", Status: store.StatusDone, Detail: "looking at 12 files\n"},
		{Offset: 2, Role: store.RoleAgent, From: protocol.FromScript, Text: "ok"},
		{Offset: 3, Role: store.RoleAgent, From: protocol.FromScript, Text: "2"},
		{Offset: 4, Role: store.RoleAgent, From: protocol.FromScript, Text: "looking at 12 files"},
	}
	html = viewtest.Render(t, &Thread{Messages: msgs})
	assert.Equal(t, 1, strings.Count(html, `class="msg-folded"`), "only the whole line's repeat is folded")
}

// TestCommandsCollapseToTheirFirstLine: a script shows its name and first line; the code is
// behind a toggle.
func TestCommandsCollapseToTheirFirstLine(t *testing.T) {
	item := &MessageItem{Message: store.Message{Offset: 1, Role: store.RoleUser, At: 1700000000000, Text: "/script x = 1\nsend(str(x))\nprint('<b>')"}}
	html := viewtest.Render(t, item)
	assert.Contains(t, html, `<span class="cmd-name">/script</span>`)
	assert.Contains(t, html, `<span class="cmd-first"> x = 1</span>`)
	assert.NotContains(t, html, "send(str(x))")
	assert.Contains(t, html, "Show code (3 lines)")
	assert.Contains(t, html, "<time")
	assert.Contains(t, html, "Copy")
	html = viewtest.Render(t, &MessageItem{Message: item.Message, showCode: true})
	assert.Contains(t, html, "send(str(x))")
	assert.Contains(t, html, "&lt;b&gt;")
	assert.Contains(t, html, "Hide code")
}

// TestAStoppedCallKeepsItsOutput: a call the turn ended before its result (Stop, a restart)
// keeps the output it showed, above the words that say it has no result (QA round 21: Stop
// erased the ticks the person was watching).
func TestAStoppedCallKeepsItsOutput(t *testing.T) {
	m := store.Message{Offset: 5, Role: store.RoleTool, ID: "c1", Title: "run_command", Status: store.StatusInterrupted,
		Output: "tick 1\ntick 2\n", Result: "No result: the turn ended before this call finished"}
	page := domtest.Render(t, &ToolReceipt{Message: m})
	assert.Equal(t, "tick 1\ntick 2", page.One(t, ".tool-output").TextContent())
	assert.Contains(t, page.One(t, ".tool-result").TextContent(), "No result")
	m.Status, m.Result = store.StatusDone, "tick 1\ntick 2\nexit 0"
	page = domtest.Render(t, &ToolReceipt{Message: m})
	assert.Empty(t, page.All(".tool-output"), "a result says the output once")
}

// TestAnAskUserReceiptIsFolded: the question's card says the question and the answer in
// words; the call's receipt keeps its JSON folded until asked (QA round 26).
func TestAnAskUserReceiptIsFolded(t *testing.T) {
	m := store.Message{Offset: 5, Role: store.RoleTool, ID: "c1", Title: "ask_user", Status: store.StatusDone,
		Detail: `{"message": "Which colour?", "schema": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}]}}`,
		Result: `the user answered: "r"`}
	page := domtest.Render(t, &ToolReceipt{Message: m})
	assert.Empty(t, page.All(".tool-args"))
	assert.Empty(t, page.All(".tool-result"))
	assert.Len(t, page.All(".link-button"), 1, "Show all unfolds it")
	page = domtest.Render(t, &ToolReceipt{Message: m, expanded: true})
	assert.Contains(t, page.One(t, ".tool-result").TextContent(), `"r"`)
}

func TestToolReceiptShowsProgressAsText(t *testing.T) {
	m := store.Message{Offset: 5, Role: store.RoleTool, ID: "c1", Title: "mcp__test__slow", Status: store.StatusRunning,
		Progress: &protocol.ToolProgress{Call: "c1", Progress: 2, Total: 5, Message: "<i>copying</i>"}}
	html := viewtest.Render(t, &Thread{Messages: []store.Message{m}})
	// go-app writes attributes in no fixed order: each is checked alone.
	assert.Regexp(t, `<progress [^>]*class="tool-progress-bar"`, html)
	assert.Regexp(t, `<progress [^>]*max="5.0000"`, html)
	assert.Regexp(t, `<progress [^>]*value="2.0000"`, html)
	assert.Contains(t, html, "2 of 5: &lt;i&gt;copying&lt;/i&gt;", "the server's message is text")
}

// A card reused for another decision (the approvals screen's queue moved up) starts blank.
func TestDecisionCardForgetsWhatWasTypedForAnotherDecision(t *testing.T) {
	req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?", Options: []protocol.ApprovalOption{{Value: "deny", Label: "Reject", Tone: protocol.ToneDeny}}}
	card := &DecisionCard{Message: decisionMessage(store.StatusPending, req)}
	viewtest.Render(t, card)
	card.reason = "typed for d1"
	card.Render()
	assert.Equal(t, "typed for d1", card.reason, "the same decision keeps it")
	next := decisionMessage(store.StatusPending, req)
	next.ID = "d2"
	card.Message = next
	card.Render()
	assert.Empty(t, card.reason)
}

// A card that expired unanswered (timed out, or cut off by a restart) offers Request retry,
// and nothing that answers; one stopped on purpose, or still pending, does not. A slash
// command's request offers Run again (the command is sent again: the agent never asked it),
// and a function run's offers neither (its form runs it again).
func TestExpiredCardsOfferRequestRetry(t *testing.T) {
	req := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Deploy?"}
	for _, asker := range []struct{ run, offers string }{
		{"", "Request retry"},
		{protocol.CommandRun(7), "Run again"},
		{protocol.FunctionRunPrefix + "f1", ""},
	} {
		for _, reason := range []string{protocol.ReasonTimeout, protocol.ReasonOrphaned, protocol.ReasonStopped, protocol.ReasonWithdrawn} {
			th := &store.Thread{}
			asked, _ := json.Marshal(protocol.QuestionAsked{ID: "d1", Request: req, Run: asker.run})
			th.Apply(protocol.Event{Offset: 1, Type: protocol.EventQuestionAsked, Data: asked})
			ended, _ := json.Marshal(protocol.QuestionRejected{ID: "d1", Reason: reason, Outcome: protocol.OutcomeAborted})
			th.Apply(protocol.Event{Offset: 2, Type: protocol.EventQuestionRejected, Data: ended})
			html := viewtest.Render(t, &DecisionCard{Message: th.Messages[0]})
			for _, label := range []string{"Request retry", "Run again"} {
				if label == asker.offers && protocol.RetryableReason(reason) {
					assert.Contains(t, html, label, reason, asker.run)
				} else {
					assert.NotContains(t, html, label, reason, asker.run)
				}
			}
			assert.NotContains(t, html, "entry-reason", reason)
		}
	}
	pending := viewtest.Render(t, &DecisionCard{Message: decisionMessage(store.StatusPending, req)})
	assert.NotContains(t, pending, "Request retry")
}

// TestAFormOnTheApprovalsScreenLeadsToItsThread: a form of several questions cannot be
// answered on its card; on the approvals screen, where no composer is below, its card says to
// answer it in its thread and links there (it said "in the composer below").
func TestAFormOnTheApprovalsScreenLeadsToItsThread(t *testing.T) {
	form := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Deploy", Schema: &protocol.Schema{Type: "object",
		Properties: protocol.Properties{{Key: "env", Schema: &protocol.Schema{Type: "string"}}, {Key: "replicas", Schema: &protocol.Schema{Type: "integer"}}}}}
	queued := viewtest.Render(t, &DecisionCard{Message: decisionMessage(store.StatusPending, form), Session: "s1"})
	assert.Contains(t, queued, "answer it in its thread")
	assert.NotContains(t, queued, "composer below")
	assert.Contains(t, queued, `href="/s/s1#decision-d1"`)
	assert.Contains(t, queued, "Decline", "and it can still be declined here")
}

// TestARunWaitingOnItsQuestionSaysSo: a run whose question is open says it waits for the
// person, not "running…"; once answered it runs again.
func TestARunWaitingOnItsQuestionSaysSo(t *testing.T) {
	run := store.Message{Role: store.RoleRun, ID: "r1", Title: "Script", Status: store.StatusRunning}
	confirm := decisionMessage(store.StatusPending, protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Go?"})
	html := viewtest.Render(t, &Thread{Messages: []store.Message{run, confirm}})
	status := func(html string) string {
		return domtest.Parse(t, html).One(t, ".entry-run").One(t, ".entry-status").TextContent()
	}
	assert.Equal(t, "waiting for you", status(html))
	confirm.Status = store.StatusAnswered
	html = viewtest.Render(t, &Thread{Messages: []store.Message{run, confirm}})
	assert.Equal(t, "running…", status(html))
}

// TestAGrantedCallSaysSoOnItsReceipt: a model's call an earlier "always" let through says so
// in the page's words, so nothing runs unseen (QA round 27).
func TestAGrantedCallSaysSoOnItsReceipt(t *testing.T) {
	m := store.Message{Offset: 5, Role: store.RoleTool, ID: "c1", Title: "run_command", Status: store.StatusDone, Detail: `{"argv":["ls","-la"]}`,
		Granted: []store.GrantedLine{{GrantedCall: protocol.GrantedCall{Scope: protocol.GrantScope{Kind: protocol.GrantExact, Tool: "run", Words: []string{"ls", "-la"}}, Call: "ls -la"}}}}
	page := domtest.Render(t, &ToolReceipt{Message: m})
	assert.Equal(t, "Allowed without asking by an earlier “always” (ls -la): ls -la", page.One(t, ".tool-granted").TextContent())
	m.Granted = nil
	assert.Empty(t, domtest.Render(t, &ToolReceipt{Message: m}).All(".tool-granted"))
}
