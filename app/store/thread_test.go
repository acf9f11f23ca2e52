package store

import (
	"cmp"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

func TestMessageOf(t *testing.T) {
	data := func(m protocol.Message) json.RawMessage { b, _ := json.Marshal(m); return b }
	cases := []struct {
		name string
		ev   protocol.Event
		want Message
		ok   bool
	}{
		{"user", protocol.Event{Offset: 1, Type: protocol.EventUserMessage, Data: data(protocol.Message{Text: "q"})}, Message{Offset: 1, Role: RoleUser, Text: "q"}, true},
		{"agent", protocol.Event{Offset: 2, Type: protocol.EventAgentMessage, Data: data(protocol.Message{Text: "a"})}, Message{Offset: 2, Role: RoleAgent, Text: "a"}, true},
		{"phrase", protocol.Event{Offset: 5, Type: protocol.EventAgentMessage, Data: data(protocol.Message{Text: "In English", Phrase: &protocol.Phrase{Code: "offline_reply", Args: []string{"hi"}}})},
			Message{Offset: 5, Role: RoleAgent, Text: "In English", Phrase: &protocol.Phrase{Code: "offline_reply", Args: []string{"hi"}}}, true},
		{"not shown", protocol.Event{Offset: 3, Type: protocol.EventSessionCreated}, Message{}, false},
		{"unreadable", protocol.Event{Offset: 4, Type: protocol.EventAgentMessage, Data: json.RawMessage(`1`)}, Message{Offset: 4, Role: RoleAgent}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := MessageOf(c.ev)
			assert.Equal(t, c.ok, ok)
			if c.name == "unreadable" {
				assert.Contains(t, got.Text, "could not be read")
				return
			}
			assert.Equal(t, c.want, got)
		})
	}
}

func TestThreadAppliesEventsInOrder(t *testing.T) {
	c := &Thread{}
	raw := func(text string) json.RawMessage { b, _ := json.Marshal(protocol.Message{Text: text}); return b }
	created, _ := json.Marshal(protocol.SessionCreated{Title: "Plans"})
	c.Apply(protocol.Event{Offset: 1, Type: protocol.EventSessionCreated, Data: created})
	assert.Equal(t, "Plans", c.Title)
	c.Apply(protocol.Event{Offset: 2, Type: protocol.EventUserMessage, Data: raw("q")})
	assert.True(t, c.Working, "a prompt without a reply means the agent works")
	c.Apply(protocol.Event{Offset: 3, Type: protocol.EventAgentMessage, Data: raw("a")})
	assert.False(t, c.Working)
	assert.Equal(t, []Message{{Offset: 2, Role: RoleUser, Text: "q"}, {Offset: 3, Role: RoleAgent, Text: "a"}}, c.Messages)
}

func TestQueuedPromptsJoinTheThreadWhenTheirTurnStarts(t *testing.T) {
	th := &Thread{}
	n := uint64(0)
	emit := func(typ protocol.EventType, data any) uint64 {
		n++
		raw, _ := json.Marshal(data)
		th.Apply(protocol.Event{Offset: n, Type: typ, Data: raw})
		return n
	}
	shown := func() []uint64 {
		var out []uint64
		for _, m := range th.Messages {
			out = append(out, m.Offset)
		}
		return out
	}
	queued := func() []uint64 {
		var out []uint64
		for _, m := range th.Queued {
			out = append(out, m.Offset)
		}
		return out
	}

	first := emit(protocol.EventUserMessage, protocol.Message{Text: "/script confirm('go?')"})
	assert.True(t, th.Working, "a prompt no turn picked up yet")
	emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: first, Kind: protocol.TurnCommand})
	second := emit(protocol.EventUserMessage, protocol.Message{Text: "second"})
	urgent := emit(protocol.EventUserMessage, protocol.Message{Text: "urgent", Mode: protocol.ModeSteer})
	assert.Equal(t, []uint64{first}, shown(), "prompts sent during a turn wait outside the thread")
	assert.Equal(t, []uint64{urgent, second}, queued(), "in the order they will run")
	assert.True(t, th.Queued[0].Steer)

	reply := emit(protocol.EventAgentMessage, protocol.Message{Text: "reply to the first", From: protocol.FromScript})
	emit(protocol.EventTurnEnded, protocol.TurnEnded{Prompt: first})
	assert.True(t, th.Working, "queued prompts keep the agent working between turns")
	emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: urgent})
	a := emit(protocol.EventAgentMessage, protocol.Message{Text: "a"})
	emit(protocol.EventTurnEnded, protocol.TurnEnded{Prompt: urgent})
	emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: second})
	b := emit(protocol.EventAgentMessage, protocol.Message{Text: "b"})
	emit(protocol.EventTurnEnded, protocol.TurnEnded{Prompt: second})
	assert.Equal(t, []uint64{first, reply, urgent, a, second, b}, shown(), "each reply follows its prompt")
	assert.Empty(t, th.Queued)
	assert.False(t, th.Working)
	assert.Equal(t, protocol.FromScript, th.Messages[1].From)
}

