// Package runtime is the server side of Parley's agents: sessions and their event log on
// NATS JetStream, the decision registry, the approval gate and its grants, turns and the
// slash-command door, functions, and the agent that answers prompts. It speaks protocol types
// and never touches HTTP; the server wires it to requests and the socket.
package runtime

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
	"parley/runtime/script"
)

// Options configure a Runtime. Zero values pick the production defaults.
type Options struct {
	// Workspaces are the directories sessions can work in; the first is the default.
	Workspaces []string
	// Workspace is the one directory when Workspaces is empty ("." when both are).
	Workspace string
	// Now is the clock; tests inject one.
	Now func() time.Time
	// NewID makes session ids.
	NewID func() string
	// NoAgent starts no agent: the runtime serves sessions and their logs, and prompts wait
	// in the log for a runtime that answers them.
	NoAgent bool
	// DecisionTimeout ends a decision that asks for no timeout of its own (default 10 min).
	DecisionTimeout time.Duration
	// Lease is how long a runtime instance counts as alive after its last heartbeat; a
	// decision held by an instance gone longer is aborted (default 10 s).
	Lease time.Duration
	// Exclusive says no other runtime shares the log (the embedded default): at start, every
	// decision left pending by an earlier process is aborted at once, without waiting for its
	// lease to lapse.
	Exclusive bool
	// Limits bound scripts, examples and functions; zero fields take script.DefaultLimits.
	Limits script.Limits
}

// Runtime hosts sessions and their agents.
type Runtime struct {
	opts       Options
	log        *Log
	sessions   *sessionIndex
	grants     *grantStore
	registry   *registry
	presence   *presence
	workspaces []*workspace // the default first
	turns      turnTable
	inbound    *inbound
	tap        *tap
	open       *openSet

	ctx    context.Context // ends at Close: cancels every running turn
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup
	owner  string
}

// New opens the event log, the session index, the grants and the registry, and starts the
// agent. Stop it with Close.
func New(ctx context.Context, nc *nats.Conn, opts Options) (*Runtime, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = NewID
	}
	opts.DecisionTimeout = cmp.Or(opts.DecisionTimeout, 10*time.Minute)
	opts.Lease = cmp.Or(opts.Lease, 10*time.Second)
	opts.Limits = withDefaultLimits(opts.Limits)
	if len(opts.Workspaces) == 0 {
		opts.Workspaces = []string{cmp.Or(opts.Workspace, ".")}
	}
	workspaces, err := openWorkspaces(opts.Workspaces, opts.Limits)
	if err != nil {
		return nil, err
	}
	log, err := OpenLog(ctx, nc, opts.Now)
	if err != nil {
		return nil, err
	}
	sessions, err := openSessionIndex(ctx, log.js)
	if err != nil {
		return nil, err
	}
	grants, err := openGrants(ctx, log.js)
	if err != nil {
		return nil, err
	}
	rt := &Runtime{opts: opts, log: log, sessions: sessions, grants: grants, workspaces: workspaces, owner: "rt-" + NewID()}
	rt.turns.bySession = map[string]*runner{}
	rt.ctx, rt.cancel = context.WithCancelCause(context.Background())
	rt.registry = newRegistry(log, rt.owner, opts.Now, opts.DecisionTimeout, opts.NewID)
	if rt.presence, err = openPresence(ctx, log.js, rt.owner, opts.Lease); err != nil {
		return nil, err
	}
	rt.open = newOpenSet()
	if rt.tap, err = startTap(ctx, log, rt.onEvent); err != nil {
		return nil, err
	}
	if err := rt.open.seed(ctx, log); err != nil {
		rt.tap.stop()
		return nil, fmt.Errorf("read open decisions and turns: %w", err)
	}
	rt.sweep(ctx)
	rt.wg.Add(1)
	go rt.keepAlive()
	if !opts.NoAgent {
		if rt.inbound, err = startInbound(ctx, log, rt.onBell); err != nil {
			rt.Close()
			return nil, err
		}
	}
	return rt, nil
}

func withDefaultLimits(l script.Limits) script.Limits {
	d := script.DefaultLimits()
	l.Steps = cmp.Or(l.Steps, d.Steps)
	l.Wall = cmp.Or(l.Wall, d.Wall)
	l.ProcessTimeout = cmp.Or(l.ProcessTimeout, d.ProcessTimeout)
	l.OutputBytes = cmp.Or(l.OutputBytes, d.OutputBytes)
	l.ReadBytes = cmp.Or(l.ReadBytes, d.ReadBytes)
	l.Memory = cmp.Or(l.Memory, d.Memory)
	return l
}

// onEvent sees every event stored after the runtime started, from any replica.
func (r *Runtime) onEvent(ev protocol.Event) {
	r.open.apply(ev)
	switch ev.Type {
	case protocol.EventQuestionReplied, protocol.EventQuestionRejected:
		r.registry.deliver(ev)
	case protocol.EventStopRequested:
		if stop, err := protocol.DecodeEventData[protocol.StopRequested](ev); err == nil {
			r.onStop(ev.Session, stop.Turn)
		}
	}
}

