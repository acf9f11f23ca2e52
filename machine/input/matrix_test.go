package input

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// This file pins the spec's interaction matrix ("The input state machine": what
// Backspace, Enter, Space and pasting a whole line mean in each phase), the drift guard,
// stale-result backwash and a session switch mid-submit. Drafts are in the fixture
// language of fixture_test.go: "hi ￼ there|" is a draft holding one chip, caret at the end.

var example = Claim{Token: "/example ", Hint: "<slug> [json-vars]"}

// inPhase returns a machine in phase p whose live draft is fixture. Claimed claims
// example, so the fixture must start with its token. Adjudicating and Submitting are
// reached the real way, by pressing Enter on "sent" (attempt 1, answered by the default
// sink for Submitting); the fixture is then what the user has in the box meanwhile.
func inPhase(t testing.TB, p Phase, fixture string, refs ...Reference) *Machine {
	t.Helper()
	var m *Machine
	switch p {
	case Plain:
		m = build(t, fixture, refs...)
	case Claimed:
		m = build(t, fixture, refs...)
		sel := m.sel
		if !Rewrote(m.Dispatch(BeginCommand{Claim: example, Span: Span{0, len(example.Token), m.Rev()}})) {
			t.Fatalf("cannot claim %q", fixture)
		}
		m.log, m.sel = m.newHistory(), sel
	case Adjudicating, Submitting:
		m = build(t, "sent|")
		run(t, m, Submit{})
		if p == Submitting {
			run(t, m, Adjudicated{Attempt: attemptID(1)})
		}
		load(t, m, fixture, refs...)
	}
	if m.Phase() != p {
		t.Fatalf("setting up %v: the machine is %v", p, m.Phase())
	}
	return m
}

// A key is what the user does, as the event the shell dispatches for it, at the caret.
type key struct {
	name string
	ev   func(m *Machine) Event
}

var (
	// Backspace deletes the selection, or the unit before the caret.
	kBackspace = key{"Backspace", func(m *Machine) Event {
		s := m.Selection()
		if s.Start == s.End {
			s.Start--
		}
		return Edit{Start: s.Start, End: s.End}
	}}
	kEnter = key{"Enter", func(*Machine) Event { return Submit{} }}
	// Space with no claimant is a typed space.
	kSpace = key{"Space", func(m *Machine) Event {
		s := m.Selection()
		return Edit{Start: s.Start, End: s.End, Text: " "}
	}}
	// Space claimed by a source (matchSpace): the controller backfills the command over the
	// hit, the draft from 0 to the caret; when that rewrites, the typed space is prevented.
	kSpaceClaimed = key{"Space, claimed by a source", func(m *Machine) Event {
		return BeginCommand{Claim: example, Span: Span{0, m.Selection().End, m.Rev()}}
	}}
	// Pasting a whole line over the selection; kPasteToken's line starts with the token.
	kPasteLine  = pasteKey("/deploy now")
	kPasteToken = pasteKey("/example go")
)

func pasteKey(line string) key {
	return key{"Paste " + line, func(m *Machine) Event { return PasteBegin{Text: line, Selection: m.Selection()} }}
}

// pasted is the effects of pasting line at [s, e).
func pasted(line string, s, e int) []Effect {
	n := len(line) // ASCII
	return []Effect{SetView{Start: s, End: e, Text: line, SelStart: s + n, SelEnd: s + n}, MatchPaste{Paste: 1, Text: line}}
}

