package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"parley/i18n"
	"parley/internal/watermark"
	"parley/protocol"
	"parley/runtime/eventlog"
)

// The approvals screen's reads (docs/approvals.md): the queue of pending decisions across
// every session, the history of ended ones, the grants with their last use, and "Request
// retry". All of it is derived from the log and the grants bucket; memory holds only what
// never changes once written (what a thread was doing when a decision was asked) and the
// version that wakes the screen's long poll.

// approvals is the runtime's part of the approvals screen.
type approvals struct {
	version watermark.Mark // the offset of the last decision or grant event seen

	status sync.Map // decision id → askedContext: never changes once asked
}

// askedContext is what a decision's entry needs from the log around its question.
type askedContext struct {
	at     int64
	status protocol.ThreadStatus
}

func (a *approvals) init(head uint64) { a.version.Start(head) }

// seen moves the version for an event that changes the queue, the history or the grants.
func (a *approvals) seen(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventQuestionAsked, protocol.EventQuestionReplied, protocol.EventQuestionRejected,
		protocol.EventGrantCreated, protocol.EventGrantRevoked:
	default:
		return
	}
	a.version.Raise(ev.Offset)
}

// wait returns once the version differs from v, or at the end of ctx or of d.
func (a *approvals) wait(ctx context.Context, v uint64, d time.Duration) uint64 {
	return a.version.Wait(ctx, v, d)
}

// maxStatusText bounds each message of a thread's status: it is context, not the message.
const maxStatusText = 280

// ApprovalQueue lists every pending decision of every session, oldest first. With wait set,
// it first waits (up to hold) until the version differs from *wait: the screen's long poll.
func (r *Runtime) ApprovalQueue(ctx context.Context, wait *uint64, hold time.Duration) (protocol.ApprovalQueue, error) {
	version := r.approvals.wait(ctx, 0, 0)
	if wait != nil {
		version = r.approvals.wait(ctx, *wait, hold)
	}
	pending, err := r.registry.Pending(ctx, "")
	if err != nil {
		return protocol.ApprovalQueue{}, err
	}
	out := protocol.ApprovalQueue{Entries: []protocol.QueueEntry{}, Version: version}
	sessions := r.sessionTable(ctx)
	for _, d := range pending {
		out.Entries = append(out.Entries, r.queueEntry(ctx, sessions, d))
	}
	return out, nil
}

// sessionTable is every session by id, for the titles and workspaces of entries.
func (r *Runtime) sessionTable(ctx context.Context) map[string]protocol.SessionInfo {
	list, _ := r.ListSessions(ctx)
	out := make(map[string]protocol.SessionInfo, len(list))
	for _, s := range list {
		out[s.ID] = s
	}
	return out
}

func (r *Runtime) queueEntry(ctx context.Context, sessions map[string]protocol.SessionInfo, d protocol.Decision) protocol.QueueEntry {
	e := protocol.QueueEntry{Decision: d}
	if info, ok := sessions[d.Session]; ok {
		e.SessionTitle, e.WorkspaceID = info.Title, info.WorkspaceID
		if ws, err := r.sessionWorkspace(info); err == nil {
			e.WorkspaceName = ws.Name
		}
	}
	ac := r.askedContext(ctx, d.Session, d.ID, d.Offset)
	e.Asked, e.Status = ac.at, ac.status
	return e
}

