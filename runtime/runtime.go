// Package runtime is the server side of Parley's agents, and the wiring of its parts: the
// Runtime the server calls (sessions, prompts, decisions, grants, functions, workspaces),
// the turn runner, and the slash-command door. It speaks protocol types and never touches
// HTTP; the server wires it to requests and the socket. Each part with one job has its own
// package:
//
//	eventlog/   the event log on JetStream: append (confirmed), read, follow, tap, presence, doorbells
//	turn/       which prompt runs next, derived from the log (pure)
//	decision/   the decision registry: ask, reply, first reply wins, sweep
//	gate/       the approval gate: tool calls, verdicts, grants, what an "always" may reach
//	catalogue/  what a workspace offers: examples, functions, skills, its file index
//	agent/      the Agent a turn calls and the Tools it gets; the offline agent. The model
//	            adapter and the MCP bridge go beside it (agent/model; the MCP client is runtime/mcp)
//	script/     the Starlark host that runs scripts, examples and functions
//
// See docs/runtime.md for the design: the event log, turns, decisions and the gate.
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

	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/agent/model"
	"parley/runtime/agent/toolbox"
	"parley/runtime/decision"
	"parley/runtime/eventlog"
	"parley/runtime/fanout"
	"parley/runtime/gate"
	"parley/runtime/kv"
	"parley/runtime/mcp"
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
	// Agent answers prompts that are not slash commands (default: the model agent when Model
	// names an endpoint, else the offline agent).
	Agent agent.Agent
	// Replicas is how many copies a JetStream cluster keeps of the log and the buckets; 0
	// picks what the cluster can hold (see eventlog.Config.Replicas).
	Replicas int
	// Model is the OpenAI-compatible endpoint the model agent talks to; its URL left empty
	// keeps the offline agent. Its tools' limits default to Limits.
	Model model.Config
	// MCP configures the workspaces' MCP servers (runtime/mcp); their tools join the model
	// agent's.
	MCP mcp.Options

	// duplicates shortens JetStream's dedupe window, so a test can resend after it.
	duplicates time.Duration
}

// StreamName is the JetStream stream that holds every session's events.
const StreamName = eventlog.StreamName

// ErrUnavailable says the event log could not take or confirm a write in time: nothing is
// known to be stored, and the same request may be retried. Answer it with 503 and
// Retry-After.
var ErrUnavailable = eventlog.ErrUnavailable

