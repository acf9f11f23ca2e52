package input

import (
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
)

// The fuzz targets share one generator: the input bytes are decoded into a sequence of
// events of every kind over a small alphabet (with chips, stray U+FFFC, surrogate pairs
// and newlines), positions taken modulo the draft, CAS spans fresh or stale, paste
// upgrades for the open paste or a closed one, and submit answers for the live attempt or
// a stale one. After every event the harness checks:
//
//   - the invariants (fixture_test.go): one U+FFFC per row, rows sorted and each on a
//     U+FFFC, the claim a prefix, the byte counts and the cached draft faithful;
//   - the shell's view: a textarea that sees the user's raw edits and applies SetView
//     holds exactly the machine's draft, with the machine's selection;
//   - that no event but a pick, undo/redo or a restored submit sets a claim;
//   - the drift guard: a restore happens only over an empty draft, a notice-only
//     failure leaves the draft alone;
//   - the model projection: a send carries each chip's serializer output, never its
//     label or clipboard text, and never happens with a chip nobody owns;
//   - every chip that leaves the draft is reported by ChipRemoved, in draft order;
//   - paste chips: a paste or an upgrade leaves the clipboard projection unchanged (the
//     harness's references project to the text they replace), and an upgrade shrinks
//     insertedRange by its length less one.
//
// Each target adds its own property.

type reader struct {
	b []byte
	i int
}

func (r *reader) more() bool { return r.i < len(r.b) }

func (r *reader) byte() int {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return int(r.b[r.i-1])
}

func (r *reader) upTo(n int) int {
	if n <= 0 {
		return 0
	}
	return r.byte() % (n + 1)
}

var alphabet = []string{"a", " ", "\n", "/", "😀", chip, "é", "/ex ", "@m"}

func (r *reader) text() string {
	s := ""
	for range 1 + r.byte()%3 {
		s += alphabet[r.byte()%len(alphabet)]
	}
	return s
}

// harness runs decoded events and remembers each undo log's starting view. It also plays
// the shell: ta is the textarea, which sees the user's raw edits and the machine's
// SetView effects, and must always hold the machine's draft.
type harness struct {
	t     *testing.T
	m     *Machine
	r     *reader
	clock int
	base  map[uint64]view
	ta    []uint16
	paste []uint16             // the open paste's text, in units
	sends map[AttemptID]string // the model projection an attempt may send; "" for none
}

// maxInput bounds a run to about a hundred events: every event is checked in O(draft), and
// long runs would mostly make the fuzzer's minimization crawl.
const maxInput = 256

func newHarness(t *testing.T, data []byte) *harness {
	if len(data) > maxInput {
		data = data[:maxInput]
	}
	// A leading 0xFF shrinks the undo ring, so that the fuzzer reaches its overflow.
	depth := 100
	if len(data) > 0 && data[0] == 0xFF {
		depth = 3
	}
	cfg := Config{Session: "f", UndoDepth: depth, Owns: func(source string) bool { return source != "@gone" }}
	h := &harness{t: t, m: New(cfg), r: &reader{b: data}, base: map[uint64]view{}, sends: map[AttemptID]string{}}
	h.base[h.m.log.epoch] = viewOf(h.m)
	return h
}

// textRef is a reference whose clipboard projection is exactly the text it replaces, so
// that turning that text into a chip must leave the clipboard projection unchanged.
func textRef(us []uint16) Reference {
	us = strays(append([]uint16(nil), us...))
	return Reference{Source: "@file", Ref: "t", Label: "t", ClipboardText: string(utf16.Decode(us))}
}

// rawText is units [s, e) of the draft with each chip replaced by its clipboard text and
// nothing added: the paste properties say that no text moved, whatever the projections
// space (a chip the harness made may sit right against a letter).
func rawText(m *Machine, s, e int) string {
	n := m.buf.Len()
	s, e = max(s, 0), min(e, n)
	if s >= e {
		return ""
	}
	var b strings.Builder
	for _, r := range m.occ.in(s, e, n) {
		b.WriteString(m.buf.stringRange(s, r.pos))
		b.WriteString(r.e.ref.ClipboardText)
		s = r.pos + 1
	}
	b.WriteString(m.buf.stringRange(s, e))
	return b.String()
}

