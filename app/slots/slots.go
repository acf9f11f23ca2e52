// Package slots is the registry through which the conversation's parts mount
// (docs/composer.md, "Slots"): named places declared once, each single or multi, scoped to
// the root or to one session, filled by entries in order. A seat nobody registered for
// renders nothing, never a placeholder: a placeholder and a real owner would be two sources
// of truth.
//
// The registry is plain data and is tested natively; views render a slot by asking for its
// entries and calling them with the props the slot carries.
package slots

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/internal/smallsort"
)

// Kind says how many entries a slot shows.
type Kind int

const (
	// Single shows one entry: the one with the lowest order.
	Single Kind = iota
	// Multi shows every entry, by order, then by registration.
	Multi
)

// Scope says where a slot's entries live.
type Scope int

const (
	// Root entries serve every session (and the hero, with no session).
	Root Scope = iota
	// Session slots render only when there is a session. Their entries serve every session
	// (registered with no session) or one session, and go when its scope is dropped.
	Session
)

// Errors of the registry.
var (
	ErrUnknownSlot   = errors.New("no such slot")
	ErrDeclaredTwice = errors.New("slot declared twice")
	ErrSlotTaken     = errors.New("single slot already has an entry at this order")
)

// Entry fills a slot. Render gets the slot's props (P is the host's props type).
type Entry[P any] struct {
	Order  int
	Render func(p P) app.UI
	seq    int
}

type slot[P any] struct {
	kind    Kind
	scope   Scope
	root    []Entry[P]
	session map[string][]Entry[P]
}

// Registry holds the slots of one host (the conversation). It is safe for concurrent use.
type Registry[P any] struct {
	mu    sync.Mutex
	slots map[string]*slot[P]
	seq   int
}

// New returns an empty registry.
func New[P any]() *Registry[P] {
	return &Registry[P]{slots: map[string]*slot[P]{}}
}

// Declare makes a slot.
func (r *Registry[P]) Declare(name string, kind Kind, scope Scope) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.slots[name]; ok {
		return fmt.Errorf("declare %q: %w", name, ErrDeclaredTwice)
	}
	r.slots[name] = &slot[P]{kind: kind, scope: scope, session: map[string][]Entry[P]{}}
	return nil
}

// Register adds an entry: for every session with session "", or, in a session slot, for that
// session only (a root slot ignores session). A single slot refuses a second entry at the
// same order. The returned function removes the entry.
func (r *Registry[P]) Register(name, session string, e Entry[P]) (remove func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.slots[name]
	if !ok {
		return nil, fmt.Errorf("register in %q: %w", name, ErrUnknownSlot)
	}
	if e.Render == nil {
		return nil, fmt.Errorf("register in %q: the entry renders nothing", name)
	}
	if s.scope == Root {
		session = ""
	}
	list := s.list(session)
	if s.kind == Single && slices.ContainsFunc(list, func(x Entry[P]) bool { return x.Order == e.Order }) {
		return nil, fmt.Errorf("register in %q: %w", name, ErrSlotTaken)
	}
	r.seq++
	e.seq = r.seq
	s.set(session, append(list, e))
	seq := e.seq
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		s.set(session, slices.DeleteFunc(s.list(session), func(x Entry[P]) bool { return x.seq == seq }))
	}, nil
}

func (s *slot[P]) list(session string) []Entry[P] {
	if session == "" {
		return s.root
	}
	return s.session[session]
}

func (s *slot[P]) set(session string, l []Entry[P]) {
	if session == "" {
		s.root = l
		return
	}
	if len(l) == 0 {
		delete(s.session, session)
		return
	}
	s.session[session] = l
}

// Entries returns what a slot shows for session, in order: every entry of a multi slot, the
// first of a single one. A session slot asked without a session shows nothing.
func (r *Registry[P]) Entries(name, session string) []Entry[P] {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.slots[name]
	if !ok {
		return nil
	}
	if s.scope == Session && session == "" {
		return nil
	}
	out := slices.Clone(s.root)
	if s.scope == Session {
		out = append(out, s.session[session]...)
	}
	smallsort.Stable(out, func(a, b Entry[P]) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return a.seq - b.seq
	})
	if s.kind == Single && len(out) > 1 {
		out = out[:1]
	}
	return out
}

// DropSession removes every entry registered for session: its scope ended.
func (r *Registry[P]) DropSession(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.slots {
		delete(s.session, session)
	}
}

// Render draws a slot for session: its entries' elements, in order. An empty slot draws
// nothing at all.
func (r *Registry[P]) Render(name, session string, p P) []app.UI {
	entries := r.Entries(name, session)
	out := make([]app.UI, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Render(p))
	}
	return out
}