func TestLegacyLogsWithoutTurnsStillShowEveryMessage(t *testing.T) {
	th := &Thread{}
	raw := func(text string) json.RawMessage { b, _ := json.Marshal(protocol.Message{Text: text}); return b }
	th.Apply(protocol.Event{Offset: 1, Type: protocol.EventUserMessage, Data: raw("q1")})
	th.Apply(protocol.Event{Offset: 2, Type: protocol.EventUserMessage, Data: raw("q2")})
	th.Apply(protocol.Event{Offset: 3, Type: protocol.EventAgentMessage, Data: raw("a1")})
	th.Apply(protocol.Event{Offset: 4, Type: protocol.EventAgentMessage, Data: raw("a2")})
	assert.Len(t, th.Messages, 4)
	assert.Empty(t, th.Queued)
	assert.False(t, th.Working)
}

func TestDecisionOutcomesInWords(t *testing.T) {
	confirm := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Ship?", Schema: &protocol.Schema{Type: "boolean", FalseLabel: "Keep it"}}
	choice := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Env?", Schema: &protocol.Schema{Type: "string", Enum: []string{"prod"}, EnumNames: []string{"Production"}}}
	text := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Name?", Schema: &protocol.Schema{Type: "string"}}
	form := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Deploy", Schema: &protocol.Schema{Type: "object", Properties: protocol.Properties{
		{Key: "env", Schema: &protocol.Schema{Type: "string", Title: "Environment", Enum: []string{"staging"}, EnumNames: []string{"Staging"}}},
		{Key: "replicas", Schema: &protocol.Schema{Type: "integer", Title: "Replicas"}},
		{Key: "tags", Schema: &protocol.Schema{Type: "array", Title: "Tags", Items: &protocol.ItemsSchema{Type: "string", AnyOf: []protocol.EnumOption{{Const: "a", Title: "Alpha"}, {Const: "b", Title: "Beta"}}}}},
		{Key: "note", Schema: &protocol.Schema{Type: "string"}},
	}}}
	approval := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?", Options: []protocol.ApprovalOption{{Value: "allow", Label: "Approve"}}}
	always := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?", Options: []protocol.ApprovalOption{
		{Value: "allow", Label: "Approve"}, {Value: "allow", Label: "Approve, and always for this command", Grant: &protocol.GrantScope{}},
		{Value: "deny", Label: "Reject"}, {Value: "later", Label: "Later"}}}
	cases := []struct {
		name    string
		req     protocol.DecisionRequest
		outcome protocol.Event
		status  Status
		words   string
	}{
		{"yes", confirm, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept, Content: mustJSON(true)})}, StatusAnswered, "Yes"},
		{"false label", confirm, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept, Content: mustJSON(false)})}, StatusAnswered, "Keep it"},
		{"choice title", choice, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept, Content: mustJSON("prod")})}, StatusAnswered, "Production"},
		{"other", choice, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept, Content: mustJSON("qa")})}, StatusAnswered, "qa"},
		{"text", text, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept, Content: mustJSON("Ada")})}, StatusAnswered, "Ada"},
		{"form", form, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept,
			Content: json.RawMessage(`{"env":"staging","replicas":3,"tags":["b","a"]}`)})}, StatusAnswered, "Environment: Staging · Replicas: 3 · Tags: Beta, Alpha"},
		{"approval approved", approval, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept,
			Content: json.RawMessage(`{"option":0}`)})}, StatusAnswered, "Approved"},
		{"approval always", always, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept,
			Content: json.RawMessage(`{"option":1}`)})}, StatusAnswered, "Approved, always for this command"},
		{"approval deny option", always, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept,
			Content: json.RawMessage(`{"option":2}`)})}, StatusAnswered, "Rejected"},
		{"an asker's own option", always, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept,
			Content: json.RawMessage(`{"option":3}`)})}, StatusAnswered, "Later"},
		{"approval instruction", approval, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept,
			Content: json.RawMessage(`{"instruction":"use printf instead"}`)})}, StatusAnswered, "Rejected: use printf instead"},
		{"approval rejected", protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?", Options: []protocol.ApprovalOption{{Value: "allow", Label: "Approve"}}},
			protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionDecline, Reason: "not now"})}, StatusDeclined, "Rejected: not now"},
		{"declined", text, protocol.Event{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionDecline, Reason: "later"})}, StatusDeclined, "Declined: later"},
		{"timeout", text, protocol.Event{Type: protocol.EventQuestionRejected, Data: mustJSON(protocol.QuestionRejected{ID: "d", Outcome: protocol.OutcomeDeclined, Reason: protocol.ReasonTimeout})}, StatusTimedOut, "No answer in time"},
		{"restart", text, protocol.Event{Type: protocol.EventQuestionRejected, Data: mustJSON(protocol.QuestionRejected{ID: "d", Outcome: protocol.OutcomeAborted, Reason: protocol.ReasonOrphaned})}, StatusAborted, "Ended: the server restarted before it was answered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th := &Thread{}
			th.Apply(protocol.Event{Offset: 1, Type: protocol.EventQuestionAsked, Data: mustJSON(protocol.QuestionAsked{ID: "d", Request: c.req})})
			require.Len(t, th.Pending, 1)
			c.outcome.Offset = 2
			th.Apply(c.outcome)
			assert.Empty(t, th.Pending)
			assert.Equal(t, c.status, th.Messages[0].Status)
			assert.Equal(t, c.words, th.Messages[0].Result)
		})
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestRunOutcomesInWords(t *testing.T) {
	for errText, want := range map[string]Status{
		"":                    StatusDone,
		"stopped by the user": StatusStopped,
		"interrupted: the server running it stopped before it finished": StatusInterrupted,
		"script:1:1: boom": StatusFailed,
	} {
		th := &Thread{}
		th.Apply(protocol.Event{Offset: 1, Type: protocol.EventRunStarted, Data: mustJSON(protocol.RunStarted{ID: "r", Kind: protocol.RunScript})})
		th.Apply(protocol.Event{Offset: 2, Type: protocol.EventRunSettled, Data: mustJSON(protocol.RunSettled{Run: "r", Error: errText})})
		assert.Equal(t, want, th.Messages[0].Status, errText)
	}
}

