package slash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

	"parley/machine/input"
	"parley/slash/slashtest"
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
	listeners slashtest.Listeners
}

func (l *lexer) Lexicon(Projection) ([]string, bool) { return l.names, l.warm }
func (l *lexer) SubscribeLexicon(_ Projection, changed func()) func() {
	return l.listeners.Add(changed)
}
func (l *lexer) notify() { l.listeners.Notify() }

// warmLexer is a lexer that is warmed.
type warmLexer struct {
	*lexer
	err error
}

func (w *warmLexer) Warm(context.Context, Projection) error { return w.err }

// bail is the input machine in miniature, with the machine's CAS rule: it rewrites only at
// the current rev, and only while accept is true (the phase guard). It records each Rewrite.
type bail struct {
	rev    uint64
	accept bool
	calls  []string
}

func (b *bail) rewrite(r Rewrite) bool {
	at := r.Span
	switch o := r.Outcome; o.Kind {
	case KindBeginCommand:
		b.calls = append(b.calls, fmt.Sprintf("begin-command %q %d-%d@%d", o.Claim.Token, at.Start, at.End, at.Rev))
	case KindInsertReference:
		b.calls = append(b.calls, fmt.Sprintf("insert-reference %s %d-%d@%d", o.Reference.Ref, at.Start, at.End, at.Rev))
	case KindInsertText:
		b.calls = append(b.calls, fmt.Sprintf("insert-text %q %d-%d@%d", o.Text, at.Start, at.End, at.Rev))
	case KindConsumeToken:
		b.calls = append(b.calls, fmt.Sprintf("consume-token %d-%d@%d", at.Start, at.End, at.Rev))
	}
	return b.accept && at.Rev == b.rev
}

// driver plays the browser shell in miniature around a Controller: it answers the
// controller's same-turn questions (AskSpace, AskPick, Rewrite, ReadLexicons, Subscribe) by
// asking the sources and the input, as app/slashhost does, and returns the other effects.
// Asynchronous effects wait for Perform.
type driver struct {
	*Controller
	sources []Source
	rewrite func(Rewrite) bool // nil: an input without a machine, which never rewrites
	post    func(Event)
	cancels []func()
	asked   []Effect // every question answered, in order
}

func newDriver(sources []Source, rewrite func(Rewrite) bool, post func(Event)) (*driver, []Effect) {
	d := &driver{sources: sources, rewrite: rewrite, post: post}
	infos := make([]SourceInfo, len(sources))
	for i, s := range sources {
		infos[i] = Describe(s)
	}
	c, effs := NewController(Config{Session: Projection{SessionID: "s1"}, Sources: infos})
	d.Controller = c
	return d, d.run(effs)
}

func (d *driver) source(k SourceKey) Source {
	for _, s := range d.sources {
		if s.Trigger() == k.Trigger && s.Name() == k.Name {
			return s
		}
	}
	return nil
}

// Dispatch dispatches ev and answers what the controller asks.
func (d *driver) Dispatch(ev Event) []Effect { return d.run(d.Controller.Dispatch(ev)) }

func (d *driver) run(effs []Effect) []Effect {
	var out []Effect
	for _, e := range effs {
		var answer Event
		q := Query{Session: d.Session()}
		switch x := e.(type) {
		case AskSpace:
			q.Hit = x.Hit
			out, ok := d.source(x.Source).(SpaceMatcher).MatchSpace(q)
			answer = SpaceAnswered{Source: x.Source, Outcome: out, OK: ok}
		case AskPick:
			q.Hit = x.Hit
			answer = PickAnswered{Source: x.Source, Outcome: d.source(x.Source).Pick(x.Item, q)}
		case Rewrite:
			answer = Rewritten{Rewrote: d.rewrite != nil && d.rewrite(x)}
		case ReadLexicons:
			var read LexiconsRead
			for _, s := range d.sources {
				if l, ok := s.(Lexicon); ok {
					names, warm := l.Lexicon(d.Session())
					read.Snapshots = append(read.Snapshots, LexiconSnapshot{Source: Describe(s).Key, Names: names, Warm: warm})
				}
			}
			answer = read
		case Subscribe:
			post := d.post
			cancel := d.source(x.Source).(LexiconSubscriber).SubscribeLexicon(d.Session(), func() {
				if post != nil {
					post(LexiconChanged{Source: x.Source})
				}
			})
			if cancel != nil {
				d.cancels = append(d.cancels, cancel)
			}
			d.asked = append(d.asked, e)
			continue
		case Decorate:
			// The shell reads the snapshot the effect names; so does the test.
			out = append(out, decorated{Refs: d.TextRefs()})
			continue
		case ShowMenu:
			out = append(out, shown{Menu: d.Menu()})
			continue
		default:
			out = append(out, e)
			continue
		}
		d.asked = append(d.asked, e)
		out = append(out, d.Dispatch(answer)...)
	}
	return out
}

// Close ends the controller and its subscriptions.
func (d *driver) Close() {
	d.Controller.Close()
	for _, c := range d.cancels {
		c()
	}
	d.cancels = nil
}

// register adds a source after birth, as the registry does: SourceAdded is posted.
func (d *driver) register(s Source) {
	d.sources = append(d.sources, s)
	if d.post != nil && !d.closed {
		d.post(SourceAdded{Source: Describe(s)})
	}
}

// Perform carries out an asynchronous effect the way app/slashhost does.
func (d *driver) Perform(ctx context.Context, e Effect) (Event, bool) {
	p := d.Session()
	switch e := e.(type) {
	case FetchCandidates:
		s := d.source(e.Source)
		items, err := s.Candidates(ctx, Query{Session: p, Hit: e.Hit})
		return CandidatesArrived{Gen: e.Gen, Source: e.Source, Items: items, Err: err}, true
	case RunEnterMatch:
		claim, ok, err := d.source(e.Source).(EnterMatcher).MatchEnter(ctx, p, e.Draft)
		return EnterMatched{Attempt: e.Attempt, Source: e.Source, Claim: claim, OK: ok, Err: err}, true
	case Warm:
		return WarmDone{Source: e.Source, Err: d.source(e.Source).(Warmer).Warm(ctx, p)}, true
	}
	return nil, false
}

// decorated and shown are Decorate and ShowMenu as the shell sees them: with the snapshot
// they name, read when the effect is run.
type decorated struct{ Refs []TextRef }
type shown struct{ Menu Menu }

func (decorated) isEffect() {}
func (shown) isEffect()     {}

// harness drives a controller the way the shell does, performing asynchronous effects on
// demand.
type harness struct {
	c      *driver
	bail   *bail
	posted []Event
	rev    uint64
	birth  []Effect
}

func newHarness(sources ...Source) *harness {
	h := &harness{bail: &bail{accept: true}}
	h.c, h.birth = newDriver(sources, h.bail.rewrite, func(ev Event) { h.posted = append(h.posted, ev) })
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
