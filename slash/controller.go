package slash

import (
	"errors"
	"fmt"
	"slices"

	"parley/machine/enum"
	"parley/machine/input"
	"parley/machine/keymap"
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

// Key is a keydown, before the input machine sees it: a keymap.Key, so the menu's bindings
// (menuKeys) and the shell's are data of one kind.
type Key keymap.Key

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

// Choose picks the option whose ID() is ID: a click on what the person saw. It names the
// option, not its place, because the menu can change between a render and the click (a
// source's answer arrives and re-ranks it; the view draws that a frame later), and a place
// would then pick an option the person never clicked. An option no longer offered is no
// pick.
type Choose struct{ ID string }

// Dismiss closes the menu (blur, a click outside) and keeps the hit for Space; typing on in
// the same word opens it again (only Escape closes it for the word).
type Dismiss struct{}

// LexiconChanged says a source's roster changed after warm-up: the shell posts it when a
// LexiconSubscriber notifies (see Subscribe). The controller reads the rosters again.
type LexiconChanged struct{ Source SourceKey }

// LexiconsRead answers ReadLexicons: each Lexicon source's hot snapshot, as the shell read
// it. A snapshot of a source the controller has not folded is ignored.
type LexiconsRead struct{ Snapshots []LexiconSnapshot }

// LexiconSnapshot is one source's answer to Lexicon: Warm false means "not warm", which adds
// no names.
type LexiconSnapshot struct {
	Source SourceKey
	Names  []string
	Warm   bool
}

// SpaceAnswered answers AskSpace: the source's MatchSpace, from its hot cache. OK false is
// "undefined" and lets the next source answer.
type SpaceAnswered struct {
	Source  SourceKey
	Outcome PickOutcome
	OK      bool
}

// PickAnswered answers AskPick: what the source's Pick says choosing the item means.
type PickAnswered struct {
	Source  SourceKey
	Outcome PickOutcome
}

// Rewritten answers Rewrite: whether the input machine passed its phase and CAS guards and
// really rewrote the draft (input.Rewrote of its effects). Emitting is not succeeding, and
// whether Space is prevented follows this answer.
type Rewritten struct{ Rewrote bool }

// WarmDone reports a Warm.
type WarmDone struct {
	Source SourceKey
	Err    error
}

// SourceAdded says a source was registered after the controller was born; the shell posts
// it for every live session.
type SourceAdded struct{ Source SourceInfo }

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
func (LexiconsRead) isEvent()      {}
func (SpaceAnswered) isEvent()     {}
func (PickAnswered) isEvent()      {}
func (Rewritten) isEvent()         {}
func (Adjudicate) isEvent()        {}
func (EnterMatched) isEvent()      {}

// FetchCandidates asks the shell to run the source's Candidates for Hit off the event loop
// (app/slashhost performs it) and to dispatch the CandidatesArrived it returns.
type FetchCandidates struct {
	Gen    uint64
	Source SourceKey
	Hit    Hit
}

// ShowMenu opens the menu or updates it: the view reads Controller.Menu, a snapshot the
// controller never writes again, so it may keep it. Version counts the menus shown.
type ShowMenu struct{ Version uint64 }

// HideMenu closes the menu.
type HideMenu struct{}

// PreventDefault tells the shell to cancel the key: the controller handled it.
type PreventDefault struct{}

// Picked reports a pick or a Space claim and whether the input really rewrote the draft.
type Picked struct {
	Source  SourceKey
	Outcome PickOutcome
	Rewrote bool
	// Send says the pick was an Enter on a complete command (PickOutcome.Complete) and the
	// input rewrote: the shell submits the draft now, as a second Enter would.
	Send bool
}

// Warm asks the shell to run the source's Warm off the event loop and dispatch WarmDone.
type Warm struct{ Source SourceKey }

// RunEnterMatch asks the shell to run the source's MatchEnter off the event loop and dispatch
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
// the claim (a zero claim is the default sink), or input.AdjudicationFailed with the reason.
func (a Adjudicated) Answer() input.Event {
	if a.Verdict.Kind == VerdictRejected {
		return input.AdjudicationFailed{Attempt: a.Attempt, Err: errors.New(a.Verdict.Reason)}
	}
	return input.Adjudicated{Attempt: a.Attempt, Claim: a.Verdict.Claim}
}

// Decorate replaces the draft's plain-text reference marks: the view reads
// Controller.TextRefs, a snapshot the controller never writes again, so it may keep it.
// Version counts the decorations.
type Decorate struct{ Version uint64 }

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
func (ReadLexicons) isEffect()    {}
func (Subscribe) isEffect()       {}
func (AskSpace) isEffect()        {}
func (AskPick) isEffect()         {}
func (Rewrite) isEffect()         {}

// ReadLexicons asks the shell to read every Lexicon source's hot snapshot now and answer
// with LexiconsRead, in the same turn: it runs on the render path, so a source answers from
// memory and never fetches.
type ReadLexicons struct{}

// Subscribe asks the shell to subscribe to the source's roster changes for this session
// (LexiconSubscriber) and to post LexiconChanged on each; the shell ends the subscription
// when the session scope dies.
type Subscribe struct{ Source SourceKey }

// AskSpace asks the shell for the source's MatchSpace on Hit, answered with SpaceAnswered in
// the same turn: Space is decided inside its keydown.
type AskSpace struct {
	Source SourceKey
	Hit    Hit
}

// AskPick asks the shell for the source's Pick of Item at Hit, answered with PickAnswered in
// the same turn. The source may act on its own there (open a form); the controller only
// learns the outcome.
type AskPick struct {
	Source SourceKey
	Item   Item
	Hit    Hit
}

// Rewrite asks the shell to apply Outcome at Span to the input machine (Event gives the
// machine's event) and to answer with Rewritten in the same turn. Span carries the draftRev
// the hit was observed at, so a draft that moved on refuses it.
type Rewrite struct {
	Outcome PickOutcome
	Span    input.Span
}

// Event is the input machine's event for r: the bail event of its outcome's arm.
func (r Rewrite) Event() input.Event {
	switch r.Outcome.Kind {
	case KindBeginCommand:
		return input.BeginCommand{Claim: r.Outcome.Claim, Span: r.Span}
	case KindInsertReference:
		return input.InsertRef{Reference: r.Outcome.Reference, Span: r.Span}
	case KindInsertText:
		return input.InsertText{Text: r.Outcome.Text, Span: r.Span}
	case KindConsumeToken:
		return input.ConsumeToken{Span: r.Span}
	}
	return nil
}

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
func (k VerdictKind) String() string { return enum.Name(verdictNames[:], k) }

// Verdict is who takes an Enter. Reason is the rejection's error text: an effect is plain
// data, and the input machine shows only the text.
type Verdict struct {
	Kind   VerdictKind
	Source SourceKey
	Claim  input.Claim
	Reason string
}

// Menu is the menu store, a value the view renders.
type Menu struct {
	Open    bool
	Trigger rune
	Query   string
	Options []Option // grouped by source in registration order
	Active  int      // index into Options, -1 when closed or none is highlighted yet; drives aria-activedescendant
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

// Config is a Controller's session and the sources registered at its birth, in
// registration order.
type Config struct {
	Session Projection
	Sources []SourceInfo
}

// warmState is where a source's warm-up stands for this session.
type warmState struct {
	done bool
	err  string // the failure's text; "" for success
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

// askKind is what the controller asked the shell within the current turn.
type askKind int

const (
	askNothing askKind = iota
	askSpace           // AskSpace: Space adjudication, polling matchers
	askPick            // AskPick: a pick, waiting for the outcome
	askRewrite         // Rewrite: waiting for the input machine's answer
)

// ask is a question to the shell. It must be answered by the very next event: anything
// else abandons it, so a shell that drops an answer leaves no half-done pick behind.
type ask struct {
	kind   askKind
	space  bool      // for askRewrite: the outcome came from Space, not from a pick
	source SourceKey // the source asked, or whose outcome is being applied
	next   int       // for askSpace: index into sources of the matcher asked
	out    PickOutcome
	enter  bool // for askPick and askRewrite: the pick was an Enter (not Tab, not a click)
}

// Controller is one session's slash pipeline: a synchronous, pure machine. It holds the
// single authoritative hit, the menu store, the candidate generation, the Enter
// adjudication and the aggregated roster. It never calls a source or the input machine:
// what it needs from them it asks in effects (AskSpace, AskPick, Rewrite, ReadLexicons,
// FetchCandidates, RunEnterMatch, Warm), and the answers come back as events. Dispatch
// must be called from one goroutine.
type Controller struct {
	cfg    Config
	closed bool

	sources []SourceInfo // folded, in registration order
	warm    map[SourceKey]warmState
	lex     map[SourceKey][]string // each Lexicon source's last warm snapshot

	draft    string
	selStart int
	selEnd   int

	hit       Hit
	hasHit    bool
	dismissed bool // Escape or Dismiss closed the menu for this hit
	// blurred says Dismiss closed it (the box lost the focus): the person did not say no to
	// the menu, so typing more of the same word opens it again. Escape's close holds.
	blurred   bool
	gen       uint64
	pending   map[SourceKey]bool
	results   map[SourceKey][]Item
	activeKey SourceKey // the highlighted option by identity, so arrivals do not move it
	activeID  string
	menu      Menu
	menuVer   uint64

	roster  *Roster
	refs    []TextRef // published through Decorate, so never written in place
	refsVer uint64
	scratch []TextRef // the scan buffer, reused across keystrokes

	adj adjudication
	ask ask
}

// NewController is the session scope's birth: it folds in the sources, warms each Warmer
// once (Warm), subscribes to roster changes (Subscribe) and reads the rosters
// (ReadLexicons).
func NewController(cfg Config) (*Controller, []Effect) {
	c := &Controller{
		cfg:     cfg,
		warm:    map[SourceKey]warmState{},
		lex:     map[SourceKey][]string{},
		pending: map[SourceKey]bool{},
		results: map[SourceKey][]Item{},
		menu:    Menu{Active: -1},
		roster:  NewRoster(nil),
	}
	effs := c.fold(cfg.Sources, nil)
	return c, c.readLexicons(effs)
}

// Close ends the controller: Dispatch does nothing after it. The shell ends the
// subscriptions.
func (c *Controller) Close() { c.closed = true }

// Session returns the projection the controller serves.
func (c *Controller) Session() Projection { return c.cfg.Session }

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
	asked := c.ask
	c.ask = ask{}
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
		if !c.menu.Open {
			return nil
		}
		for i, o := range c.menu.Options {
			if o.ID() == ev.ID {
				return c.pick(i, false, nil)
			}
		}
		return nil
	case Dismiss:
		if !c.hasHit {
			return nil
		}
		c.dismissed, c.blurred = true, !c.dismissed || c.blurred
		return c.syncMenu(nil)
	case LexiconChanged:
		return c.readLexicons(nil)
	case LexiconsRead:
		return c.lexiconsRead(ev)
	case WarmDone:
		if st, ok := c.warm[ev.Source]; !ok || st.done {
			return nil
		}
		st := warmState{done: true}
		if ev.Err != nil {
			st.err = ev.Err.Error()
		}
		c.warm[ev.Source] = st
		var effs []Effect
		if c.adj.active && c.adj.waiting && c.adj.asking == ev.Source {
			effs = c.pollEnter(effs)
		}
		return c.readLexicons(effs)
	case SourceAdded:
		return c.readLexicons(c.fold([]SourceInfo{ev.Source}, nil))
	case SpaceAnswered:
		if asked.kind != askSpace || ev.Source != asked.source {
			return nil
		}
		return c.spaceAnswered(asked, ev)
	case PickAnswered:
		if asked.kind != askPick || ev.Source != asked.source {
			return nil
		}
		if ev.Outcome.Kind == KindNone {
			// The source acted on its own, or declined: nothing to rewrite.
			c.dismissed, c.blurred = true, false
			return c.syncMenu([]Effect{Picked{Source: ev.Source, Outcome: ev.Outcome}})
		}
		return c.rewrite(ask{kind: askRewrite, source: ev.Source, out: ev.Outcome, enter: asked.enter}, nil)
	case Rewritten:
		if asked.kind != askRewrite {
			return nil
		}
		return c.rewritten(asked, ev.Rewrote)
	case Adjudicate:
		c.adj = adjudication{active: true, attempt: ev.Attempt, draft: ev.Draft}
		return c.pollEnter(nil)
	case EnterMatched:
		if !c.adj.active || c.adj.waiting || ev.Attempt != c.adj.attempt || ev.Source != c.adj.asking {
			return nil
		}
		switch {
		case ev.Err != nil:
			return c.verdict(nil, Verdict{Kind: VerdictRejected, Source: ev.Source, Reason: ev.Err.Error()})
		case ev.OK && ev.Claim.Token == "":
			// The machine reads a zero claim as "nobody claimed": sending the draft as a
			// plain message behind the claiming source's back would be worse than not at all.
			return c.verdict(nil, Verdict{Kind: VerdictRejected, Source: ev.Source, Reason: fmt.Sprintf("match Enter with %q: %v", ev.Source, ErrEmptyClaim)})
		case ev.OK:
			return c.verdict(nil, Verdict{Kind: VerdictClaimed, Source: ev.Source, Claim: ev.Claim})
		}
		c.adj.next++
		return c.pollEnter(nil)
	}
	return nil
}

// fold adds the sources of list not folded yet, in order: warm them, subscribe to their
// rosters, and ask them for candidates if the live hit is theirs.
func (c *Controller) fold(list []SourceInfo, effs []Effect) []Effect {
	for _, info := range list {
		k := info.Key
		if _, folded := c.warm[k]; folded {
			continue
		}
		c.sources = append(c.sources, info)
		if info.Warms {
			c.warm[k] = warmState{}
			effs = append(effs, Warm{Source: k})
		} else {
			c.warm[k] = warmState{done: true}
		}
		if info.Subscribes {
			effs = append(effs, Subscribe{Source: k})
		}
		if c.hasHit && !c.dismissed && c.hit.serves(k) {
			c.pending[k] = true
			effs = append(effs, FetchCandidates{Gen: c.gen, Source: k, Hit: c.hit})
		}
	}
	if c.hasHit {
		effs = c.syncMenu(effs)
	}
	return effs
}

// readLexicons asks for the rosters when some source has one. ReadLexicons goes last: its
// answer is the next event.
func (c *Controller) readLexicons(effs []Effect) []Effect {
	for _, info := range c.sources {
		if info.Lexicon {
			return append(effs, ReadLexicons{})
		}
	}
	return effs
}

// lexiconsRead aggregates the sources' hot rosters in registration order; a change
// re-decorates the draft.
func (c *Controller) lexiconsRead(ev LexiconsRead) []Effect {
	for _, sn := range ev.Snapshots {
		if _, folded := c.warm[sn.Source]; !folded {
			continue
		}
		if sn.Warm {
			c.lex[sn.Source] = sn.Names
		} else {
			delete(c.lex, sn.Source)
		}
	}
	names := map[rune][]string{}
	for _, info := range c.sources {
		if list, ok := c.lex[info.Key]; ok && info.Lexicon {
			names[info.Key.Trigger] = append(names[info.Key.Trigger], list...)
		}
	}
	r := NewRoster(names)
	if r.Equal(c.roster) {
		return nil
	}
	c.roster = r
	return c.redecorate([]Effect{RosterChanged{}})
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
	c.refsVer++
	return append(effs, Decorate{Version: c.refsVer})
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
		if !ok {
			// A command's argument is a hit only for a command with an argument source.
			hit, ok = DetectArgument(ev.Draft, ev.SelStart, ev.Tier)
			ok = ok && slices.ContainsFunc(c.sources, func(info SourceInfo) bool { return hit.serves(info.Key) })
		}
	}
	if !ok {
		if c.hasHit {
			c.clearHit()
		}
		return c.syncMenu(effs)
	}
	hit.Span.Rev = ev.Rev
	same := c.hasHit && c.hit.Trigger == hit.Trigger && c.hit.Command == hit.Command && c.hit.Span.Start == hit.Span.Start
	moved := !same || c.hit.Query != hit.Query
	if !same {
		// A new trigger: a fresh menu, even if the last one was dismissed.
		c.dismissed, c.blurred = false, false
		c.results = map[SourceKey][]Item{}
		c.activeKey, c.activeID = SourceKey{}, ""
	}
	if same && hit.Trigger == ArgTrigger && hit.Query == "" && c.hit.Query != "" {
		// The word erased: the argument menu highlights none again (firstActive), not the
		// match the word had.
		c.activeKey, c.activeID = SourceKey{}, ""
	}
	c.hit, c.hasHit = hit, true
	if moved && c.blurred {
		c.dismissed, c.blurred = false, false // typed on after the focus came back
	}
	if moved {
		effs = c.fetch(effs)
	}
	return c.syncMenu(effs)
}