func TestWithdrawnPromptLeavesTheQueue(t *testing.T) {
	th := &Thread{}
	raw := func(text string) json.RawMessage { return mustJSON(protocol.Message{Text: text}) }
	th.Apply(protocol.Event{Offset: 1, Type: protocol.EventUserMessage, Data: raw("first")})
	th.Apply(protocol.Event{Offset: 2, Type: protocol.EventTurnStarted, Data: mustJSON(protocol.TurnStarted{Prompt: 1})})
	th.Apply(protocol.Event{Offset: 3, Type: protocol.EventUserMessage, Data: raw("second")})
	th.Apply(protocol.Event{Offset: 4, Type: protocol.EventUserMessage, Data: raw("third")})
	require.Len(t, th.Queued, 2)
	th.Apply(protocol.Event{Offset: 5, Type: protocol.EventPromptWithdrawn, Data: mustJSON(protocol.PromptWithdrawn{Prompt: 3})})
	require.Len(t, th.Queued, 1)
	assert.Equal(t, "third", th.Queued[0].Text)
	th.Apply(protocol.Event{Offset: 6, Type: protocol.EventTurnEnded, Data: mustJSON(protocol.TurnEnded{Prompt: 1})})
	th.Apply(protocol.Event{Offset: 7, Type: protocol.EventTurnStarted, Data: mustJSON(protocol.TurnStarted{Prompt: 4})})
	th.Apply(protocol.Event{Offset: 8, Type: protocol.EventTurnEnded, Data: mustJSON(protocol.TurnEnded{Prompt: 4})})
	var texts []string
	for _, m := range th.Messages {
		texts = append(texts, m.Text)
	}
	assert.Equal(t, []string{"first", "third"}, texts, "the withdrawn prompt never joins the thread")
	assert.False(t, th.Working)
}

