// Package slashhost is the live side of the slash pipeline: the registry of sources shared
// by every session, and one Session per session scope that runs a pure slash.Controller
// against them.
//
// slash.Controller never calls a source or the input machine; it asks in effects. A Session
// answers the questions that must be answered within the browser event (AskSpace, AskPick,
// Rewrite, ReadLexicons) by calling the sources and the input, feeds each answer back as the
// next event, holds the roster subscriptions (Subscribe), and performs the slow effects
// (FetchCandidates, RunEnterMatch, Warm) off the event loop through Perform. What remains
// for the view (ShowMenu, HideMenu, Decorate, PreventDefault, Picked, Adjudicated, the slow
// effects) comes back from Dispatch. docs/input.md tells the pipeline.
package slashhost

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"parley/slash"
)

// ErrDuplicateSource is returned when a (trigger, name) pair is registered twice.
var ErrDuplicateSource = errors.New("a source with this trigger and name is already registered")

// ErrInvalidSource is returned for a source without a name or with a trigger other than
// '/' and '@', and slash.ArgTrigger for a command's argument.
var ErrInvalidSource = errors.New("invalid source")

// Registry is the root registry of sources, shared by every session. Registration order is
// the group order of the menu and the polling order of adjudication. It is safe for
// concurrent use: sessions perform effects from goroutines.
type Registry struct {
	mu      sync.Mutex
	sources []slash.Source
	byKey   map[slash.SourceKey]slash.Source
	live    map[*Session]func(slash.Event) // each live session's Post
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byKey: map[slash.SourceKey]slash.Source{}, live: map[*Session]func(slash.Event){}}
}

// Register appends src. Sessions already alive learn of it through their Post
// (slash.SourceAdded), then warm it and fold it into their menu and lexicon.
func (r *Registry) Register(src slash.Source) error {
	if src == nil {
		return fmt.Errorf("register source: nil: %w", ErrInvalidSource)
	}
	info := slash.Describe(src)
	k := info.Key
	if (k.Trigger != '/' && k.Trigger != '@' && k.Trigger != slash.ArgTrigger) || k.Name == "" {
		return fmt.Errorf("register source %q: trigger must be '/', '@' or an argument's and the name non-empty: %w", k, ErrInvalidSource)
	}
	r.mu.Lock()
	if _, dup := r.byKey[k]; dup {
		r.mu.Unlock()
		return fmt.Errorf("register source %q: %w", k, ErrDuplicateSource)
	}
	r.byKey[k] = src
	r.sources = append(r.sources, src)
	posts := make([]func(slash.Event), 0, len(r.live))
	for _, p := range r.live {
		posts = append(posts, p)
	}
	r.mu.Unlock()
	// Outside the lock: a Post may dispatch synchronously into a session, which reads the
	// registry.
	for _, p := range posts {
		if p != nil {
			p(slash.SourceAdded{Source: info})
		}
	}
	return nil
}

// Sources returns the registered sources in registration order.
func (r *Registry) Sources() []slash.Source {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]slash.Source(nil), r.sources...)
}

// Lookup returns the source registered under k.
func (r *Registry) Lookup(k slash.SourceKey) (slash.Source, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	src, ok := r.byKey[k]
	return src, ok
}

// attach records s as live and returns the sources it starts with, under one lock so that
// no registration falls between the two.
func (r *Registry) attach(s *Session, post func(slash.Event)) []slash.Source {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live[s] = post
	return append([]slash.Source(nil), r.sources...)
}

func (r *Registry) detach(s *Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.live, s)
}

// Perform carries out a slow effect (FetchCandidates, RunEnterMatch, Warm) for session p
// and returns the event that reports its result. It blocks for as long as the source does,
// so the shell calls it off the event loop; ok is false for any other effect.
func (r *Registry) Perform(ctx context.Context, p slash.Projection, e slash.Effect) (ev slash.Event, ok bool) {
	switch e := e.(type) {
	case slash.FetchCandidates:
		src, found := r.Lookup(e.Source)
		if !found {
			return slash.CandidatesArrived{Gen: e.Gen, Source: e.Source, Err: fmt.Errorf("candidates from %q: source not registered", e.Source)}, true
		}
		items, err := src.Candidates(ctx, slash.Query{Session: p, Hit: e.Hit})
		if err != nil {
			err = fmt.Errorf("candidates from %q: %w", e.Source, err)
		}
		return slash.CandidatesArrived{Gen: e.Gen, Source: e.Source, Items: items, Err: err}, true
	case slash.RunEnterMatch:
		src, _ := r.Lookup(e.Source)
		m, found := src.(slash.EnterMatcher)
		if !found {
			return slash.EnterMatched{Attempt: e.Attempt, Source: e.Source, Err: fmt.Errorf("match Enter with %q: source not registered", e.Source)}, true
		}
		claim, matched, err := m.MatchEnter(ctx, p, e.Draft)
		if err != nil {
			err = fmt.Errorf("match Enter with %q: %w", e.Source, err)
		}
		return slash.EnterMatched{Attempt: e.Attempt, Source: e.Source, Claim: claim, OK: matched, Err: err}, true
	case slash.Warm:
		src, _ := r.Lookup(e.Source)
		w, found := src.(slash.Warmer)
		if !found {
			return slash.WarmDone{Source: e.Source}, true
		}
		err := w.Warm(ctx, p)
		if err != nil {
			err = fmt.Errorf("warm %q: %w", e.Source, err)
		}
		return slash.WarmDone{Source: e.Source, Err: err}, true
	}
	return nil, false
}
