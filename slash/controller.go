package slash

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"parley/machine/input"
)

// Event is an input to a Controller. The set is sealed.
type Event interface{ isEvent() }

// Effect is an output of a Controller: plain data the shell carries out. The set is sealed.
type Effect interface{ isEffect() }

// DraftObserved reports the draft and selection after the input machine took an edit or
// the caret moved. Rev is the machine's draftRev, stamped on the hit's span for CAS; Tier
// follows the machine's phase.
type DraftObserved struct {
	Draft            string
	SelStart, SelEnd int // UTF-16 code units
	Rev              uint64
	Tier             Tier
}

// Key is a keydown, before the input machine sees it. Composing is KeyboardEvent.isComposing;
// KeyCode 229 is what some browsers send during composition instead.
type Key struct {
	Key                    string // KeyboardEvent.key: "ArrowDown", "Enter", " ", …
	Shift, Ctrl, Alt, Meta bool
	Composing              bool
	KeyCode                int
}

// CandidatesArrived reports a FetchCandidates. A Gen other than the current one is dropped:
// the query moved on while the source was thinking. An error counts as no candidates.
type CandidatesArrived struct {
	Gen    uint64
	Source SourceKey
	Items  []Item
	Err    error
}

// Hover makes option Index active (mouse over).
type Hover struct{ Index int }

// Choose picks option Index (a click).
type Choose struct{ Index int }

// Dismiss closes the menu (blur, a click outside) and keeps the hit for Space.
type Dismiss struct{}

// LexiconChanged is posted by a LexiconSubscriber's notification.
type LexiconChanged struct{ Source SourceKey }

// WarmDone reports a Warm.
type WarmDone struct {
	Source SourceKey
	Err    error
}

// SourceAdded is posted by the Service when a source is registered after the controller
// was born.
type SourceAdded struct{ Source SourceKey }

// Adjudicate asks who takes an Enter on Draft: the input machine's input.Adjudicate effect,
// carried over as is. A new Attempt supersedes the one in flight.
type Adjudicate struct {
	Attempt input.AttemptID
	Draft   string
}

// EnterMatched reports a RunEnterMatch. A stale Attempt or an unexpected Source is dropped.
type EnterMatched struct {
	Attempt input.AttemptID
	Source  SourceKey
	Claim   input.Claim
	OK      bool
	Err     error
}

func (DraftObserved) isEvent()     {}
func (Key) isEvent()               {}
func (CandidatesArrived) isEvent() {}
func (Hover) isEvent()             {}
func (Choose) isEvent()            {}
func (Dismiss) isEvent()           {}
func (LexiconChanged) isEvent()    {}
func (WarmDone) isEvent()          {}
func (SourceAdded) isEvent()       {}
func (Adjudicate) isEvent()        {}
func (EnterMatched) isEvent()      {}

// FetchCandidates asks the shell to run the source's Candidates for Hit off the event loop
// (Perform) and to dispatch the CandidatesArrived it returns.
type FetchCandidates struct {
	Gen    uint64
	Source SourceKey
	Hit    Hit
}

// ShowMenu opens the menu or updates it. Menu.Options is a snapshot the controller never
// writes again, so the view may keep it.
type ShowMenu struct{ Menu Menu }

// HideMenu closes the menu.
type HideMenu struct{}

// PreventDefault tells the shell to cancel the key: the controller handled it.
type PreventDefault struct{}

// Picked reports a pick or a Space claim and whether the input really rewrote the draft.
type Picked struct {
	Source  SourceKey
	Outcome PickOutcome
	Rewrote bool
}

// Warm asks the shell to run the source's Warm (Perform) and dispatch WarmDone.
type Warm struct{ Source SourceKey }

// RunEnterMatch asks the shell to run the source's MatchEnter (Perform) and dispatch
// EnterMatched.
type RunEnterMatch struct {
	Attempt input.AttemptID
	Source  SourceKey
	Draft   string
}

// Adjudicated is the answer to Adjudicate, for the input machine: dispatch Answer().
type Adjudicated struct {
	Attempt input.AttemptID
	Verdict Verdict
}

// Answer is the event that hands the verdict to the input machine: input.Adjudicated with
// the claim (a zero claim is the default sink), or input.AdjudicationFailed.
func (a Adjudicated) Answer() input.Event {
	if a.Verdict.Kind == VerdictRejected {
		return input.AdjudicationFailed{Attempt: a.Attempt, Err: a.Verdict.Err}
	}
	return input.Adjudicated{Attempt: a.Attempt, Claim: a.Verdict.Claim}
}