// TestRunCardPrecedesTheDecisionItAsks: a run's card stays where the run began, and the
// decisions it asks follow it in the order asked (docs/qa-round10.md: the thread read as if
// the question came before the run); the output after an answer still lands in the card.
func TestRunCardPrecedesTheDecisionItAsks(t *testing.T) {
	approval := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Allow running echo?"}
	roles := func(th *Thread) []string {
		var out []string
		for _, m := range th.Messages {
			out = append(out, string(m.Role)+":"+cmp.Or(m.ID, m.Text))
		}
		return out
	}
	cases := []struct {
		name   string
		events []protocol.Event
		want   []string
	}{
		{"approval then run", []protocol.Event{
			{Type: protocol.EventUserMessage, Data: mustJSON(protocol.Message{Text: "/script"})},
			{Type: protocol.EventRunStarted, Data: mustJSON(protocol.RunStarted{ID: "r", Kind: protocol.RunScript})},
			{Type: protocol.EventQuestionAsked, Data: mustJSON(protocol.QuestionAsked{ID: "d", Run: "r", Request: approval})},
			{Type: protocol.EventQuestionReplied, Data: mustJSON(protocol.QuestionReplied{ID: "d", Action: protocol.ActionAccept, Content: json.RawMessage(`{"option":0}`)})},
			{Type: protocol.EventRunOutput, Data: mustJSON(protocol.RunOutput{Run: "r", Text: "hello\n"})},
			{Type: protocol.EventRunSettled, Data: mustJSON(protocol.RunSettled{Run: "r"})},
		}, []string{"user:/script", "run:r", "decision:d"}},
		{"two decisions", []protocol.Event{
			{Type: protocol.EventRunStarted, Data: mustJSON(protocol.RunStarted{ID: "r", Kind: protocol.RunScript})},
			{Type: protocol.EventQuestionAsked, Data: mustJSON(protocol.QuestionAsked{ID: "d1", Run: "r", Request: approval})},
			{Type: protocol.EventAgentMessage, Data: mustJSON(protocol.Message{Text: "sent", From: protocol.FromScript})},
			{Type: protocol.EventQuestionAsked, Data: mustJSON(protocol.QuestionAsked{ID: "d2", Run: "r", Request: approval})},
		}, []string{"run:r", "decision:d1", "agent:sent", "decision:d2"}},
		{"another run's decision", []protocol.Event{
			{Type: protocol.EventRunStarted, Data: mustJSON(protocol.RunStarted{ID: "r", Kind: protocol.RunScript})},
			{Type: protocol.EventQuestionAsked, Data: mustJSON(protocol.QuestionAsked{ID: "d", Run: "other", Request: approval})},
		}, []string{"run:r", "decision:d"}},
		{"run ended", []protocol.Event{
			{Type: protocol.EventRunStarted, Data: mustJSON(protocol.RunStarted{ID: "r", Kind: protocol.RunScript})},
			{Type: protocol.EventRunSettled, Data: mustJSON(protocol.RunSettled{Run: "r"})},
			{Type: protocol.EventQuestionAsked, Data: mustJSON(protocol.QuestionAsked{ID: "d", Run: "r", Request: approval})},
		}, []string{"run:r", "decision:d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th := &Thread{}
			for i, ev := range c.events {
				ev.Offset = uint64(i + 1)
				th.Apply(ev)
			}
			assert.Equal(t, c.want, roles(th))
			// Later events find the card.
			if r := th.find("r"); r != nil {
				assert.Equal(t, "r", r.ID)
			}
		})
	}
	th := &Thread{}
	for i, ev := range cases[0].events {
		ev.Offset = uint64(i + 1)
		th.Apply(ev)
	}
	assert.Equal(t, "hello\n", th.Messages[1].Detail, "the output lands in the run's card")
	assert.Equal(t, StatusDone, th.Messages[1].Status)
}