// TestMatrix: one row per cell of the interaction matrix. A row reads: in phase, with
// the draft before, the user presses key; the draft becomes after, the phase then, and
// the machine answers effects.
func TestMatrix(t *testing.T) {
	r1 := ref("r1")
	rows := []struct {
		phase   Phase
		before  string
		key     key
		after   string
		then    Phase
		effects []Effect
	}{
		// Backspace: an ordinary edit in every phase. In Claimed, a backspace into the token
		// releases the claim (the watch is draft.startsWith(token)); in Adjudicating and
		// Submitting it edits the fresh draft and leaves the attempt alone.
		{Plain, "hi ￼ there|", kBackspace, "hi ￼ ther|", Plain, nil},
		{Plain, "hi ￼| there", kBackspace, "hi | there", Plain, []Effect{ChipRemoved{ID: 1, Reference: r1}}},
		{Claimed, "/example ab|", kBackspace, "/example a|", Claimed, nil},
		{Claimed, "/example |", kBackspace, "/example|", Plain, nil},
		{Claimed, "/example [ab]", kBackspace, "/example |", Claimed, nil},
		{Adjudicating, "ab|", kBackspace, "a|", Adjudicating, nil},
		{Submitting, "ab|", kBackspace, "a|", Submitting, nil},

		// Enter: Plain asks the sources (adjudicate); Claimed submits through the claim's
		// owner, chips serialized first; both clear the box optimistically. While an attempt
		// is in flight Enter is refused and the new draft stays.
		{Plain, "hi ￼ there|", kEnter, "|", Adjudicating,
			[]Effect{wipe(10), Adjudicate{Attempt: attemptID(1), Draft: "hi ￼ there"}}},
		{Plain, " \n |", kEnter, " \n |", Plain, []Effect{Refused{Reason: Empty}}},
		{Claimed, "/example go|", kEnter, "|", Submitting,
			[]Effect{wipe(11), BeginSubmit{Attempt: attemptID(1), Claim: example, Text: "/example go"}}},
		{Claimed, "/example |", kEnter, "|", Submitting,
			[]Effect{wipe(9), BeginSubmit{Attempt: attemptID(1), Claim: example, Text: "/example "}}},
		{Claimed, "/example ￼|", kEnter, "|", Submitting,
			[]Effect{wipe(10), Serialize{Attempt: attemptID(1), ID: 1, Source: "@file", Ref: "r1"}}},
		{Adjudicating, "ab|", kEnter, "ab|", Adjudicating, []Effect{Refused{Reason: Busy}}},
		{Submitting, "ab|", kEnter, "ab|", Submitting, []Effect{Refused{Reason: Busy}}},

		// Space: with no claimant it is text, and command mode is never derived from the
		// draft. A source's claim (begin-command) rewrites and claims, so the space is
		// prevented. In Claimed, `/` is suppressed, so Space is only text. In Adjudicating
		// and Submitting the tier is frozen: a claim is refused and the space is typed.
		{Plain, "/example|", kSpace, "/example |", Plain, nil},
		{Plain, "/exa|", kSpaceClaimed, "/example |", Claimed,
			[]Effect{SetView{Start: 0, End: 4, Text: "/example ", SelStart: 9, SelEnd: 9}}},
		{Claimed, "/example go|", kSpace, "/example go |", Claimed, nil},
		{Adjudicating, "ab|", kSpace, "ab |", Adjudicating, nil},
		{Adjudicating, "/exa|", kSpaceClaimed, "/exa|", Adjudicating, []Effect{Refused{Reason: Busy}}},
		{Submitting, "ab|", kSpace, "ab |", Submitting, nil},
		{Submitting, "/exa|", kSpaceClaimed, "/exa|", Submitting, []Effect{Refused{Reason: Busy}}},

		// Pasting a whole line: the machine writes it (one transaction, one undo step) and
		// opens a paste match attempt. A line that looks like a command is still text: no
		// claim. In Claimed the watch decides: pasted over the token, the line releases the
		// claim unless it starts with the token itself; pasted after it, it keeps it.
		{Plain, "|", kPasteLine, "/deploy now|", Plain, pasted("/deploy now", 0, 0)},
		{Plain, "|", kPasteToken, "/example go|", Plain, pasted("/example go", 0, 0)},
		{Plain, "[old ￼ line]", kPasteLine, "/deploy now|", Plain,
			append([]Effect{ChipRemoved{ID: 1, Reference: r1}}, pasted("/deploy now", 0, 10)...)},
		{Claimed, "[/example x]", kPasteLine, "/deploy now|", Plain, pasted("/deploy now", 0, 10)},
		{Claimed, "[/example x]", kPasteToken, "/example go|", Claimed, pasted("/example go", 0, 10)},
		{Claimed, "/example |", kPasteLine, "/example /deploy now|", Claimed, pasted("/deploy now", 9, 9)},
		{Adjudicating, "|", kPasteLine, "/deploy now|", Adjudicating, pasted("/deploy now", 0, 0)},
		{Submitting, "|", kPasteLine, "/deploy now|", Submitting, pasted("/deploy now", 0, 0)},
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s/%v/%s", r.key.name, r.phase, r.before), func(t *testing.T) {
			m := inPhase(t, r.phase, r.before)
			attempt, inFlight := m.Attempt()
			effs := run(t, m, r.key.ev)
			equal(t, "draft", show(m), r.after)
			equal(t, "phase", m.Phase(), r.then)
			equal(t, "effects", nilIfEmpty(effs), r.effects)
			if inFlight && r.key.name != "Enter" {
				now, _ := m.Attempt()
				equal(t, "the attempt in flight", now, attempt)
			}
		})
	}
}

