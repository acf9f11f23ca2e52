package input

import (
	"errors"
	"strings"
	"unicode"

	"parley/machine/enum"
)

// stage is where a submit attempt stands.
type stage int

const (
	stageAdjudicating stage = iota // waiting for Adjudicated
	stageSerializing               // waiting for Serialized, one per chip
	stageSending                   // waiting for SubmitSettled
)

var stageNames = [...]string{"adjudicating", "serializing", "sending"}

func (s stage) String() string { return enum.Name(stageNames[:], s) }

// snapshot is the draft as Enter found it. Enter moves the live buffer, table and undo
// log here and starts fresh ones, so taking it copies nothing.
type snapshot struct {
	buf    *buffer
	occ    *table
	claim  Claim
	claimU []uint16
	log    *history
	sel    Range
	text   string
}

// attempt is a SubmitAttempt. Its id is the stale guard: a result naming any other
// attempt is ignored. Abort{id} is its abort handle.
type attempt struct {
	id    AttemptID
	mode  Mode
	stage stage
	route Claim // the claim to submit through; zero for the default sink
	snap  snapshot
	texts map[OccurrenceID]string // model projections received
	want  map[OccurrenceID]bool   // chips still being serialized
}

func (m *Machine) onSubmit(ev Submit) []Effect {
	if m.attempt != nil {
		return refused(Busy)
	}
	if m.claim.Token == "" && m.blank() {
		return refused(Empty)
	}
	m.seq++
	a := &attempt{id: AttemptID{Session: m.cfg.Session, Seq: m.seq}, mode: ev.Mode}
	a.snap = snapshot{buf: m.buf, occ: m.occ, claim: m.claim, claimU: m.claimU, log: m.log, sel: m.sel, text: m.Draft()}
	n := m.buf.Len()
	m.buf, m.occ, m.log = &buffer{}, &table{}, m.newHistory()
	m.claim, m.claimU, m.sel = Claim{}, nil, Range{}
	m.cache, m.cached = "", true
	m.paste = nil
	m.rev++
	m.attempt = a
	effs := []Effect{SetView{Start: 0, End: n}}
	if a.snap.claim.Token != "" {
		a.route = a.snap.claim
		return m.route(a, effs)
	}
	return append(effs, Adjudicate{Attempt: a.id, Draft: a.snap.text, Mode: a.mode})
}

// blank reports whether the draft has nothing to send: no chip, only white space.
func (m *Machine) blank() bool {
	for i := range m.buf.Len() {
		if u := m.buf.at(i); !unicode.IsSpace(rune(u)) {
			return false
		}
	}
	return true
}

// current returns the attempt an answer names, if it is the live one and at stage s.
func (m *Machine) current(id AttemptID, s stage) *attempt {
	if a := m.attempt; a != nil && a.id == id && a.stage == s {
		return a
	}
	return nil
}

func (m *Machine) onAdjudicated(ev Adjudicated) []Effect {
	a := m.current(ev.Attempt, stageAdjudicating)
	if a == nil {
		return nil
	}
	a.route = ev.Claim
	return m.route(a, nil)
}

func (m *Machine) onAdjudicationFailed(ev AdjudicationFailed) []Effect {
	a := m.current(ev.Attempt, stageAdjudicating)
	if a == nil {
		return nil
	}
	return m.fail(a, AdjudicationFailedNotice, errText(ev.Err), nil)
}

// route starts the model projection: one Serialize per chip, after checking owners, so
// that a missing owner sends nothing and never degrades to the chip's text.
func (m *Machine) route(a *attempt, effs []Effect) []Effect {
	rows := a.snap.occ.in(0, a.snap.buf.Len(), a.snap.buf.Len())
	if len(rows) == 0 {
		return m.send(a, effs)
	}
	if m.cfg.Owns != nil {
		for _, r := range rows {
			if !m.cfg.Owns(r.e.ref.Source) {
				return m.fail(a, NoOwnerNotice, r.e.ref.Source, effs)
			}
		}
	}
	a.stage = stageSerializing
	a.texts = make(map[OccurrenceID]string, len(rows))
	a.want = make(map[OccurrenceID]bool, len(rows))
	for _, r := range rows {
		a.want[r.e.id] = true
		effs = append(effs, Serialize{Attempt: a.id, ID: r.e.id, Source: r.e.ref.Source, Ref: r.e.ref.Ref})
	}
	return effs
}

