package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Decisions: everything that puts the turn back on the user travels as one request shape
// (elicitation's: a message and a requested schema, or approval options) and one event
// family (question.asked, then question.replied or question.rejected).

// Event types of decisions, runs, turns and grants.
const (
	// EventQuestionAsked opens a decision. It is pending until a replied or rejected event
	// with the same id follows it.
	EventQuestionAsked EventType = "question.asked"
	// EventQuestionReplied is the user's answer: accept with content, or decline.
	EventQuestionReplied EventType = "question.replied"
	// EventQuestionRejected ends a decision without a user answer: a timeout (declined) or an
	// abort (the turn stopped, the question was withdrawn, its asker is gone).
	EventQuestionRejected EventType = "question.rejected"

	// EventRunStarted opens a run of a script, an example or a function.
	EventRunStarted EventType = "run.started"
	// EventRunOutput carries output of a run: a process's stdout/stderr, or a log line.
	EventRunOutput EventType = "run.output"
	// EventRunSettled closes a run with its result or its error.
	EventRunSettled EventType = "run.settled"

	// EventTurnStarted says that work began on a prompt (an agent turn, a command, a function).
	EventTurnStarted EventType = "turn.started"
	// EventTurnEnded says the work on a prompt is over.
	EventTurnEnded EventType = "turn.ended"
	// EventTurnQueue listed the prompts waiting for the running turn, after every change. It is
	// no longer written (a burst made it quadratic): the queue is the user messages no
	// turn.started names yet, in RunOrder. Older logs still hold it; readers ignore it.
	EventTurnQueue EventType = "turn.queue"
	// EventPromptSteered says a prompt was handed to the running turn.
	EventPromptSteered EventType = "prompt.steered"
	// EventStopRequested asks whoever runs the session's turn to stop it.
	EventStopRequested EventType = "turn.stop"

	// EventGrantCreated records an "always" answer: later requests in its scope pass the gate
	// without asking.
	EventGrantCreated EventType = "grant.created"
	// EventGrantRevoked records that a grant was taken back, in the session that granted it.
	EventGrantRevoked EventType = "grant.revoked"
)

// DecisionKind says what a decision asks for.
type DecisionKind string

// Decision kinds. Ask and confirm are answered with content shaped by a schema (confirm is a
// boolean ask); approval is answered by picking one of its options.
const (
	KindAsk      DecisionKind = "ask"
	KindConfirm  DecisionKind = "confirm"
	KindApproval DecisionKind = "approval"
)

// Tone colours an approval option.
type Tone string

// Tones of approval options.
const (
	ToneAffirm  Tone = "affirm"
	ToneDeny    Tone = "deny"
	ToneNeutral Tone = "neutral"
)

// DecisionRequest is what a decision asks: the wire shape of elicitation.
type DecisionRequest struct {
	Kind    DecisionKind `json:"kind"`
	Message string       `json:"message"`
	// Schema shapes the answer of ask and confirm.
	Schema *Schema `json:"schema,omitempty"`
	// Details is what an approval is about (a command line, arguments). Shown as text.
	Details string `json:"details,omitempty"`
	// Options are an approval's answers. Values may repeat and differ only in reach.
	Options []ApprovalOption `json:"options,omitempty"`
	// Items are the tool requests held in one approval batch, answered all at once.
	Items []ApprovalItem `json:"items,omitempty"`
	// TimeoutMs bounds the wait; 0 picks the server's default.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// URL, on an approval, is a link the asker (an MCP server's URL elicitation) wants
	// opened: shown whole, and opened in a new tab only when the user picks the option whose
	// value is OptionOpenURL.
	URL string `json:"url,omitempty"`
	// Phrase, on a request Parley asks in fixed words (the approval gate's), names Message
	// by its catalogue code, so a page asks it in its locale (docs/i18n.md).
	Phrase *Phrase `json:"phrase,omitempty"`
}

// OptionOpenURL is the option of an approval with a URL that opens it.
const OptionOpenURL = "open"

// ApprovalOption is one answer of an approval.
type ApprovalOption struct {
	Value       string `json:"value"` // "allow" or "deny", for the gate; any value for other askers
	Label       string `json:"label"`
	Description string `json:"description,omitempty"` // drawn under the label: say what the reach is
	Tone        Tone   `json:"tone,omitempty"`
	// Grant, on an "always" option, is the reach it grants.
	Grant *GrantScope `json:"grant,omitempty"`
	// Phrase and DescPhrase name Label and Description by their catalogue codes, when
	// Parley wrote them (the approval gate's options).
	Phrase     *Phrase `json:"phrase,omitempty"`
	DescPhrase *Phrase `json:"descPhrase,omitempty"`
}

// Option values the approval gate understands.
const (
	OptionAllow = "allow"
	OptionDeny  = "deny"
)