// serves reports whether source k answers the hit: a trigger's sources, and for an
// argument only the source named after its command.
func (h Hit) serves(k SourceKey) bool {
	return k.Trigger == h.Trigger && (h.Trigger != ArgTrigger || k.Name == h.Command)
}

// clearHit forgets the hit; the generation moves so answers in flight are dropped.
func (c *Controller) clearHit() {
	c.hit, c.hasHit, c.dismissed, c.blurred = Hit{}, false, false, false
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
	for _, info := range c.sources {
		if !c.hit.serves(info.Key) {
			continue
		}
		c.pending[info.Key] = true
		effs = append(effs, FetchCandidates{Gen: c.gen, Source: info.Key, Hit: c.hit})
	}
	return effs
}

// syncMenu rebuilds the menu store and reports a change to the view.
func (c *Controller) syncMenu(effs []Effect) []Effect {
	m := Menu{Active: -1}
	if c.hasHit && !c.dismissed {
		var opts []Option
		for _, info := range c.sources {
			k := info.Key
			if !c.hit.serves(k) {
				continue
			}
			for _, it := range c.results[k] {
				opts = append(opts, Option{Source: k, Item: it})
			}
		}
		if len(opts) > 0 {
			m = Menu{Open: true, Trigger: c.hit.Trigger, Query: c.hit.Query, Options: opts, Active: c.firstActive(), Loading: len(c.pending) > 0}
			for i, o := range opts {
				if o.Source == c.activeKey && o.Item.ID == c.activeID {
					m.Active = i
					break
				}
			}
			if m.Active >= 0 {
				c.activeKey, c.activeID = opts[m.Active].Source, opts[m.Active].Item.ID
			}
		}
	}
	switch {
	case m.Open && !m.equal(c.menu):
		c.menuVer++
		effs = append(effs, ShowMenu{Version: c.menuVer})
	case !m.Open && c.menu.Open:
		effs = append(effs, HideMenu{})
	}
	c.menu = m
	return effs
}