// askedContext reads, once per decision, when it was asked and the session's last user and
// agent messages before it. A failed read is not cached.
func (r *Runtime) askedContext(ctx context.Context, session, id string, offset uint64) askedContext {
	if v, ok := r.approvals.status.Load(id); ok {
		return v.(askedContext)
	}
	var ac askedContext
	if ev, err := r.log.Get(ctx, offset); err == nil {
		ac.at = ev.At
	}
	// The user message is the prompt being worked on when it was asked (its turn's, or the
	// last one steered into it), not a prompt that was only queued behind it: a person must
	// not approve a command thinking it answers another message. The assistant-side message
	// is likewise one said since that turn began, never the turn before's (a script's "True"
	// stood over the next run's approval). A log with no turn (a test writing the messages
	// itself) falls back to the last of each.
	prompts := map[uint64]string{}
	var taken protocol.ThreadStatus
	turns := false
	take := func(p uint64) { // a function run's turn (prompt 0) has none
		taken = protocol.ThreadStatus{}
		if text, ok := prompts[p]; ok {
			taken.User, taken.UserOffset = text, p
		}
	}
	err := r.log.Scan(ctx, eventlog.SessionSubjects(session), 0, func(ev protocol.Event) bool {
		if ev.Offset >= offset {
			return false
		}
		switch ev.Type {
		case protocol.EventUserMessage, protocol.EventAgentMessage:
			m, err := ev.DecodeMessage()
			if err != nil {
				return true
			}
			text := clip(m.Text, maxStatusText)
			if ev.Type == protocol.EventUserMessage {
				ac.status.User, ac.status.UserOffset = text, ev.Offset
				prompts[ev.Offset] = text
			} else {
				ac.status.Agent, ac.status.AgentOffset, ac.status.AgentFrom = text, ev.Offset, m.From
				taken.Agent, taken.AgentOffset, taken.AgentFrom = text, ev.Offset, m.From
			}
		case protocol.EventPromptEdited:
			if pe, err := protocol.DecodeEventData[protocol.PromptEdited](ev); err == nil {
				if _, ok := prompts[pe.Prompt]; ok {
					prompts[pe.Prompt] = clip(pe.Text, maxStatusText)
				}
			}
		case protocol.EventTurnStarted:
			if ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev); err == nil {
				turns = true
				take(ts.Prompt)
			}
		case protocol.EventPromptSteered:
			if ps, err := protocol.DecodeEventData[protocol.PromptSteered](ev); err == nil {
				take(ps.Prompt)
			}
		}
		return true
	})
	if turns {
		ac.status = taken
	}
	if err == nil {
		r.approvals.status.Store(id, ac)
	}
	return ac
}

// clip cuts s to about n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// History limits: a page when none is asked, and the most one page holds.
const (
	historyPage    = 50
	maxHistoryPage = 200
)

// ErrBadFilter is returned for a history filter that names no outcome or workspace.
var ErrBadFilter = errors.New("bad filter")

// ApprovalHistory lists the decisions that ended, newest first, filtered and paged.
func (r *Runtime) ApprovalHistory(ctx context.Context, f protocol.HistoryFilter) (protocol.ApprovalHistory, error) {
	if f.Outcome != "" && !slices.Contains(protocol.HistoryOutcomes, f.Outcome) {
		return protocol.ApprovalHistory{}, fmt.Errorf("%w: outcome %q: use one of %s", ErrBadFilter, f.Outcome, strings.Join(protocol.HistoryOutcomes, ", "))
	}
	if f.Workspace != "" {
		if _, err := r.workspace(f.Workspace); err != nil {
			return protocol.ApprovalHistory{}, err
		}
	}
	if f.Session != "" && !protocol.ValidSessionID(f.Session) {
		return protocol.ApprovalHistory{}, fmt.Errorf("session %q: %w", f.Session, ErrNoSession)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = historyPage
	}
	limit = min(limit, maxHistoryPage)

	// One pass over the decision subjects: each question, then its outcome.
	type pair struct {
		asked   protocol.Event
		outcome protocol.Event
	}
	byID := map[string]*pair{}
	var ended []*pair
	sessionFilter := "*"
	if f.Session != "" {
		sessionFilter = f.Session
	}
	err := r.log.Scan(ctx, eventlog.DecisionSubjects(sessionFilter), 0, func(ev protocol.Event) bool {
		var id struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(ev.Data, &id) != nil {
			return true
		}
		key := ev.Session + "/" + id.ID
		switch ev.Type {
		case protocol.EventQuestionAsked:
			byID[key] = &pair{asked: ev}
		case protocol.EventQuestionReplied, protocol.EventQuestionRejected:
			if p := byID[key]; p != nil && p.outcome.Offset == 0 {
				p.outcome = ev
				ended = append(ended, p)
			}
		}
		return true
	})
	if err != nil {
		return protocol.ApprovalHistory{}, err
	}
	slices.SortFunc(ended, func(a, b *pair) int { return cmp.Compare(b.outcome.Offset, a.outcome.Offset) })

	sessions := r.sessionTable(ctx)
	live := map[string]string{} // decision id → its grant, while not revoked
	for _, ws := range r.workspaces {
		list, _ := r.grants.List(ctx, ws.Path)
		for _, g := range list {
			if g.Decision != "" {
				live[g.Decision] = g.ID
			}
		}
	}
	out := protocol.ApprovalHistory{Entries: []protocol.HistoryEntry{}}
	for _, p := range ended {
		if f.Before != 0 && p.outcome.Offset >= f.Before {
			continue
		}
		if f.Workspace != "" {
			info, ok := sessions[p.asked.Session]
			ws, err := r.sessionWorkspace(info)
			if !ok || err != nil || ws.ID != f.Workspace {
				continue
			}
		}
		asked, err := p.asked.DecodeQuestionAsked()
		if err != nil {
			continue
		}
		h := historyOf(asked, p.outcome)
		if f.Outcome != "" && h.Outcome != f.Outcome {
			continue
		}
		if len(out.Entries) == limit {
			out.Next = out.Entries[len(out.Entries)-1].EndOffset
			break
		}
		h.QueueEntry = r.queueEntry(ctx, sessions, protocol.Decision{Session: p.asked.Session, Offset: p.asked.Offset, QuestionAsked: asked})
		if h.Grant != nil {
			h.GrantID, h.GrantLive = live[asked.ID], live[asked.ID] != ""
		}
		out.Entries = append(out.Entries, h)
	}
	return out, nil
}