// ApprovalItem is one tool request in an approval batch.
type ApprovalItem struct {
	Tool    string `json:"tool"`
	Details string `json:"details"`
}

// GrantKind is the reach of a grant.
type GrantKind string

// Grant reaches, from narrow to wide.
const (
	// GrantExact matches this exact command.
	GrantExact GrantKind = "exact"
	// GrantPrefix matches commands that start with these words (argv elements).
	GrantPrefix GrantKind = "prefix"
	// GrantTool matches every request of the tool.
	GrantTool GrantKind = "tool"
)

// GrantScope says which later requests a grant lets through.
type GrantScope struct {
	Kind GrantKind `json:"kind"`
	Tool string    `json:"tool"`
	// Words is the command (exact) or its first words (prefix); empty for a whole tool.
	Words []string `json:"words,omitempty"`
}

// Grant is a recorded "always" answer, per workspace.
type Grant struct {
	ID        string     `json:"id"`
	Workspace string     `json:"workspace"`
	Scope     GrantScope `json:"scope"`
	Created   int64      `json:"created"` // unix milliseconds
	// Session and Decision say where it was granted, for the audit trail.
	Session  string `json:"session,omitempty"`
	Decision string `json:"decision,omitempty"`
}

// GrantList answers GET /api/grants.
type GrantList struct {
	Grants []Grant `json:"grants"`
}

// QuestionAsked is the data of question.asked.
type QuestionAsked struct {
	ID      string          `json:"id"`
	Request DecisionRequest `json:"request"`
	// Run is the execution that asks (slash-command:<offset>, function:<id>, …).
	Run string `json:"run,omitempty"`
	// Deadline is when the server ends the decision as declined, unix milliseconds.
	Deadline int64 `json:"deadline"`
	// Owner is the runtime instance whose waiter holds the decision.
	Owner string `json:"owner,omitempty"`
}

// ReplyAction is how the user answered.
type ReplyAction string

// Reply actions (MCP elicitation's accept and decline).
const (
	ActionAccept  ReplyAction = "accept"
	ActionDecline ReplyAction = "decline"
)

// QuestionReplied is the data of question.replied.
type QuestionReplied struct {
	ID      string          `json:"id"`
	Action  ReplyAction     `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
	Reason  string          `json:"reason,omitempty"`
}

// Outcome is how a decision ended without a user answer.
type Outcome string

// Outcomes of question.rejected. A timeout declines; everything else aborts.
const (
	OutcomeDeclined Outcome = "declined"
	OutcomeAborted  Outcome = "aborted"
)

// Reasons of question.rejected.
const (
	ReasonTimeout   = "timeout"   // declined: no answer in time
	ReasonStopped   = "stopped"   // aborted: the turn was stopped
	ReasonWithdrawn = "withdrawn" // aborted: the asker no longer needs the answer
	ReasonOrphaned  = "orphaned"  // aborted: the asker's server is gone and cannot resume it
)

// QuestionRejected is the data of question.rejected.
type QuestionRejected struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason"`
}