// Decorate replaces the draft's plain-text reference marks. Refs is a snapshot the
// controller never writes again, so the view may keep it.
type Decorate struct{ Refs []TextRef }

// RosterChanged says the aggregated roster (Controller.Roster) changed, e.g. for the
// message bubbles that decorate with it too.
type RosterChanged struct{}

func (FetchCandidates) isEffect() {}
func (ShowMenu) isEffect()        {}
func (HideMenu) isEffect()        {}
func (PreventDefault) isEffect()  {}
func (Picked) isEffect()          {}
func (Warm) isEffect()            {}
func (RunEnterMatch) isEffect()   {}
func (Adjudicated) isEffect()     {}
func (Decorate) isEffect()        {}
func (RosterChanged) isEffect()   {}

// ErrEmptyClaim rejects an Enter that a source claimed with an empty command token.
var ErrEmptyClaim = errors.New("the source claimed the draft without a command token")

// Prevented reports whether effs cancel the key they answer.
func Prevented(effs []Effect) bool {
	return slices.ContainsFunc(effs, func(e Effect) bool { _, ok := e.(PreventDefault); return ok })
}

// VerdictKind is the arm of a Verdict.
type VerdictKind int

const (
	// VerdictDefaultSink: no source claimed; the draft is an ordinary message.
	VerdictDefaultSink VerdictKind = iota
	// VerdictClaimed: Source claimed the draft with Claim.
	VerdictClaimed
	// VerdictRejected: a source failed (or its warm-up did); nothing is sent.
	VerdictRejected
)

var verdictNames = [...]string{
	VerdictDefaultSink: "default-sink",
	VerdictClaimed:     "claimed",
	VerdictRejected:    "rejected",
}

// String returns the arm's name.
func (k VerdictKind) String() string {
	if k >= 0 && int(k) < len(verdictNames) {
		return verdictNames[k]
	}
	return fmt.Sprintf("VerdictKind(%d)", int(k))
}

// Verdict is who takes an Enter.
type Verdict struct {
	Kind   VerdictKind
	Source SourceKey
	Claim  input.Claim
	Err    error
}

// Menu is the menu store, a value the view renders.
type Menu struct {
	Open    bool
	Trigger rune
	Query   string
	Options []Option // grouped by source in registration order
	Active  int      // index into Options, -1 when closed; drives aria-activedescendant
	Loading bool     // a source has not answered the current query yet
}

// Option is a menu entry.
type Option struct {
	Source SourceKey
	Item   Item
}

// ID returns a DOM id token for the option's element, unique within a menu: Item.ID alone
// is unique only within its source, and two sources offering "review" must not give
// aria-activedescendant two elements to choose from. It is stable while the option is on
// screen, so the highlight survives late arrivals. The view prefixes it with its listbox's
// id. Every byte outside [A-Za-z0-9] is escaped as _XX, so '-' separates unambiguously.
func (o Option) ID() string {
	b := make([]byte, 0, 8+len(o.Source.Name)+len(o.Item.ID))
	b = append(b, "opt-"...)
	b = appendIDPart(b, o.Source.String())
	b = append(b, '-')
	return string(appendIDPart(b, o.Item.ID))
}

// appendIDPart appends s with every byte outside [A-Za-z0-9] escaped as _XX.
func appendIDPart(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			b = append(b, c)
			continue
		}
		b = append(b, '_', hex[c>>4], hex[c&15])
	}
	return b
}

// ActiveOption returns the highlighted option.
func (m Menu) ActiveOption() (Option, bool) {
	if !m.Open || m.Active < 0 || m.Active >= len(m.Options) {
		return Option{}, false
	}
	return m.Options[m.Active], true
}

// ActiveID returns the Option.ID of the highlighted option, for aria-activedescendant, or
// "" when the menu is closed (the attribute must then be removed).
func (m Menu) ActiveID() string {
	if o, ok := m.ActiveOption(); ok {
		return o.ID()
	}
	return ""
}

// equal reports whether the view would render m and o alike.
func (m Menu) equal(o Menu) bool {
	return m.Open == o.Open && m.Trigger == o.Trigger && m.Query == o.Query &&
		m.Active == o.Active && m.Loading == o.Loading && slices.Equal(m.Options, o.Options)
}