func splice(us []uint16, s, e int, ins []uint16) []uint16 {
	return append(append(append([]uint16(nil), us[:s]...), ins...), us[e:]...)
}

func (h *harness) span() (Span, bool) {
	n := h.m.Len()
	s := h.r.upTo(n)
	e := s + h.r.upTo(n-s)
	rev := h.m.Rev()
	stale := h.r.byte()%5 == 0
	if stale {
		rev -= uint64(1 + h.r.byte()%3)
	}
	return Span{Start: s, End: e, Rev: rev}, stale
}

// textareaAfter is the textarea's value after replacing [s, e) with text.
func (h *harness) textareaAfter(s, e int, text string) (string, int) {
	us := utf16.Encode([]rune(h.m.Draft()))
	ins := utf16.Encode([]rune(text))
	out := append(append(append([]uint16(nil), us[:s]...), ins...), us[e:]...)
	return string(utf16.Decode(out)), len(ins)
}

// next decodes and dispatches one event. stale reports a bail event with a stale span.
func (h *harness) next() (ev Event, effs []Effect, stale bool) {
	m, r := h.m, h.r
	h.clock += 50 + 400*(r.byte()%4)
	t := at(h.clock)
	n := m.Len()
	switch r.byte() % 22 {
	case 0, 1, 2:
		s := r.upTo(n)
		ev = Edit{Start: s, End: s, Text: r.text(), At: t}
	case 3:
		s := r.upTo(n)
		ev = Edit{Start: s, End: s + r.upTo(min(n-s, 3)), At: t}
	case 4:
		s := r.upTo(n)
		ev = Edit{Start: s, End: s + r.upTo(n-s), Text: r.text(), At: t}
	case 5, 6:
		s := r.upTo(n)
		e := s + r.upTo(min(n-s, 3))
		text := ""
		if r.byte()%2 == 0 {
			text = r.text()
		}
		draft, k := h.textareaAfter(s, e, text)
		var hint *EditRange
		if r.byte()%2 == 0 {
			hint = &EditRange{Start: s, OldEnd: e, NewEnd: s + k}
		}
		ev = DraftChanged{Draft: draft, Hint: hint, At: t}
	case 7:
		s := r.upTo(n)
		ev = Newline{Selection: Range{s, s + r.upTo(n-s)}, At: t}
	case 8:
		sp, st := h.span()
		if r.byte()%2 == 0 {
			sp.Start = 0
		}
		ev, stale = BeginCommand{Claim: Claim{Token: "/ex ", Hint: "<x>"}, Span: sp}, st
	case 9:
		sp, st := h.span()
		rf := ref(alphabet[r.byte()%len(alphabet)])
		if r.byte()%4 == 0 {
			rf.Source = "@gone" // no serializer owns it: a submit must send nothing
		}
		ev, stale = InsertRef{Reference: rf, Span: sp}, st
	case 10:
		sp, st := h.span()
		ev, stale = InsertText{Text: r.text(), Span: sp}, st
	case 11:
		if r.byte()%2 == 0 {
			ev = ConsumeToken{Token: "/ex "}
		} else {
			sp, st := h.span()
			ev, stale = ConsumeToken{Span: sp}, st
		}
	case 12, 13:
		ev = Undo{}
	case 14:
		ev = Redo{}
	case 15:
		text := r.text() + r.text() + r.text()
		k := len(utf16.Encode([]rune(text)))
		us := utf16.Encode([]rune(text))
		var comps []Component
		for range r.byte() % 3 {
			s := r.upTo(k)
			e := s + r.upTo(k-s)
			comps = append(comps, Component{Range: Range{s, e}, Reference: textRef(us[s:e])})
		}
		s := r.upTo(n)
		ev = PasteBegin{Text: text, Selection: Range{s, s + r.upTo(n-s)}, Components: comps, At: t}
	case 16:
		id, _, _ := m.Paste()
		id += PasteID(r.byte() % 2)
		s := r.upTo(12)
		e := s + r.upTo(4)
		rf := ref("u")
		if e <= len(h.paste) {
			rf = textRef(h.paste[s:e])
		}
		ups := []Component{{Range{s, e}, rf}}
		for range r.byte() % 3 { // the matcher's answer: a few ranges in one transaction
			s := r.upTo(12)
			e := s + r.upTo(4)
			rf := ref("u")
			if e <= len(h.paste) {
				rf = textRef(h.paste[s:e])
			}
			ups = append(ups, Component{Range{s, e}, rf})
		}
		ev, stale = PasteUpgrades{Paste: id, Upgrades: ups}, m.paste == nil || m.paste.id != id
	case 17:
		ev = InvalidatePaste{}
	case 18:
		ev = Submit{Mode: Mode(r.byte() % 2)}
	case 19:
		ev = h.answer()
	case 20:
		ev = Release{}
	case 21:
		var ids []OccurrenceID
		for _, o := range m.Occurrences() {
			if r.byte()%2 == 0 {
				ids = append(ids, o.ID)
			}
		}
		ev = SetInvalid{IDs: ids}
	}
	if a, ok := answerOf(ev); ok && (m.attempt == nil || m.attempt.id != a) {
		stale = true // an answer for an attempt that is not the live one
	}
	effs = h.dispatch(ev)
	return ev, effs, stale
}

