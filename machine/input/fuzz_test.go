package input

import (
	"errors"
	"reflect"
	"sort"
	"testing"
	"unicode/utf16"
)

// The fuzz targets share one generator: the input bytes are decoded into a sequence of
// events over a small alphabet (with chips, stray U+FFFC, surrogate pairs and
// newlines), positions taken modulo the draft, CAS spans fresh or stale, and submit
// answers for the live attempt or a stale one. Every target checks the machine's
// invariants after every event; each adds its own property.

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

// harness runs decoded events and remembers each undo log's starting view.
type harness struct {
	t     *testing.T
	m     *Machine
	r     *reader
	clock int
	base  map[uint64]view
}

func newHarness(t *testing.T, data []byte) *harness {
	h := &harness{t: t, m: New(Config{Session: "f", UndoDepth: 100}), r: &reader{b: data}, base: map[uint64]view{}}
	h.base[h.m.log.epoch] = viewOf(h.m)
	return h
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
		ev, stale = InsertRef{Reference: ref(alphabet[r.byte()%len(alphabet)]), Span: sp}, st
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
		var comps []Component
		for range r.byte() % 3 {
			s := r.upTo(k)
			comps = append(comps, Component{Range: Range{s, s + r.upTo(k-s)}, Reference: ref("p")})
		}
		s := r.upTo(n)
		ev = PasteBegin{Text: text, Selection: Range{s, s + r.upTo(n-s)}, Components: comps, At: t}
	case 16:
		id, _, _ := m.Paste()
		id += PasteID(r.byte() % 2)
		s := r.upTo(12)
		ev = PasteUpgrade{Paste: id, Range: Range{s, s + r.upTo(4)}, Reference: ref("u")}
	case 17:
		ev = InvalidatePaste{}
	case 18:
		ev = Enter{Mode: Mode(r.byte() % 2)}
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
	effs = m.Dispatch(ev)
	if err := invariants(m); err != nil {
		h.t.Fatalf("after %#v: %v", ev, err)
	}
	if _, ok := h.base[m.log.epoch]; !ok {
		h.base[m.log.epoch] = viewOf(m)
	}
	return ev, effs, stale
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
}

// FuzzTable: one U+FFFC per row, rows sorted and on a U+FFFC (checked after every event
// by the harness), under every event.
func FuzzTable(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHarness(t, data)
		for h.r.more() {
			h.next()
		}
	})
}

// FuzzUndoRedo: after any event, Undo followed by Redo is the identity.
func FuzzUndoRedo(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHarness(t, data)
		for h.r.more() {
			h.next()
			if !h.m.CanUndo() {
				continue
			}
			before := viewOf(h.m)
			h.m.Dispatch(Undo{})
			h.m.Dispatch(Redo{})
			if err := invariants(h.m); err != nil {
				t.Fatal(err)
			}
			if after := viewOf(h.m); !reflect.DeepEqual(after, before) {
				t.Fatalf("undo+redo changed the state:\n got: %#v\nwant: %#v", after, before)
			}
		}
	})
}

// FuzzUndoAll: undoing everything returns the state the undo log started from (the
// initial one, or the one a submit left), unless the ring has dropped records.
func FuzzUndoAll(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHarness(t, data)
		for h.r.more() {
			h.next()
		}
		if h.m.log.dropped {
			return
		}
		for h.m.CanUndo() {
			h.m.Dispatch(Undo{})
			if err := invariants(h.m); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := viewOf(h.m), h.base[h.m.log.epoch]; !reflect.DeepEqual(got, want) {
			t.Fatalf("undoing everything:\n got: %#v\nwant: %#v", got, want)
		}
	})
}

// FuzzStaleCAS: a bail event whose span is stale never rewrites: no SetView, the same
// draft, chips, claim and draftRev.
func FuzzStaleCAS(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHarness(t, data)
		for h.r.more() {
			before, rev := viewOf(h.m), h.m.Rev()
			ev, effs, stale := h.next()
			if !stale {
				continue
			}
			if Rewrote(effs) || h.m.Rev() != rev || !reflect.DeepEqual(viewOf(h.m), before) {
				t.Fatalf("stale %#v rewrote: effects %#v", ev, effs)
			}
			if !reflect.DeepEqual(effs, []Effect{Refused{Reason: Stale}}) && !reflect.DeepEqual(effs, []Effect{Refused{Reason: Busy}}) {
				t.Fatalf("stale %#v: effects %#v", ev, effs)
			}
		}
	})
}