func nilIfEmpty(effs []Effect) []Effect {
	if len(effs) == 0 {
		return nil
	}
	return effs
}

var errBoom = errors.New("boom")

// TestDriftGuard: every way a submit can fail, crossed with what the user did to the box
// meanwhile. A failure sends nothing; the Enter-time draft (chips, claim and undo log
// included) comes back only while the live draft is still the empty one Enter left.
// Otherwise the user's typing stays and only a notice fires, carrying the unsent text as
// its clipboard projection.
func TestDriftGuard(t *testing.T) {
	a, gone := ref("a.go"), Reference{Source: "@gone", Ref: "g", Label: "g", ClipboardText: "@g"}
	id := attemptID(1)
	adjudicated := Adjudicated{Attempt: id}
	failures := []struct {
		name   string
		refs   []Reference // the chip's reference in "see ￼|"
		reach  []step      // from Enter to the stage that fails
		fail   step        // the failing answer
		lead   []Effect    // effects before the rollback or notice
		kind   NoticeKind
		detail string
	}{
		{"adjudication failed", []Reference{a}, nil, AdjudicationFailed{Attempt: id, Err: errBoom},
			nil, AdjudicationFailedNotice, "boom"},
		{"serializer failed", []Reference{a}, []step{adjudicated}, Serialized{Attempt: id, ID: 1, Err: errBoom},
			[]Effect{Abort{Attempt: id}}, SerializeFailedNotice, "boom"},
		{"serializer canceled", []Reference{a}, []step{adjudicated}, Serialized{Attempt: id, ID: 1, Err: context.Canceled},
			[]Effect{Abort{Attempt: id}}, SerializeFailedNotice, "context canceled"},
		{"serializer has no owner", []Reference{a}, []step{adjudicated}, Serialized{Attempt: id, ID: 1, Err: ErrNoOwner},
			[]Effect{Abort{Attempt: id}}, NoOwnerNotice, ErrNoOwner.Error()},
		{"no owner registered", []Reference{gone}, nil, adjudicated,
			nil, NoOwnerNotice, "@gone"},
		{"send failed", []Reference{a}, []step{adjudicated, Serialized{Attempt: id, ID: 1, Text: "<a>"}}, SubmitSettled{Attempt: id, Err: errBoom},
			nil, SendFailedNotice, "boom"},
		{"released while adjudicating", []Reference{a}, nil, Release{},
			[]Effect{Abort{Attempt: id}}, CanceledNotice, ""},
		{"released while serializing", []Reference{a}, []step{adjudicated}, Release{},
			[]Effect{Abort{Attempt: id}}, CanceledNotice, ""},
		{"released while sending", []Reference{a}, []step{adjudicated, Serialized{Attempt: id, ID: 1, Text: "<a>"}}, Release{},
			[]Effect{Abort{Attempt: id}}, CanceledNotice, ""},
	}
	drifts := []struct {
		name      string
		meanwhile []step
		live      string // the draft after a notice-only failure; "" means restored
	}{
		{"untouched", nil, ""},
		{"typed then erased", []step{typeAt(0, "x"), backspace(1)}, ""},
		{"typed", []step{typeAt(0, "next")}, "next|"},
		{"pasted a chip", []step{PasteBegin{Text: "b.go", Components: []Component{{Range{0, 4}, ref("b.go")}}}}, "￼|"},
		{"inserted text", []step{insertText("/review ", 0, 0)}, "/review |"},
	}
	cfg := Config{Session: "s", Owns: func(source string) bool { return source != "@gone" }}
	for _, f := range failures {
		for _, d := range drifts {
			t.Run(f.name+"/"+d.name, func(t *testing.T) {
				m := buildCfg(t, cfg, "see ￼|", f.refs...)
				run(t, m, Submit{})
				run(t, m, f.reach...)
				run(t, m, d.meanwhile...)
				effs := run(t, m, f.fail)

				want := append([]Effect(nil), f.lead...)
				if d.live == "" {
					want = append(want, SetView{Text: "see ￼", SelStart: 5, SelEnd: 5},
						Notice{Kind: f.kind, Attempt: id, Detail: f.detail, Restored: true})
					equal(t, "draft", show(m), "see ￼|")
					equal(t, "chip", m.Occurrences()[0].ID, OccurrenceID(1))
				} else {
					want = append(want, Notice{Kind: f.kind, Attempt: id, Detail: f.detail, Draft: "see " + f.refs[0].ClipboardText})
					equal(t, "draft", show(m), d.live)
				}
				equal(t, "effects", effs, want)
				equal(t, "phase", m.Phase(), Plain)
				for _, e := range effs {
					switch e.(type) {
					case DefaultSink, BeginSubmit:
						t.Errorf("a failed attempt sent %#v", e)
					}
				}
			})
		}
	}
}