// Runtime hosts sessions and their agents.
type Runtime struct {
	opts       Options
	nc         *nats.Conn // the live path's subjects (live.go)
	live       liveStreams
	log        *eventlog.Log
	sessions   *sessionIndex
	grants     *gate.Grants
	gate       *gate.Gate
	registry   *decision.Registry
	presence   *eventlog.Presence
	workspaces []*workspace // the default first
	approvals  approvals    // the approvals screen's version and cache (approvals.go)
	turns      turnTable
	bells      *eventlog.Doorbells
	tap        *eventlog.Tap
	open       *openSet
	agent      agent.Agent
	mcp        *mcp.Manager
	// fanout follows each session once for every subscriber in this process.
	fanout *fanout.Hub
	// windows index where a page can start showing a session (window.go).
	windows windowCache
	// replays keep the newest events of the sessions replayed lately (replay.go).
	replays replayCache
	// fence stops this runtime's turns while its lease lapses (fence.go); renew is the
	// heartbeat (a test cuts it).
	fence fence
	renew func(context.Context) error
	// windowsKept keeps those indexes across restarts (window_kept.go).
	windowsKept *kv.Bucket[keptIndex]
	// bound keeps each session's workspace once read (session id → *workspace): a session's
	// binding never changes (workspaceOf).
	bound sync.Map
	// alive reads whether another instance holds its lease; a test makes it slow.
	alive func(ctx context.Context, owner string) bool

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
	servers := mcp.New(opts.MCP)
	if opts.Agent == nil && opts.Model.URL != "" {
		mc := opts.Model
		if mc.Limits == (script.Limits{}) {
			mc.Limits = opts.Limits
		}
		if mc.Extra == nil {
			mc.Extra = func(ws string) toolbox.Extra { return servers.Workspace(ws) }
		}
		opts.Agent = model.New(mc)
	}
	if opts.Agent == nil {
		opts.Agent = agent.Offline{}
	}
	log, err := eventlog.Open(ctx, nc, eventlog.Config{Now: opts.Now, Duplicates: opts.duplicates, Replicas: opts.Replicas})
	if err != nil {
		return nil, err
	}
	var sessions *sessionIndex
	if err := whileUnavailable(ctx, func() (err error) {
		sessions, err = openSessionIndex(ctx, log.JetStream(), log.Replicas())
		return err
	}); err != nil {
		return nil, err
	}
	var grants *gate.Grants
	if err := whileUnavailable(ctx, func() (err error) {
		grants, err = gate.OpenGrants(ctx, log.JetStream(), log.Replicas())
		return err
	}); err != nil {
		return nil, err
	}
	var windowsKept *kv.Bucket[keptIndex]
	if err := whileUnavailable(ctx, func() (err error) {
		windowsKept, err = kv.Open[keptIndex](ctx, log.JetStream(), windowsBucket, "Parley sessions' window indexes", log.Replicas())
		return err
	}); err != nil {
		return nil, fmt.Errorf("open the window indexes: %w", err)
	}
	rt := &Runtime{opts: opts, nc: nc, log: log, sessions: sessions, grants: grants, workspaces: workspaces, windowsKept: windowsKept, owner: "rt-" + NewID(), agent: opts.Agent, mcp: servers}
	rt.turns.bySession = map[string]*runner{}
	rt.turns.stops = map[string]uint64{}
	for _, ws := range workspaces {
		servers.Workspace(ws.Path) // start their MCP servers, so /mcp shows them at once
	}
	rt.ctx, rt.cancel = context.WithCancelCause(context.Background())
	rt.fanout = fanout.New(logSource{log}, fanout.Options{})
	rt.registry = decision.NewRegistry(log, rt.owner, opts.Now, opts.DecisionTimeout, opts.NewID)
	rt.gate = &gate.Gate{Grants: grants, Asker: rt.registry, Log: log, NewID: opts.NewID, Now: opts.Now, Modes: rt.PermissionMode}
	if err := whileUnavailable(ctx, func() (err error) {
		rt.presence, err = log.OpenPresence(ctx, rt.owner, opts.Lease)
		return err
	}); err != nil {
		return nil, err
	}
	rt.alive = rt.presence.Alive
	rt.renew = rt.presence.Beat
	rt.fence.lastBeat = opts.Now()
	if err := rt.serveTails(); err != nil {
		return nil, err
	}
	rt.open = newOpenSet()
	if head, err := log.Head(ctx, "session.>"); err == nil {
		rt.approvals.init(head)
	} else {
		rt.approvals.init(0)
	}
	if rt.tap, err = log.StartTap(ctx, rt.onEvent); err != nil {
		return nil, err
	}
	if err := whileUnavailable(ctx, func() error { return rt.open.seed(ctx, log) }); err != nil {
		rt.tap.Stop()
		return nil, fmt.Errorf("read open decisions and turns: %w", err)
	}
	rt.sweep(ctx)
	rt.wg.Add(1)
	go rt.keepAlive()
	if !opts.NoAgent {
		if rt.bells, err = log.StartDoorbells(ctx, rt.onBell); err != nil {
			rt.Close()
			return nil, err
		}
		// Bells delivered to a process that died ring again only after their ack wait (30 s):
		// run their sessions now. The runner reads the log, so a session woken twice, or one
		// whose prompts all ran, costs one read.
		sessions, err := log.UnackedSessions(ctx)
		if err != nil {
			slog.Warn("waking sessions with unacknowledged prompts", "err", err)
		}
		for _, s := range sessions {
			rt.wake(s)
		}
	}
	return rt, nil
}