// firstActive is the option a new menu highlights: the first, except in a command's
// argument menu with no word typed yet, which highlights none until an arrow moves. There an
// Enter is not a pick: `/example`, Enter (the command), Enter sends "/example", which lists
// the examples, where a highlighted first one would have been filled in unasked. Tab still
// picks the first.
func (c *Controller) firstActive() int {
	if c.hit.Trigger == ArgTrigger && c.hit.Query == "" {
		return -1
	}
	return 0
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
	return keymap.Key(k).InComposition()
}

// menuAction is what a key does to the menu.
type menuAction int

const (
	menuDismiss menuAction = iota + 1
	menuNext
	menuPrev
	menuPick
	menuSpace
)

// menuKeys are the keys the controller may take. Shift+Escape closes too: let through, it
// would reach the input machine, which releases the claim, while the menu stayed open.
// Shift+arrows extend the selection and Shift+Tab moves focus back: not the menu's. Enter
// and Tab pick, taken even if the rewrite fails: an Enter meant for the menu must never
// submit the draft. Any other modifier makes the chord someone else's.
var menuKeys = keymap.Map[menuAction]{
	{Keys: []string{"Escape"}, Optional: keymap.Shift, Action: menuDismiss, Help: keymap.Help{Key: "esc", Desc: "close the menu"}},
	{Keys: []string{"ArrowDown"}, Action: menuNext, Help: keymap.Help{Key: "↓", Desc: "next option"}},
	{Keys: []string{"ArrowUp"}, Action: menuPrev, Help: keymap.Help{Key: "↑", Desc: "previous option"}},
	{Keys: []string{"Enter", "Tab"}, Action: menuPick, Help: keymap.Help{Key: "enter", Desc: "choose"}},
	{Keys: []string{" "}, Optional: keymap.Shift, Action: menuSpace},
}

