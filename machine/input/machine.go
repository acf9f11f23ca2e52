package input

import (
	"time"

	"parley/machine/utf16x"
)

// Config configures a Machine.
type Config struct {
	// Session names the machine's session in AttemptIDs.
	Session string
	// Owns reports whether a serializer is registered for a chip source. When it says no
	// for a chip at submit, nothing is sent. Nil leaves the decision to the shell, which
	// answers Serialized with ErrNoOwner.
	Owns func(source string) bool
	// MergeWindow is how close (by the events' At) single-character typing, or erasing,
	// must be to merge into one undo step. Zero means one second.
	MergeWindow time.Duration
	// UndoDepth is the size of the undo ring. Zero means 100.
	UndoDepth int
}

// Machine is the input state machine. Its zero value is not usable; call New.
type Machine struct {
	cfg Config

	buf    *buffer
	occ    *table
	claim  Claim
	claimU []uint16 // claim.Token in units, for the prefix watch
	rev    uint64
	sel    Range

	// cache is the draft as a string when cached is set. A full-draft event leaves its
	// Draft here at no cost, so the next prefix/suffix scan has something to compare.
	cache  string
	cached bool

	log     *history
	epochs  uint64
	invalid map[OccurrenceID]bool
	nextID  OccurrenceID

	paste    *pasteAttempt
	pasteSeq PasteID

	attempt *attempt
	seq     uint64

	scratch []uint16
}

// New returns a machine with an empty draft at Rev 1.
func New(cfg Config) *Machine {
	if cfg.MergeWindow == 0 {
		cfg.MergeWindow = time.Second
	}
	if cfg.UndoDepth <= 0 {
		cfg.UndoDepth = 100
	}
	m := &Machine{cfg: cfg, buf: &buffer{}, occ: &table{}, rev: 1, cached: true}
	m.log = m.newHistory()
	return m
}

// Dispatch applies one event as one transaction and returns the effects for the shell.
func (m *Machine) Dispatch(ev Event) []Effect {
	switch ev := ev.(type) {
	case Edit:
		return m.onEdit(ev)
	case DraftChanged:
		return m.onDraftChanged(ev)
	case Newline:
		return m.onNewline(ev)
	case TypeIn:
		return m.onTypeIn(ev)
	case BeginCommand:
		return m.onBeginCommand(ev)
	case InsertRef:
		return m.onInsertRef(ev)
	case InsertText:
		return m.onInsertText(ev)
	case ConsumeToken:
		return m.onConsumeToken(ev)
	case SetInvalid:
		m.invalid = make(map[OccurrenceID]bool, len(ev.IDs))
		for _, id := range ev.IDs {
			m.invalid[id] = true
		}
		return nil
	case Undo:
		return m.undo()
	case Redo:
		return m.redo()
	case PasteBegin:
		return m.onPasteBegin(ev)
	case PasteUpgrades:
		return m.onPasteUpgrades(ev.Paste, ev.Upgrades)
	case InvalidatePaste:
		m.paste = nil
		return nil
	case Submit:
		return m.onSubmit(ev)
	case Adjudicated:
		return m.onAdjudicated(ev)
	case AdjudicationFailed:
		return m.onAdjudicationFailed(ev)
	case Serialized:
		return m.onSerialized(ev)
	case SubmitSettled:
		return m.onSubmitSettled(ev)
	case Release:
		return m.onRelease()
	}
	return nil
}

// Rev is draftRev: it changes with every transaction that changes the draft.
func (m *Machine) Rev() uint64 { return m.rev }

// Len is the draft's length in UTF-16 code units.
func (m *Machine) Len() int { return m.buf.Len() }

// Draft is the draft, chips as U+FFFC. It materializes a string only when the last
// transaction did not leave one.
func (m *Machine) Draft() string {
	if !m.cached {
		m.cache = m.buf.String()
		m.cached = true
	}
	return m.cache
}

// Slice is units [start, end) of the draft (clamped to it), chips as U+FFFC. It costs
// O(end-start): the shell reads the few characters around an edit without materializing
// the whole draft.
func (m *Machine) Slice(start, end int) string {
	start, end = max(start, 0), min(end, m.buf.Len())
	return m.buf.stringRange(start, end)
}

// Phase is the current phase.
func (m *Machine) Phase() Phase {
	switch {
	case m.attempt != nil && m.attempt.stage == stageAdjudicating:
		return Adjudicating
	case m.attempt != nil:
		return Submitting
	case m.claim.Token != "":
		return Claimed
	}
	return Plain
}

// Claim is the current claim; ok is false when there is none.
func (m *Machine) Claim() (c Claim, ok bool) { return m.claim, m.claim.Token != "" }

// Ghost is the ghost text to draw after the draft: the claim's hint, while nothing has
// been typed after the token.
func (m *Machine) Ghost() string {
	if m.claim.Token != "" && m.buf.Len() == len(m.claimU) {
		return m.claim.Hint
	}
	return ""
}

// Selection is where the machine last put the selection.
func (m *Machine) Selection() Range { return m.sel }

// Occurrences is the occurrence table in draft order.
func (m *Machine) Occurrences() []Occurrence {
	n := m.buf.Len()
	out := make([]Occurrence, len(m.occ.rows))
	for i, r := range m.occ.rows {
		out[i] = Occurrence{ID: r.e.id, Reference: r.e.ref, Offset: m.occ.pos(i, n), Invalid: m.invalid[r.e.id]}
	}
	return out
}