// dispatch runs ev through the machine and the mirrored textarea, and checks the
// invariants and the properties every event must keep.
func (h *harness) dispatch(ev Event) []Effect {
	m := h.m
	claim, persist, draft := m.claim, rawText(m, 0, m.Len()), viewOf(m)
	_, before, pasteOpen := m.Paste()
	switch ev := ev.(type) {
	case Edit:
		h.ta = splice(h.ta, ev.Start, ev.End, utf16.Encode([]rune(ev.Text)))
	case DraftChanged:
		h.ta = utf16.Encode([]rune(ev.Draft))
	}
	if _, ok := ev.(Submit); ok && m.attempt == nil {
		// Every serializer answers "<s>" (see answer): that is the only text this draft
		// may be sent as. A chip nobody owns means nothing may be sent at all.
		sent := expandWords(m.buf, m.occ, 0, m.buf.Len(), func(e *entry) string {
			if e.ref.Source == "@gone" {
				return "\x00"
			}
			return "<s>"
		})
		h.sends[AttemptID{Session: "f", Seq: m.seq + 1}] = sent
	}
	effs := m.Dispatch(ev)
	if err := invariants(m); err != nil {
		h.t.Fatalf("after %#v: %v", ev, err)
	}
	restored := false
	var lastSel *Range
	for _, e := range effs {
		switch e := e.(type) {
		case SetView:
			if e.Start < 0 || e.End < e.Start || e.End > len(h.ta) {
				h.t.Fatalf("after %#v: SetView %+v outside the textarea (%d units)", ev, e, len(h.ta))
			}
			h.ta = splice(h.ta, e.Start, e.End, utf16.Encode([]rune(e.Text)))
			lastSel = &Range{e.SelStart, e.SelEnd}
		case Notice:
			// The drift guard: the Enter-time draft comes back only over the empty draft
			// Enter left; otherwise the user's typing stays untouched.
			_, enter := ev.(Submit) // an Enter refused at once gives its own draft back
			if e.Restored && enter && !reflect.DeepEqual(viewOf(m), draft) {
				h.t.Fatalf("%#v failed at once but changed the draft %#v to %#v", ev, draft, viewOf(m))
			}
			if e.Restored && !enter && draft.Draft != "" {
				h.t.Fatalf("%#v restored the submitted draft over %q", ev, draft.Draft)
			}
			if !e.Restored && !reflect.DeepEqual(viewOf(m), draft) {
				h.t.Fatalf("%#v: a notice-only failure changed the draft %#v to %#v", ev, draft, viewOf(m))
			}
			restored = restored || e.Restored
		case MatchPaste:
			h.paste = utf16.Encode([]rune(e.Text))
		case DefaultSink:
			h.sent(ev, e.Attempt, e.Text)
		case BeginSubmit:
			h.sent(ev, e.Attempt, e.Text)
		}
	}
	if sel := m.Selection(); lastSel != nil && *lastSel != sel {
		h.t.Fatalf("after %#v: SetView selects %v, the machine %v", ev, *lastSel, sel)
	}
	if got, want := string(utf16.Decode(h.ta)), m.Draft(); got != want {
		h.t.Fatalf("after %#v with effects %#v:\nthe textarea holds %q\nthe machine holds  %q", ev, effs, got, want)
	}
	// Command mode is never derived from the draft: only a pick path, undo/redo or a
	// restored submit can set a claim.
	switch ev.(type) {
	case BeginCommand, Undo, Redo:
	default:
		if c := m.claim; c != claim && c.Token != "" && !restored {
			h.t.Fatalf("%#v set the claim %q", ev, c.Token)
		}
	}
	// Paste chips replace exactly the text their clipboard projection holds (the harness
	// builds them so): a paste lands as the text itself, an upgrade changes nothing.
	if _, ok := ev.(PasteBegin); ok && Rewrote(effs) {
		_, in, _ := m.Paste()
		if got, want := rawText(m, in.Start, in.End), string(utf16.Decode(strays(append([]uint16(nil), h.paste...)))); got != want {
			h.t.Fatalf("%#v: the pasted range projects to %q, want %q", ev, got, want)
		}
	}
	if _, ok := ev.(PasteUpgrades); ok && Rewrote(effs) {
		if got := rawText(m, 0, m.Len()); got != persist {
			h.t.Fatalf("%#v moved text: %q became %q", ev, persist, got)
		}
		v := effs[len(effs)-1].(SetView)
		_, after, open := m.Paste()
		if !pasteOpen || !open || after.Start != before.Start || after.End != before.End-(v.End-v.Start-len(utf16.Encode([]rune(v.Text)))) {
			h.t.Fatalf("%#v: insertedRange %v became %v", ev, before, after)
		}
	}
	// A chip that leaves the draft is reported, exactly once; submit-plane events move
	// whole drafts in and out of the snapshot and report nothing.
	var reported []OccurrenceID
	for _, e := range effs {
		if c, ok := e.(ChipRemoved); ok {
			reported = append(reported, c.ID)
		}
	}
	_, answer := answerOf(ev)
	switch ev.(type) {
	case Submit, Release:
	default:
		if !answer {
			var gone []OccurrenceID
			now := m.Occurrences()
			for _, o := range draft.Occs {
				if !slices.ContainsFunc(now, func(p Occurrence) bool { return p.ID == o.ID }) {
					gone = append(gone, o.ID)
				}
			}
			if !reflect.DeepEqual(reported, gone) {
				h.t.Fatalf("%#v removed chips %v, reported %v", ev, gone, reported)
			}
		}
	}
	if _, ok := h.base[m.log.epoch]; !ok {
		h.base[m.log.epoch] = viewOf(m)
	}
	return effs
}