// MenuHelp is the help of the menu's keys, for a view that lists them.
func MenuHelp() []keymap.Help { return menuKeys.Help() }

// key arbitrates a keydown. IME keys are never taken, nor Shift+Enter (see IME). The menu
// takes its keys only while open; Space is taken only when a source claims the hit and the
// input really rewrote.
func (c *Controller) key(k Key) []Effect {
	act, ok := menuKeys.Match(keymap.Key(k))
	if !ok {
		return nil
	}
	if act == menuSpace {
		return c.space()
	}
	if !c.menu.Open {
		return nil
	}
	switch n := len(c.menu.Options); act {
	case menuDismiss:
		c.dismissed, c.blurred = true, false
		return c.syncMenu([]Effect{PreventDefault{}})
	case menuNext:
		c.setActive((c.menu.Active + 1) % n)
		return c.syncMenu([]Effect{PreventDefault{}})
	case menuPrev:
		c.setActive((max(c.menu.Active, 0) - 1 + n) % n)
		return c.syncMenu([]Effect{PreventDefault{}})
	}
	if c.menu.Active < 0 {
		if k.Key == "Enter" {
			return nil // nothing picked: the Enter sends the draft
		}
		return c.pick(0, false, []Effect{PreventDefault{}})
	}
	return c.pick(c.menu.Active, k.Key == "Enter", []Effect{PreventDefault{}})
}

