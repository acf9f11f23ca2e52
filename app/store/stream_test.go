package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

type folder struct {
	th *Thread
	n  uint64
}

func (f *folder) emit(typ protocol.EventType, data any) { f.emitAt(typ, data, 0) }

// emitAt is emit of an event the server logged at at (unix milliseconds).
func (f *folder) emitAt(typ protocol.EventType, data any, at int64) {
	f.n++
	raw, _ := json.Marshal(data)
	f.th.Apply(protocol.Event{Offset: f.n, Type: typ, Data: raw, At: at})
}

func (f *folder) texts() []string {
	var out []string
	for _, m := range f.th.Messages {
		out = append(out, string(m.Role)+"/"+string(m.Status)+": "+m.Text+m.Title)
	}
	return out
}

func TestAStreamGrowsFromDraftsAndDeltasWithNoDuplicate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps func(f *folder)
		want  string
	}{
		{"live from the start", func(f *folder) {
			f.th.Live(protocol.Delta{Stream: "2-1", Pos: 0, Text: "Hel"})
			f.th.Live(protocol.Delta{Stream: "2-1", Pos: 3, Text: "lo"})
		}, "Hello"},
		{"a reload: drafts, then the tail since the last of them", func(f *folder) {
			f.emit(protocol.EventAgentDraft, protocol.AgentDraft{Stream: "2-1", Seq: 1, Text: "Hello, "})
			f.emit(protocol.EventAgentDraft, protocol.AgentDraft{Stream: "2-1", Seq: 2, Pos: 7, Text: "wor"})
			f.th.Live(protocol.Delta{Stream: "2-1", Pos: 7, Text: "world"})
		}, "Hello, world"},
		{"a delta the draft already holds", func(f *folder) {
			f.th.Live(protocol.Delta{Stream: "2-1", Pos: 0, Text: "Hello"})
			f.emit(protocol.EventAgentDraft, protocol.AgentDraft{Stream: "2-1", Seq: 1, Text: "Hello"})
			f.th.Live(protocol.Delta{Stream: "2-1", Pos: 0, Text: "Hello"})
		}, "Hello"},
		{"a delta past a hole waits for the draft", func(f *folder) {
			f.th.Live(protocol.Delta{Stream: "2-1", Pos: 0, Text: "He"})
			f.th.Live(protocol.Delta{Stream: "2-1", Pos: 5, Text: "!"})
		}, "He"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &folder{th: &Thread{}}
			f.emit(protocol.EventUserMessage, protocol.Message{Text: "hi"})
			f.emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent})
			tc.steps(f)
			require.Len(t, f.th.Messages, 2)
			assert.Equal(t, tc.want, f.th.Messages[1].Text)
			assert.Equal(t, StatusStreaming, f.th.Messages[1].Status)

			f.n++
			raw, _ := json.Marshal(protocol.Message{Text: "Hello, world!", Stream: "2-1"})
			f.th.Apply(protocol.Event{Offset: f.n, At: 1700000000000, Type: protocol.EventAgentMessage, Data: raw})
			assert.Equal(t, []string{"user/: hi", "agent/: Hello, world!"}, f.texts(), "the message replaces the stream in place")
			assert.Equal(t, int64(1700000000000), f.th.Messages[1].At, "the message's time, as a reload shows it")
			assert.False(t, f.th.Live(protocol.Delta{Stream: "2-1", Pos: 0, Text: "Hello, world!!"}), "a late delta changes nothing")
		})
	}
}

func TestLiveCountsARevision(t *testing.T) {
	th := &Thread{}
	rev := th.Rev
	require.True(t, th.Live(protocol.Delta{Stream: "1-1", Text: "a"}))
	assert.Greater(t, th.Rev, rev, "a view must see the change of an entry edited in place")
	rev = th.Rev
	assert.False(t, th.Live(protocol.Delta{Stream: "1-1", Text: "a"}))
	assert.Equal(t, rev, th.Rev)
}