// whileUnavailable runs read until it succeeds, fails for another reason, or ctx ends. A
// replica that starts while the cluster elects a stream leader (a node just died) is told
// "no responders" for a moment; it waits that out rather than failing to start.
func whileUnavailable(ctx context.Context, read func() error) error {
	wait := 50 * time.Millisecond
	for {
		err := eventlog.AsUnavailable(read())
		if !errors.Is(err, ErrUnavailable) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
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
	r.approvals.seen(ev)
	switch ev.Type {
	case protocol.EventQuestionReplied, protocol.EventQuestionRejected:
		r.registry.Deliver(ev)
	case protocol.EventStopRequested:
		if stop, err := protocol.DecodeEventData[protocol.StopRequested](ev); err == nil {
			r.onStop(ev.Session, stop.Turn)
		}
	}
}

// sweep aborts the decisions no live runtime can resume, and ends the turns no live runtime
// runs (then runs their sessions' waiting prompts here).
func (r *Runtime) sweep(ctx context.Context) {
	decisions, turns := r.open.snapshot()
	r.registry.Sweep(ctx, decisions, func(d decision.Open) bool {
		if t, ok := turns[d.Session]; ok && d.Seq > cmp.Or(t.started.Resumes, t.seq) {
			// Asked in the session's open turn: that turn's fate decides it (resumed with
			// it, or ended with it when it is interrupted), here too: a turn that fencing
			// stopped here keeps its question for the turn to wait on again.
			return true
		}
		if d.Owner == r.owner {
			return false // asked here, and nothing here waits for it any more
		}
		return !r.opts.Exclusive && r.alive(ctx, d.Owner)
	}, r.open.dropDecision)
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
			r.beat(ctx)
			r.keepBells()
			if !r.isFenced() {
				// A replica cut off from the presence bucket cannot tell who is alive: the
				// others sweep meanwhile.
				r.sweep(ctx)
			}
			cancel()
		}
	}
}

// Close stops the agent and every running turn (their pending decisions end as aborted),
// then leaves. The connection belongs to the caller.
func (r *Runtime) Close() {
	if r.bells != nil {
		r.bells.Stop()
	}
	r.cancel(decision.ErrShutdown)
	if r.live.sub != nil {
		_ = r.live.sub.Unsubscribe()
	}
	r.fanout.Close()
	r.sessions.changes.Stop()
	r.wg.Wait()
	r.mcp.Close()
	if r.tap != nil {
		r.tap.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	r.presence.Leave(ctx)
	cancel()
}

// Owner is this runtime's id: what a turn it runs names as its owner (turn.started), and
// what its lease is kept under. The server logs it as it starts, so an operator can tell
// which replica owned a turn (QA round 25).
func (r *Runtime) Owner() string { return r.owner }

// Reply answers a pending decision. The first valid reply wins; a later one gets an
// *decision.AlreadyEndedError (errors.Is protocol.ErrAlreadyAnswered); a reply that does not fit the
// question's schema gets a *protocol.ValidationError with per-field messages.
func (r *Runtime) Reply(ctx context.Context, session, decision string, reply protocol.ReplyRequest) (protocol.ReplyResponse, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return protocol.ReplyResponse{}, err
	}
	offset, err := r.registry.Reply(ctx, session, decision, reply)
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
	list, err := r.registry.Pending(ctx, session)
	if list == nil {
		list = []protocol.Decision{}
	}
	return protocol.DecisionList{Decisions: list}, err
}

// Ask opens a decision in a session on behalf of run and waits for it: what a script's
// ask() does. A decline or a timeout is an Answer; the end of ctx aborts it with an error.
func (r *Runtime) Ask(ctx context.Context, session, run string, req protocol.DecisionRequest) (decision.Answer, error) {
	return (&runCaps{r: r, session: session, run: run}).Ask(ctx, req)
}