// ReplyRequest is the body of POST /api/sessions/{id}/decisions/{decision}.
type ReplyRequest struct {
	Action  ReplyAction     `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
	Reason  string          `json:"reason,omitempty"`
}

// ReplyResponse answers an accepted reply with the offset of its event.
type ReplyResponse struct {
	Offset uint64 `json:"offset"`
}

// ApprovalAnswer is the content of an accepted approval: the option picked (by index, since
// values may repeat), an instruction typed instead, which the gate takes as a refusal
// that carries words, or for a batch an answer per request.
type ApprovalAnswer struct {
	Option *int `json:"option,omitempty"`
	// Instruction is words instead of an option: a refusal that says what to do instead.
	// With Items, it is the reason of the requests they reject.
	Instruction string `json:"instruction,omitempty"`
	// Items answers a batch request by request: one "allow" or "deny" per item, in order.
	Items []string `json:"items,omitempty"`
}

// BatchOutcome counts a batch answer's allowed items: how many of how many. ok is false for
// an answer that is not a batch's (no Items).
func (a ApprovalAnswer) BatchOutcome() (allowed, of int, ok bool) {
	for _, v := range a.Items {
		if v == OptionAllow {
			allowed++
		}
	}
	return allowed, len(a.Items), len(a.Items) > 0
}

// Decision is a pending decision as GET /api/sessions/{id}/decisions lists it.
type Decision struct {
	Session string `json:"session"`
	Offset  uint64 `json:"offset"` // of its question.asked
	QuestionAsked
}

// DecisionList answers GET /api/sessions/{id}/decisions, oldest first (the queue's order).
type DecisionList struct {
	Decisions []Decision `json:"decisions"`
}

// Limits of decisions.
const (
	MaxReasonBytes  = 4 << 10
	MaxContentBytes = 64 << 10
	MaxMessageBytes = 16 << 10
	MaxDetailsBytes = 64 << 10
	MaxOptions      = 16
	MaxQuestions    = 32
	MaxChoices      = 256
)

// DecodeQuestionAsked, DecodeQuestionReplied and DecodeQuestionRejected read decision events.
func (e Event) DecodeQuestionAsked() (QuestionAsked, error) { return decodeData[QuestionAsked](e) }

// DecodeQuestionReplied reads question.replied.
func (e Event) DecodeQuestionReplied() (QuestionReplied, error) {
	return decodeData[QuestionReplied](e)
}

// DecodeQuestionRejected reads question.rejected.
func (e Event) DecodeQuestionRejected() (QuestionRejected, error) {
	return decodeData[QuestionRejected](e)
}

// EndedDecision is the id of the decision a question.replied or question.rejected event
// ends; ok is false for any other event, and for one that does not decode.
func (e Event) EndedDecision() (id string, ok bool) {
	switch e.Type {
	case EventQuestionReplied:
		r, err := e.DecodeQuestionReplied()
		return r.ID, err == nil
	case EventQuestionRejected:
		r, err := e.DecodeQuestionRejected()
		return r.ID, err == nil
	}
	return "", false
}

func decodeData[T any](e Event) (T, error) {
	var v T
	if err := json.Unmarshal(e.Data, &v); err != nil {
		return v, fmt.Errorf("event %d (%s): %w", e.Offset, e.Type, err)
	}
	return v, nil
}

// DecodeEventData reads any event's data into T.
func DecodeEventData[T any](e Event) (T, error) { return decodeData[T](e) }

// ErrAlreadyAnswered is returned for a reply to a decision that has ended.
var ErrAlreadyAnswered = errors.New("this question was already answered")

// Runs.

// RunKind says what a run executes.
type RunKind string

// Run kinds.
const (
	RunScript   RunKind = "script"
	RunExample  RunKind = "example"
	RunFunction RunKind = "function"
)

// RunStarted is the data of run.started.
type RunStarted struct {
	// ID is the execution id: slash-command:<offset> for a command, function:<id> for a
	// function run. Approvals and audit attribute to it.
	ID   string  `json:"id"`
	Kind RunKind `json:"kind"`
	Name string  `json:"name,omitempty"` // the example's slug or the function's name
	// Title is a function's own name for itself (its TITLE), for the run card.
	Title string `json:"title,omitempty"`
	Code  string `json:"code,omitempty"` // a /script's code, shown in the run card
	// Args are a function run's arguments, defaults filled in, for the audit trail.
	Args json.RawMessage `json:"args,omitempty"`
	// Source is where an example or function came from: "builtin" or its workspace file.
	Source string `json:"source,omitempty"`
}

// commandRunPrefix begins the id of a slash command's run: the prompt's offset follows.
// FunctionRunPrefix begins a function run's: a new id follows.
const (
	commandRunPrefix  = "slash-command:"
	FunctionRunPrefix = "function:"
)

// CommandRun is the run id of the slash command that the prompt at offset carried.
func CommandRun(offset uint64) string { return commandRunPrefix + strconv.FormatUint(offset, 10) }

// CommandRunPrompt is the offset of the prompt whose slash command run is, if it is one.
func CommandRunPrompt(run string) (uint64, bool) {
	n, ok := strings.CutPrefix(run, commandRunPrefix)
	if !ok {
		return 0, false
	}
	off, err := strconv.ParseUint(n, 10, 64)
	return off, err == nil
}

// Output streams of a run.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
	StreamLog    = "log" // a script's print()
)

// RunOutput is the data of run.output.
type RunOutput struct {
	Run    string `json:"run"`
	Stream string `json:"stream"`
	Text   string `json:"text"`
	// Argv names the process the output came from.
	Argv []string `json:"argv,omitempty"`
	// Granted, on the line the gate writes when an earlier "always" let a call run without
	// asking, names that grant's reach and the call, so a page words the line in its own
	// language (Text holds it in English).
	Granted *GrantedCall `json:"granted,omitempty"`
}

// GrantedCall is a call an earlier grant let run without asking: the grant's reach, and the
// call's first line as the approval would have shown it.
type GrantedCall struct {
	Scope GrantScope `json:"scope"`
	Call  string     `json:"call"`
}

// RunSettled is the data of run.settled: a result (the script's return value, as text) or
// an error with the script's line numbers.
type RunSettled struct {
	Run    string `json:"run"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	// ErrorPhrase names Error by its catalogue code when Parley wrote it in fixed words (a
	// run stopped, or cut off by a shutdown or a restart).
	ErrorPhrase *Phrase `json:"errorPhrase,omitempty"`
}

// Turns and prompts.

// TurnKind says what kind of work a prompt started.
type TurnKind string

