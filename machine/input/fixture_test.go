package input

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"parley/machine/utf16x"
)

// The fixture language: a draft as text, "|" for the caret, "[" and "]" around a
// selection, and ￼ for a chip. Chips get refs r1, r2, ... in order, unless given.

const chip = "\uFFFC"

func ref(name string) Reference {
	return Reference{Source: "@file", Ref: name, Label: name, ClipboardText: "@" + name}
}

// parse splits a fixture into the draft and the selection, in UTF-16 units.
func parse(fixture string) (string, Range) {
	var b strings.Builder
	sel := Range{-1, -1}
	n := 0
	for _, r := range fixture {
		switch r {
		case '|':
			sel = Range{n, n}
		case '[':
			sel.Start = n
		case ']':
			sel.End = n
		default:
			b.WriteRune(r)
			n += len(utf16.Encode([]rune{r}))
		}
	}
	if sel.Start < 0 {
		sel = Range{n, n}
	}
	return b.String(), sel
}

// build returns a machine holding the fixture, with a clean undo log.
func build(t testing.TB, fixture string, refs ...Reference) *Machine {
	t.Helper()
	return buildCfg(t, Config{Session: "s"}, fixture, refs...)
}

func buildCfg(t testing.TB, cfg Config, fixture string, refs ...Reference) *Machine {
	t.Helper()
	m := New(cfg)
	load(t, m, fixture, refs...)
	return m
}

// load makes the fixture the machine's live draft (which must be empty), with a clean
// undo log and no paste attempt open.
func load(t testing.TB, m *Machine, fixture string, refs ...Reference) {
	t.Helper()
	if m.Len() != 0 {
		t.Fatalf("load %q over the draft %q", fixture, m.Draft())
	}
	text, sel := parse(fixture)
	if text != "" {
		var comps []Component
		for i, u := range utf16.Encode([]rune(text)) {
			if u == placeholderUnit {
				r := ref(fmt.Sprintf("r%d", len(comps)+1))
				if len(comps) < len(refs) {
					r = refs[len(comps)]
				}
				comps = append(comps, Component{Range: Range{i, i + 1}, Reference: r})
			}
		}
		m.Dispatch(PasteBegin{Text: text, Components: comps})
	}
	m.log = m.newHistory()
	m.paste, m.pasteSeq = nil, 0
	m.sel = sel
	check(t, m)
}

// show renders the machine back into the fixture language.
func show(m *Machine) string {
	us := utf16.Encode([]rune(m.Draft()))
	var b strings.Builder
	sel := m.Selection()
	for i := 0; i <= len(us); i++ {
		switch {
		case sel.Start == sel.End && i == sel.Start:
			b.WriteByte('|')
		case sel.Start != sel.End && i == sel.Start:
			b.WriteByte('[')
		case sel.Start != sel.End && i == sel.End:
			b.WriteByte(']')
		}
		if i < len(us) {
			if utf16.IsSurrogate(rune(us[i])) && i+1 < len(us) {
				b.WriteString(string(utf16.DecodeRune(rune(us[i]), rune(us[i+1]))))
				if sel.Start != sel.End && i+1 == sel.End {
					b.WriteByte(']')
				}
				i++
				continue
			}
			b.WriteRune(rune(us[i]))
		}
	}
	return b.String()
}

// check asserts the machine's invariants: one U+FFFC per row, rows sorted and on a
// U+FFFC, the byte counts and the cached string faithful, the claim a prefix.
func check(t testing.TB, m *Machine) {
	t.Helper()
	if err := invariants(m); err != nil {
		t.Fatal(err)
	}
}

