// Package runtime is the server side of Parley's agents: sessions and their event log on
// NATS JetStream, and the agent that answers prompts. It speaks protocol types and never
// touches HTTP; the server wires it to requests and the socket.
package runtime

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"parley/protocol"
)

// Options configure a Runtime. Zero values pick the production defaults.
type Options struct {
	// Workspace is the directory the agent works in.
	Workspace string
	// Now is the clock; tests inject one.
	Now func() time.Time
	// NewID makes session ids.
	NewID func() string
	// NoAgent starts no agent: the runtime serves sessions and their logs, and prompts wait
	// in the log for a runtime that answers them.
	NoAgent bool
}

// Runtime hosts sessions and their agents.
type Runtime struct {
	opts     Options
	log      *Log
	sessions *sessionIndex
	agent    *offlineAgent
}

// New opens the event log and the session index on nc and starts the agent.
// Stop the agent with Close.
func New(ctx context.Context, nc *nats.Conn, opts Options) (*Runtime, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = NewID
	}
	log, err := OpenLog(ctx, nc, opts.Now)
	if err != nil {
		return nil, err
	}
	sessions, err := openSessionIndex(ctx, log.js)
	if err != nil {
		return nil, err
	}
	rt := &Runtime{opts: opts, log: log, sessions: sessions}
	if !opts.NoAgent {
		rt.agent, err = startOfflineAgent(ctx, log)
		if err != nil {
			return nil, err
		}
	}
	return rt, nil
}

// Close stops the agent. The connection belongs to the caller.
func (r *Runtime) Close() {
	if r.agent != nil {
		r.agent.stop()
	}
}

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

// CreateSession makes a session and writes its first event.
func (r *Runtime) CreateSession(ctx context.Context, req protocol.CreateSessionRequest) (protocol.SessionInfo, error) {
	info := protocol.SessionInfo{
		ID:        r.opts.NewID(),
		Title:     strings.TrimSpace(req.Title),
		Workspace: r.opts.Workspace,
		Created:   r.opts.Now().UnixMilli(),
	}
	if info.Title == "" {
		info.Title = "New session"
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
	return r.sessions.get(ctx, id)
}

// ListSessions returns every session, newest first.
func (r *Runtime) ListSessions(ctx context.Context) ([]protocol.SessionInfo, error) {
	return r.sessions.list(ctx)
}

// SendPrompt stores a user message. A retry with the same attempt id is stored once and
// answers with the first offset.
func (r *Runtime) SendPrompt(ctx context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.SendPromptResponse{}, err
	}
	if _, err := r.Session(ctx, session); err != nil {
		return protocol.SendPromptResponse{}, err
	}
	msg := protocol.Message{Text: req.Text, AttemptID: req.AttemptID}
	offset, dup, err := r.log.Append(ctx, session, protocol.EventUserMessage, msg, "prompt-"+session+"-"+req.AttemptID)
	if err != nil {
		return protocol.SendPromptResponse{}, err
	}
	return protocol.SendPromptResponse{Offset: offset, Duplicate: dup}, nil
}

// Follow streams a session's events after an offset; see Log.Follow.
func (r *Runtime) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return nil, nil, err
	}
	return r.log.Follow(ctx, session, after)
}