// Authorize passes tool calls through the approval gate of the session's workspace, as a
// script's run() does.
func (r *Runtime) Authorize(ctx context.Context, session, run string, calls []gate.ToolCall) (gate.Verdict, error) {
	ws, err := r.workspaceOf(ctx, session)
	if err != nil {
		return gate.Verdict{}, err
	}
	return r.gate.Authorize(ctx, ws.Path, session, run, calls)
}

// ListGrants lists a workspace's grants, oldest first ("" names the default workspace).
func (r *Runtime) ListGrants(ctx context.Context, workspaceID string) (protocol.GrantList, error) {
	ws, err := r.workspace(workspaceID)
	if err != nil {
		return protocol.GrantList{}, err
	}
	list, err := r.grants.List(ctx, ws.Path)
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
		if g, err = r.grants.Revoke(ctx, ws.Path, id); !errors.Is(err, ErrNoGrant) {
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
func (r *Runtime) Log() *eventlog.Log { return r.log }

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
	return r.listSessions(ctx, false)
}

// ListArchivedSessions returns the sessions taken out of the list (archived), the last used
// first: PATCH archived false restores one.
func (r *Runtime) ListArchivedSessions(ctx context.Context) ([]protocol.SessionInfo, error) {
	return r.listSessions(ctx, true)
}

func (r *Runtime) listSessions(ctx context.Context, archived bool) ([]protocol.SessionInfo, error) {
	list, err := r.sessions.list(ctx, archived)
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
	last, err := r.log.Last(ctx, eventlog.SessionSubjects(info.ID))
	if err != nil || last.Type == protocol.EventSessionCreated {
		return info // blank, or CreateSession has not written its first event yet
	}
	info.Blank = false
	title, at := r.markUsed(ctx, info.ID)
	if title != "" {
		info.Title = title
	}
	info.Created = max(info.Created, at)
	return info
}

// markUsed tells the index that a session holds more than its first event, with the title
// of its first prompt in log order and the time it was stored: a blank session may have
// waited on the empty page for minutes, and the list dates a session from its first prompt
// (docs/look.md, "Sessions"). Every writer derives both from the log, so concurrent first
// prompts and a concurrent describe agree on them. A failure fails nothing: the next read
// learns it from the log again. It returns the title and the time it found.
func (r *Runtime) markUsed(ctx context.Context, session string) (string, int64) {
	title, at := "", int64(0)
	if text, when, err := r.firstPrompt(ctx, session); err == nil && text != "" {
		title, at = r.promptTitle(ctx, session, text), when
	}
	if err := r.sessions.markUsed(ctx, session, title, at); err != nil {
		slog.Warn("session index", "err", err)
	}
	return title, at
}

// promptTitle is the title a prompt gives its session: protocol.TitleFrom, or none for a
// command the session's workspace refuses before it runs (`/example nosuch`): a session is
// not named after what does not exist (docs/qa-round7.md #10).
func (r *Runtime) promptTitle(ctx context.Context, session, text string) string {
	if cmd, ok := protocol.ResolveCommand(text); ok {
		if ws, err := r.workspaceOf(ctx, session); err == nil {
			if _, _, refused := refusal(ws, cmd); refused {
				return ""
			}
		}
	}
	return protocol.TitleFrom(text)
}

// firstPrompt is the text of the session's first user message ("" when it has none) and when
// it was stored. Prompts have their own subjects, so the server finds it in one request; a
// session from before that is read from its start up to its first prompt.
func (r *Runtime) firstPrompt(ctx context.Context, session string) (string, int64, error) {
	if ev, err := r.log.First(ctx, eventlog.SessionPrompts(session), 1); err == nil {
		m, err := ev.DecodeMessage()
		return m.Text, ev.At, err
	} else if !errors.Is(err, eventlog.ErrNotFound) {
		return "", 0, err
	}
	head, err := r.log.Head(ctx, eventlog.SessionSubjects(session))
	if err != nil || head == 0 {
		return "", 0, err
	}
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	events, errc, err := r.log.Follow(fctx, session, 0)
	if err != nil {
		return "", 0, err
	}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return "", 0, fctx.Err()
			}
			if ev.Type == protocol.EventUserMessage {
				m, err := ev.DecodeMessage()
				return m.Text, ev.At, err
			}
			if ev.Offset >= head {
				return "", 0, nil
			}
		case err := <-errc:
			return "", 0, err
		}
	}
}

