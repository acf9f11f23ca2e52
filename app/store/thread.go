// Package store holds the browser's state as folds of the event log: plain values that the
// views render and tests drive without a browser.
package store

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"parley/internal/smallsort"
	"parley/protocol"
)

// Role says who wrote a message.
type Role string

// The roles a thread shows.
const (
	RoleUser     Role = "user"
	RoleAgent    Role = "agent"
	RoleRun      Role = "run"      // a script, example or function run: its output and result
	RoleDecision Role = "decision" // a question or an approval, where it was asked
	RoleTool     Role = "tool"     // a model's tool call: its receipt, with the result
)

// Status is the state of a run or a decision entry.
type Status string

// Statuses of runs and decisions.
const (
	StatusRunning Status = "running"
	StatusDone    Status = "done"
	StatusFailed  Status = "failed"
	StatusStopped Status = "stopped"
	// StatusInterrupted: its server went away before it finished.
	StatusInterrupted Status = "interrupted"
	StatusPending     Status = "pending"
	StatusAnswered    Status = "answered"
	StatusDeclined    Status = "declined"
	StatusTimedOut    Status = "timed-out"
	StatusAborted     Status = "aborted"
	// StatusStreaming: an agent message still being generated.
	StatusStreaming Status = "streaming"
)

// Message is a thread entry, derived once from its events so rendering never decodes.
type Message struct {
	Offset uint64
	Role   Role
	Text   string
	// Runs and decisions only.
	ID     string // the run's execution id or the decision id
	Title  string // "Script", "Example hello", the question
	Detail string // a run's output so far; an approval's details
	Status Status
	Result string // a run's result or error; how a decision ended
	// Request is what a decision asks, for its card's answers.
	Request *protocol.DecisionRequest
	// From says who wrote an assistant-side message: "" the agent, "parley" a command's
	// answer, "script" a run's send(). Steer marks a queued prompt that goes first.
	From  string
	Steer bool
	// At is when the server logged it, in unix milliseconds (0 when unknown).
	At int64
	// Stream names the agent message a model is generating (and the one it became).
	Stream string
	// Progress is a tool call's last progress notification (an MCP server's), if any.
	Progress *protocol.ToolProgress
	// Output is what a running tool call wrote so far (run_command's stdout and stderr, in
	// order), its tail kept; OutputCut says the stream stopped short and the result has the rest.
	Output    string
	OutputCut bool
	// Retry says a decision expired unanswered (timed out, or cut off by a restart) and its
	// asker can ask again (protocol.RetryWayOf): its card offers Request retry, or Run again
	// when RetryRuns (a slash command's run asked: the retry sends the command again).
	Retry, RetryRuns bool
	// Phrase names Parley's fixed words (the offline agent's reply) for the page's locale;
	// Text holds them in English.
	Phrase *protocol.Phrase
	// ResultPhrase names Result when Parley wrote it in fixed words (a run cut off by a
	// restart).
	ResultPhrase *protocol.Phrase
	// Granted are the lines of Detail the gate wrote in English for calls an earlier
	// "always" let run, each with what the page words it from.
	Granted []GrantedLine
}

// GrantedLine is a line of a run's output that says an earlier grant let a call run.
type GrantedLine struct {
	Text string // as it stands in Detail, in English
	protocol.GrantedCall
}

// Thread is one session as the thread shows it.
type Thread struct {
	Title string
	// Messages are appended in log order; a run's or a decision's entry is updated in place
	// as its later events arrive.
	Messages []Message
	// Working is true while the session's agent owes work: a prompt not yet picked up, or a
	// turn (agent reply, command, run, approval) still open.
	Working bool
	// Queued are the prompts sent while a turn runs, in the order they will run. Each joins
	// Messages when its turn starts, so replies follow the prompt they answer. They are derived
	// from the log itself (user messages no turn.started names yet), as the server derives
	// them; the turn.queue events of older logs are not needed.
	Queued []Message
	// Pending are the open decisions in the order they were asked: the composer's queue.
	Pending []protocol.Decision
	// TimedOut are the decisions that ended because nobody answered in time, so the composer
	// can say so when the one it shows goes.
	TimedOut []string
	// Turn is the offset of the running turn's turn.started (0 when none runs): what Stop
	// names, so it stops the turn the user sees.
	Turn uint64
	// Rev counts changes. Entries change in place (a run's output, a streaming message), so
	// the slice alone does not tell a view that something changed: go-app calls two slices
	// with the same array and length equal.
	Rev uint64

	unstarted []uint64 // user messages no turn has picked up yet
	openTurns int
	// run or decision id, "stream:<id>" or "tool:<call id>" (the latest call with that id:
	// local servers reuse ids) → index in Messages
	entry map[string]int
	// open are the streams still generating, ended as interrupted if their turn ends first.
	open []string
	bufs map[string]*strings.Builder // their text, grown in place (stream.go)
}