// TestEditedQueuedPromptKeepsItsPlace: a prompt.edited changes the queued prompt's text where
// it stands, and the thread shows the new text once it runs.
func TestEditedQueuedPromptKeepsItsPlace(t *testing.T) {
	var th Thread
	raw := func(text string) json.RawMessage { return mustJSON(protocol.Message{Text: text}) }
	th.Apply(protocol.Event{Offset: 1, Type: protocol.EventUserMessage, Data: raw("first")})
	th.Apply(protocol.Event{Offset: 2, Type: protocol.EventTurnStarted, Data: mustJSON(protocol.TurnStarted{Prompt: 1})})
	th.Apply(protocol.Event{Offset: 3, Type: protocol.EventUserMessage, Data: raw("second")})
	th.Apply(protocol.Event{Offset: 4, Type: protocol.EventUserMessage, Data: raw("third")})
	held := th.Queued
	th.Apply(protocol.Event{Offset: 5, Type: protocol.EventPromptEdited, Data: mustJSON(protocol.PromptEdited{Prompt: 3, Text: "second, edited"})})
	require.Len(t, th.Queued, 2)
	assert.Equal(t, []string{"second, edited", "third"}, []string{th.Queued[0].Text, th.Queued[1].Text})
	assert.Equal(t, "second", held[0].Text, "a copy: the view's old slice is not written")
	th.Apply(protocol.Event{Offset: 6, Type: protocol.EventTurnEnded, Data: mustJSON(protocol.TurnEnded{Prompt: 1})})
	th.Apply(protocol.Event{Offset: 7, Type: protocol.EventTurnStarted, Data: mustJSON(protocol.TurnStarted{Prompt: 3})})
	var texts []string
	for _, m := range th.Messages {
		texts = append(texts, m.Text)
	}
	assert.Equal(t, []string{"first", "second, edited"}, texts)
}

// TestRunTitles: a run card names its kind and what ran: a function by its own TITLE when it
// has one, an example by its slug, a workspace file's path after it.
func TestRunTitles(t *testing.T) {
	cases := []struct {
		run  protocol.RunStarted
		want string
	}{
		{protocol.RunStarted{ID: "r", Kind: protocol.RunScript}, "Script"},
		{protocol.RunStarted{ID: "r", Kind: protocol.RunExample, Name: "hello", Source: "builtin"}, "Example hello"},
		{protocol.RunStarted{ID: "r", Kind: protocol.RunFunction, Name: "deploy", Title: "Deploy service", Source: ".parley/functions/deploy.star"},
			"Function Deploy service (.parley/functions/deploy.star)"},
		{protocol.RunStarted{ID: "r", Kind: protocol.RunFunction, Name: "deploy"}, "Function deploy"},
	}
	for _, c := range cases {
		th := &Thread{}
		th.Apply(protocol.Event{Offset: 1, Type: protocol.EventRunStarted, Data: mustJSON(c.run)})
		require.Len(t, th.Messages, 1)
		assert.Equal(t, c.want, th.Messages[0].Title)
	}
}