// sent checks a send against the model projection: never a chip's label or clipboard
// text in place of its serializer's output, never a chip whose source has no owner.
func (h *harness) sent(ev Event, id AttemptID, text string) {
	want, ok := h.sends[id]
	if !ok || strings.Contains(want, "\x00") || text != want {
		h.t.Fatalf("after %#v: attempt %v sent %q, its model projection is %q", ev, id, text, want)
	}
}

// answerOf is the attempt a submit-plane answer names.
func answerOf(ev Event) (AttemptID, bool) {
	switch ev := ev.(type) {
	case Adjudicated:
		return ev.Attempt, true
	case AdjudicationFailed:
		return ev.Attempt, true
	case Serialized:
		return ev.Attempt, true
	case SubmitSettled:
		return ev.Attempt, true
	}
	return AttemptID{}, false
}

// answer is a submit-plane answer for the live attempt, or a stale one.
func (h *harness) answer() Event {
	r := h.r
	id := AttemptID{Session: "f", Seq: h.m.seq - uint64(r.byte()%2)}
	var err error
	if r.byte()%3 == 0 {
		err = errors.New("no")
	}
	switch r.byte() % 4 {
	case 0:
		if r.byte()%2 == 0 {
			return Adjudicated{Attempt: id, Claim: Claim{Token: "/ex "}}
		}
		return Adjudicated{Attempt: id}
	case 1:
		return AdjudicationFailed{Attempt: id, Err: errors.New("no")}
	case 2:
		var ids []OccurrenceID
		if a := h.m.attempt; a != nil {
			for k := range a.want {
				ids = append(ids, k)
			}
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		if len(ids) == 0 {
			return Serialized{Attempt: id, ID: 1, Err: err}
		}
		return Serialized{Attempt: id, ID: ids[r.byte()%len(ids)], Text: "<s>", Err: err}
	default:
		return SubmitSettled{Attempt: id, Err: err}
	}
}

func seeds(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x00\x05\x00\x09\x03\x00\x00\x0c\x00\x0e"))
	f.Add([]byte("hello world, this is a slightly longer seed of events to chew on"))
	f.Add([]byte{0, 15, 1, 2, 3, 4, 5, 2, 0, 16, 0, 4, 0, 16, 1, 1, 0, 12, 0, 12, 0, 14})
	f.Add([]byte{0, 0, 0, 4, 3, 0, 8, 0, 0, 1, 0, 0, 18, 0, 0, 19, 0, 0, 0, 0, 0, 19, 0, 0, 2, 0, 0, 19, 0, 0, 3})
	f.Add([]byte{0, 9, 0, 0, 1, 0, 0, 5, 2, 0, 0, 0, 4, 0, 6, 1, 1, 0, 0, 1, 5, 0, 12})
	// A ring of 3 overflowing: six separate keystrokes, undo past the ring, redo.
	f.Add([]byte{0xFF, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0,
		0, 12, 0, 12, 0, 12, 0, 12, 0, 14})
	// A chip nobody owns, submitted: adjudicated to the default sink, refused, restored.
	f.Add([]byte{0, 9, 1, 0, 0, 0, 18, 0, 0, 19, 0, 1, 0, 1})
}

// fuzz runs body on a harness over each input, seeded with seeds.
func fuzz(f *testing.F, body func(t *testing.T, h *harness)) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { body(t, newHarness(t, data)) })
}