// Apply folds one event, in log order, into the thread.
func (t *Thread) Apply(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventSessionCreated:
		var sc protocol.SessionCreated
		// The title it was created with, unless a better one is known already (the
		// session list's: a blank session is renamed by its first prompt).
		if json.Unmarshal(ev.Data, &sc) == nil && sc.Title != "" && t.Title == "" {
			t.Title = sc.Title
		}
	case protocol.EventAgentMessage:
		if t.openTurns == 0 {
			// Logs from before turns were recorded end a prompt with the reply.
			t.unstarted = nil
			t.Messages = append(t.Messages, t.Queued...)
			t.Queued = nil
		}
	case protocol.EventTurnStarted:
		ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev)
		if err == nil && ts.Resumes != 0 {
			break // the same turn, taken over by another server: it stays the one open
		}
		t.openTurns++
		t.Turn = ev.Offset
		if err == nil {
			t.taken(ts.Prompt)
		}
	case protocol.EventPromptSteered:
		// Handed to the running turn: it joins the thread where the model reads it.
		if ps, err := protocol.DecodeEventData[protocol.PromptSteered](ev); err == nil {
			t.taken(ps.Prompt)
		}
	case protocol.EventPromptWithdrawn:
		// Taken back before its turn: it leaves the queue and never joins the thread.
		if pw, err := protocol.DecodeEventData[protocol.PromptWithdrawn](ev); err == nil {
			t.unstarted = slices.DeleteFunc(t.unstarted, func(o uint64) bool { return o == pw.Prompt })
			t.Queued = slices.DeleteFunc(slices.Clone(t.Queued), func(m Message) bool { return m.Offset == pw.Prompt })
		}
	case protocol.EventPromptEdited:
		// Changed before its turn: it keeps its place, with the new text.
		if pe, err := protocol.DecodeEventData[protocol.PromptEdited](ev); err == nil {
			t.Queued = editText(t.Queued, pe)
			t.Messages = editText(t.Messages, pe)
		}
	case protocol.EventTurnEnded:
		t.openTurns = max(0, t.openTurns-1)
		t.Turn = 0
		if te, err := protocol.DecodeEventData[protocol.TurnEnded](ev); err == nil && te.Stopped && te.Run == "" {
			t.stopped(te.Prompt, ev)
		}
	case protocol.EventRunStarted:
		t.runStarted(ev)
	case protocol.EventRunOutput:
		t.runOutput(ev)
	case protocol.EventRunSettled:
		t.runSettled(ev)
	case protocol.EventQuestionAsked:
		t.asked(ev)
	case protocol.EventQuestionReplied, protocol.EventQuestionRejected:
		t.ended(ev)
	case protocol.EventAgentDraft:
		t.draft(ev)
	case protocol.EventToolCalled:
		t.toolCalled(ev)
	case protocol.EventToolResult:
		t.toolResult(ev)
	case protocol.EventToolProgress:
		t.toolProgress(ev)
	case protocol.EventToolOutput:
		t.toolOutput(ev)
	}
	if ev.Type == protocol.EventTurnEnded {
		t.endStreams()
	}
	t.Rev++
	if ev.Type == protocol.EventAgentMessage && t.closeStream(ev) {
		// The message replaced its streaming entry in place.
	} else if m, ok := MessageOf(ev); ok {
		if ev.Type == protocol.EventUserMessage && (t.openTurns > 0 || len(t.unstarted) > 0) {
			t.queue(m)
		} else {
			t.Messages = append(t.Messages, m)
		}
	}
	if ev.Type == protocol.EventUserMessage {
		t.unstarted = append(t.unstarted, ev.Offset)
	}
	t.Working = len(t.unstarted) > 0 || t.openTurns > 0
}