// Config wires a Controller to its session.
type Config struct {
	Session Projection
	// Bail rewrites the draft; nil makes every pick a no-op (an input without a machine).
	Bail Bail
	// Post re-enters the controller from outside a dispatch: lexicon notifications and late
	// registrations. It may be called from any goroutine, so the shell marshals it onto
	// its event loop, dispatches, and runs the effects. Without it, those are lost.
	Post func(Event)
}

// warmState is where a source's warm-up stands for this session.
type warmState struct {
	done bool
	err  error
}

// adjudication is the Enter adjudication in flight.
type adjudication struct {
	active  bool
	attempt input.AttemptID
	draft   string
	next    int       // index into sources of the matcher asked or awaited
	asking  SourceKey // the matcher whose answer is expected
	waiting bool      // asking's warm-up is not done yet
}

// Controller is one session's slash pipeline: a synchronous machine. It holds the single
// authoritative hit, the menu store, the candidate generation, the Enter adjudication and
// the aggregated roster. Dispatch must be called from one goroutine.
type Controller struct {
	svc    *Service
	cfg    Config
	closed bool

	sources []Source // folded, in registration order
	folded  map[SourceKey]bool
	warm    map[SourceKey]warmState
	cancels []func()

	draft    string
	selStart int
	selEnd   int

	hit       Hit
	hasHit    bool
	dismissed bool // Escape or Dismiss closed the menu for this hit
	gen       uint64
	pending   map[SourceKey]bool
	results   map[SourceKey][]Item
	activeKey SourceKey // the highlighted option by identity, so arrivals do not move it
	activeID  string
	menu      Menu

	roster  *Roster
	refs    []TextRef // published in Decorate, so never written in place
	scratch []TextRef // the scan buffer, reused across keystrokes

	adj adjudication
}

// NewController is the session scope's birth: it folds in every registered source, warms
// each Warmer once (Warm effects), subscribes to lexicon notifications and polls the
// rosters. Close it when the scope dies.
func NewController(svc *Service, cfg Config) (*Controller, []Effect) {
	c := &Controller{
		svc:     svc,
		cfg:     cfg,
		folded:  map[SourceKey]bool{},
		warm:    map[SourceKey]warmState{},
		pending: map[SourceKey]bool{},
		results: map[SourceKey][]Item{},
		menu:    Menu{Active: -1},
		roster:  NewRoster(nil),
	}
	effs := c.fold(svc.attach(c, cfg.Post), nil)
	return c, c.repoll(effs)
}

// Close tears the controller down: lexicon subscriptions end, late registrations no longer
// reach it, and Dispatch does nothing.
func (c *Controller) Close() {
	if c.closed {
		return
	}
	c.closed = true
	c.svc.detach(c)
	for _, cancel := range c.cancels {
		cancel()
	}
	c.cancels = nil
}

// Perform carries out an asynchronous effect for this session; see Service.Perform. It
// touches no controller state, so it is safe off the event loop.
func (c *Controller) Perform(ctx context.Context, e Effect) (Event, bool) {
	return c.svc.Perform(ctx, c.cfg.Session, e)
}

// Menu returns the menu store.
func (c *Controller) Menu() Menu { return c.menu }

// Hit returns the authoritative hit; it survives the menu closing, for Space.
func (c *Controller) Hit() (Hit, bool) { return c.hit, c.hasHit }

// Roster returns the aggregated lexicon snapshot.
func (c *Controller) Roster() *Roster { return c.roster }

// TextRefs returns the current decoration of the draft.
func (c *Controller) TextRefs() []TextRef { return c.refs }

// Generation returns the current candidate-fetch generation.
func (c *Controller) Generation() uint64 { return c.gen }