// FuzzTable: one U+FFFC per row, rows sorted and on a U+FFFC (checked after every event
// by the harness), under every event.
func FuzzTable(f *testing.F) {
	fuzz(f, func(t *testing.T, h *harness) {
		for h.r.more() {
			h.next()
		}
	})
}

// FuzzUndoRedo: after any event, Undo followed by Redo is the identity.
func FuzzUndoRedo(f *testing.F) {
	fuzz(f, func(t *testing.T, h *harness) {
		for h.r.more() {
			h.next()
			if !h.m.CanUndo() {
				continue
			}
			before := viewOf(h.m)
			h.dispatch(Undo{})
			h.dispatch(Redo{})
			if after := viewOf(h.m); !reflect.DeepEqual(after, before) {
				t.Fatalf("undo+redo changed the state:\n got: %#v\nwant: %#v", after, before)
			}
		}
	})
}

// FuzzUndoAll: undoing everything returns the state the undo log started from (the
// initial one, or the one a submit left), unless the ring has dropped records.
func FuzzUndoAll(f *testing.F) {
	fuzz(f, func(t *testing.T, h *harness) {
		for h.r.more() {
			h.next()
		}
		if h.m.log.dropped {
			return
		}
		for h.m.CanUndo() {
			h.dispatch(Undo{})
		}
		if got, want := viewOf(h.m), h.base[h.m.log.epoch]; !reflect.DeepEqual(got, want) {
			t.Fatalf("undoing everything:\n got: %#v\nwant: %#v", got, want)
		}
	})
}

// FuzzStaleCAS: a bail event whose span is stale, a paste upgrade for a closed paste, or
// a submit answer for an attempt that is not the live one never rewrites: no SetView,
// the same draft, chips, claim and draftRev.
func FuzzStaleCAS(f *testing.F) {
	fuzz(f, func(t *testing.T, h *harness) {
		for h.r.more() {
			before, rev := viewOf(h.m), h.m.Rev()
			ev, effs, stale := h.next()
			if !stale {
				continue
			}
			if Rewrote(effs) || h.m.Rev() != rev || !reflect.DeepEqual(viewOf(h.m), before) {
				t.Fatalf("stale %#v rewrote: effects %#v", ev, effs)
			}
			if _, answer := answerOf(ev); answer {
				if len(effs) != 0 {
					t.Fatalf("stale %#v: effects %#v", ev, effs)
				}
				continue
			}
			if !reflect.DeepEqual(effs, []Effect{Refused{Reason: Stale}}) && !reflect.DeepEqual(effs, []Effect{Refused{Reason: Busy}}) {
				t.Fatalf("stale %#v: effects %#v", ev, effs)
			}
		}
	})
}