// stopped marks an agent turn the person stopped: its last message after its prompt says so
// (a cut answer would otherwise read as the whole answer, after a reload or on another
// device), or, when the turn wrote nothing, a note from Parley does. A run's card says it
// already. A prompt outside the thread's window marks nothing: the stop is long past.
func (t *Thread) stopped(prompt uint64, ev protocol.Event) {
	at := slices.IndexFunc(t.Messages, func(m Message) bool { return m.Role == RoleUser && m.Offset == prompt })
	if at < 0 {
		return
	}
	for i := len(t.Messages) - 1; i > at; i-- {
		if m := &t.Messages[i]; m.Role == RoleAgent && m.From == "" {
			if m.Status == "" {
				m.Status = StatusStopped
			}
			return
		}
	}
	t.Messages = append(t.Messages, Message{Offset: ev.Offset, At: ev.At, Role: RoleAgent, From: protocol.FromParley, Status: StatusStopped})
}

// taken moves a prompt whose work began from the queue into the thread.
func (t *Thread) taken(prompt uint64) {
	t.unstarted = slices.DeleteFunc(t.unstarted, func(o uint64) bool { return o == prompt })
	if i := slices.IndexFunc(t.Queued, func(m Message) bool { return m.Offset == prompt }); i >= 0 {
		t.Messages = append(t.Messages, t.Queued[i])
		t.Queued = slices.Delete(slices.Clone(t.Queued), i, i+1)
	}
}

// queue holds a prompt sent while another waits or runs, in the order the server runs them:
// steered ones first, each group in the order sent.
func (t *Thread) queue(m Message) {
	q := append(slices.Clone(t.Queued), m)
	smallsort.Stable(q, func(a, b Message) int { return protocol.RunOrder(a.Steer, b.Steer) })
	t.Queued = q
}

func (t *Thread) add(id string, m Message) {
	if t.entry == nil {
		t.entry = map[string]int{}
	}
	t.entry[id] = len(t.Messages)
	t.Messages = append(t.Messages, m)
}

func (t *Thread) find(id string) *Message {
	if i, ok := t.entry[id]; ok {
		return &t.Messages[i]
	}
	return nil
}

// maxRunDetail bounds the output a run entry keeps; the head is what explains a failure less
// often than the tail, so the tail is kept.
const maxRunDetail = 64 << 10

func (t *Thread) runStarted(ev protocol.Event) {
	rs, err := protocol.DecodeEventData[protocol.RunStarted](ev)
	if err != nil {
		return
	}
	title := "Script"
	switch rs.Kind {
	case protocol.RunExample:
		title = "Example " + rs.Name
	case protocol.RunFunction:
		title = "Function " + cmp.Or(rs.Title, rs.Name)
	}
	if rs.Source != "" && rs.Source != "builtin" {
		title += " (" + rs.Source + ")" // a workspace file, perhaps replacing a built-in
	}
	t.add(rs.ID, Message{Offset: ev.Offset, At: ev.At, Role: RoleRun, ID: rs.ID, Title: title, Status: StatusRunning})
}

func (t *Thread) runOutput(ev protocol.Event) {
	out, err := protocol.DecodeEventData[protocol.RunOutput](ev)
	if err != nil {
		return
	}
	m := t.find(out.Run)
	if m == nil {
		return
	}
	text := out.Text
	if out.Stream == protocol.StreamLog && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	m.Detail += text
	if out.Granted != nil {
		m.Granted = append(m.Granted, GrantedLine{Text: text, GrantedCall: *out.Granted})
	}
	if len(m.Detail) > maxRunDetail {
		m.Detail = "…" + m.Detail[len(m.Detail)-maxRunDetail:]
	}
}