// TestDriftGuardClaimAndLog: a restored draft brings its claim and its undo log back; a
// success keeps what was typed meanwhile and clears the log.
func TestDriftGuardClaimAndLog(t *testing.T) {
	runTable(t, []tcase{
		{name: "claimed send fails: the claim comes back", start: "/ex|",
			steps: steps(toClaimed, typeAt(9, "x"), Submit{}, SubmitSettled{Attempt: attemptID(1), Err: errBoom}),
			want:  "/example x|", phase: Claimed,
			effects: []Effect{SetView{Text: "/example x", SelStart: 10, SelEnd: 10}, Notice{Kind: SendFailedNotice, Attempt: attemptID(1), Detail: "boom", Restored: true}}},
		{name: "restored, the undo log comes back", start: "ab|",
			steps: []step{typeAt(2, "c"), Submit{}, AdjudicationFailed{Attempt: attemptID(1), Err: errBoom}, Undo{}},
			want:  "ab|", effects: []Effect{SetView{Start: 2, End: 3, SelStart: 2, SelEnd: 2}}},
		{name: "success commits", start: "hello|", steps: steps(toSubmitting, SubmitSettled{Attempt: attemptID(1)}),
			want: "|", phase: Plain},
		{name: "success keeps what was typed meanwhile and clears the log", start: "hello|",
			steps: steps(toSubmitting, typeAt(0, "next"), SubmitSettled{Attempt: attemptID(1)}, Undo{}),
			want:  "next|", phase: Plain},
	})
}

// The phases as event prefixes for runTable, from "hello|" (plain) or "/ex|" (claimed
// by a pick, which completes the token).
var (
	toClaimed      = []step{beginCommand(example, 0, 3)}
	toAdjudicating = []step{Submit{}}
	toSubmitting   = []step{Submit{}, Adjudicated{Attempt: attemptID(1)}}
)

func steps(prefix []step, more ...step) []step {
	return append(append([]step(nil), prefix...), more...)
}

