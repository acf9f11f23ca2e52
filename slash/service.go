package slash

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrDuplicateSource is returned when a (trigger, name) pair is registered twice.
var ErrDuplicateSource = errors.New("a source with this trigger and name is already registered")

// ErrInvalidSource is returned for a source without a name or with a trigger other than
// '/' and '@'.
var ErrInvalidSource = errors.New("invalid source")

// Service is the root registry of sources, shared by every session. Registration order is
// the group order of the menu and the polling order of adjudication. It is safe for
// concurrent use: the shell performs effects from goroutines.
type Service struct {
	mu      sync.Mutex
	sources []Source
	byKey   map[SourceKey]Source
	live    map[*Controller]func(Event) // each live controller's Post
}

// NewService returns an empty registry.
func NewService() *Service {
	return &Service{byKey: map[SourceKey]Source{}, live: map[*Controller]func(Event){}}
}

// Register appends src. Controllers already alive learn of it through their Post
// (SourceAdded), then warm it and fold it into their menu and lexicon.
func (s *Service) Register(src Source) error {
	if src == nil {
		return fmt.Errorf("register source: nil: %w", ErrInvalidSource)
	}
	k := SourceKey{Trigger: src.Trigger(), Name: src.Name()}
	if (k.Trigger != '/' && k.Trigger != '@') || k.Name == "" {
		return fmt.Errorf("register source %q: trigger must be '/' or '@' and the name non-empty: %w", k, ErrInvalidSource)
	}
	s.mu.Lock()
	if _, dup := s.byKey[k]; dup {
		s.mu.Unlock()
		return fmt.Errorf("register source %q: %w", k, ErrDuplicateSource)
	}
	s.byKey[k] = src
	s.sources = append(s.sources, src)
	posts := make([]func(Event), 0, len(s.live))
	for _, p := range s.live {
		posts = append(posts, p)
	}
	s.mu.Unlock()
	// Outside the lock: a Post may dispatch synchronously into a controller, which reads
	// the registry.
	for _, p := range posts {
		if p != nil {
			p(SourceAdded{Source: k})
		}
	}
	return nil
}

// Sources returns the registered sources in registration order.
func (s *Service) Sources() []Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Source(nil), s.sources...)
}

// Lookup returns the source registered under k.
func (s *Service) Lookup(k SourceKey) (Source, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	src, ok := s.byKey[k]
	return src, ok
}

// attach records c as live and returns the sources it starts with, under one lock so
// that no registration falls between the two.
func (s *Service) attach(c *Controller, post func(Event)) []Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live[c] = post
	return append([]Source(nil), s.sources...)
}

// detach forgets c.
func (s *Service) detach(c *Controller) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, c)
}

// Perform carries out an asynchronous effect (FetchCandidates, RunEnterMatch, Warm) for
// session p and returns the event that reports its result. It blocks for as long as the
// source does, so the shell calls it off the event loop; ok is false for any other effect.
func (s *Service) Perform(ctx context.Context, p Projection, e Effect) (ev Event, ok bool) {
	switch e := e.(type) {
	case FetchCandidates:
		src, found := s.Lookup(e.Source)
		if !found {
			return CandidatesArrived{Gen: e.Gen, Source: e.Source, Err: fmt.Errorf("candidates from %q: source not registered", e.Source)}, true
		}
		items, err := src.Candidates(ctx, Query{Session: p, Hit: e.Hit})
		if err != nil {
			err = fmt.Errorf("candidates from %q: %w", e.Source, err)
		}
		return CandidatesArrived{Gen: e.Gen, Source: e.Source, Items: items, Err: err}, true
	case RunEnterMatch:
		src, _ := s.Lookup(e.Source)
		m, found := src.(EnterMatcher)
		if !found {
			return EnterMatched{Attempt: e.Attempt, Source: e.Source, Err: fmt.Errorf("match Enter with %q: source not registered", e.Source)}, true
		}
		claim, matched, err := m.MatchEnter(ctx, p, e.Draft)
		if err != nil {
			err = fmt.Errorf("match Enter with %q: %w", e.Source, err)
		}
		return EnterMatched{Attempt: e.Attempt, Source: e.Source, Claim: claim, OK: matched, Err: err}, true
	case Warm:
		src, _ := s.Lookup(e.Source)
		w, found := src.(Warmer)
		if !found {
			return WarmDone{Source: e.Source}, true
		}
		err := w.Warm(ctx, p)
		if err != nil {
			err = fmt.Errorf("warm %q: %w", e.Source, err)
		}
		return WarmDone{Source: e.Source, Err: err}, true
	}
	return nil, false
}