func (m *Machine) onSerialized(ev Serialized) []Effect {
	a := m.current(ev.Attempt, stageSerializing)
	if a == nil || !a.want[ev.ID] {
		return nil
	}
	if ev.Err != nil {
		kind := SerializeFailedNotice
		if errors.Is(ev.Err, ErrNoOwner) {
			kind = NoOwnerNotice
		}
		return m.fail(a, kind, errText(ev.Err), []Effect{Abort{Attempt: a.id}})
	}
	delete(a.want, ev.ID)
	a.texts[ev.ID] = ev.Text
	if len(a.want) > 0 {
		return nil
	}
	return m.send(a, nil)
}

// send emits the model projection to the route.
func (m *Machine) send(a *attempt, effs []Effect) []Effect {
	a.stage = stageSending
	text := expandWords(a.snap.buf, a.snap.occ, 0, a.snap.buf.Len(), func(e *entry) string { return a.texts[e.id] })
	if a.route.Token != "" {
		return append(effs, BeginSubmit{Attempt: a.id, Claim: a.route, Text: text, Mode: a.mode})
	}
	return append(effs, DefaultSink{Attempt: a.id, Text: text, Mode: a.mode})
}

func (m *Machine) onSubmitSettled(ev SubmitSettled) []Effect {
	a := m.current(ev.Attempt, stageSending)
	if a == nil {
		return nil
	}
	if ev.Err != nil {
		return m.fail(a, SendFailedNotice, errText(ev.Err), nil)
	}
	// Committed: the snapshot and its log go, and so does the log of anything typed
	// while the attempt was in flight.
	m.attempt = nil
	m.log = m.newHistory()
	return nil
}

func (m *Machine) onRelease() []Effect {
	if a := m.attempt; a != nil {
		return m.fail(a, CanceledNotice, "", []Effect{Abort{Attempt: a.id}})
	}
	if m.claim.Token != "" {
		m.releaseClaim()
	}
	return nil
}

// fail ends the attempt without sending. The drift guard: the snapshot comes back only
// while the live draft is still the empty one Enter left; otherwise the user's new
// typing stays and the unsent text travels in the notice.
func (m *Machine) fail(a *attempt, kind NoticeKind, detail string, effs []Effect) []Effect {
	m.attempt = nil
	s := a.snap
	if m.buf.Len() != 0 {
		text := expandWords(s.buf, s.occ, 0, s.buf.Len(), clipboardText)
		return append(effs, Notice{Kind: kind, Attempt: a.id, Detail: detail, Draft: text})
	}
	m.buf, m.occ, m.log = s.buf, s.occ, s.log
	m.claim, m.claimU, m.sel = s.claim, s.claimU, s.sel
	m.cache, m.cached = s.text, true
	m.paste = nil
	m.rev++
	return append(effs,
		SetView{Start: 0, End: 0, Text: s.text, SelStart: s.sel.Start, SelEnd: s.sel.End},
		Notice{Kind: kind, Attempt: a.id, Detail: detail, Restored: true})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// expandWords is the one text projection of units [s, e) of buf (clamped): each chip
// replaced by text(chip), kept apart from a letter, a digit or another chip right beside it
// (inside the range) by a space. A chip is drawn as a word of its own, so "look at ￼and"
// reads "look at @README.md and" on the screen, and the model, the clipboard and the saved
// draft must all get those words, not "@README.mdand" (QA round 14 #2: the send spaced it,
// the copy and the draft restored after a reload did not).
func expandWords(buf *buffer, occ *table, s, e int, text func(*entry) string) string {
	n := buf.Len()
	s, e = max(s, 0), min(e, n)
	if s >= e {
		return ""
	}
	rows := occ.in(s, e, n)
	if len(rows) == 0 {
		return buf.stringRange(s, e)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(buf.stringRange(s, r.pos))
		if r.pos > s && fuses(buf.runeBefore(r.pos)) {
			b.WriteByte(' ')
		}
		b.WriteString(text(r.e))
		s = r.pos + 1
		if s < e && (buf.at(s) == placeholderUnit || fuses(buf.runeAt(s))) {
			b.WriteByte(' ')
		}
	}
	b.WriteString(buf.stringRange(s, e))
	return b.String()
}

// fuses reports whether r would run into a chip's text beside it.
func fuses(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