// sweep aborts the decisions no live runtime can resume, and ends the turns no live runtime
// runs (then runs their sessions' waiting prompts here).
func (r *Runtime) sweep(ctx context.Context) {
	r.registry.sweep(ctx, r.open, func(owner string) bool {
		return !r.opts.Exclusive && r.presence.alive(ctx, owner)
	})
	r.sweepTurns()
}

// keepAlive renews this instance's presence and sweeps orphaned decisions.
func (r *Runtime) keepAlive() {
	defer r.wg.Done()
	beat := time.NewTicker(r.opts.Lease / 3)
	defer beat.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-beat.C:
			ctx, cancel := context.WithTimeout(r.ctx, r.opts.Lease/3)
			if err := r.presence.beat(ctx); err != nil {
				slog.Warn("presence heartbeat", "err", err)
			}
			r.keepBells()
			r.sweep(ctx)
			cancel()
		}
	}
}

// Close stops the agent and every running turn (their pending decisions end as aborted),
// then leaves. The connection belongs to the caller.
func (r *Runtime) Close() {
	if r.inbound != nil {
		r.inbound.stop()
	}
	r.cancel(errShutdown)
	r.wg.Wait()
	if r.tap != nil {
		r.tap.stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	r.presence.leave(ctx)
	cancel()
}

// Reply answers a pending decision. The first valid reply wins; a later one gets an
// *AlreadyEndedError (errors.Is protocol.ErrAlreadyAnswered); a reply that does not fit the
// question's schema gets a *protocol.ValidationError with per-field messages.
func (r *Runtime) Reply(ctx context.Context, session, decision string, reply protocol.ReplyRequest) (protocol.ReplyResponse, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return protocol.ReplyResponse{}, err
	}
	offset, err := r.registry.reply(ctx, session, decision, reply)
	return protocol.ReplyResponse{Offset: offset}, err
}

// PendingDecisions lists a session's pending decisions (every session's when session is
// empty), oldest first: the queue the composer presents.
func (r *Runtime) PendingDecisions(ctx context.Context, session string) (protocol.DecisionList, error) {
	if session != "" {
		if _, err := r.Session(ctx, session); err != nil {
			return protocol.DecisionList{}, err
		}
	}
	list, err := r.registry.pending(ctx, session)
	if list == nil {
		list = []protocol.Decision{}
	}
	return protocol.DecisionList{Decisions: list}, err
}

// Ask opens a decision in a session on behalf of run and waits for it: what a script's
// ask() does. A decline or a timeout is an Answer; the end of ctx aborts it with an error.
func (r *Runtime) Ask(ctx context.Context, session, run string, req protocol.DecisionRequest) (script.Answer, error) {
	return (&runCaps{r: r, session: session, run: run}).Ask(ctx, req)
}

// Authorize passes tool calls through the approval gate of the session's workspace, as a
// script's run() does.
func (r *Runtime) Authorize(ctx context.Context, session, run string, calls []script.ToolCall) (script.Verdict, error) {
	ws, err := r.workspaceOf(ctx, session)
	if err != nil {
		return script.Verdict{}, err
	}
	return r.authorize(ctx, ws, session, run, calls)
}

// ListGrants lists a workspace's grants, oldest first ("" names the default workspace).
func (r *Runtime) ListGrants(ctx context.Context, workspaceID string) (protocol.GrantList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.GrantList{}, err
	}
	list, err := r.grants.list(ctx, ws.Path)
	if list == nil {
		list = []protocol.Grant{}
	}
	return protocol.GrantList{Grants: list}, err
}

// RevokeGrant deletes a grant of a workspace, or of any workspace when workspace is "" (grant
// ids are unique); the next check already asks again. The revocation is recorded in the
// session that granted it.
func (r *Runtime) RevokeGrant(ctx context.Context, workspaceID, id string) error {
	spaces := r.workspaces
	if workspaceID != "" {
		ws, err := r.workspace(workspaceID)
		if err != nil {
			return err
		}
		spaces = []*workspace{ws}
	}
	var g protocol.Grant
	err := ErrNoGrant
	for _, ws := range spaces {
		if g, err = r.grants.revoke(ctx, ws.Path, id); !errors.Is(err, ErrNoGrant) {
			break
		}
	}
	if err != nil {
		return err
	}
	if g.Session != "" {
		r.appendEvent(g.Session, protocol.EventGrantRevoked, g, "revoked-"+g.ID)
	}
	return nil
}

// ErrAttemptReused is returned for a prompt whose attempt id was already used for another
// prompt.
var ErrAttemptReused = errors.New("this attempt id was already used for a different prompt: send it with a new attempt id")

// Log is the runtime's event log.
func (r *Runtime) Log() *Log { return r.log }