// A stopped agent turn says so: on its last message from the model, or, when it wrote
// nothing, in a note from Parley. A run's card says it already; a turn that ended by itself
// marks nothing.
func TestAStoppedTurnSaysSo(t *testing.T) {
	msg := func(text string) json.RawMessage { return mustJSON(protocol.Message{Text: text}) }
	for _, c := range []struct {
		name  string
		after []protocol.Event // between turn.started (offset 2) and turn.ended
		ended protocol.TurnEnded
		want  []string // role/from/status: text
	}{
		{"a cut answer", []protocol.Event{{Type: protocol.EventAgentMessage, Data: msg("Cut here")}},
			protocol.TurnEnded{Prompt: 1, Stopped: true}, []string{"user//: hi", "agent//stopped: Cut here"}},
		{"stopped before a word", nil,
			protocol.TurnEnded{Prompt: 1, Stopped: true}, []string{"user//: hi", "agent/parley/stopped: "}},
		{"after the answer, during a tool call", []protocol.Event{
			{Type: protocol.EventAgentMessage, Data: msg("Looking.")},
			{Type: protocol.EventToolCalled, Data: mustJSON(protocol.ToolCalled{Calls: []protocol.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{}`}}})},
		}, protocol.TurnEnded{Prompt: 1, Stopped: true}, []string{"user//: hi", "agent//stopped: Looking.", "tool//interrupted: "}},
		{"ended by itself", []protocol.Event{{Type: protocol.EventAgentMessage, Data: msg("All of it.")}},
			protocol.TurnEnded{Prompt: 1}, []string{"user//: hi", "agent//: All of it."}},
		{"a script's run, whose card says it", nil,
			protocol.TurnEnded{Prompt: 1, Run: "r1", Stopped: true}, []string{"user//: hi"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			th := &Thread{}
			th.Apply(protocol.Event{Offset: 1, Type: protocol.EventUserMessage, Data: msg("hi")})
			th.Apply(protocol.Event{Offset: 2, Type: protocol.EventTurnStarted, Data: mustJSON(protocol.TurnStarted{Prompt: 1})})
			n := uint64(2)
			for _, ev := range c.after {
				n++
				ev.Offset = n
				th.Apply(ev)
			}
			th.Apply(protocol.Event{Offset: n + 1, Type: protocol.EventTurnEnded, Data: mustJSON(c.ended)})
			var got []string
			for _, m := range th.Messages {
				got = append(got, string(m.Role)+"/"+string(m.From)+"/"+string(m.Status)+": "+m.Text)
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// TestGrantedLinesAreKeptForThePagesWords: the gate's English line for a call an earlier
// "always" let run joins the run's output as it is, and is kept with what a page words it from.
func TestGrantedLinesAreKeptForThePagesWords(t *testing.T) {
	call := protocol.GrantedCall{Scope: protocol.GrantScope{Kind: protocol.GrantTool, Tool: "run"}, Call: "ls"}
	th := &Thread{}
	for i, ev := range []protocol.Event{
		{Type: protocol.EventRunStarted, Data: mustJSON(protocol.RunStarted{ID: "r", Kind: protocol.RunScript})},
		{Type: protocol.EventRunOutput, Data: mustJSON(protocol.RunOutput{Run: "r", Stream: protocol.StreamLog, Text: "Allowed: ls", Granted: &call})},
		{Type: protocol.EventRunOutput, Data: mustJSON(protocol.RunOutput{Run: "r", Text: "a.txt\n"})},
	} {
		ev.Offset = uint64(i + 1)
		th.Apply(ev)
	}
	r := th.find("r")
	require.NotNil(t, r)
	assert.Equal(t, "Allowed: ls\na.txt\n", r.Detail)
	assert.Equal(t, []GrantedLine{{Text: "Allowed: ls\n", GrantedCall: call}}, r.Granted)
}