func (t *Thread) runSettled(ev protocol.Event) {
	rs, err := protocol.DecodeEventData[protocol.RunSettled](ev)
	if err != nil {
		return
	}
	m := t.find(rs.Run)
	if m == nil {
		return
	}
	m.Status, m.Result = StatusDone, rs.Result
	switch {
	case rs.Error == "stopped by the user":
		m.Status, m.Result = StatusStopped, "Stopped by you"
	case strings.HasPrefix(rs.Error, "interrupted:"):
		m.Status, m.Result = StatusInterrupted, "Interrupted: the server stopped before it finished"
	case rs.Error != "":
		m.Status, m.Result, m.ResultPhrase = StatusFailed, rs.Error, rs.ErrorPhrase
	}
}

func (t *Thread) asked(ev protocol.Event) {
	qa, err := ev.DecodeQuestionAsked()
	if err != nil {
		return
	}
	t.Pending = append(t.Pending, protocol.Decision{Session: ev.Session, Offset: ev.Offset, QuestionAsked: qa})
	title := qa.Request.Message
	if title == "" && qa.Request.Schema != nil {
		if qs := qa.Request.Schema.Questions(); len(qs) > 0 {
			title = qs[0].Schema.Title
		}
	}
	// The decision follows the run card that asked it, where the run began: the thread reads
	// in the order things happened (the run started, then it asked), and the run's card fills
	// in where it stands once the answer lets it go on.
	t.add(qa.ID, Message{Offset: ev.Offset, At: ev.At, Role: RoleDecision, ID: qa.ID, Title: title, Detail: qa.Request.Details, Status: StatusPending, Request: &qa.Request})
}

func (t *Thread) ended(ev protocol.Event) {
	var id string
	var status Status
	var result string
	var phrase *protocol.Phrase
	retry, runs := false, false
	if ev.Type == protocol.EventQuestionReplied {
		r, err := ev.DecodeQuestionReplied()
		if err != nil {
			return
		}
		id, status = r.ID, StatusAnswered
		result, phrase = describeAnswer(t, r)
		if r.Action == protocol.ActionDecline {
			status, result = StatusDeclined, "Declined"
			if req := t.pendingRequest(r.ID); req != nil && req.Kind == protocol.KindApproval {
				result = "Rejected" // the word on the button that does it
			}
			if r.Reason != "" {
				result += ": " + r.Reason
			}
		}
	} else {
		r, err := ev.DecodeQuestionRejected()
		if err != nil {
			return
		}
		id, status, result = r.ID, StatusAborted, "Withdrawn: the question is no longer needed"
		way := protocol.RetryNone
		if i := slices.IndexFunc(t.Pending, func(d protocol.Decision) bool { return d.ID == r.ID }); i >= 0 {
			way = protocol.RetryWayOf(t.Pending[i].Run)
		}
		retry = protocol.RetryableReason(r.Reason) && way != protocol.RetryNone
		runs = retry && way == protocol.RetryCommand
		switch r.Reason {
		case protocol.ReasonTimeout:
			status, result = StatusTimedOut, "No answer in time"
			t.TimedOut = append(t.TimedOut, r.ID)
		case protocol.ReasonStopped:
			result = "Stopped by you" // as the run it was asked in says (QA round 10 #8)
		case protocol.ReasonOrphaned:
			result = "Ended: the server restarted before it was answered"
		}
	}
	// A new slice, never the old one edited in place: the composer gets Pending as a prop,
	// and go-app compares props with reflect.DeepEqual, which calls two slices with the same
	// array and length equal without looking at their elements.
	t.Pending = slices.DeleteFunc(slices.Clone(t.Pending), func(d protocol.Decision) bool { return d.ID == id })
	if m := t.find(id); m != nil {
		m.Status, m.Result, m.ResultPhrase, m.Retry, m.RetryRuns = status, result, phrase, retry, runs
	}
}

// pendingRequest is what an open decision asks; an outcome is folded while it is still open.
func (t *Thread) pendingRequest(id string) *protocol.DecisionRequest {
	for i := range t.Pending {
		if t.Pending[i].ID == id {
			return &t.Pending[i].Request
		}
	}
	return nil
}

// approvalOutcome says what the picked option did, as a past fact: "Approved", "Approved,
// always for this command", "Rejected". The option's label is the button's verb ("Approve,
// and always for this command"); an asker's own option (any other value) keeps its label.
func approvalOutcome(opt protocol.ApprovalOption) string {
	switch opt.Value {
	case protocol.OptionAllow:
		if opt.Grant != nil {
			if reach, ok := strings.CutPrefix(opt.Label, "Approve, and "); ok {
				return "Approved, " + reach
			}
		}
		return "Approved"
	case protocol.OptionDeny:
		return "Rejected"
	}
	return opt.Label
}