// SendPrompt stores a user message. A retry with the same attempt id is stored once, for as
// long as the session exists, and answers with the first offset: the prompt has a subject of
// its own that takes one message (see eventlog.PromptSubject).
func (r *Runtime) SendPrompt(ctx context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.SendPromptResponse{}, err
	}
	info, err := r.Session(ctx, session)
	if err != nil {
		return protocol.SendPromptResponse{}, err
	}
	if !info.Blank && info.Title == untitled {
		// Its first prompts named nothing (refused commands): this one names it, if it
		// would run. Before it is stored, so a page that sees the prompt reads the name.
		if title := r.promptTitle(ctx, session, req.Text); title != "" {
			if err := r.sessions.markUsed(ctx, session, title, 0); err != nil {
				slog.Warn("session index", "err", err)
			}
		}
	}
	msg := protocol.Message{Text: req.Text, AttemptID: req.AttemptID, Mode: req.Mode}
	subject := eventlog.PromptSubject(session, req.AttemptID)
	offset, _, err := r.log.PublishAfter(ctx, subject, 0, protocol.EventUserMessage, msg, "prompt-"+session+"-"+req.AttemptID)
	dup := false
	if errors.Is(err, eventlog.ErrConflict) {
		stored, gerr := r.log.Last(ctx, subject)
		if gerr != nil {
			return protocol.SendPromptResponse{}, fmt.Errorf("read the prompt stored with attempt %s: %w", req.AttemptID, gerr)
		}
		// A retry must carry the same prompt; a reused id with other text would be lost.
		if m, derr := stored.DecodeMessage(); derr == nil && m.Text != req.Text {
			return protocol.SendPromptResponse{}, ErrAttemptReused
		}
		offset, dup, err = stored.Offset, true, nil
	}
	if err != nil {
		return protocol.SendPromptResponse{}, err
	}
	if info.Blank {
		r.markUsed(ctx, session)
	} else if !dup {
		r.sessions.touch(ctx, session, r.opts.Now().UnixMilli(), info.Active)
	}
	return protocol.SendPromptResponse{Offset: offset, Duplicate: dup}, nil
}

// Head returns the offset of the session's last event (0 for none).
func (r *Runtime) Head(ctx context.Context, session string) (uint64, error) {
	return r.log.Head(ctx, eventlog.SessionSubjects(session))
}

// Follow streams a session's events after an offset; see eventlog.Log.Follow.
func (r *Runtime) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return nil, nil, err
	}
	return r.fanout.Follow(ctx, session, after)
}

// Subscribe places a subscriber in a session's shared feed after an offset: it takes what
// waits in batches (see fanout.Subscription), as a socket does.
func (r *Runtime) Subscribe(ctx context.Context, session string, after uint64) (*fanout.Subscription, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return nil, err
	}
	return r.fanout.Subscribe(ctx, session, after)
}

// logSource is the log as the fan-out reads it.
type logSource struct{ log *eventlog.Log }

func (s logSource) Head(ctx context.Context, session string) (uint64, error) {
	return s.log.Head(ctx, eventlog.SessionSubjects(session))
}

func (s logSource) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	return s.log.Follow(ctx, session, after)
}