// Dispatch applies ev and returns what the shell must do.
func (c *Controller) Dispatch(ev Event) []Effect {
	if c.closed {
		return nil
	}
	switch ev := ev.(type) {
	case DraftObserved:
		return c.observe(ev)
	case Key:
		return c.key(ev)
	case CandidatesArrived:
		if ev.Gen != c.gen || !c.pending[ev.Source] {
			return nil
		}
		delete(c.pending, ev.Source)
		if ev.Err != nil {
			ev.Items = nil
		}
		c.results[ev.Source] = ev.Items
		return c.syncMenu(nil)
	case Hover:
		if !c.menu.Open || ev.Index < 0 || ev.Index >= len(c.menu.Options) {
			return nil
		}
		c.setActive(ev.Index)
		return c.syncMenu(nil)
	case Choose:
		if !c.menu.Open || ev.Index < 0 || ev.Index >= len(c.menu.Options) {
			return nil
		}
		return c.pick(ev.Index, nil)
	case Dismiss:
		if !c.hasHit {
			return nil
		}
		c.dismissed = true
		return c.syncMenu(nil)
	case LexiconChanged:
		return c.repoll(nil)
	case WarmDone:
		if st, ok := c.warm[ev.Source]; !ok || st.done {
			return nil
		}
		c.warm[ev.Source] = warmState{done: true, err: ev.Err}
		var effs []Effect
		if c.adj.active && c.adj.waiting && c.adj.asking == ev.Source {
			effs = c.pollEnter(effs)
		}
		return c.repoll(effs)
	case SourceAdded:
		return c.repoll(c.fold(c.svc.Sources(), nil))
	case Adjudicate:
		c.adj = adjudication{active: true, attempt: ev.Attempt, draft: ev.Draft}
		return c.pollEnter(nil)
	case EnterMatched:
		if !c.adj.active || c.adj.waiting || ev.Attempt != c.adj.attempt || ev.Source != c.adj.asking {
			return nil
		}
		switch {
		case ev.Err != nil:
			return c.verdict(nil, Verdict{Kind: VerdictRejected, Source: ev.Source, Err: ev.Err})
		case ev.OK && ev.Claim.Token == "":
			// The machine reads a zero claim as "nobody claimed": sending the draft as a
			// plain message behind the claiming source's back would be worse than not at all.
			return c.verdict(nil, Verdict{Kind: VerdictRejected, Source: ev.Source, Err: fmt.Errorf("match Enter with %q: %w", ev.Source, ErrEmptyClaim)})
		case ev.OK:
			return c.verdict(nil, Verdict{Kind: VerdictClaimed, Source: ev.Source, Claim: ev.Claim})
		}
		c.adj.next++
		return c.pollEnter(nil)
	}
	return nil
}

// fold adds the sources of list not folded yet, in order: warm them, subscribe to their
// lexicons, and ask them for candidates if the live hit is theirs.
func (c *Controller) fold(list []Source, effs []Effect) []Effect {
	for _, src := range list {
		k := SourceKey{Trigger: src.Trigger(), Name: src.Name()}
		if c.folded[k] {
			continue
		}
		c.folded[k] = true
		c.sources = append(c.sources, src)
		if _, ok := src.(Warmer); ok {
			c.warm[k] = warmState{}
			effs = append(effs, Warm{Source: k})
		} else {
			c.warm[k] = warmState{done: true}
		}
		if s, ok := src.(LexiconSubscriber); ok {
			post := c.cfg.Post
			cancel := s.SubscribeLexicon(c.cfg.Session, func() {
				if post != nil {
					post(LexiconChanged{Source: k})
				}
			})
			if cancel != nil {
				c.cancels = append(c.cancels, cancel)
			}
		}
		if c.hasHit && !c.dismissed && k.Trigger == c.hit.Trigger {
			c.pending[k] = true
			effs = append(effs, FetchCandidates{Gen: c.gen, Source: k, Hit: c.hit})
		}
	}
	if c.hasHit {
		effs = c.syncMenu(effs)
	}
	return effs
}

// repoll aggregates the sources' hot rosters; a change re-decorates the draft.
func (c *Controller) repoll(effs []Effect) []Effect {
	names := map[rune][]string{}
	for _, src := range c.sources {
		l, ok := src.(Lexicon)
		if !ok {
			continue
		}
		if list, warm := l.Lexicon(c.cfg.Session); warm {
			names[src.Trigger()] = append(names[src.Trigger()], list...)
		}
	}
	r := NewRoster(names)
	if r.Equal(c.roster) {
		return effs
	}
	c.roster = r
	return c.redecorate(append(effs, RosterChanged{}))
}

// redecorate rescans the draft and reports a change of marks. The scan goes into a reused
// buffer and only a change is copied out: most keystrokes change no mark (or shift marks
// the view already holds), and a fresh slice per scan is most of the scan's cost.
func (c *Controller) redecorate(effs []Effect) []Effect {
	c.scratch = AppendTextRefs(c.scratch[:0], c.draft, c.roster)
	if slices.Equal(c.scratch, c.refs) {
		return effs
	}
	c.refs = nil
	if len(c.scratch) > 0 {
		c.refs = slices.Clone(c.scratch)
	}
	return append(effs, Decorate{Refs: c.refs})
}

