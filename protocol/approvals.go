package protocol

import "strings"

// The approvals screen: the queue of pending decisions across every session and workspace,
// the history of ended ones, and the grants ("always" answers). See docs/approvals.md.

// ThreadStatus is what a thread was doing when a decision was asked: its last user message
// and its last assistant-side message before the question (the agent's, a script's or
// Parley's, as AgentFrom says), read from the log.
type ThreadStatus struct {
	User        string `json:"user,omitempty"`
	UserOffset  uint64 `json:"userOffset,omitempty"`
	Agent       string `json:"agent,omitempty"`
	AgentOffset uint64 `json:"agentOffset,omitempty"`
	// AgentFrom says who wrote Agent when it is not the agent: "script" (a run's send()) or
	// "parley" (a command's answer), as Message.From.
	AgentFrom string `json:"agentFrom,omitempty"`
}

// QueueEntry is a pending decision as the approvals screen shows it.
type QueueEntry struct {
	Decision
	Asked         int64        `json:"asked"` // unix milliseconds
	SessionTitle  string       `json:"sessionTitle"`
	WorkspaceID   string       `json:"workspaceId"`
	WorkspaceName string       `json:"workspaceName"`
	Status        ThreadStatus `json:"status"`
}

// ApprovalQueue answers GET /api/approvals: every pending decision, oldest first. Version
// changes whenever a decision is asked or ends, or a grant is made or revoked: a client
// passes it back as ?wait= to be answered only once something changed.
type ApprovalQueue struct {
	Entries []QueueEntry `json:"entries"`
	Version uint64       `json:"version"`
}

// History outcomes: how a decision ended, as the history names it.
const (
	HistoryApproved = "approved"
	HistoryRejected = "rejected"
	HistoryAnswered = "answered"
	HistoryTimedOut = "timed-out"
	HistoryAborted  = "aborted"
)

// HistoryOutcomes are the outcomes the history can be filtered by.
var HistoryOutcomes = []string{HistoryApproved, HistoryRejected, HistoryAnswered, HistoryTimedOut, HistoryAborted}

// HistoryEntry is a decision that ended.
type HistoryEntry struct {
	QueueEntry
	Outcome string `json:"outcome"`
	// Answer says in words what was chosen: the option's label, the answer given.
	Answer string `json:"answer,omitempty"`
	// Reason is a rejection's reason, an instruction typed instead, or why it was aborted.
	Reason    string `json:"reason,omitempty"`
	Ended     int64  `json:"ended"` // unix milliseconds
	EndOffset uint64 `json:"endOffset"`
	// Grant is the "always" the answer created; GrantLive says it is not revoked yet.
	Grant     *GrantScope `json:"grant,omitempty"`
	GrantID   string      `json:"grantId,omitempty"`
	GrantLive bool        `json:"grantLive,omitempty"`
	// Retryable says Request retry is offered: the request expired (RetryableReason), and
	// RetryWayOf its asker is not RetryNone. RetryRuns says the retry runs the slash command
	// that asked again (Run again), not a prompt to the agent.
	Retryable bool `json:"retryable,omitempty"`
	RetryRuns bool `json:"retryRuns,omitempty"`
	// AnswerPhrase and ReasonPhrase name Answer and Reason by their catalogue codes when
	// Parley wrote them in fixed words ("Approved 2 of 3", why it was aborted).
	AnswerPhrase *Phrase `json:"answerPhrase,omitempty"`
	ReasonPhrase *Phrase `json:"reasonPhrase,omitempty"`
}

// RetryableReason reports whether a decision that ended with question.rejected for reason
// can be asked for again with Request retry: it expired, unanswered, because nobody answered
// in time or because a restart cut it off. A stopped or withdrawn one was ended on purpose.
func RetryableReason(reason string) bool {
	return reason == ReasonTimeout || reason == ReasonOrphaned
}

// RetryWay is how a request that expired is asked for again, by who asked it.
type RetryWay uint8

// The ways of a retry.
const (
	// RetryNone: a function run's request. The run is gone; its form runs it again.
	RetryNone RetryWay = iota
	// RetryAgent: the agent's request. A prompt asks the agent to make it again.
	RetryAgent
	// RetryCommand: a slash command's run asked (a /script, an /example). The command is
	// sent again, and asks again from its start. The agent never asked: a prompt to it
	// would ask for a request it knows nothing of.
	RetryCommand
)

// RetryWayOf says how a request asked by run (QuestionAsked.Run) is asked for again.
func RetryWayOf(run string) RetryWay {
	switch {
	case strings.HasPrefix(run, commandRunPrefix):
		return RetryCommand
	case strings.HasPrefix(run, FunctionRunPrefix):
		return RetryNone
	}
	return RetryAgent // the agent's turn asks with no run of its own
}

// ApprovalHistory answers GET /api/approvals/history, newest first. Next is the ?before= of
// the next page, 0 when there is none.
type ApprovalHistory struct {
	Entries []HistoryEntry `json:"entries"`
	Next    uint64         `json:"next,omitempty"`
}

// HistoryFilter selects ended decisions; empty fields select all.
type HistoryFilter struct {
	Session   string
	Workspace string // a workspace id
	Outcome   string
	Before    uint64 // only decisions that ended before this offset
	Limit     int
}

// GrantEntry is a grant as the approvals screen lists it.
type GrantEntry struct {
	Grant
	// Words says the grant's reach in words: "git status …", "writes in notes/".
	Words         string `json:"words"`
	WorkspaceID   string `json:"workspaceId"`
	WorkspaceName string `json:"workspaceName"`
	SessionTitle  string `json:"sessionTitle,omitempty"`
	LastUsed      int64  `json:"lastUsed,omitempty"` // unix milliseconds, 0 for never
}

// GrantEntries answers GET /api/approvals/grants: every workspace's grants, oldest first.
type GrantEntries struct {
	Grants []GrantEntry `json:"grants"`
}

// RetryResponse answers POST /api/sessions/{id}/decisions/{decision}/retry: the prompt that
// asks the agent to make the request again.
type RetryResponse struct {
	SendPromptResponse
	Text string `json:"text"`
}

// DescribeScope words a grant's reach: "git status …", "writes in notes/", "any run".
func DescribeScope(s GrantScope) string {
	join := strings.Join
	switch s.Kind {
	case GrantTool:
		return "any " + s.Tool
	case GrantExact:
		if s.Tool == "mcp" && len(s.Words) == 2 {
			return s.Words[1] + " of the MCP server " + s.Words[0]
		}
	case GrantPrefix:
		if s.Tool == "write" || s.Tool == "read" {
			return s.Tool + "s in " + join(s.Words, "/") + "/"
		}
		return join(s.Words, " ") + " …"
	}
	if s.Tool == "write" || s.Tool == "read" {
		return s.Tool + " " + join(s.Words, "/")
	}
	return join(s.Words, " ")
}
