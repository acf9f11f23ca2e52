package input

import (
	"errors"
	"testing"
)

var example = Claim{Token: "/example ", Hint: "<slug> [json-vars]"}

// The phases as event prefixes, starting from "hello|" (plain) or "/ex|" (claimed).
var (
	toClaimed      = []step{beginCommand(example, 0, 3)}
	toAdjudicating = []step{Enter{}}
	toSubmitting   = []step{Enter{}, Adjudicated{Attempt: attemptID(1)}}
)

func steps(prefix []step, more ...step) []step {
	return append(append([]step(nil), prefix...), more...)
}

// TestMatrix pins the spec's interaction matrix: Backspace, Enter, Space and pasting a
// whole line, in each phase.
func TestMatrix(t *testing.T) {
	runTable(t, []tcase{
		// Backspace.
		{name: "backspace/plain", start: "hello|", steps: []step{backspace(5)}, want: "hell|", phase: Plain},
		{name: "backspace/claimed in args", start: "/ex|", steps: steps(toClaimed, typeAt(9, "x"), backspace(10)),
			want: "/example |", phase: Claimed},
		{name: "backspace/claimed into token releases", start: "/ex|", steps: steps(toClaimed, backspace(9)),
			want: "/example|", phase: Plain},
		{name: "backspace/adjudicating edits the new draft", start: "hello|", steps: steps(toAdjudicating, typeAt(0, "ab"), backspace(2)),
			want: "a|", phase: Adjudicating},
		{name: "backspace/submitting edits the new draft", start: "hello|", steps: steps(toSubmitting, typeAt(0, "ab"), backspace(2)),
			want: "a|", phase: Submitting},

		// Enter.
		{name: "enter/plain adjudicates", start: "hello|", steps: []step{Enter{Mode: Steer}}, want: "|", phase: Adjudicating,
			effects: []Effect{wipe(5), Adjudicate{Attempt: attemptID(1), Draft: "hello", Mode: Steer}}},
		{name: "enter/plain blank is refused", start: " \n |", steps: []step{Enter{}}, want: " \n |", phase: Plain,
			effects: []Effect{Refused{Reason: Empty}}},
		{name: "enter/claimed submits through the claim", start: "/ex|", steps: steps(toClaimed, typeAt(9, "foo"), Enter{}),
			want: "|", phase: Submitting,
			effects: []Effect{wipe(12), BeginSubmit{Attempt: attemptID(1), Claim: example, Text: "/example foo"}}},
		{name: "enter/adjudicating is busy", start: "hello|", steps: steps(toAdjudicating, typeAt(0, "x"), Enter{}),
			want: "x|", phase: Adjudicating, effects: []Effect{Refused{Reason: Busy}}},
		{name: "enter/submitting is busy", start: "hello|", steps: steps(toSubmitting, Enter{}),
			want: "|", phase: Submitting, effects: []Effect{Refused{Reason: Busy}}},

		// Space: only text; a claim comes from the controller's begin-command.
		{name: "space/plain never derives a claim", start: "/example|", steps: []step{typeAt(8, " ")},
			want: "/example |", phase: Plain},
		{name: "space/plain then matchSpace claims", start: "/exa|", steps: []step{typeAt(4, " "), beginCommand(example, 0, 5)},
			want: "/example |", phase: Claimed, rewrote: yes(),
			effects: []Effect{SetView{Start: 0, End: 5, Text: "/example ", SelStart: 9, SelEnd: 9}}},
		{name: "space/claimed keeps the claim", start: "/ex|", steps: steps(toClaimed, typeAt(9, " ")),
			want: "/example  |", phase: Claimed},
		{name: "space/adjudicating", start: "hello|", steps: steps(toAdjudicating, typeAt(0, " ")), want: " |", phase: Adjudicating},
		{name: "space/submitting", start: "hello|", steps: steps(toSubmitting, typeAt(0, " ")), want: " |", phase: Submitting},

		// Pasting a whole line.
		{name: "paste line/plain stays plain", start: "|", steps: []step{PasteBegin{Text: "/example foo"}},
			want: "/example foo|", phase: Plain,
			effects: []Effect{SetView{Start: 0, End: 0, Text: "/example foo", SelStart: 12, SelEnd: 12}, MatchPaste{Paste: 1, Text: "/example foo"}}},
		{name: "paste line/claimed over the token releases", start: "/ex|", steps: steps(toClaimed, PasteBegin{Text: "/other bar", Selection: Range{0, 9}}),
			want: "/other bar|", phase: Plain,
			effects: []Effect{SetView{Start: 0, End: 9, Text: "/other bar", SelStart: 10, SelEnd: 10}, MatchPaste{Paste: 1, Text: "/other bar"}}},
		{name: "paste line/claimed after the token keeps it", start: "/ex|", steps: steps(toClaimed, PasteBegin{Text: "a b", Selection: Range{9, 9}}),
			want: "/example a b|", phase: Claimed,
			effects: []Effect{SetView{Start: 9, End: 9, Text: "a b", SelStart: 12, SelEnd: 12}, MatchPaste{Paste: 1, Text: "a b"}}},
		{name: "paste line/adjudicating", start: "hello|", steps: steps(toAdjudicating, PasteBegin{Text: "/x y"}),
			want: "/x y|", phase: Adjudicating,
			effects: []Effect{SetView{Start: 0, End: 0, Text: "/x y", SelStart: 4, SelEnd: 4}, MatchPaste{Paste: 1, Text: "/x y"}}},
		{name: "paste line/submitting", start: "hello|", steps: steps(toSubmitting, PasteBegin{Text: "/x y"}),
			want: "/x y|", phase: Submitting,
			effects: []Effect{SetView{Start: 0, End: 0, Text: "/x y", SelStart: 4, SelEnd: 4}, MatchPaste{Paste: 1, Text: "/x y"}}},
	})
}