// observe re-derives the hit from a new draft or caret.
func (c *Controller) observe(ev DraftObserved) []Effect {
	var effs []Effect
	if ev.Draft != c.draft {
		// A caret move (selectionchange) leaves the marks as they are; only an edit rescans.
		c.draft = ev.Draft
		effs = c.redecorate(effs)
	}
	c.selStart, c.selEnd = ev.SelStart, ev.SelEnd
	var hit Hit
	ok := false
	if ev.SelStart == ev.SelEnd {
		hit, ok = Detect(ev.Draft, ev.SelStart, ev.Tier)
	}
	if !ok {
		if c.hasHit {
			c.clearHit()
		}
		return c.syncMenu(effs)
	}
	hit.Span.Rev = ev.Rev
	same := c.hasHit && c.hit.Trigger == hit.Trigger && c.hit.Span.Start == hit.Span.Start
	moved := !same || c.hit.Query != hit.Query
	if !same {
		// A new trigger: a fresh menu, even if the last one was dismissed.
		c.dismissed = false
		c.results = map[SourceKey][]Item{}
		c.activeKey, c.activeID = SourceKey{}, ""
	}
	c.hit, c.hasHit = hit, true
	if moved {
		effs = c.fetch(effs)
	}
	return c.syncMenu(effs)
}

// clearHit forgets the hit; the generation moves so answers in flight are dropped.
func (c *Controller) clearHit() {
	c.hit, c.hasHit, c.dismissed = Hit{}, false, false
	c.gen++
	c.pending = map[SourceKey]bool{}
	c.results = map[SourceKey][]Item{}
	c.activeKey, c.activeID = SourceKey{}, ""
}

// fetch starts a new generation and asks the hit's sources for candidates. The previous
// results stay on screen until their source answers, so typing does not flicker.
func (c *Controller) fetch(effs []Effect) []Effect {
	c.gen++
	c.pending = map[SourceKey]bool{}
	if c.dismissed {
		return effs
	}
	for _, src := range c.sources {
		if src.Trigger() != c.hit.Trigger {
			continue
		}
		k := SourceKey{Trigger: src.Trigger(), Name: src.Name()}
		c.pending[k] = true
		effs = append(effs, FetchCandidates{Gen: c.gen, Source: k, Hit: c.hit})
	}
	return effs
}

// syncMenu rebuilds the menu store and reports a change to the view.
func (c *Controller) syncMenu(effs []Effect) []Effect {
	m := Menu{Active: -1}
	if c.hasHit && !c.dismissed {
		var opts []Option
		for _, src := range c.sources {
			k := SourceKey{Trigger: src.Trigger(), Name: src.Name()}
			if k.Trigger != c.hit.Trigger {
				continue
			}
			for _, it := range c.results[k] {
				opts = append(opts, Option{Source: k, Item: it})
			}
		}
		if len(opts) > 0 {
			m = Menu{Open: true, Trigger: c.hit.Trigger, Query: c.hit.Query, Options: opts, Active: 0, Loading: len(c.pending) > 0}
			for i, o := range opts {
				if o.Source == c.activeKey && o.Item.ID == c.activeID {
					m.Active = i
					break
				}
			}
			c.activeKey, c.activeID = opts[m.Active].Source, opts[m.Active].Item.ID
		}
	}
	switch {
	case m.Open && !m.equal(c.menu):
		effs = append(effs, ShowMenu{Menu: m})
	case !m.Open && c.menu.Open:
		effs = append(effs, HideMenu{})
	}
	c.menu = m
	return effs
}

// setActive highlights option i.
func (c *Controller) setActive(i int) {
	o := c.menu.Options[i]
	c.activeKey, c.activeID = o.Source, o.Item.ID
}

// IME reports whether k belongs to an IME composition: the candidate window's, so neither
// the menu nor the input machine may act on it (an Enter that commits a composition must
// not pick or submit). Shift+Enter is the single exception: the line break always goes
// first, to the input, composing or not. The shell passes a key the controller did not
// prevent to the input machine only when IME is false.
func (k Key) IME() bool {
	if k.Key == "Enter" && k.Shift {
		return false
	}
	return k.Composing || k.KeyCode == 229
}

