package slash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

	"parley/machine/input"
)

// fixture reads the draft language of the tests: "hi /rev|" is the draft "hi /rev" with the
// caret after "v". It returns the draft and the caret in UTF-16 code units.
func fixture(s string) (string, int) {
	i := strings.IndexByte(s, '|')
	if i < 0 {
		panic("fixture without caret: " + s)
	}
	draft := s[:i] + s[i+1:]
	return draft, len(utf16.Encode([]rune(s[:i])))
}

// src is a test source: a trigger, a name, fixed candidates and a fixed pick outcome.
type src struct {
	trigger    rune
	name       string
	items      []Item
	out        PickOutcome
	candidates int // Candidates calls
	picks      []Item
}

func (s *src) Trigger() rune { return s.trigger }
func (s *src) Name() string  { return s.name }
func (s *src) Candidates(_ context.Context, q Query) ([]Item, error) {
	s.candidates++
	var out []Item
	for _, it := range s.items {
		if strings.HasPrefix(it.ID, q.Query) {
			out = append(out, it)
		}
	}
	return out, nil
}
func (s *src) Pick(it Item, _ Query) PickOutcome {
	s.picks = append(s.picks, it)
	return s.out
}

func (s *src) key() SourceKey { return SourceKey{Trigger: s.trigger, Name: s.name} }

// spacer answers Space.
type spacer struct {
	*src
	answer bool
	space  PickOutcome
	asked  *[]string // a shared log, to see the polling order
}

func (s *spacer) MatchSpace(q Query) (PickOutcome, bool) {
	*s.asked = append(*s.asked, s.name+":"+q.Query)
	return s.space, s.answer
}

// enterer answers Enter.
type enterer struct {
	*src
	claim  input.Claim
	answer bool
	err    error
	asked  *[]string
}

func (e *enterer) MatchEnter(_ context.Context, _ Projection, draft string) (input.Claim, bool, error) {
	*e.asked = append(*e.asked, e.name+":"+draft)
	return e.claim, e.answer, e.err
}

// warmEnterer answers Enter and needs a warm-up.
type warmEnterer struct{ *enterer }

func (warmEnterer) Warm(context.Context, Projection) error { return nil }

// lexer has a hot roster and notifies.
type lexer struct {
	*src
	names     []string
	warm      bool
	listeners map[int]func()
	next      int
}

func (l *lexer) Lexicon(Projection) ([]string, bool) { return l.names, l.warm }
func (l *lexer) SubscribeLexicon(_ Projection, changed func()) func() {
	if l.listeners == nil {
		l.listeners = map[int]func(){}
	}
	id := l.next
	l.next++
	l.listeners[id] = changed
	return func() { delete(l.listeners, id) }
}
func (l *lexer) notify() {
	for _, f := range l.listeners {
		f()
	}
}

// warmLexer is a lexer that is warmed.
type warmLexer struct {
	*lexer
	err error
}

func (w *warmLexer) Warm(context.Context, Projection) error { return w.err }

// bail is a recording Bail with the machine's CAS rule: it rewrites only at the current
// rev, and only while accept is true (the phase guard).
type bail struct {
	rev    uint64
	accept bool
	calls  []string
}

func (b *bail) ok(at input.Span) bool { return b.accept && at.Rev == b.rev }

func (b *bail) BeginCommand(c input.Claim, at input.Span) bool {
	b.calls = append(b.calls, fmt.Sprintf("begin-command %q %d-%d@%d", c.Token, at.Start, at.End, at.Rev))
	return b.ok(at)
}
func (b *bail) InsertReference(r input.Reference, at input.Span) bool {
	b.calls = append(b.calls, fmt.Sprintf("insert-reference %s %d-%d@%d", r.Ref, at.Start, at.End, at.Rev))
	return b.ok(at)
}
func (b *bail) InsertText(t string, at input.Span) bool {
	b.calls = append(b.calls, fmt.Sprintf("insert-text %q %d-%d@%d", t, at.Start, at.End, at.Rev))
	return b.ok(at)
}
func (b *bail) ConsumeToken(g Guard) bool {
	b.calls = append(b.calls, fmt.Sprintf("consume-token %d-%d@%d", g.Span.Start, g.Span.End, g.Span.Rev))
	return b.ok(g.Span)
}

// harness drives a controller the way the shell does, performing asynchronous effects on
// demand.
type harness struct {
	svc    *Service
	c      *Controller
	bail   *bail
	posted []Event
	rev    uint64
	birth  []Effect
}

func newHarness(sources ...Source) *harness {
	h := &harness{svc: NewService(), bail: &bail{accept: true}}
	for _, s := range sources {
		if err := h.svc.Register(s); err != nil {
			panic(err)
		}
	}
	h.c, h.birth = NewController(h.svc, Config{
		Session: Projection{SessionID: "s1"},
		Bail:    h.bail,
		Post:    func(ev Event) { h.posted = append(h.posted, ev) },
	})
	return h
}

// typeDraft observes a fixture as the next draft revision.
func (h *harness) typeDraft(f string, tier Tier) []Effect {
	d, caret := fixture(f)
	h.rev++
	h.bail.rev = h.rev
	return h.c.Dispatch(DraftObserved{Draft: d, SelStart: caret, SelEnd: caret, Rev: h.rev, Tier: tier})
}

// settle performs every asynchronous effect in effs, dispatches the answers, and returns
// all the effects that followed.
func (h *harness) settle(effs []Effect) []Effect {
	var out []Effect
	for len(effs) > 0 {
		e := effs[0]
		effs = effs[1:]
		if ev, ok := h.c.Perform(context.Background(), e); ok {
			next := h.c.Dispatch(ev)
			out = append(out, next...)
			effs = append(effs, next...)
		}
	}
	return out
}

// drain dispatches what was posted.
func (h *harness) drain() []Effect {
	var out []Effect
	for len(h.posted) > 0 {
		ev := h.posted[0]
		h.posted = h.posted[1:]
		out = append(out, h.c.Dispatch(ev)...)
	}
	return out
}

func press(k string) Key { return Key{Key: k} }

func of[T Effect](effs []Effect) []T {
	var out []T
	for _, e := range effs {
		if t, ok := e.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

var errBoom = errors.New("boom")

func utf16Encode(s string) []uint16 { return utf16.Encode([]rune(s)) }

// attempt names submit attempt n of the test session.
func attempt(n uint64) input.AttemptID { return input.AttemptID{Session: "s1", Seq: n} }