func TestToolReceiptsAndInterruptedStreams(t *testing.T) {
	f := &folder{th: &Thread{}}
	f.emit(protocol.EventUserMessage, protocol.Message{Text: "list"})
	f.emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent})
	f.emit(protocol.EventToolCalled, protocol.ToolCalled{Calls: []protocol.ToolCall{
		{ID: "call_0", Name: "list_files", Arguments: `{"path":"."}`},
		{ID: "call_1", Name: "read_file", Arguments: `{"path":"a"}`}}})
	f.emit(protocol.EventToolResult, protocol.ToolResult{Call: "call_0", Name: "list_files", Text: "a\nb/"})
	f.emit(protocol.EventToolResult, protocol.ToolResult{Call: "call_1", Name: "read_file", Text: "no such file", Error: true})
	// The next step reuses the ids, as local servers do.
	f.emit(protocol.EventToolCalled, protocol.ToolCalled{Calls: []protocol.ToolCall{{ID: "call_0", Name: "run_command", Arguments: `{"argv":["ls"]}`}}})
	f.emitAt(protocol.EventAgentDraft, protocol.AgentDraft{Stream: "2-2", Seq: 1, Text: "Ha"}, 5_000)
	f.emitAt(protocol.EventAgentDraft, protocol.AgentDraft{Stream: "2-2", Seq: 2, Pos: 2, Text: "lf"}, 7_000)
	f.emit(protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 1, Interrupted: true})
	assert.Equal(t, []string{
		"user/: list",
		"tool/done: list_files", "tool/failed: read_file",
		"tool/interrupted: run_command",
		"agent/interrupted: Half",
	}, f.texts())
	assert.Equal(t, `{"path":"."}`, f.th.Messages[1].Detail)
	assert.Equal(t, "a\nb/", f.th.Messages[1].Result)
	assert.Equal(t, "no such file", f.th.Messages[2].Result)
	assert.Equal(t, int64(7_000), f.th.Messages[4].At, "cut off, the answer keeps the time its last words were stored")
}

func TestASteeredPromptJoinsTheThreadWhenTheTurnTakesIt(t *testing.T) {
	f := &folder{th: &Thread{}}
	f.emit(protocol.EventUserMessage, protocol.Message{Text: "look around"})
	f.emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent})
	f.emit(protocol.EventUserMessage, protocol.Message{Text: "also the tests", Mode: protocol.ModeSteer})
	require.Len(t, f.th.Queued, 1, "waiting while the turn runs")
	f.emit(protocol.EventPromptSteered, protocol.PromptSteered{Prompt: 3})
	assert.Empty(t, f.th.Queued)
	assert.Equal(t, []string{"user/: look around", "user/: also the tests"}, f.texts())
	f.emit(protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 1})
	assert.False(t, f.th.Working, "nothing waits: the steered prompt was taken")
}

// An MCP call's progress lands on its receipt, also after its result; an older step never
// replaces a newer one.
func TestToolProgressAfterTheResult(t *testing.T) {
	f := &folder{th: &Thread{}}
	f.emit(protocol.EventUserMessage, protocol.Message{Text: "go"})
	f.emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent})
	f.emit(protocol.EventToolCalled, protocol.ToolCalled{Calls: []protocol.ToolCall{{ID: "c1", Name: "mcp__s__slow"}}})
	f.emit(protocol.EventToolProgress, protocol.ToolProgress{Call: "c1", Progress: 1, Total: 3, Message: "one"})
	f.emit(protocol.EventToolResult, protocol.ToolResult{Call: "c1", Text: "done"})
	f.emit(protocol.EventToolProgress, protocol.ToolProgress{Call: "c1", Progress: 3, Total: 3, Message: "cleaned up"})
	f.emit(protocol.EventToolProgress, protocol.ToolProgress{Call: "c1", Progress: 2, Total: 3, Message: "late"})
	m := f.th.Messages[1]
	assert.Equal(t, StatusDone, m.Status)
	require.NotNil(t, m.Progress)
	assert.Equal(t, "cleaned up", m.Progress.Message)
}

// A running command's output lands on its receipt in order, stderr marked line by line, and
// a cut stream says so.
// A call an earlier "always" let through keeps that on its receipt (QA round 27).
func TestAGrantedCallKeepsItsGrantOnTheReceipt(t *testing.T) {
	f := &folder{th: &Thread{}}
	f.emit(protocol.EventToolCalled, protocol.ToolCalled{Calls: []protocol.ToolCall{{ID: "c1", Name: "run_command", Arguments: `{"argv":["ls"]}`}}})
	by := protocol.GrantedCall{Scope: protocol.GrantScope{Kind: protocol.GrantExact, Tool: "run", Words: []string{"ls"}}, Call: "ls"}
	f.emit(protocol.EventToolOutput, protocol.ToolOutput{Call: "c1", Name: "run_command", Granted: &by})
	m := f.th.Messages[len(f.th.Messages)-1]
	require.Equal(t, []GrantedLine{{GrantedCall: by}}, m.Granted)
	require.Empty(t, m.Output, "no output of its own")
}

