// Package mcp is Parley's MCP client: it connects a workspace to the MCP servers listed in
// its .parley/mcp.json and in the user's file (-mcp-config), through the official SDK
// (github.com/modelcontextprotocol/go-sdk), over stdio (a child process) or streamable HTTP.
//
// Each server has a status a person can read (starting, ready, failed, crashed, with the
// reason and its stderr tail); one that fails or crashes never takes the others or Parley
// down, and a crashed one is started again with backoff. Its tools join the model's tools
// under namespaced names (toolbox.Extra) and pass the gate like every other tool; its
// elicitation requests become decisions of the session whose call is running, so they land
// in the composer. See docs/mcp.md.
package mcp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"parley/protocol"
)

// Options configure the servers of every workspace.
type Options struct {
	// UserFile is the user's configuration file (-mcp-config); empty for none.
	UserFile string
	// Handshake bounds a server's start: its process and the initialize handshake
	// (default 30 s).
	Handshake time.Duration
	// Backoff is the wait before restart n (from 0) of a crashed or failed server (default
	// 1 s, doubling, at most 1 min).
	Backoff func(n int) time.Duration
	// CallIdle is how long a tool call may go without a word from its server (its result, a
	// progress notification, a question) before it is given up (default 5 min). A question
	// or a step in the browser the call waits for is the user's time, not the server's: the
	// clock stops until it is answered.
	CallIdle time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Manager holds each workspace's servers.
type Manager struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	sets map[string]*Set
	// urls are the URL elicitations waiting for notifications/elicitation/complete.
	urls map[string]chan struct{}
}

// New returns a manager; workspaces connect on their first use (Workspace).
func New(opts Options) *Manager {
	opts.Handshake = cmp.Or(opts.Handshake, 30*time.Second)
	opts.CallIdle = cmp.Or(opts.CallIdle, 5*time.Minute)
	if opts.Backoff == nil {
		opts.Backoff = func(n int) time.Duration { return min(time.Second<<min(n, 6), time.Minute) }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Manager{opts: opts, sets: map[string]*Set{}, urls: map[string]chan struct{}{}}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Workspace is the servers of a workspace folder (absolute), started on first use.
func (m *Manager) Workspace(dir string) *Set {
	dir = filepath.Clean(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.sets[dir]; ok {
		return s
	}
	s := &Set{m: m, dir: dir, names: &names{byModel: map[string]toolRef{}}}
	m.sets[dir] = s
	if m.ctx.Err() == nil {
		s.load()
	}
	return s
}

// Close ends every connection and kills every stdio server.
func (m *Manager) Close() {
	m.cancel()
	m.mu.Lock()
	sets := make([]*Set, 0, len(m.sets))
	for _, s := range m.sets {
		sets = append(sets, s)
	}
	m.mu.Unlock()
	for _, s := range sets {
		s.shut()
	}
	m.wg.Wait()
}

// Set is one workspace's servers.
type Set struct {
	m     *Manager
	dir   string
	names *names

	mu       sync.Mutex
	conns    []*conn
	problems []string
}

// load reads the configuration and starts its servers.
func (s *Set) load() {
	entries, problems := load(s.m.opts.UserFile, s.dir)
	s.mu.Lock()
	s.problems = problems
	s.conns = nil
	for _, e := range entries {
		c := newConn(s, e)
		s.conns = append(s.conns, c)
		c.start()
	}
	s.mu.Unlock()
}

func (s *Set) shut() {
	s.mu.Lock()
	conns := s.conns
	s.mu.Unlock()
	for _, c := range conns {
		c.shut(true)
	}
}

// List is the servers with their status and tools.
func (s *Set) List() protocol.MCPList {
	s.mu.Lock()
	conns, problems := s.conns, s.problems
	s.mu.Unlock()
	out := protocol.MCPList{Workspace: s.dir, Servers: []protocol.MCPServer{}, Problems: problems}
	for _, c := range conns {
		out.Servers = append(out.Servers, c.info())
	}
	return out
}

// ErrNoServer is returned for a server name that is not configured.
var ErrNoServer = fmt.Errorf("no such MCP server")

// Reconnect starts a server again at once. An empty name reads the configuration files
// again and restarts every server.
func (s *Set) Reconnect(name string) error {
	if name == "" {
		s.shut()
		s.load()
		return nil
	}
	s.mu.Lock()
	i := slices.IndexFunc(s.conns, func(c *conn) bool { return c.e.name == name })
	var c *conn
	if i >= 0 {
		c = s.conns[i]
	}
	s.mu.Unlock()
	if c == nil {
		return fmt.Errorf("%q: %w", name, ErrNoServer)
	}
	c.reconnect()
	return nil
}

// WaitReady waits until no server of the set is starting for the first time (since the set
// began, or since a reconnect), or ctx ends: a turn waits so for its servers' tools (and
// tests, and /mcp reconnect). A server whose last attempt failed, retrying, is not waited
// for: one that never answers its handshake was "starting" most of the time, and every turn
// of its workspace waited its full 10 s (QA round 26).
func (s *Set) WaitReady(ctx context.Context) error {
	for {
		starting := false
		for _, srv := range s.List().Servers {
			if srv.Status == protocol.MCPStarting && srv.Restarts == 0 {
				starting = true
			}
		}
		if !starting {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *Set) conn(name string) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		if c.e.name == name {
			return c
		}
	}
	return nil
}

// completed ends the wait of a URL elicitation (notifications/elicitation/complete).
func (m *Manager) completed(id string) {
	m.mu.Lock()
	ch, ok := m.urls[id]
	if !ok {
		ch = make(chan struct{})
		m.urls[id] = ch // a completion before the wait began is kept for it
	}
	m.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// awaitURL waits for the completion of URL elicitation id, or ctx.
func (m *Manager) awaitURL(ctx context.Context, id string) error {
	m.mu.Lock()
	ch, ok := m.urls[id]
	if !ok {
		ch = make(chan struct{})
		m.urls[id] = ch
	}
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.urls, id)
		m.mu.Unlock()
	}()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Tool names as the model sees them: mcp__<server>__<tool>, which fits the function names
// Chat Completions accepts (^[a-zA-Z0-9_-]{1,64}$). A character outside that set becomes _,
// and a name too long, or one that two tools would share, is cut and given a hash.

// toolRef names a server's tool.
type toolRef struct{ server, tool string }

type names struct {
	mu      sync.Mutex
	byModel map[string]toolRef
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

func baseName(server, tool string) string {
	return "mcp__" + unsafeName.ReplaceAllString(server, "_") + "__" + unsafeName.ReplaceAllString(tool, "_")
}

func hashed(base, server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	h := hex.EncodeToString(sum[:])[:8]
	if len(base) > 64-9 {
		base = base[:64-9]
	}
	return base + "_" + h
}

// add registers a server's tools and returns nothing: modelName reads them.
func (n *names) add(server string, tools []*sdk.Tool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, t := range tools {
		n.nameLocked(server, t.Name)
	}
}

func (n *names) nameLocked(server, tool string) string {
	ref := toolRef{server, tool}
	for name, r := range n.byModel {
		if r == ref {
			return name
		}
	}
	name := baseName(server, tool)
	if r, taken := n.byModel[name]; len(name) > 64 || taken && r != ref {
		name = hashed(name, server, tool)
	}
	n.byModel[name] = ref
	return name
}

// modelName is the name the model calls a server's tool by.
func (n *names) modelName(server, tool string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nameLocked(server, tool)
}

// lookup is the server's tool a model name stands for.
func (n *names) lookup(name string) (toolRef, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	r, ok := n.byModel[name]
	return r, ok
}
