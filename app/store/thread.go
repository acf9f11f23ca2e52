// Package store holds the browser's state as folds of the event log: plain values that the
// views render and tests drive without a browser.
package store

import (
	"encoding/json"
	"slices"
	"strings"

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
)

// Status is the state of a run or a decision entry.
type Status string

// Statuses of runs and decisions.
const (
	StatusRunning  Status = "running"
	StatusDone     Status = "done"
	StatusFailed   Status = "failed"
	StatusPending  Status = "pending"
	StatusAnswered Status = "answered"
	StatusDeclined Status = "declined"
	StatusTimedOut Status = "timed-out"
	StatusAborted  Status = "aborted"
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
	// Queue holds the offsets of prompts waiting for the running turn.
	Queue []uint64
	// Pending are the open decisions in the order they were asked: the composer's queue.
	Pending []protocol.Decision

	unstarted []uint64 // user messages no turn has picked up yet
	openTurns int
	entry     map[string]int // run or decision id → index in Messages
}

// Apply folds one event, in log order, into the thread.
func (t *Thread) Apply(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventSessionCreated:
		var sc protocol.SessionCreated
		if json.Unmarshal(ev.Data, &sc) == nil && sc.Title != "" {
			t.Title = sc.Title
		}
	case protocol.EventUserMessage:
		t.unstarted = append(t.unstarted, ev.Offset)
	case protocol.EventAgentMessage:
		if t.openTurns == 0 {
			t.unstarted = nil // logs from before turns were recorded end a prompt with the reply
		}
	case protocol.EventTurnStarted:
		t.openTurns++
		if ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev); err == nil {
			started := func(o uint64) bool { return o == ts.Prompt }
			t.unstarted = slices.DeleteFunc(t.unstarted, started)
			t.Queue = slices.DeleteFunc(slices.Clone(t.Queue), started)
		}
	case protocol.EventTurnEnded:
		t.openTurns = max(0, t.openTurns-1)
	case protocol.EventTurnQueue:
		if q, err := protocol.DecodeEventData[protocol.TurnQueue](ev); err == nil {
			t.Queue = q.Prompts
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
	}
	t.Working = len(t.unstarted) > 0 || t.openTurns > 0
	if m, ok := MessageOf(ev); ok {
		t.Messages = append(t.Messages, m)
	}
}

// Queued reports whether a user message still waits for the running turn.
func (t *Thread) Queued(offset uint64) bool { return slices.Contains(t.Queue, offset) }

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
		title = "Function " + rs.Name
	}
	t.add(rs.ID, Message{Offset: ev.Offset, Role: RoleRun, ID: rs.ID, Title: title, Status: StatusRunning})
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
	if rs.Error != "" {
		m.Status, m.Result = StatusFailed, rs.Error
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
	t.add(qa.ID, Message{Offset: ev.Offset, Role: RoleDecision, ID: qa.ID, Title: title, Detail: qa.Request.Details, Status: StatusPending, Request: &qa.Request})
}

func (t *Thread) ended(ev protocol.Event) {
	var id string
	var status Status
	var result string
	if ev.Type == protocol.EventQuestionReplied {
		r, err := ev.DecodeQuestionReplied()
		if err != nil {
			return
		}
		id, status, result = r.ID, StatusAnswered, describeAnswer(t, r)
		if r.Action == protocol.ActionDecline {
			status, result = StatusDeclined, "Declined"
			if r.Reason != "" {
				result += ": " + r.Reason
			}
		}
	} else {
		r, err := ev.DecodeQuestionRejected()
		if err != nil {
			return
		}
		id, status, result = r.ID, StatusAborted, "Withdrawn ("+r.Reason+")"
		switch r.Reason {
		case protocol.ReasonTimeout:
			status, result = StatusTimedOut, "No response, timed out"
		case protocol.ReasonStopped:
			result = "Stopped"
		}
	}
	t.Pending = slices.DeleteFunc(t.Pending, func(d protocol.Decision) bool { return d.ID == id })
	if m := t.find(id); m != nil {
		m.Status, m.Result = status, result
	}
}

// describeAnswer says in words what a reply chose.
func describeAnswer(t *Thread, r protocol.QuestionReplied) string {
	m := t.find(r.ID)
	var req *protocol.DecisionRequest
	if m != nil {
		// The request is still in Pending when the reply is folded.
		for _, d := range t.Pending {
			if d.ID == r.ID {
				req = &d.Request
			}
		}
	}
	if req != nil && req.Kind == protocol.KindApproval {
		var a protocol.ApprovalAnswer
		if json.Unmarshal(r.Content, &a) == nil {
			if opt, ok := a.Picked(*req); ok {
				return opt.Label
			}
			return "Rejected: " + a.Instruction
		}
	}
	return "Answered: " + string(r.Content)
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
	return Message{Offset: ev.Offset, Role: role, Text: m.Text}, true
}