// Turn kinds.
const (
	TurnAgent    TurnKind = "agent"
	TurnCommand  TurnKind = "command"
	TurnFunction TurnKind = "function"
)

// TurnStarted is the data of turn.started.
type TurnStarted struct {
	Prompt uint64   `json:"prompt"` // offset of the user message (0 for a function run)
	Kind   TurnKind `json:"kind"`
	Run    string   `json:"run,omitempty"`
	// Owner is the runtime instance that runs the turn.
	Owner string `json:"owner,omitempty"`
	// Through is an offset through which every prompt of the session has started: where
	// the next look for waiting prompts begins.
	Through uint64 `json:"through,omitempty"`
	// Resumes is set on a turn taken over by another runtime after the one running it went
	// away while the turn waited on a decision: the offset of the turn.started it continues.
	// It is the same turn (a stop names it by that offset); the thread counts no new one.
	Resumes uint64 `json:"resumes,omitempty"`
}

// TurnEnded is the data of turn.ended.
type TurnEnded struct {
	Prompt  uint64 `json:"prompt"`
	Run     string `json:"run,omitempty"`
	Through uint64 `json:"through,omitempty"`
	// Stopped says the user stopped it; Interrupted that its server went away before it
	// finished.
	Stopped     bool `json:"stopped,omitempty"`
	Interrupted bool `json:"interrupted,omitempty"`
}

// RunOrder orders two waiting prompts by the rule the server runs them in, for a stable
// sort of prompts in log order: steered ones first, each group in the order sent. The browser
// shows the queue with the same function, so what it shows is what runs.
func RunOrder(aSteer, bSteer bool) int {
	switch {
	case aSteer == bSteer:
		return 0
	case aSteer:
		return -1
	}
	return 1
}

// TurnQueue is the data of turn.queue, found in older logs: the offsets of the prompts
// waiting, in order.
type TurnQueue struct {
	Prompts []uint64 `json:"prompts"`
}

// StopRequested is the data of turn.stop: the turn it stops, by the offset of its
// turn.started, so a stop that arrives after that turn ended cannot stop the next one.
type StopRequested struct {
	Turn uint64 `json:"turn"`
}

// PromptSteered is the data of prompt.steered.
type PromptSteered struct {
	Prompt uint64 `json:"prompt"`
	Run    string `json:"run,omitempty"`
}

// StopRequest is the body of POST /api/sessions/{id}/stop. Turn names the turn the user
// saw running (the offset of its turn.started); if that turn has ended, nothing is stopped,
// so a slow click cannot stop the next one. Zero stops whatever runs.
type StopRequest struct {
	Turn uint64 `json:"turn,omitempty"`
}

// Validate accepts any stop request.
func (StopRequest) Validate() error { return nil }

// StopResponse gives the offset of the stop request. The turn's runtime acts on it: its
// turn.ended (stopped) follows on the socket.
type StopResponse struct {
	// Running is false when no turn was running: nothing was recorded.
	Running bool   `json:"running"`
	Offset  uint64 `json:"offset,omitempty"`
}

// Functions.

// Function describes a function the fn-form can run: its parameters use the decision schema
// vocabulary (an object schema, one property per parameter).
type Function struct {
	Name        string  `json:"name"`
	Title       string  `json:"title,omitempty"`
	Description string  `json:"description,omitempty"`
	Params      *Schema `json:"params"`
	Source      string  `json:"source"` // "builtin" or the workspace file
	// Error says why a workspace function cannot run (it does not load); it is listed so
	// its author sees why, rather than missing.
	Error string `json:"error,omitempty"`
}

// FunctionList answers GET /api/functions.
type FunctionList struct {
	Functions []Function `json:"functions"`
}

// RunFunctionRequest is the body of POST /api/functions/{name}/run.
type RunFunctionRequest struct {
	Args json.RawMessage `json:"args,omitempty"`
	// Session runs the function in an existing session; empty creates one.
	Session string `json:"session,omitempty"`
	// Workspace is the id of the workspace a new session works in (empty: the default). With
	// Session it may only name that session's workspace.
	Workspace string `json:"workspace,omitempty"`
}

// RunFunctionResponse answers at once, before the run ends: its events stream on the socket.
type RunFunctionResponse struct {
	Session string `json:"session"`
	Run     string `json:"run"`
}

// Commands (server-side slash commands).

// CommandInfo describes a slash command or an example for /help and the browser's menu.
type CommandInfo struct {
	Name        string `json:"name"`
	Usage       string `json:"usage"`
	Description string `json:"description"`
}

// CommandList answers GET /api/commands.
type CommandList struct {
	Commands []CommandInfo `json:"commands"`
	Examples []CommandInfo `json:"examples"`
}

// isJSONNull reports whether raw is absent or the JSON null.
func isJSONNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}