// historyOf says how a decision ended: its outcome, the answer in words, the reason, and the
// grant an "always" answer created.
func historyOf(asked protocol.QuestionAsked, end protocol.Event) protocol.HistoryEntry {
	h := protocol.HistoryEntry{Ended: end.At, EndOffset: end.Offset}
	req := asked.Request
	if end.Type == protocol.EventQuestionRejected {
		r, _ := end.DecodeQuestionRejected()
		h.Outcome = protocol.HistoryAborted
		way := protocol.RetryWayOf(asked.Run)
		h.Retryable = protocol.RetryableReason(r.Reason) && way != protocol.RetryNone
		h.RetryRuns = h.Retryable && way == protocol.RetryCommand
		code, ok := abortReason[r.Reason]
		if r.Outcome == protocol.OutcomeDeclined {
			h.Outcome, code, ok = protocol.HistoryTimedOut, "abort_no_answer", true
		}
		h.Reason = r.Reason
		if ok {
			p, text := i18n.EnglishPhrase(code)
			h.Reason, h.ReasonPhrase = text, &p
		}
		return h
	}
	r, _ := end.DecodeQuestionReplied()
	if r.Action == protocol.ActionDecline {
		h.Outcome, h.Reason = protocol.HistoryRejected, r.Reason
		return h
	}
	if req.Kind != protocol.KindApproval {
		h.Outcome, h.Answer = protocol.HistoryAnswered, describeContent(req, r.Content)
		return h
	}
	var a protocol.ApprovalAnswer
	_ = json.Unmarshal(r.Content, &a)
	if n, of, ok := a.BatchOutcome(); ok {
		h.Outcome = protocol.HistoryApproved
		p, text := i18n.EnglishPhrase("hist_approved_n_of_m", strconv.Itoa(n), strconv.Itoa(of))
		switch why := strings.TrimSpace(a.Instruction); {
		case n == 0:
			h.Outcome, h.Reason = protocol.HistoryRejected, why
			p, text = i18n.EnglishPhrase("hist_rejected_each")
		case why != "" && n < of:
			p, text = i18n.EnglishPhrase("hist_approved_n_of_m_why", strconv.Itoa(n), strconv.Itoa(of), why)
		}
		h.Answer, h.AnswerPhrase = text, &p
		return h
	}
	opt, picked := a.Picked(req)
	switch {
	case !picked:
		h.Outcome, h.Reason = protocol.HistoryRejected, a.Instruction
	case opt.Value == protocol.OptionAllow:
		// The outcome says it was approved; the button's verb again ("Approved: Approve")
		// says nothing more. An "always" says its reach.
		h.Outcome, h.Grant = protocol.HistoryApproved, opt.Grant
		if opt.Grant != nil {
			h.Answer = strings.TrimPrefix(opt.Label, "Approve, and ")
		}
	case opt.Value == protocol.OptionDeny:
		h.Outcome = protocol.HistoryRejected
	default:
		h.Outcome, h.Answer = protocol.HistoryRejected, opt.Label
	}
	return h
}

// abortReason is why a decision was aborted, by its phrase code (i18n/more_words.go).
var abortReason = map[string]string{
	protocol.ReasonStopped:   "abort_stopped",
	protocol.ReasonWithdrawn: "abort_withdrawn",
	protocol.ReasonOrphaned:  "abort_orphaned",
}

// describeContent words an answer to a question as the thread card does: a form's answers
// as "Title: value" pairs, a choice's label, a yes or no, the text (protocol.AnswerInWords).
func describeContent(req protocol.DecisionRequest, content json.RawMessage) string {
	s := req.Schema
	if s == nil && req.Kind == protocol.KindConfirm {
		s = &protocol.Schema{Type: "boolean"}
	}
	if words := protocol.AnswerInWords(s, content); words != "" {
		return clip(words, maxStatusText)
	}
	return clip(string(content), maxStatusText)
}