var errBoom = errors.New("boom")

// TestDriftGuard pins each drift-guard case: a failure restores the Enter-time draft only
// while the live draft is still the empty one Enter left.
func TestDriftGuard(t *testing.T) {
	restored := func(kind NoticeKind, detail string) []Effect {
		return []Effect{SetView{Text: "hello", SelStart: 5, SelEnd: 5}, Notice{Kind: kind, Attempt: attemptID(1), Detail: detail, Restored: true}}
	}
	kept := func(kind NoticeKind, detail string) []Effect {
		return []Effect{Notice{Kind: kind, Attempt: attemptID(1), Detail: detail, Draft: "hello"}}
	}
	failAdj := AdjudicationFailed{Attempt: attemptID(1), Err: errBoom}
	failSend := SubmitSettled{Attempt: attemptID(1), Err: errBoom}
	runTable(t, []tcase{
		{name: "adjudication fails, no drift: restored", start: "hello|", steps: steps(toAdjudicating, failAdj),
			want: "hello|", phase: Plain, effects: restored(AdjudicationFailedNotice, "boom")},
		{name: "adjudication fails after typing: notice only", start: "hello|", steps: steps(toAdjudicating, typeAt(0, "x"), failAdj),
			want: "x|", phase: Plain, effects: kept(AdjudicationFailedNotice, "boom")},
		{name: "typed then erased: still the empty draft, restored", start: "hello|", steps: steps(toAdjudicating, typeAt(0, "x"), backspace(1), failAdj),
			want: "hello|", phase: Plain, effects: restored(AdjudicationFailedNotice, "boom")},
		{name: "send fails, no drift: restored", start: "hello|", steps: steps(toSubmitting, failSend),
			want: "hello|", phase: Plain, effects: restored(SendFailedNotice, "boom")},
		{name: "send fails after a paste: notice only", start: "hello|", steps: steps(toSubmitting, PasteBegin{Text: "new"}, failSend),
			want: "new|", phase: Plain, effects: kept(SendFailedNotice, "boom")},
		{name: "claimed send fails: claim restored", start: "/ex|", steps: steps(toClaimed, Enter{}, SubmitSettled{Attempt: attemptID(1), Err: errBoom}),
			want: "/example |", phase: Claimed,
			effects: []Effect{SetView{Text: "/example ", SelStart: 9, SelEnd: 9}, Notice{Kind: SendFailedNotice, Attempt: attemptID(1), Detail: "boom", Restored: true}}},
		{name: "release mid-submit aborts and restores", start: "hello|", steps: steps(toSubmitting, Release{}),
			want: "hello|", phase: Plain, effects: append([]Effect{Abort{Attempt: attemptID(1)}}, restored(CanceledNotice, "")...)},
		{name: "release mid-submit after typing keeps the typing", start: "hello|", steps: steps(toSubmitting, typeAt(0, "x"), Release{}),
			want: "x|", phase: Plain, effects: append([]Effect{Abort{Attempt: attemptID(1)}}, kept(CanceledNotice, "")...)},
		{name: "success commits", start: "hello|", steps: steps(toSubmitting, SubmitSettled{Attempt: attemptID(1)}),
			want: "|", phase: Plain},
		{name: "success keeps what was typed meanwhile", start: "hello|", steps: steps(toSubmitting, typeAt(0, "next"), SubmitSettled{Attempt: attemptID(1)}),
			want: "next|", phase: Plain},
	})
}