// pick asks the source of option i what choosing it means (AskPick); PickAnswered goes on.
// enter says an Enter picked it.
func (c *Controller) pick(i int, enter bool, effs []Effect) []Effect {
	o := c.menu.Options[i]
	if !c.folded(o.Source) {
		return effs
	}
	c.ask = ask{kind: askPick, source: o.Source, enter: enter}
	return append(effs, AskPick{Source: o.Source, Item: o.Item, Hit: c.hit})
}

// rewrite asks the input machine to apply a's outcome at the hit (Rewrite); Rewritten goes
// on.
func (c *Controller) rewrite(a ask, effs []Effect) []Effect {
	c.ask = a
	return append(effs, Rewrite{Outcome: a.out, Span: c.hit.Span})
}

// rewritten ends a pick or a Space claim with the input machine's answer.
func (c *Controller) rewritten(a ask, rewrote bool) []Effect {
	var effs []Effect
	if a.space && rewrote {
		effs = append(effs, PreventDefault{})
	}
	effs = append(effs, Picked{Source: a.source, Outcome: a.out, Rewrote: rewrote, Send: rewrote && a.enter && a.out.Complete})
	if rewrote {
		c.clearHit()
	}
	// A refused rewrite (a stale span) leaves the menu as it was: the DraftObserved that
	// made the span stale is on its way and will refresh it.
	return c.syncMenu(effs)
}