// key arbitrates a keydown. Shift+Enter and IME keys are never taken (see IME). The menu
// takes ↑ ↓ Enter Tab Escape only while open; Space is taken only when a source claims
// the hit and the input really rewrote.
func (c *Controller) key(k Key) []Effect {
	if k.IME() || k.Key == "Enter" && k.Shift {
		return nil
	}
	if k.Ctrl || k.Alt || k.Meta {
		return nil
	}
	if c.menu.Open && k.Key == "Escape" {
		// With or without Shift: a Shift+Escape let through would reach the input machine,
		// which releases the claim, while the menu stayed open.
		c.dismissed = true
		return c.syncMenu([]Effect{PreventDefault{}})
	}
	// Shift+arrows extend the selection and Shift+Tab moves focus back: not the menu's.
	if c.menu.Open && !k.Shift {
		n := len(c.menu.Options)
		switch k.Key {
		case "ArrowDown":
			c.setActive((c.menu.Active + 1) % n)
			return c.syncMenu([]Effect{PreventDefault{}})
		case "ArrowUp":
			c.setActive((c.menu.Active - 1 + n) % n)
			return c.syncMenu([]Effect{PreventDefault{}})
		case "Enter", "Tab":
			// Always taken, even if the rewrite fails: an Enter meant for the menu must
			// never submit the draft.
			return c.pick(c.menu.Active, []Effect{PreventDefault{}})
		}
	}
	if k.Key == " " {
		return c.space()
	}
	return nil
}

// pick runs the source's Pick for option i and hands the outcome to the input.
func (c *Controller) pick(i int, effs []Effect) []Effect {
	o := c.menu.Options[i]
	src, ok := c.source(o.Source)
	if !ok {
		return effs
	}
	out := src.Pick(o.Item, Query{Session: c.cfg.Session, Hit: c.hit})
	rewrote := apply(c.cfg.Bail, out, c.hit.Span)
	effs = append(effs, Picked{Source: o.Source, Outcome: out, Rewrote: rewrote})
	switch {
	case rewrote:
		c.clearHit()
	case out.Kind == KindNone:
		c.dismissed = true
	}
	// A refused rewrite (a stale span) leaves the menu as it was: the DraftObserved that
	// made the span stale is on its way and will refresh it.
	return c.syncMenu(effs)
}

// space adjudicates a Space typed right after the hit: the hit's sources with a
// SpaceMatcher are polled in registration order and the first answer wins. No claimant is
// the default sink: the space is typed.
func (c *Controller) space() []Effect {
	if !c.hasHit || c.selStart != c.selEnd || c.selStart != c.hit.Span.End {
		return nil
	}
	q := Query{Session: c.cfg.Session, Hit: c.hit}
	for _, src := range c.sources {
		m, ok := src.(SpaceMatcher)
		if !ok || src.Trigger() != c.hit.Trigger {
			continue
		}
		out, ok := m.MatchSpace(q)
		if !ok {
			continue
		}
		rewrote := apply(c.cfg.Bail, out, c.hit.Span)
		var effs []Effect
		if rewrote {
			effs = append(effs, PreventDefault{})
			c.clearHit()
		}
		effs = append(effs, Picked{Source: SourceKey{Trigger: src.Trigger(), Name: src.Name()}, Outcome: out, Rewrote: rewrote})
		return c.syncMenu(effs)
	}
	return nil
}

// pollEnter asks the next EnterMatcher, waiting for its warm-up if needed.
func (c *Controller) pollEnter(effs []Effect) []Effect {
	c.adj.waiting = false
	for ; c.adj.next < len(c.sources); c.adj.next++ {
		src := c.sources[c.adj.next]
		if _, ok := src.(EnterMatcher); !ok {
			continue
		}
		k := SourceKey{Trigger: src.Trigger(), Name: src.Name()}
		c.adj.asking = k
		st := c.warm[k]
		switch {
		case !st.done:
			c.adj.waiting = true
			return effs
		case st.err != nil:
			return c.verdict(effs, Verdict{Kind: VerdictRejected, Source: k, Err: st.err})
		}
		return append(effs, RunEnterMatch{Attempt: c.adj.attempt, Source: k, Draft: c.adj.draft})
	}
	return c.verdict(effs, Verdict{Kind: VerdictDefaultSink})
}

// verdict ends the adjudication.
func (c *Controller) verdict(effs []Effect, v Verdict) []Effect {
	a := c.adj.attempt
	c.adj = adjudication{}
	return append(effs, Adjudicated{Attempt: a, Verdict: v})
}

// source returns the folded source k.
func (c *Controller) source(k SourceKey) (Source, bool) {
	for _, src := range c.sources {
		if src.Trigger() == k.Trigger && src.Name() == k.Name {
			return src, true
		}
	}
	return nil, false
}
