package slashhost

import (
	"context"

	"parley/slash"
)

// Config wires a Session to its session scope.
type Config struct {
	Session slash.Projection
	// Rewrite applies a rewrite to the input machine (the outcome's event, r.Event()) and
	// reports whether the machine really rewrote the draft (input.Rewrote). Nil is an input
	// without a machine, which never rewrites.
	Rewrite func(r slash.Rewrite) bool
	// Post re-enters the session from outside a dispatch: roster notifications and late
	// registrations. It may be called from any goroutine, so the shell marshals it onto its
	// event loop, calls Dispatch there, and runs the effects. Without it, those are lost.
	Post func(slash.Event)
}

// Session is one session scope's slash pipeline: a slash.Controller and the answers to its
// questions. Dispatch must be called from one goroutine; Perform from any.
type Session struct {
	reg     *Registry
	cfg     Config
	ctrl    *slash.Controller
	cancels []func()
	closed  bool
}

// Open is the session scope's birth: the controller is born with every registered source,
// and its first questions (subscriptions, rosters) are answered. The effects returned are
// the shell's to run (Warm, through Perform).
func Open(reg *Registry, cfg Config) (*Session, []slash.Effect) {
	s := &Session{reg: reg, cfg: cfg}
	sources := reg.attach(s, cfg.Post)
	infos := make([]slash.SourceInfo, len(sources))
	for i, src := range sources {
		infos[i] = slash.Describe(src)
	}
	ctrl, effs := slash.NewController(slash.Config{Session: cfg.Session, Sources: infos})
	s.ctrl = ctrl
	return s, s.run(effs, nil)
}

// Controller returns the session's controller, for its read-only views (Menu, Hit,
// TextRefs, Roster).
func (s *Session) Controller() *slash.Controller { return s.ctrl }

// Dispatch hands ev to the controller, answers what it asks within this turn, and returns
// the effects left for the shell. Prevented(effects) decides the key's preventDefault.
func (s *Session) Dispatch(ev slash.Event) []slash.Effect {
	if s.closed {
		return nil
	}
	effs := s.ctrl.Dispatch(ev)
	if !asks(effs) {
		return effs // most keystrokes: nothing to answer, and no copy
	}
	return s.run(effs, nil)
}

// asks reports whether effs hold a question; a controller asks it last.
func asks(effs []slash.Effect) bool {
	if len(effs) == 0 {
		return false
	}
	switch effs[len(effs)-1].(type) {
	case slash.AskSpace, slash.AskPick, slash.Rewrite, slash.ReadLexicons, slash.Subscribe:
		return true
	}
	for _, e := range effs {
		if _, ok := e.(slash.Subscribe); ok {
			return true
		}
	}
	return false
}

// run answers the questions among effs, depth first: an answer must be the controller's
// very next event.
func (s *Session) run(effs, out []slash.Effect) []slash.Effect {
	for _, e := range effs {
		answer, ok := s.answer(e)
		if !ok {
			out = append(out, e)
			continue
		}
		if answer != nil {
			out = s.run(s.ctrl.Dispatch(answer), out)
		}
	}
	return out
}

// answer answers a same-turn question, or performs a Subscribe (answer nil). ok is false
// for the effects that are not questions.
func (s *Session) answer(e slash.Effect) (answer slash.Event, ok bool) {
	p := s.cfg.Session
	switch x := e.(type) {
	case slash.AskSpace:
		src, _ := s.reg.Lookup(x.Source)
		m, found := src.(slash.SpaceMatcher)
		if !found {
			return slash.SpaceAnswered{Source: x.Source}, true
		}
		out, claimed := m.MatchSpace(slash.Query{Session: p, Hit: x.Hit})
		return slash.SpaceAnswered{Source: x.Source, Outcome: out, OK: claimed}, true
	case slash.AskPick:
		src, found := s.reg.Lookup(x.Source)
		if !found {
			return slash.PickAnswered{Source: x.Source}, true
		}
		return slash.PickAnswered{Source: x.Source, Outcome: src.Pick(x.Item, slash.Query{Session: p, Hit: x.Hit})}, true
	case slash.Rewrite:
		return slash.Rewritten{Rewrote: s.cfg.Rewrite != nil && s.cfg.Rewrite(x)}, true
	case slash.ReadLexicons:
		var read slash.LexiconsRead
		for _, src := range s.reg.Sources() {
			if l, found := src.(slash.Lexicon); found {
				names, warm := l.Lexicon(p)
				read.Snapshots = append(read.Snapshots, slash.LexiconSnapshot{Source: slash.Describe(src).Key, Names: names, Warm: warm})
			}
		}
		return read, true
	case slash.Subscribe:
		src, _ := s.reg.Lookup(x.Source)
		if sub, found := src.(slash.LexiconSubscriber); found {
			post, k := s.cfg.Post, x.Source
			cancel := sub.SubscribeLexicon(p, func() {
				if post != nil {
					post(slash.LexiconChanged{Source: k})
				}
			})
			if cancel != nil {
				s.cancels = append(s.cancels, cancel)
			}
		}
		return nil, true
	}
	return nil, false
}

// Perform carries out a slow effect for this session; see Registry.Perform. It touches no
// session state, so it is safe off the event loop.
func (s *Session) Perform(ctx context.Context, e slash.Effect) (slash.Event, bool) {
	return s.reg.Perform(ctx, s.cfg.Session, e)
}

// Close tears the session down: roster subscriptions end, late registrations no longer
// reach it, and Dispatch does nothing.
func (s *Session) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.ctrl.Close()
	s.reg.detach(s)
	for _, cancel := range s.cancels {
		cancel()
	}
	s.cancels = nil
}