// TestBackwash pins stale-result backwash: an answer naming an older attempt, another
// session's attempt, or the live attempt at another stage changes nothing and emits
// nothing; in particular it never rolls a draft back over newer typing.
func TestBackwash(t *testing.T) {
	late := SubmitSettled{Attempt: attemptID(1), Err: errBoom}
	runTable(t, []tcase{
		{name: "old adjudication after a new enter", start: "one|",
			steps: []step{Submit{}, Release{}, Submit{}, Adjudicated{Attempt: attemptID(1)}},
			want:  "|", phase: Adjudicating},
		{name: "old failure after a new enter", start: "one|",
			steps: []step{Submit{}, Release{}, typeAt(3, "!"), Submit{}, AdjudicationFailed{Attempt: attemptID(1), Err: errBoom}},
			want:  "|", phase: Adjudicating},
		{name: "old send failure after its release, over newer typing", start: "one|",
			steps: steps(toSubmitting, Release{}, typeAt(3, "!"), late),
			want:  "one!|", phase: Plain},
		{name: "old send failure after a new attempt restored", start: "one|",
			steps: steps(toSubmitting, late, Submit{}, late),
			want:  "|", phase: Adjudicating},
		{name: "old serializer result", start: "￼|",
			steps: []step{Submit{}, Release{}, Submit{}, Adjudicated{Attempt: attemptID(2)}, Serialized{Attempt: attemptID(1), ID: 1, Text: "x"}},
			want:  "|", phase: Submitting},
		{name: "settle before its stage", start: "one|",
			steps: []step{Submit{}, SubmitSettled{Attempt: attemptID(1)}},
			want:  "|", phase: Adjudicating},
		{name: "adjudicated twice", start: "one|",
			steps: steps(toSubmitting, Adjudicated{Attempt: attemptID(1), Claim: example}),
			want:  "|", phase: Submitting},
		{name: "a settled attempt's late failure", start: "one|",
			steps: steps(toSubmitting, SubmitSettled{Attempt: attemptID(1)}, late),
			want:  "|", phase: Plain},
		{name: "another session's result", start: "one|",
			steps: steps(toAdjudicating, Adjudicated{Attempt: AttemptID{Session: "other", Seq: 1}}),
			want:  "|", phase: Adjudicating},
		{name: "the current attempt still answers", start: "one|",
			steps: []step{Submit{}, Release{}, Submit{}, Adjudicated{Attempt: attemptID(1)}, Adjudicated{Attempt: attemptID(2)}},
			want:  "|", phase: Submitting, effects: []Effect{DefaultSink{Attempt: attemptID(2), Text: "one"}}},
	})
}

// TestSessionSwitchMidSubmit: the user switches from session a to b while a's submit is
// in flight; a's results reach b's machine by mistake and must do nothing there, and
// still settle a when routed right. When a's scope goes away, Release aborts a's attempt.
func TestSessionSwitchMidSubmit(t *testing.T) {
	a := buildCfg(t, Config{Session: "a"}, "for a|")
	b := buildCfg(t, Config{Session: "b"}, "for b|")
	idA, idB := AttemptID{Session: "a", Seq: 1}, AttemptID{Session: "b", Seq: 1}
	run(t, a, Submit{}, Adjudicated{Attempt: idA})
	run(t, b, Submit{}, Adjudicated{Attempt: idB}, typeAt(0, "typing in b"))

	for _, ev := range []Event{SubmitSettled{Attempt: idA, Err: errBoom}, SubmitSettled{Attempt: idA}, Adjudicated{Attempt: idA}} {
		before := viewOf(b)
		equal(t, "effects in b", b.Dispatch(ev), []Effect(nil))
		equal(t, "b after a's result", viewOf(b), before)
		equal(t, "b's phase", b.Phase(), Submitting)
	}
	equal(t, "a settles", run(t, a, SubmitSettled{Attempt: idA, Err: errBoom}),
		[]Effect{SetView{Text: "for a", SelStart: 5, SelEnd: 5}, Notice{Kind: SendFailedNotice, Attempt: idA, Detail: "boom", Restored: true}})
	equal(t, "b fails with drift", run(t, b, SubmitSettled{Attempt: idB, Err: errBoom}),
		[]Effect{Notice{Kind: SendFailedNotice, Attempt: idB, Detail: "boom", Draft: "for b"}})
	equal(t, "b keeps its typing", show(b), "typing in b|")

	// a's scope goes away mid-submit: its attempt is aborted, and the answer that arrives
	// afterwards is stale.
	run(t, a, Submit{}, Adjudicated{Attempt: AttemptID{Session: "a", Seq: 2}})
	equal(t, "a's scope disposed", run(t, a, Release{}),
		[]Effect{Abort{Attempt: AttemptID{Session: "a", Seq: 2}}, SetView{Text: "for a", SelStart: 5, SelEnd: 5},
			Notice{Kind: CanceledNotice, Attempt: AttemptID{Session: "a", Seq: 2}, Restored: true}})
	equal(t, "a's late answer", run(t, a, SubmitSettled{Attempt: AttemptID{Session: "a", Seq: 2}}), []Effect(nil))
}