// TestBackwash pins stale-result backwash: answers naming an older attempt, or another
// session's attempt, change nothing.
func TestBackwash(t *testing.T) {
	runTable(t, []tcase{
		{name: "old adjudication after a new enter", start: "one|",
			steps: []step{Enter{}, Release{}, Enter{}, Adjudicated{Attempt: attemptID(1)}},
			want:  "|", phase: Adjudicating},
		{name: "old failure after a new enter", start: "one|",
			steps: []step{Enter{}, Release{}, typeAt(3, "!"), Enter{}, AdjudicationFailed{Attempt: attemptID(1), Err: errBoom}},
			want:  "|", phase: Adjudicating},
		{name: "settle before its stage", start: "one|",
			steps: []step{Enter{}, SubmitSettled{Attempt: attemptID(1)}},
			want:  "|", phase: Adjudicating},
		{name: "a settled attempt's late failure", start: "one|",
			steps: steps(toSubmitting, SubmitSettled{Attempt: attemptID(1)}, SubmitSettled{Attempt: attemptID(1), Err: errBoom}),
			want:  "|", phase: Plain},
		{name: "another session's result", start: "one|",
			steps: steps(toAdjudicating, Adjudicated{Attempt: AttemptID{Session: "other", Seq: 1}}),
			want:  "|", phase: Adjudicating},
		{name: "the current attempt still answers", start: "one|",
			steps: []step{Enter{}, Release{}, Enter{}, Adjudicated{Attempt: attemptID(1)}, Adjudicated{Attempt: attemptID(2)}},
			want:  "|", phase: Submitting, effects: []Effect{DefaultSink{Attempt: attemptID(2), Text: "one"}}},
	})
}

// TestSessionSwitchMidSubmit: the user switches from session a to b while a's submit is
// in flight; a's results reach b's machine by mistake and must do nothing there, and
// still settle a when routed right.
func TestSessionSwitchMidSubmit(t *testing.T) {
	a := buildCfg(t, Config{Session: "a"}, "for a|")
	b := buildCfg(t, Config{Session: "b"}, "for b|")
	idA, idB := AttemptID{Session: "a", Seq: 1}, AttemptID{Session: "b", Seq: 1}
	run(t, a, Enter{}, Adjudicated{Attempt: idA})
	run(t, b, Enter{}, Adjudicated{Attempt: idB}, typeAt(0, "typing in b"))

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
}