func TestToolOutputFoldsIntoTheReceiptInOrder(t *testing.T) {
	f := &folder{th: &Thread{}}
	f.emit(protocol.EventUserMessage, protocol.Message{Text: "go"})
	f.emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent})
	f.emit(protocol.EventToolCalled, protocol.ToolCalled{Calls: []protocol.ToolCall{{ID: "c1", Name: "run_command"}}})
	f.emit(protocol.EventToolOutput, protocol.ToolOutput{Call: "c1", Chunks: []protocol.OutputChunk{
		{Stream: protocol.StreamStdout, Text: "one\n"}, {Stream: protocol.StreamStderr, Text: "warn a\nwarn b\n"}}})
	f.emit(protocol.EventToolOutput, protocol.ToolOutput{Call: "c1", Chunks: []protocol.OutputChunk{
		{Stream: protocol.StreamStdout, Text: "two\n"}}, Truncated: true})
	f.emit(protocol.EventToolOutput, protocol.ToolOutput{Call: "other", Chunks: []protocol.OutputChunk{{Stream: protocol.StreamStdout, Text: "not ours"}}})
	m := f.th.Messages[1]
	assert.Equal(t, StatusRunning, m.Status)
	assert.Equal(t, "one\nstderr: warn a\nstderr: warn b\ntwo\n", m.Output)
	assert.True(t, m.OutputCut)
}

// A batch answered request by request says how many ran, not one verb for all (QA round 12
// #8: two writes ran under a card that said "Rejected").
func TestABatchAnsweredItemByItemSaysHowManyRan(t *testing.T) {
	for _, tt := range []struct {
		items  []string
		why    string
		want   string
		phrase *protocol.Phrase
	}{
		{[]string{"allow", "allow", "deny"}, "", "Approved 2 of 3", &protocol.Phrase{Code: "hist_approved_n_of_m", Args: []string{"2", "3"}}},
		// The words typed with the answer are why the others were rejected (QA round 20 #5).
		{[]string{"allow", "allow", "deny"}, "no date please", "Approved 2 of 3; the others rejected: no date please",
			&protocol.Phrase{Code: "hist_approved_n_of_m_why", Args: []string{"2", "3", "no date please"}}},
		{[]string{"deny", "deny"}, "", "Rejected", nil},
		{[]string{"deny", "deny"}, "not now", "Rejected: not now", nil},
	} {
		f := &folder{th: &Thread{}}
		req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Allow these?",
			Options: []protocol.ApprovalOption{{Label: "Approve all", Value: protocol.OptionAllow}, {Label: "Reject all", Value: protocol.OptionDeny}}}
		for range tt.items {
			req.Items = append(req.Items, protocol.ApprovalItem{})
		}
		f.emit(protocol.EventQuestionAsked, protocol.QuestionAsked{ID: "b1", Request: req})
		content, _ := json.Marshal(protocol.ApprovalAnswer{Items: tt.items, Instruction: tt.why})
		f.emit(protocol.EventQuestionReplied, protocol.QuestionReplied{ID: "b1", Action: protocol.ActionAccept, Content: content})
		m := f.th.Messages[0]
		assert.Equal(t, tt.want, m.Result, tt.items)
		assert.Equal(t, tt.phrase, m.ResultPhrase, tt.items)
	}
}

// Progress goes to its own call's card: not to a later call of another tool that reuses the
// id, nor to a card whose turn ended under it (QA round 26: a stopped call's "5 of 5" showed
// on the next call's card).
func TestProgressGoesToItsOwnCall(t *testing.T) {
	f := &folder{th: &Thread{}}
	f.emit(protocol.EventUserMessage, protocol.Message{Text: "go"})
	f.emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 1, Kind: protocol.TurnAgent})
	f.emit(protocol.EventToolCalled, protocol.ToolCalled{Calls: []protocol.ToolCall{{ID: "call1", Name: "mcp__x__long"}}})
	f.emit(protocol.EventToolProgress, protocol.ToolProgress{Call: "call1", Name: "mcp__x__long", Progress: 1, Total: 5})
	f.emit(protocol.EventTurnEnded, protocol.TurnEnded{Prompt: 1, Stopped: true})
	f.emit(protocol.EventToolProgress, protocol.ToolProgress{Call: "call1", Name: "mcp__x__long", Progress: 4, Total: 5})
	stopped := f.th.Messages[1]
	assert.Equal(t, StatusInterrupted, stopped.Status)
	assert.Equal(t, 1.0, stopped.Progress.Progress, "no step after the turn ended")

	f.emit(protocol.EventUserMessage, protocol.Message{Text: "again"})
	f.emit(protocol.EventTurnStarted, protocol.TurnStarted{Prompt: 7, Kind: protocol.TurnAgent})
	f.emit(protocol.EventToolCalled, protocol.ToolCalled{Calls: []protocol.ToolCall{{ID: "call1", Name: "mcp__x__other"}}})
	f.emit(protocol.EventToolProgress, protocol.ToolProgress{Call: "call1", Name: "mcp__x__long", Progress: 5, Total: 5})
	next := f.th.Messages[len(f.th.Messages)-1]
	assert.Equal(t, "mcp__x__other", next.Title)
	assert.Nil(t, next.Progress, "the stopped call's step is not this call's")
	f.emit(protocol.EventToolProgress, protocol.ToolProgress{Call: "call1", Name: "mcp__x__other", Progress: 1, Total: 2})
	require.NotNil(t, f.th.Messages[len(f.th.Messages)-1].Progress)
}