// Attempt is the submit attempt in flight, if any.
func (m *Machine) Attempt() (AttemptID, bool) {
	if m.attempt == nil {
		return AttemptID{}, false
	}
	return m.attempt.id, true
}

// Paste is the open paste match attempt and its insertedRange, if any.
func (m *Machine) Paste() (id PasteID, inserted Range, ok bool) {
	if m.paste == nil {
		return 0, Range{}, false
	}
	return m.paste.id, Range{m.paste.start, m.paste.start + m.paste.n}, true
}

// CanUndo reports whether Undo would change anything.
func (m *Machine) CanUndo() bool { return m.log.cur > 0 }

// CanRedo reports whether Redo would change anything.
func (m *Machine) CanRedo() bool { return m.log.cur < len(m.log.recs) }

// State is a read-only copy of what a view needs.
type State struct {
	Draft       string
	Rev         uint64
	Phase       Phase
	Claim       Claim
	Selection   Range
	Occurrences []Occurrence
}

// State returns a copy of the machine's state.
func (m *Machine) State() State {
	return State{Draft: m.Draft(), Rev: m.rev, Phase: m.Phase(), Claim: m.claim, Selection: m.sel, Occurrences: m.Occurrences()}
}

func (m *Machine) setClaim(c Claim) {
	if c == m.claim {
		return
	}
	m.claim = c
	m.claimU = nil
	if c.Token != "" {
		m.claimU = utf16x.Append(nil, c.Token)
	}
}

// watchClaim releases the claim once the draft stops starting with its token.
func (m *Machine) watchClaim() {
	if m.claim.Token != "" && !m.buf.hasPrefix(m.claimU) {
		m.setClaim(Claim{})
	}
}

// splitsPair reports whether offset p falls inside a surrogate pair.
func (m *Machine) splitsPair(p int) bool {
	return p > 0 && p < m.buf.Len() && utf16x.IsLow(m.buf.at(p)) && utf16x.IsHigh(m.buf.at(p-1))
}

// edit is one transaction on the draft: replace [s, e) with ins, adding chips add.
type edit struct {
	s, e  int
	ins   []uint16 // may alias m.scratch; the record copies it
	add   []placed
	claim *Claim // the claim to set after the edit (BeginCommand)
	at    time.Time

	view   bool // emit SetView
	typed  bool // the textarea already shows the raw edit; SetView is in its coordinates
	rawEnd int  // when typed: where the region SetView replaces ends in the textarea

	group     group // a single keystroke's edit, which may merge into the last undo record
	keepPaste bool  // a paste upgrade keeps its attempt open

	// sel, when set, is the selection after the edit; otherwise the caret goes after the
	// insertion. An asynchronous paste upgrade must not move the user's caret.
	sel *Range
}

// apply runs an edit: the table, the buffer, the claim and draftRev in one step, then
// the undo record and the effects.
func (m *Machine) apply(x edit) []Effect {
	n := m.buf.Len()
	claimBefore := m.claim
	var del []uint16
	if x.e > x.s {
		del = m.buf.appendRange(nil, x.s, x.e)
	}
	removed := m.occ.replace(x.s, x.e, n, x.add)
	m.buf.replace(x.s, x.e, x.ins)
	if x.claim != nil {
		m.setClaim(*x.claim)
	}
	m.watchClaim()
	caret := x.s + len(x.ins)
	m.sel = Range{caret, caret}
	if x.sel != nil {
		m.sel = *x.sel
	}
	m.rev++
	m.cached = false
	if !x.keepPaste {
		m.paste = nil
	}

	if len(removed) > 0 {
		x.group = groupNone // a chip erased is a step of its own
	}
	if !(x.group != groupNone && claimBefore == m.claim && m.log.merge(x, del, m.cfg.MergeWindow)) {
		m.log.push(&change{
			pos: x.s, del: del, ins: clone(x.ins),
			delOccs: removed, insOccs: clone(x.add),
			claimBefore: claimBefore, claimAfter: m.claim,
			selBefore: Range{x.s, x.e}, selAfter: m.sel,
			at: x.at, group: x.group,
		}, m.cfg.UndoDepth)
	}

	effs := chipsRemoved(nil, removed, x.add)
	if x.view {
		end := x.e
		if x.typed {
			end = x.rawEnd
		}
		effs = append(effs, SetView{Start: x.s, End: end, Text: utf16x.String(x.ins), SelStart: m.sel.Start, SelEnd: m.sel.End})
	}
	return effs
}

// chipsRemoved reports the chips an edit removed, but not those it puts back (add): a
// batch of paste upgrades splices the chips between its ranges back as they were.
func chipsRemoved(effs []Effect, removed, add []placed) []Effect {
	var back map[*entry]bool
	if len(removed) > 0 && len(add) > 0 {
		back = make(map[*entry]bool, len(add))
		for _, a := range add {
			back[a.e] = true
		}
	}
	for _, r := range removed {
		if !back[r.e] {
			effs = append(effs, ChipRemoved{ID: r.e.id, Reference: r.e.ref})
		}
	}
	return effs
}

func clone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append([]T(nil), s...)
}