// describeAnswer says in words what a reply chose: the label of the option or choice, a
// form's answers as "Title: value" pairs ("Environment: Staging · Replicas: 3"), never JSON.
func describeAnswer(t *Thread, r protocol.QuestionReplied) (string, *protocol.Phrase) {
	req := t.pendingRequest(r.ID)
	if req == nil {
		return "Answered", nil
	}
	if req.Kind == protocol.KindApproval {
		var a protocol.ApprovalAnswer
		if json.Unmarshal(r.Content, &a) == nil {
			if n, of, ok := a.BatchOutcome(); ok && n > 0 {
				// A batch answered request by request: how many ran, not one verb for all,
				// and why the others did not, when the person said.
				words := "Approved " + strconv.Itoa(n) + " of " + strconv.Itoa(of)
				if why := strings.TrimSpace(a.Instruction); why != "" && n < of {
					return words + "; the others rejected: " + why,
						&protocol.Phrase{Code: "hist_approved_n_of_m_why", Args: []string{strconv.Itoa(n), strconv.Itoa(of), why}}
				}
				return words, &protocol.Phrase{Code: "hist_approved_n_of_m", Args: []string{strconv.Itoa(n), strconv.Itoa(of)}}
			}
		}
	}
	return describeReply(req, r), nil
}

// describeReply words a reply as the card's outcome, in English.
func describeReply(req *protocol.DecisionRequest, r protocol.QuestionReplied) string {
	if req.Kind == protocol.KindApproval {
		var a protocol.ApprovalAnswer
		if json.Unmarshal(r.Content, &a) == nil {
			if _, _, ok := a.BatchOutcome(); ok {
				if why := strings.TrimSpace(a.Instruction); why != "" {
					return "Rejected: " + why
				}
				return "Rejected" // each of the batch's requests
			}
			if opt, ok := a.Picked(*req); ok {
				return approvalOutcome(opt)
			}
			if a.Instruction != "" {
				return "Rejected: " + a.Instruction
			}
			return "Rejected"
		}
		return "Answered"
	}
	if req.Schema == nil {
		return "Answered"
	}
	// A form's answers as "Title: value" pairs, a choice's label, a yes or no, the text.
	if words := protocol.AnswerInWords(req.Schema, r.Content); words != "" {
		return words
	}
	return "Answered"
}

// MessageOf derives the thread entry of a message event; ok is false for other events.
func MessageOf(ev protocol.Event) (Message, bool) {
	var role Role
	switch ev.Type {
	case protocol.EventUserMessage:
		role = RoleUser
	case protocol.EventAgentMessage:
		role = RoleAgent
	default:
		return Message{}, false
	}
	m, err := ev.DecodeMessage()
	if err != nil {
		return Message{Offset: ev.Offset, Role: role, Text: "(this message could not be read: " + err.Error() + ")"}, true
	}
	return Message{Offset: ev.Offset, At: ev.At, Role: role, Text: m.Text, From: m.From, Steer: m.Mode == protocol.ModeSteer, Stream: m.Stream, Phrase: m.Phrase}, true
}

// Prepend puts the entries of an older window (a Thread that folded it alone) before the
// ones this thread holds: the newest window is folded first, older ones are paged in as the
// person scrolls up.
func (t *Thread) Prepend(older []Message) {
	if len(older) == 0 {
		return
	}
	t.Messages = append(slices.Clip(older), t.Messages...)
	for k, i := range t.entry {
		t.entry[k] = i + len(older)
	}
	t.Rev++
}

// editText returns list with the text of pe's prompt replaced, copied if it changes (the
// view may hold the old slice).
func editText(list []Message, pe protocol.PromptEdited) []Message {
	i := slices.IndexFunc(list, func(m Message) bool { return m.Offset == pe.Prompt })
	if i < 0 {
		return list
	}
	list = slices.Clone(list)
	list[i].Text = pe.Text
	return list
}