// space adjudicates a Space typed right after the hit: the hit's sources with a
// SpaceMatcher are asked in registration order and the first answer wins. No claimant is
// the default sink: the space is typed.
func (c *Controller) space() []Effect {
	if !c.hasHit || c.selStart != c.selEnd || c.selStart != c.hit.Span.End {
		return nil
	}
	return c.askSpace(0)
}

// askSpace asks the first SpaceMatcher of the hit's trigger from sources[from] on.
func (c *Controller) askSpace(from int) []Effect {
	for i := from; i < len(c.sources); i++ {
		info := c.sources[i]
		if !info.Space || !c.hit.serves(info.Key) {
			continue
		}
		c.ask = ask{kind: askSpace, source: info.Key, next: i}
		return []Effect{AskSpace{Source: info.Key, Hit: c.hit}}
	}
	return nil
}

// spaceAnswered takes a SpaceMatcher's answer: undefined asks the next one.
func (c *Controller) spaceAnswered(a ask, ev SpaceAnswered) []Effect {
	if !ev.OK {
		return c.askSpace(a.next + 1)
	}
	if ev.Outcome.Kind == KindNone {
		// A claim that rewrites nothing: the space is typed.
		return c.syncMenu([]Effect{Picked{Source: ev.Source, Outcome: ev.Outcome}})
	}
	return c.rewrite(ask{kind: askRewrite, space: true, source: ev.Source, out: ev.Outcome}, nil)
}

// pollEnter asks the next EnterMatcher, waiting for its warm-up if needed.
func (c *Controller) pollEnter(effs []Effect) []Effect {
	c.adj.waiting = false
	for ; c.adj.next < len(c.sources); c.adj.next++ {
		info := c.sources[c.adj.next]
		if !info.Enter {
			continue
		}
		k := info.Key
		c.adj.asking = k
		st := c.warm[k]
		switch {
		case !st.done:
			c.adj.waiting = true
			return effs
		case st.err != "":
			return c.verdict(effs, Verdict{Kind: VerdictRejected, Source: k, Reason: st.err})
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

// folded reports whether k is one of the controller's sources.
func (c *Controller) folded(k SourceKey) bool {
	_, ok := c.warm[k]
	return ok
}