func invariants(m *Machine) error {
	fresh := m.buf.String()
	if m.cached && m.cache != fresh {
		return fmt.Errorf("cached draft %q, buffer holds %q", m.cache, fresh)
	}
	if m.buf.bytes != len(fresh) {
		return fmt.Errorf("byte count %d, draft has %d bytes", m.buf.bytes, len(fresh))
	}
	if g := m.buf.bytesBetween(0, m.buf.gs); g != m.buf.gapBytes {
		return fmt.Errorf("gap bytes %d, want %d", m.buf.gapBytes, g)
	}
	n := m.buf.Len()
	count := 0
	for i := range n {
		u := m.buf.at(i)
		if u == placeholderUnit {
			count++
		}
		if utf16x.IsLow(u) && (i == 0 || !utf16x.IsHigh(m.buf.at(i-1))) || utf16x.IsHigh(u) && (i+1 == n || !utf16x.IsLow(m.buf.at(i+1))) {
			return fmt.Errorf("lone surrogate at %d in %q", i, fresh)
		}
	}
	occs := m.Occurrences()
	if count != len(occs) {
		return fmt.Errorf("%d U+FFFC in %q, %d rows", count, fresh, len(occs))
	}
	seen := map[OccurrenceID]bool{}
	for i, o := range occs {
		if i > 0 && o.Offset <= occs[i-1].Offset {
			return fmt.Errorf("rows not sorted: %v", occs)
		}
		if o.Offset < 0 || o.Offset >= n || m.buf.at(o.Offset) != placeholderUnit {
			return fmt.Errorf("row %d at %d is not on a U+FFFC in %q", o.ID, o.Offset, fresh)
		}
		if seen[o.ID] {
			return fmt.Errorf("id %d twice", o.ID)
		}
		seen[o.ID] = true
	}
	if m.occ.split < 0 || m.occ.split > len(m.occ.rows) {
		return fmt.Errorf("split %d out of range", m.occ.split)
	}
	if c, ok := m.Claim(); ok && !strings.HasPrefix(fresh, c.Token) {
		return fmt.Errorf("claim %q held, draft %q", c.Token, fresh)
	}
	if m.log.cur < 0 || m.log.cur > len(m.log.recs) || len(m.log.recs) > m.cfg.UndoDepth {
		return fmt.Errorf("log cursor %d of %d", m.log.cur, len(m.log.recs))
	}
	return nil
}

// view is what an undo/redo identity compares: the draft, the chips, the claim.
type view struct {
	Draft string
	Occs  []Occurrence
	Claim Claim
}

func viewOf(m *Machine) view {
	occs := m.Occurrences()
	for i := range occs {
		occs[i].Invalid = false
	}
	return view{m.Draft(), occs, m.claim}
}

// at is the injected clock: ms milliseconds after an epoch.
func at(ms int) time.Time {
	return time.Unix(1_700_000_000, 0).Add(time.Duration(ms) * time.Millisecond)
}

// step is an event, or a function building one from the machine (for CAS spans).
type step any

func resolve(m *Machine, s step) Event {
	switch s := s.(type) {
	case Event:
		return s
	case func(*Machine) Event:
		return s(m)
	}
	panic(fmt.Sprintf("bad step %T", s))
}

// span builds a span at the machine's current draftRev.
func span(start, end int) func(*Machine) Span {
	return func(m *Machine) Span { return Span{Start: start, End: end, Rev: m.Rev()} }
}

func beginCommand(c Claim, start, end int) step {
	return func(m *Machine) Event { return BeginCommand{Claim: c, Span: span(start, end)(m)} }
}

func insertRef(r Reference, start, end int) step {
	return func(m *Machine) Event { return InsertRef{Reference: r, Span: span(start, end)(m)} }
}

func insertText(text string, start, end int) step {
	return func(m *Machine) Event { return InsertText{Text: text, Span: span(start, end)(m)} }
}

func consumeSpan(start, end int) step {
	return func(m *Machine) Event { return ConsumeToken{Span: span(start, end)(m)} }
}

func typeAt(p int, text string) Edit { return Edit{Start: p, End: p, Text: text} }
func backspace(p int) Edit           { return Edit{Start: p - 1, End: p} }
func attemptID(seq uint64) AttemptID { return AttemptID{Session: "s", Seq: seq} }
func wipe(n int) SetView             { return SetView{Start: 0, End: n} }
func view0(text string, caret int) SetView {
	return SetView{Text: text, SelStart: caret, SelEnd: caret}
}

// run dispatches steps, checking invariants after each, and returns the last effects.
func run(t testing.TB, m *Machine, steps ...step) []Effect {
	t.Helper()
	var effs []Effect
	for i, s := range steps {
		ev := resolve(m, s)
		effs = m.Dispatch(ev)
		if err := invariants(m); err != nil {
			t.Fatalf("after step %d (%#v): %v", i, ev, err)
		}
	}
	return effs
}

func equal(t testing.TB, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got: %#v\nwant: %#v", what, got, want)
	}
}

// tcase is one row of a table test: a fixture, events, and what must follow.
type tcase struct {
	name    string
	start   string
	refs    []Reference
	steps   []step
	want    string   // the fixture after
	phase   Phase    // the phase after
	effects []Effect // the last event's effects; nil means none
	rewrote *bool    // if set, Rewrote(effects) must equal it
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func runTable(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := build(t, tc.start, tc.refs...)
			effs := run(t, m, tc.steps...)
			equal(t, "draft", show(m), tc.want)
			equal(t, "phase", m.Phase(), tc.phase)
			if len(effs) == 0 {
				effs = nil
			}
			equal(t, "effects", effs, tc.effects)
			if tc.rewrote != nil && Rewrote(effs) != *tc.rewrote {
				t.Errorf("Rewrote = %v, want %v", Rewrote(effs), *tc.rewrote)
			}
		})
	}
}