// ApprovalGrants lists every workspace's grants, oldest first, with their reach in words and
// when each was last used.
func (r *Runtime) ApprovalGrants(ctx context.Context) (protocol.GrantEntries, error) {
	out := protocol.GrantEntries{Grants: []protocol.GrantEntry{}}
	sessions := r.sessionTable(ctx)
	for _, ws := range r.workspaces {
		list, err := r.grants.List(ctx, ws.Path)
		if err != nil {
			return out, err
		}
		for _, g := range list {
			e := protocol.GrantEntry{Grant: g, Words: protocol.DescribeScope(g.Scope), WorkspaceID: ws.ID, WorkspaceName: ws.Name,
				LastUsed: r.grants.LastUsed(ctx, g.ID)}
			if info, ok := sessions[g.Session]; ok {
				e.SessionTitle = info.Title
			}
			out.Grants = append(out.Grants, e)
		}
	}
	slices.SortStableFunc(out.Grants, func(a, b protocol.GrantEntry) int { return cmp.Compare(a.Created, b.Created) })
	return out, nil
}

// ErrNotRetryable is returned for a retry of a decision that did not expire.
var ErrNotRetryable = errors.New("only a request that timed out or was cut off by a restart can be retried")

// ErrRetryFunction is returned for a retry of a function run's request: the run is gone.
var ErrRetryFunction = errors.New("a function's request is asked again by running the function again, from its form")

// RequestRetry asks for an expired request again, the way its asker makes it
// (protocol.RetryWayOf): the agent, with an ordinary prompt asking it to make the request
// again; a slash command's run, by sending its command again, which asks again from its
// start. It creates no trust: the new request is asked like any other.
func (r *Runtime) RequestRetry(ctx context.Context, session, id string) (protocol.RetryResponse, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return protocol.RetryResponse{}, err
	}
	if !protocol.ValidSessionID(id) {
		return protocol.RetryResponse{}, fmt.Errorf("question %q: %w", id, ErrNoDecision)
	}
	subject := eventlog.DecisionSubject(session, id)
	last, err := r.log.Last(ctx, subject)
	if errors.Is(err, eventlog.ErrNotFound) {
		return protocol.RetryResponse{}, fmt.Errorf("question %s in session %s: %w", id, session, ErrNoDecision)
	}
	if err != nil {
		return protocol.RetryResponse{}, err
	}
	rej, err := last.DecodeQuestionRejected()
	if last.Type != protocol.EventQuestionRejected || err != nil || !protocol.RetryableReason(rej.Reason) {
		return protocol.RetryResponse{}, ErrNotRetryable
	}
	first, err := r.log.First(ctx, subject, 1)
	if err != nil {
		return protocol.RetryResponse{}, err
	}
	asked, err := first.DecodeQuestionAsked()
	if err != nil {
		return protocol.RetryResponse{}, err
	}
	var text string
	switch protocol.RetryWayOf(asked.Run) {
	case protocol.RetryAgent:
		text = RetryText(asked.Request, rej.Reason)
	case protocol.RetryCommand:
		if text, err = r.commandOf(ctx, session, asked.Run); err != nil {
			return protocol.RetryResponse{}, err
		}
	default:
		return protocol.RetryResponse{}, ErrRetryFunction
	}
	resp, err := r.SendPrompt(ctx, session, protocol.SendPromptRequest{Text: text, AttemptID: "retry-" + id})
	return protocol.RetryResponse{SendPromptResponse: resp, Text: text}, err
}

// commandOf is the text of the prompt whose slash command run is: the command as it was sent.
func (r *Runtime) commandOf(ctx context.Context, session, run string) (string, error) {
	offset, ok := protocol.CommandRunPrompt(run)
	if !ok {
		return "", ErrRetryFunction
	}
	ev, err := r.log.Get(ctx, offset)
	if err != nil {
		return "", fmt.Errorf("read the command that asked: %w", err)
	}
	m, err := ev.DecodeMessage()
	if err != nil || ev.Session != session || ev.Type != protocol.EventUserMessage {
		return "", fmt.Errorf("read the command that asked: the event at %d is not this session's prompt", offset)
	}
	return m.Text, nil
}

// RetryText is the prompt that asks for an expired request again, saying how it expired:
// no answer in time, or cut off by a restart of Parley (reason protocol.ReasonOrphaned).
func RetryText(req protocol.DecisionRequest, reason string) string {
	var b strings.Builder
	if reason == protocol.ReasonOrphaned {
		b.WriteString("Your request was cut off when Parley restarted, before I answered: please make the same request again, and I will answer it promptly.")
	} else {
		b.WriteString("Your request timed out before I answered: please make the same request again, and I will answer it promptly.")
	}
	if req.Message != "" {
		b.WriteString("\n\nThe request was: " + req.Message)
	}
	details := req.Details
	if details != "" {
		b.WriteString("\n" + clip(details, 2000))
	}
	return b.String()
}