// NewID returns a random session id of 16 lowercase letters and digits.
func NewID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b [16]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// CreateSession makes a session and writes its first event. The session is blank until
// something more than that event is in its log.
func (r *Runtime) CreateSession(ctx context.Context, req protocol.CreateSessionRequest) (protocol.SessionInfo, error) {
	ws, err := r.workspace(req.Workspace)
	if err != nil {
		return protocol.SessionInfo{}, err
	}
	info := protocol.SessionInfo{
		ID:          r.opts.NewID(),
		Title:       strings.TrimSpace(req.Title),
		Workspace:   ws.Path,
		WorkspaceID: ws.ID,
		Created:     r.opts.Now().UnixMilli(),
		Blank:       true,
	}
	if info.Title == "" {
		info.Title = untitled
	}
	if err := r.sessions.put(ctx, info); err != nil {
		return protocol.SessionInfo{}, err
	}
	created := protocol.SessionCreated{Title: info.Title, Workspace: info.Workspace}
	if _, _, err := r.log.Append(ctx, info.ID, protocol.EventSessionCreated, created, "created-"+info.ID); err != nil {
		return protocol.SessionInfo{}, err
	}
	return info, nil
}

// Session returns one session's description, or an error wrapping ErrNoSession.
func (r *Runtime) Session(ctx context.Context, id string) (protocol.SessionInfo, error) {
	if !protocol.ValidSessionID(id) {
		return protocol.SessionInfo{}, fmt.Errorf("session %q: %w", id, ErrNoSession)
	}
	info, err := r.sessions.get(ctx, id)
	if err != nil {
		return protocol.SessionInfo{}, err
	}
	return r.describe(ctx, info), nil
}

// ListSessions returns every session, newest first.
func (r *Runtime) ListSessions(ctx context.Context) ([]protocol.SessionInfo, error) {
	list, err := r.sessions.list(ctx)
	for i := range list {
		list[i] = r.describe(ctx, list[i])
	}
	return list, err
}

// describe completes a session's indexed description. Its workspace is named as it is
// served now (see sessionWorkspace); one no longer served keeps what was indexed. A session
// indexed as blank is checked against its log, which is the truth: a prompt stored by a
// process that stopped before it could update the index (or a function run, which never
// does) makes it not blank, and the index learns it.
func (r *Runtime) describe(ctx context.Context, info protocol.SessionInfo) protocol.SessionInfo {
	if ws, err := r.sessionWorkspace(info); err == nil {
		info.Workspace, info.WorkspaceID = ws.Path, ws.ID
	}
	if !info.Blank {
		return info
	}
	last, err := r.log.stream.GetLastMsgForSubject(ctx, sessionSubjects(info.ID))
	if err != nil {
		return info // none yet: CreateSession has not written its first event
	}
	if ev, err := decode(last.Subject, last.Sequence, last.Data); err == nil && ev.Type != protocol.EventSessionCreated {
		info.Blank = false
		if err := r.sessions.markUsed(ctx, info.ID, ""); err != nil {
			slog.Warn("session index", "err", err)
		}
	}
	return info
}

// SendPrompt stores a user message. A retry with the same attempt id is stored once and
// answers with the first offset.
func (r *Runtime) SendPrompt(ctx context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.SendPromptResponse{}, err
	}
	info, err := r.Session(ctx, session)
	if err != nil {
		return protocol.SendPromptResponse{}, err
	}
	msg := protocol.Message{Text: req.Text, AttemptID: req.AttemptID, Mode: req.Mode}
	offset, dup, err := r.log.Append(ctx, session, protocol.EventUserMessage, msg, "prompt-"+session+"-"+req.AttemptID)
	if err != nil {
		return protocol.SendPromptResponse{}, err
	}
	if info.Blank {
		// The prompt is stored, so this failing fails nothing: the next read learns it
		// from the log.
		if err := r.sessions.markUsed(ctx, session, protocol.TitleFrom(req.Text)); err != nil {
			slog.Warn("session index", "err", err)
		}
	}
	if dup {
		// A retry must carry the same prompt; a reused id with other text would be lost.
		stored, err := r.log.stream.GetMsg(ctx, offset)
		if err == nil {
			if ev, err := decode(stored.Subject, stored.Sequence, stored.Data); err == nil {
				if m, err := ev.DecodeMessage(); err == nil && m.Text != req.Text {
					return protocol.SendPromptResponse{}, ErrAttemptReused
				}
			}
		}
	}
	return protocol.SendPromptResponse{Offset: offset, Duplicate: dup}, nil
}

// Head returns the offset of the session's last event (0 for none).
func (r *Runtime) Head(ctx context.Context, session string) (uint64, error) {
	last, err := r.log.stream.GetLastMsgForSubject(ctx, sessionSubjects(session))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return last.Sequence, nil
}

// Follow streams a session's events after an offset; see Log.Follow.
func (r *Runtime) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return nil, nil, err
	}
	return r.log.Follow(ctx, session, after)
}
