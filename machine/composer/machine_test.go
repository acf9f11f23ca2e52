package composer

import (
	"reflect"
	"testing"
	"time"

	"parley/machine/machinetest"
	"parley/protocol"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func ask(id string) Decision {
	return Decision{ID: id, Request: protocol.DecisionRequest{Kind: protocol.KindAsk, Message: id}}
}

func confirm(id string) Decision {
	return Decision{ID: id, Request: protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: id}}
}

// named is a question that opens on a text field.
func named(id string) Decision {
	return Decision{ID: id, Request: protocol.DecisionRequest{Kind: protocol.KindAsk, Message: id, Schema: &protocol.Schema{Type: "string"}}}
}

func approval(id string) Decision {
	return Decision{ID: id, Request: protocol.DecisionRequest{Kind: protocol.KindApproval, Message: id}}
}

// wake is what follows a decision shown on its own: the Tick at the end of the guard.
var wake = Wake{After: DefaultFocusDelay}

func local(id string) Decision { d := ask(id); d.Local = true; return d }

func asked(d Decision) Asked { return Asked{Decision: d, At: t0} }

// state is what the view reads, flattened so a table can spell it.
type state struct {
	Mode     Mode
	Head     string // "" when none is shown
	Queue    []string
	Function string
	Aside    bool
	Held     bool
	Note     string
}

func snapshot(m *Machine) state {
	s := state{Mode: m.Mode(), Function: m.Function(), Aside: m.SetAside(), Held: m.Held(), Note: m.Note()}
	if d, ok := m.Head(); ok {
		s.Head = d.ID
	}
	for _, d := range m.Queue() {
		s.Queue = append(s.Queue, d.ID)
	}
	return s
}

// dispatchAfter sets a new machine up with events, then dispatches ev: ev's effects, and the
// state just before and just after it, for the tests of an event (a key, a click) that must
// read the state without changing it.
func dispatchAfter(t *testing.T, events []Event, ev Event) (got []Effect, before, after state) {
	t.Helper()
	m := New(Config{})
	machinetest.Run(t, m.Dispatch, events...)
	before = snapshot(m)
	got = machinetest.Run(t, m.Dispatch, ev)
	return got, before, snapshot(m)
}

// TestDispatch runs each sequence from a fresh machine; wantEffects are the last event's.
func TestDispatch(t *testing.T) {
	tests := []struct {
		name        string
		events      []Event
		wantState   state
		wantEffects []Effect
	}{
		{
			name:        "a new machine is idle",
			events:      []Event{ClearNote{}},
			wantState:   state{Mode: Idle},
			wantEffects: nil,
		},
		{
			name:        "an ask morphs idle into a question",
			events:      []Event{asked(ask("q1"))},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q1"}, FocusMode{}, wake},
		},
		{
			name:        "a confirm is a question too",
			events:      []Event{asked(confirm("c1"))},
			wantState:   state{Mode: Question, Head: "c1", Queue: []string{"c1"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "c1"}, FocusMode{}, wake},
		},
		{
			name:        "an approval morphs into the approval mode",
			events:      []Event{asked(approval("a1"))},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1"}},
			wantEffects: []Effect{Shown{Mode: Approval, ID: "a1"}, FocusMode{}, wake},
		},
		{
			name:        "a decision while one is shown waits in the queue",
			events:      []Event{asked(ask("q1")), asked(approval("a1"))},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1", "a1"}},
			wantEffects: nil,
		},
		{
			name:        "a duplicate id is ignored",
			events:      []Event{asked(ask("q1")), asked(approval("a1")), asked(ask("q1"))},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1", "a1"}},
			wantEffects: nil,
		},
		{
			name:        "an empty id is ignored",
			events:      []Event{asked(ask(""))},
			wantState:   state{Mode: Idle},
			wantEffects: nil,
		},
		{
			name:        "when the head is answered the next one shows",
			events:      []Event{asked(ask("q1")), asked(approval("a1")), Ended{ID: "q1", Outcome: Answered}},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1"}},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1", Ended: true}, Shown{Mode: Approval, ID: "a1"}, FocusMode{}, wake},
		},
		{
			name:        "FIFO: three decisions are shown in arrival order",
			events:      []Event{asked(ask("q1")), asked(approval("a1")), asked(ask("q2")), Ended{ID: "q1"}, Ended{ID: "a1"}},
			wantState:   state{Mode: Question, Head: "q2", Queue: []string{"q2"}},
			wantEffects: []Effect{Exit{Mode: Approval, ID: "a1", Ended: true}, Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake},
		},
		{
			name:        "the last decision answered goes back to idle and its draft",
			events:      []Event{asked(ask("q1")), Ended{ID: "q1", Outcome: Answered}},
			wantState:   state{Mode: Idle},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1", Ended: true}, FocusInput{}},
		},
		{
			name:        "a queued decision answered elsewhere leaves silently",
			events:      []Event{asked(ask("q1")), asked(approval("a1")), asked(ask("q2")), Ended{ID: "a1", Outcome: Answered}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1", "q2"}},
			wantEffects: nil,
		},
		{
			name:        "a withdrawn head (aborted) exits without a note",
			events:      []Event{asked(ask("q1")), Ended{ID: "q1", Outcome: Aborted}},
			wantState:   state{Mode: Idle},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1", Ended: true}, FocusInput{}},
		},
		{
			name:        "a declined head exits without a note",
			events:      []Event{asked(approval("a1")), Ended{ID: "a1", Outcome: Declined}},
			wantState:   state{Mode: Idle},
			wantEffects: []Effect{Exit{Mode: Approval, ID: "a1", Ended: true}, FocusInput{}},
		},
		{
			name:        "the shown decision timing out leaves a note",
			events:      []Event{asked(ask("q1")), Ended{ID: "q1", Outcome: TimedOut}},
			wantState:   state{Mode: Idle, Note: NoteTimedOut},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1", Ended: true}, ShowNote{NoteTimedOut}, FocusInput{}},
		},
		{
			name:        "a timed-out head with another queued: note, then the next one",
			events:      []Event{asked(ask("q1")), asked(approval("a1")), Ended{ID: "q1", Outcome: TimedOut}},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1"}, Note: NoteTimedOut},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1", Ended: true}, ShowNote{NoteTimedOut}, Shown{Mode: Approval, ID: "a1"}, FocusMode{}, wake},
		},
		{
			name:        "a queued decision timing out is removed silently",
			events:      []Event{asked(ask("q1")), asked(approval("a1")), Ended{ID: "a1", Outcome: TimedOut}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: nil,
		},
		{
			name:        "the note stays until ClearNote",
			events:      []Event{asked(ask("q1")), Ended{ID: "q1", Outcome: TimedOut}, ClearNote{}},
			wantState:   state{Mode: Idle},
			wantEffects: nil,
		},
		{
			name:        "sync asks what is new, in the list's order",
			events:      []Event{Sync{Decisions: []Decision{ask("q1"), approval("a1")}}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1", "a1"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q1"}, FocusMode{}, wake},
		},
		{
			name:        "sync ends what is gone, with its timeout, and shows the next",
			events:      []Event{Sync{Decisions: []Decision{ask("q1"), approval("a1")}}, Sync{Decisions: []Decision{approval("a1")}, TimedOut: []string{"q1"}}},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1"}, Note: NoteTimedOut},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1", Ended: true}, ShowNote{NoteTimedOut}, Shown{Mode: Approval, ID: "a1"}, FocusMode{}, wake},
		},
		{
			name:        "sync: a decision gone without a timeout was answered: no note",
			events:      []Event{Sync{Decisions: []Decision{ask("q1")}}, Sync{}},
			wantState:   state{Mode: Idle},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1", Ended: true}, FocusInput{}},
		},
		{
			name:        "sync keeps local decisions, which the server never lists",
			events:      []Event{asked(local("l1")), Sync{Decisions: []Decision{ask("q1")}}},
			wantState:   state{Mode: Question, Head: "l1", Queue: []string{"l1", "q1"}},
			wantEffects: nil,
		},
		{
			name:        "sync of an unchanged list does nothing",
			events:      []Event{Sync{Decisions: []Decision{ask("q1")}}, Sync{Decisions: []Decision{ask("q1")}}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: nil,
		},
		{
			name:        "a set-aside head that times out leaves the note too",
			events:      []Event{asked(ask("q1")), ChatAbout{}, Ended{ID: "q1", Outcome: TimedOut}},
			wantState:   state{Mode: Idle, Note: NoteTimedOut},
			wantEffects: []Effect{ShowNote{NoteTimedOut}},
		},
		{
			name:        "the note stays until the next Enter",
			events:      []Event{asked(ask("q1")), Ended{ID: "q1", Outcome: TimedOut}, asked(ask("q2"))},
			wantState:   state{Mode: Question, Head: "q2", Queue: []string{"q2"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake},
		},
		{
			name:        "opening the fn-form clears the note too",
			events:      []Event{asked(ask("q1")), Ended{ID: "q1", Outcome: TimedOut}, OpenFnForm{"deploy"}},
			wantState:   state{Mode: FnForm, Function: "deploy"},
			wantEffects: []Effect{Shown{Mode: FnForm, ID: "deploy"}, FocusField{}},
		},
		{
			name:        "an unknown id ending changes nothing",
			events:      []Event{asked(ask("q1")), Ended{ID: "nope", Outcome: TimedOut}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: nil,
		},
		{
			name:        "a decision that ended before it was asked stays ended",
			events:      []Event{Ended{ID: "q1", Outcome: Answered}, asked(ask("q1"))},
			wantState:   state{Mode: Idle},
			wantEffects: nil,
		},

		// fn-form
		{
			name:        "the user opens the fn-form",
			events:      []Event{OpenFnForm{"deploy"}},
			wantState:   state{Mode: FnForm, Function: "deploy"},
			wantEffects: []Effect{Shown{Mode: FnForm, ID: "deploy"}, FocusField{}},
		},
		{
			name:        "an fn-form with no function opens on its picker",
			events:      []Event{OpenFnForm{""}},
			wantState:   state{Mode: FnForm},
			wantEffects: []Effect{Shown{Mode: FnForm, ID: ""}, FocusField{}},
		},
		{
			name:        "opening another function switches fn to fn",
			events:      []Event{OpenFnForm{"deploy"}, OpenFnForm{"build"}},
			wantState:   state{Mode: FnForm, Function: "build"},
			wantEffects: []Effect{Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: FnForm, ID: "build"}, FocusField{}},
		},
		{
			name:        "opening the same function again does nothing",
			events:      []Event{OpenFnForm{"deploy"}, OpenFnForm{"deploy"}},
			wantState:   state{Mode: FnForm, Function: "deploy"},
			wantEffects: nil,
		},
		{
			name:        "closing the fn-form goes back to the draft",
			events:      []Event{OpenFnForm{"deploy"}, CloseFnForm{}},
			wantState:   state{Mode: Idle},
			wantEffects: []Effect{Exit{Mode: FnForm, ID: "deploy"}, FocusInput{}},
		},
		{
			name:        "closing no fn-form does nothing",
			events:      []Event{CloseFnForm{}},
			wantState:   state{Mode: Idle},
			wantEffects: nil,
		},
		{
			name:        "a decision cancels the user's fn-form: no stash",
			events:      []Event{OpenFnForm{"deploy"}, asked(ask("q1"))},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{CancelFnForm{"deploy"}, Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: Question, ID: "q1"}, FocusMode{}},
		},
		{
			name:        "a decision that lands as the person types in their fn-form waits for their pause",
			events:      []Event{OpenFnForm{"deploy"}, Key{Key: "d", On: OnLine, At: at(0)}, Asked{Decision: ask("q1"), At: at(300)}},
			wantState:   state{Mode: FnForm, Function: "deploy", Queue: []string{"q1"}, Held: true},
			wantEffects: []Effect{Wake{After: 700 * time.Millisecond}},
		},
		{
			name:        "the held decision displaces the fn-form once the person paused",
			events:      []Event{OpenFnForm{"deploy"}, Key{Key: "d", On: OnLine, At: at(0)}, Asked{Decision: ask("q1"), At: at(300)}, Tick{At: at(1000)}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{CancelFnForm{"deploy"}, Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: Question, ID: "q1"}, FocusMode{}},
		},
		{
			// QA round 21 P1: a pause to think, then " Johnson" and Enter rejected the
			// approval that had taken the form's place, with "Johnson" as its reason.
			name: "a decision that took the fn-form's place never takes the focus on its own",
			events: []Event{OpenFnForm{"greet"}, Key{Key: "K", On: OnLine, At: at(0)}, Asked{Decision: approval("a1"), At: at(300)},
				Tick{At: at(1000)}, Tick{At: at(4000)}},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1"}},
			wantEffects: nil,
		},
		{
			name: "the letters typed after a long pause there are the draft's",
			events: []Event{OpenFnForm{"greet"}, Key{Key: "K", On: OnLine, At: at(0)}, Asked{Decision: approval("a1"), At: at(300)},
				Tick{At: at(1000)}, Tick{At: at(4000)}, Key{Key: "J", On: OnMode, At: at(4000)}},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1"}},
			wantEffects: []Effect{ToDraft{Text: "J"}},
		},
		{
			name: "typing on in the fn-form holds the decision longer",
			events: []Event{OpenFnForm{"deploy"}, Key{Key: "d", On: OnText, At: at(0)}, Asked{Decision: approval("a1"), At: at(300)},
				Key{Key: "e", On: OnText, At: at(900)}, Tick{At: at(1000)}},
			wantState:   state{Mode: FnForm, Function: "deploy", Queue: []string{"a1"}, Held: true},
			wantEffects: []Effect{Wake{After: 900 * time.Millisecond}},
		},
		{
			name: "an input method's keys in the fn-form are typing too",
			events: []Event{OpenFnForm{"deploy"}, Key{Key: "Process", On: OnLine, Composing: true, At: at(0)},
				Asked{Decision: ask("q1"), At: at(500)}},
			wantState:   state{Mode: FnForm, Function: "deploy", Queue: []string{"q1"}, Held: true},
			wantEffects: []Effect{Wake{After: 500 * time.Millisecond}},
		},
		{
			name: "an open composition in the fn-form holds the decision however long it dwells",
			events: []Event{OpenFnForm{"deploy"}, Composing{On: true, At: at(0)}, Asked{Decision: ask("q1"), At: at(5000)},
				Tick{At: at(6000)}},
			wantState:   state{Mode: FnForm, Function: "deploy", Queue: []string{"q1"}, Held: true},
			wantEffects: []Effect{Wake{After: DefaultFocusDelay}},
		},
		{
			name: "once the composition ended and the person paused, the decision takes the form's place",
			events: []Event{OpenFnForm{"deploy"}, Composing{On: true, At: at(0)}, Asked{Decision: ask("q1"), At: at(5000)},
				Composing{On: false, At: at(5500)}, Tick{At: at(6000)}, Tick{At: at(6500)}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{CancelFnForm{"deploy"}, Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: Question, ID: "q1"}, FocusMode{}},
		},
		{
			name:        "a composition outside the fn-form holds nothing",
			events:      []Event{Composing{On: true, At: at(0)}, Asked{Decision: ask("q1"), At: at(100)}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q1"}, FocusMode{}, wake},
		},
		{
			name:        "closing the fn-form shows the held decision at once",
			events:      []Event{OpenFnForm{"deploy"}, Key{Key: "d", On: OnLine, At: at(0)}, Asked{Decision: ask("q1"), At: at(300)}, CloseFnForm{}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: Question, ID: "q1"}, FocusMode{}, wake},
		},
		{
			name:        "a held decision that ends goes quietly, and the form stays",
			events:      []Event{OpenFnForm{"deploy"}, Key{Key: "d", On: OnLine, At: at(0)}, Asked{Decision: ask("q1"), At: at(300)}, Ended{ID: "q1", Outcome: TimedOut, At: at(500)}},
			wantState:   state{Mode: FnForm, Function: "deploy"},
			wantEffects: nil,
		},
		{
			name:        "a key on the fn-form's buttons is not typing: the decision displaces it",
			events:      []Event{OpenFnForm{"deploy"}, Key{Key: "Tab", On: OnOther, At: at(0)}, Asked{Decision: ask("q1"), At: at(300)}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{CancelFnForm{"deploy"}, Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: Question, ID: "q1"}, FocusMode{}},
		},
		{
			name:        "no restore: after the decision ends the composer is idle",
			events:      []Event{OpenFnForm{"deploy"}, asked(approval("a1")), Ended{ID: "a1"}},
			wantState:   state{Mode: Idle},
			wantEffects: []Effect{Exit{Mode: Approval, ID: "a1", Ended: true}, FocusInput{}},
		},
		{
			name:        "the fn-form is refused while a decision is shown",
			events:      []Event{asked(ask("q1")), OpenFnForm{"deploy"}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: nil,
		},

		// Chat about this
		{
			name:        "chat about this sets the head aside and focuses the draft",
			events:      []Event{asked(ask("q1")), ChatAbout{}},
			wantState:   state{Mode: Idle, Queue: []string{"q1"}, Aside: true},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1", Aside: true}, FocusInput{}},
		},
		{
			name:        "chat about this with nothing shown does nothing",
			events:      []Event{OpenFnForm{"deploy"}, ChatAbout{}},
			wantState:   state{Mode: FnForm, Function: "deploy"},
			wantEffects: nil,
		},
		{
			name:        "resume shows the set-aside head again",
			events:      []Event{asked(ask("q1")), ChatAbout{}, Resume{At: at(5000)}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q1", Resumed: true}, FocusField{}},
		},
		{
			name:        "resume with nothing set aside does nothing",
			events:      []Event{asked(ask("q1")), Resume{At: at(5000)}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: nil,
		},
		{
			name:        "a decision arriving while set aside waits behind the head",
			events:      []Event{asked(ask("q1")), ChatAbout{}, asked(approval("a1"))},
			wantState:   state{Mode: Idle, Queue: []string{"q1", "a1"}, Aside: true},
			wantEffects: nil,
		},
		{
			name:        "the fn-form opens while the head is set aside, which stays aside",
			events:      []Event{asked(ask("q1")), ChatAbout{}, OpenFnForm{"deploy"}},
			wantState:   state{Mode: FnForm, Queue: []string{"q1"}, Function: "deploy", Aside: true},
			wantEffects: []Effect{Shown{Mode: FnForm, ID: "deploy"}, FocusField{}},
		},
		{
			name:        "resuming over the fn-form cancels it",
			events:      []Event{asked(ask("q1")), ChatAbout{}, OpenFnForm{"deploy"}, Resume{At: at(1)}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{CancelFnForm{"deploy"}, Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: Question, ID: "q1", Resumed: true}, FocusField{}},
		},
		{
			name:        "the set-aside head ending alone clears set-aside silently",
			events:      []Event{asked(ask("q1")), ChatAbout{}, Ended{ID: "q1", Outcome: Answered}},
			wantState:   state{Mode: Idle},
			wantEffects: nil,
		},
		{
			name:        "the set-aside head ending shows the next one",
			events:      []Event{asked(ask("q1")), asked(approval("a1")), ChatAbout{}, Ended{ID: "q1", Outcome: Answered}},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1"}},
			wantEffects: []Effect{Shown{Mode: Approval, ID: "a1"}, FocusMode{}, wake},
		},
		{
			name: "the set-aside head ending with the fn-form open: the next one cancels it",
			events: []Event{asked(ask("q1")), asked(approval("a1")), ChatAbout{}, OpenFnForm{"deploy"},
				Ended{ID: "q1", Outcome: Answered}},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1"}},
			wantEffects: []Effect{CancelFnForm{"deploy"}, Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: Approval, ID: "a1"}, FocusMode{}},
		},
		{
			name:        "a queued decision ending keeps the head aside",
			events:      []Event{asked(ask("q1")), asked(approval("a1")), ChatAbout{}, Ended{ID: "a1"}},
			wantState:   state{Mode: Idle, Queue: []string{"q1"}, Aside: true},
			wantEffects: nil,
		},

		// Reset
		{
			name:        "reset on an idle composer shows the list's head",
			events:      []Event{Reset{Decisions: []Decision{approval("a1"), ask("q1")}, At: t0}},
			wantState:   state{Mode: Approval, Head: "a1", Queue: []string{"a1", "q1"}},
			wantEffects: []Effect{Shown{Mode: Approval, ID: "a1"}, FocusMode{}, wake},
		},
		{
			name:        "reset keeps the shown head and the order, drops the gone ones",
			events:      []Event{asked(ask("q1")), asked(ask("q2")), asked(ask("q3")), Reset{Decisions: []Decision{ask("q1"), ask("q3"), ask("q4")}}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1", "q3", "q4"}},
			wantEffects: nil,
		},
		{
			name:        "reset that drops the shown head shows the next",
			events:      []Event{asked(ask("q1")), asked(ask("q2")), Reset{Decisions: []Decision{ask("q2")}}},
			wantState:   state{Mode: Question, Head: "q2", Queue: []string{"q2"}},
			wantEffects: []Effect{Exit{Mode: Question, ID: "q1"}, Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake},
		},
		{
			name:        "reset to nothing goes idle",
			events:      []Event{asked(approval("a1")), Reset{}},
			wantState:   state{Mode: Idle},
			wantEffects: []Effect{Exit{Mode: Approval, ID: "a1"}, FocusInput{}},
		},
		{
			name:        "reset keeps the fn-form when no decision is shown",
			events:      []Event{OpenFnForm{"deploy"}, Reset{}},
			wantState:   state{Mode: FnForm, Function: "deploy"},
			wantEffects: nil,
		},
		{
			name:        "reset closes the fn-form when a decision is now shown",
			events:      []Event{OpenFnForm{"deploy"}, Reset{Decisions: []Decision{ask("q1")}}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{CancelFnForm{"deploy"}, Exit{Mode: FnForm, ID: "deploy"}, Shown{Mode: Question, ID: "q1"}, FocusMode{}},
		},
		{
			name:        "a reload brings back the fn-form the person had open, focused",
			events:      []Event{Reset{FnForm: true, At: t0}},
			wantState:   state{Mode: FnForm},
			wantEffects: []Effect{Shown{Mode: FnForm}, FocusField{}},
		},
		{
			name:        "a decision due after the reload takes the fn-form's place",
			events:      []Event{Reset{Decisions: []Decision{ask("q1")}, FnForm: true, At: t0}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q1"}, FocusMode{}},
		},
		{
			name:        "a decision set aside before the reload leaves the fn-form open",
			events:      []Event{Reset{Decisions: []Decision{ask("q1")}, Aside: []string{"q1"}, FnForm: true, At: t0}},
			wantState:   state{Mode: FnForm, Queue: []string{"q1"}, Aside: true},
			wantEffects: []Effect{Shown{Mode: FnForm}, FocusField{}},
		},
		{
			name:        "an fn-form already open stays as it is",
			events:      []Event{OpenFnForm{"deploy"}, Reset{FnForm: true}},
			wantState:   state{Mode: FnForm, Function: "deploy"},
			wantEffects: nil,
		},
		{
			name:        "a session switch that takes the shown decision away has not ended it",
			events:      []Event{asked(approval("a1")), Reset{Decisions: []Decision{ask("q9")}}},
			wantState:   state{Mode: Question, Head: "q9", Queue: []string{"q9"}},
			wantEffects: []Effect{Exit{Mode: Approval, ID: "a1"}, Shown{Mode: Question, ID: "q9"}, FocusMode{}, wake},
		},
		{
			name:        "reset keeps a set-aside head aside",
			events:      []Event{asked(ask("q1")), ChatAbout{}, Reset{Decisions: []Decision{ask("q1"), ask("q2")}}},
			wantState:   state{Mode: Idle, Queue: []string{"q1", "q2"}, Aside: true},
			wantEffects: nil,
		},
		{
			name:        "a reload keeps the head the person set aside aside: it does not take the focus",
			events:      []Event{Reset{Decisions: []Decision{ask("q1"), ask("q2")}, Aside: []string{"q1"}, At: t0}},
			wantState:   state{Mode: Idle, Queue: []string{"q1", "q2"}, Aside: true},
			wantEffects: nil,
		},
		{
			name:        "a reload sets aside only the head: a queued one kept aside shows when its turn comes",
			events:      []Event{Reset{Decisions: []Decision{ask("q1"), ask("q2")}, Aside: []string{"q2"}, At: t0}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1", "q2"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q1"}, FocusMode{}, wake},
		},
		{
			name:        "after a reload, Answer brings the set-aside head back, focused",
			events:      []Event{Reset{Decisions: []Decision{ask("q1")}, Aside: []string{"q1"}, At: t0}, Resume{At: at(10)}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q1", Resumed: true}, FocusField{}},
		},
		{
			name:        "a set-aside decision that ended is not kept aside: a reload shows the next",
			events:      []Event{Reset{Decisions: []Decision{ask("q2")}, Aside: []string{"q1"}, At: t0}},
			wantState:   state{Mode: Question, Head: "q2", Queue: []string{"q2"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake},
		},
		{
			name:        "reset that drops the set-aside head shows the new head",
			events:      []Event{asked(ask("q1")), ChatAbout{}, Reset{Decisions: []Decision{ask("q2")}}},
			wantState:   state{Mode: Question, Head: "q2", Queue: []string{"q2"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake},
		},
		{
			name:        "reset keeps local decisions: the server does not list them",
			events:      []Event{asked(local("l1")), asked(ask("q1")), Reset{Decisions: []Decision{ask("q2")}}},
			wantState:   state{Mode: Question, Head: "l1", Queue: []string{"l1", "q2"}},
			wantEffects: nil,
		},
		{
			name:        "reset ignores duplicates, empty ids and ended decisions",
			events:      []Event{Ended{ID: "q0"}, Reset{Decisions: []Decision{ask("q1"), ask("q1"), ask(""), ask("q0")}}},
			wantState:   state{Mode: Question, Head: "q1", Queue: []string{"q1"}},
			wantEffects: []Effect{Shown{Mode: Question, ID: "q1"}, FocusMode{}, wake},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Config{})
			got := machinetest.Last(t, m.Dispatch, tt.events...)
			machinetest.State(t, snapshot(m), tt.wantState)
			machinetest.Equal(t, got, tt.wantEffects)
		})
	}
}

func TestGuard(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		events []Event
		enter  time.Time
		want   bool
	}{
		{"idle is never guarded", Config{}, nil, at(0), false},
		{"inside the default guard", Config{}, []Event{Asked{ask("q1"), at(0)}}, at(399), true},
		{"at the default guard's end", Config{}, []Event{Asked{ask("q1"), at(0)}}, at(400), false},
		{"a custom guard", Config{EnterGuard: time.Second}, []Event{Asked{ask("q1"), at(0)}}, at(999), true},
		{"a negative guard turns it off", Config{EnterGuard: -1}, []Event{Asked{ask("q1"), at(0)}}, at(1), false},
		{"a queued decision does not restart the guard", Config{}, []Event{Asked{ask("q1"), at(0)}, Asked{ask("q2"), at(1000)}}, at(1100), false},
		{"the next decision showing restarts it", Config{}, []Event{Asked{ask("q1"), at(0)}, Asked{ask("q2"), at(100)}, Ended{ID: "q1", At: at(1000)}}, at(1100), true},
		{"resume restarts it", Config{}, []Event{Asked{ask("q1"), at(0)}, ChatAbout{}, Resume{At: at(5000)}}, at(5100), true},
		{"a reset showing a new head starts it", Config{}, []Event{Reset{Decisions: []Decision{ask("q1")}, At: at(2000)}}, at(2100), true},
		{"the decision the person was in, back after a reload, is not guarded", Config{}, []Event{Reset{Decisions: []Decision{ask("q1")}, Entered: "q1", At: at(2000)}}, at(2100), false},
		{"a reset keeping the head does not restart it", Config{}, []Event{Asked{ask("q1"), at(0)}, Reset{Decisions: []Decision{ask("q1")}, At: at(2000)}}, at(2100), false},
		{"set aside is not guarded", Config{}, []Event{Asked{ask("q1"), at(0)}, ChatAbout{}}, at(100), false},
		{"the fn-form is not guarded", Config{}, []Event{OpenFnForm{"deploy"}}, at(0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(tt.cfg)
			machinetest.Run(t, m.Dispatch, tt.events...)
			if got := m.Guarded(tt.enter); got != tt.want {
				t.Errorf("Guarded: got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQueueIsACopy(t *testing.T) {
	m := New(Config{})
	m.Dispatch(asked(ask("q1")))
	q := m.Queue()
	q[0].ID = "changed"
	if d, _ := m.Head(); d.ID != "q1" {
		t.Errorf("Head after changing Queue's result: got %q, want q1", d.ID)
	}
}

func TestNames(t *testing.T) {
	machinetest.Names(t, "idle fn-form question approval Mode(9)", Idle, FnForm, Question, Approval, Mode(9))
	machinetest.Names(t, "other mode line choice text button Target(7)", OnOther, OnMode, OnLine, OnChoice, OnText, OnButton, Target(7))
	machinetest.Names(t, "answered declined timed-out aborted Outcome(-1)", Answered, Declined, TimedOut, Aborted, Outcome(-1))
}

// TestKey: what a key pressed in a morphed mode means. The machine is set up by events, the
// key comes at a time, and the state never changes but by Escape on a decision (set aside).
func TestKey(t *testing.T) {
	question := []Event{Asked{ask("q1"), at(0)}}
	approve := []Event{Asked{approval("a1"), at(0)}}
	form := []Event{OpenFnForm{"deploy"}}
	late := at(1000) // after the guard
	aside := []Effect{Exit{Mode: Question, ID: "q1", Aside: true}, FocusInput{}}
	tests := []struct {
		name   string
		events []Event
		key    Key
		want   []Effect
	}{
		{"idle: every key is the bar's", nil, Key{Key: "Enter", On: OnLine, At: late}, nil},
		{"an Enter inside the guard is swallowed", question, Key{Key: "Enter", On: OnLine, At: at(100)}, []Effect{Swallow{}}},
		{"inside the guard, on a button too", question, Key{Key: "Enter", On: OnOther, At: at(399)}, []Effect{Swallow{}}},
		{"after the guard, Enter in a line advances", question, Key{Key: "Enter", On: OnLine, At: late}, []Effect{Advance{}}},
		{"Enter on a radio or checkbox advances", question, Key{Key: "Enter", On: OnChoice, At: late}, []Effect{Advance{}}},
		{"Shift+Enter in a line is the browser's", question, Key{Key: "Enter", On: OnLine, Shift: true, At: late}, nil},
		{"Enter in a textarea breaks the line", question, Key{Key: "Enter", On: OnText, At: late}, nil},
		{"Enter on a button presses it", question, Key{Key: "Enter", On: OnOther, At: late}, nil},
		{"the fn-form has no guard", form, Key{Key: "Enter", On: OnLine, At: t0}, []Effect{Advance{}}},
		{"a composing key never answers", question, Key{Key: "Enter", On: OnLine, Composing: true, At: late}, nil},
		{"a letter on the morphed area goes to the draft, and the focus stays the writer's", question, Key{Key: "h", On: OnMode, At: at(10)}, []Effect{ToDraft{Text: "h"}}},
		{"one letter, whatever its bytes", question, Key{Key: "é", On: OnMode, At: late}, []Effect{ToDraft{Text: "é"}}},
		{"a shifted letter too", question, Key{Key: "H", On: OnMode, Shift: true, At: late}, []Effect{ToDraft{Text: "H"}}},
		{"in the fn-form, a letter on its body is its fields'", form, Key{Key: "x", On: OnMode, At: late}, []Effect{ToField{}}},
		{"and a Backspace there too", form, Key{Key: "Backspace", On: OnMode, At: late}, []Effect{ToField{}}},
		{"a Backspace on the morphed area edits the draft the letters went to", question, Key{Key: "Backspace", On: OnMode, At: late}, []Effect{ToDraft{Erase: -1}}},
		{"inside the guard too: it answers nothing", approve, Key{Key: "Backspace", On: OnMode, At: at(10)}, []Effect{ToDraft{Erase: -1}}},
		{"so does a Delete", approve, Key{Key: "Delete", On: OnMode, At: late}, []Effect{ToDraft{Erase: 1}}},
		{"a shifted Backspace is one", question, Key{Key: "Backspace", On: OnMode, Shift: true, At: late}, []Effect{ToDraft{Erase: -1}}},
		{"a chord's Backspace is not the draft's", question, Key{Key: "Backspace", On: OnMode, Ctrl: true, At: late}, nil},
		{"a Backspace inside the decision is its field's", question, Key{Key: "Backspace", On: OnLine, At: late}, nil},
		{"nor on its buttons", approve, Key{Key: "Delete", On: OnOther, At: late}, nil},
		{"a composing Backspace is the input method's", question, Key{Key: "Backspace", On: OnMode, Composing: true, At: late}, nil},
		{"a shortcut is not a letter", question, Key{Key: "c", On: OnMode, Ctrl: true, At: late}, nil},
		{"nor with Meta", question, Key{Key: "v", On: OnMode, Meta: true, At: late}, nil},
		{"nor with Alt", question, Key{Key: "x", On: OnMode, Alt: true, At: late}, nil},
		{"a letter inside the decision is its own", question, Key{Key: "h", On: OnLine, At: late}, nil},
		{"a named key on the morphed area is no letter", question, Key{Key: "ArrowDown", On: OnMode, At: late}, nil},
		{"Tab on the morphed area goes into the decision", question, Key{Key: "Tab", On: OnMode, At: at(10)}, []Effect{TabIn{}}},
		{"Shift+Tab there is the browser's", question, Key{Key: "Tab", On: OnMode, Shift: true, At: late}, nil},
		{"set aside, Tab is the browser's", append(question, ChatAbout{}), Key{Key: "Tab", On: OnMode, At: late}, nil},
		{"a composing letter is the input method's", question, Key{Key: "h", On: OnMode, Composing: true, At: late}, nil},
		{"Escape on a button sets the decision aside", question, Key{Key: "Escape", On: OnOther, At: late}, aside},
		{"Escape on the morphed area sets it aside", question, Key{Key: "Escape", On: OnMode, At: at(1)}, aside},
		{"Escape on a radio sets it aside", question, Key{Key: "Escape", On: OnChoice, At: late}, aside},
		{"Escape in a line sets it aside, the typing kept", question, Key{Key: "Escape", On: OnLine, At: late}, aside},
		{"Escape in an approval sets it aside, never declines", approve, Key{Key: "Escape", On: OnText, At: late}, []Effect{Exit{Mode: Approval, ID: "a1", Aside: true}, FocusInput{}}},
		{"Escape closes the fn-form", form, Key{Key: "Escape", On: OnOther, At: late}, []Effect{RunSecondary{}}},
		{"Escape in the fn-form's line stays with the field", form, Key{Key: "Escape", On: OnLine, At: late}, nil},
		{"mod+Enter approves", approve, Key{Key: "Enter", On: OnText, Ctrl: true, At: late}, []Effect{Approve{}}},
		{"⌘+Enter approves", approve, Key{Key: "Enter", On: OnMode, Meta: true, At: late}, []Effect{Approve{}}},
		{"mod+Shift+Enter rejects", approve, Key{Key: "Enter", On: OnOther, Ctrl: true, Shift: true, At: late}, []Effect{Reject{}}},
		{"the approve chord is guarded too", approve, Key{Key: "Enter", On: OnMode, Ctrl: true, At: at(100)}, []Effect{Swallow{}}},
		{"a composing chord approves nothing", approve, Key{Key: "Enter", On: OnText, Ctrl: true, Composing: true, At: late}, nil},
		{"Alt+Enter is no chord of the modes", approve, Key{Key: "Enter", On: OnOther, Alt: true, At: late}, nil},
		{"mod+Enter in a question sends it", question, Key{Key: "Enter", On: OnText, Ctrl: true, At: late}, []Effect{RunPrimary{}}},
		{"mod+Shift+Enter in a question is nothing", question, Key{Key: "Enter", On: OnText, Ctrl: true, Shift: true, At: late}, nil},
		{"Tab in a question's textarea goes on", question, Key{Key: "Tab", On: OnText, At: late}, []Effect{TabOn{}}},
		{"Tab in a question's line goes on", question, Key{Key: "Tab", On: OnLine, At: late}, []Effect{TabOn{}}},
		{"Tab on a radio is the browser's", question, Key{Key: "Tab", On: OnChoice, At: late}, nil},
		{"Shift+Tab is the browser's", question, Key{Key: "Tab", On: OnText, Shift: true, At: late}, nil},
		{"Tab in the fn-form is the browser's", form, Key{Key: "Tab", On: OnLine, At: late}, nil},
		{"Tab in an approval's field is the browser's", approve, Key{Key: "Tab", On: OnText, At: late}, nil},
		{"a single letter never approves", approve, Key{Key: "y", On: OnOther, At: late}, nil},
		// QA round 21: letters on a confirm's focused No were dropped.
		{"a letter on a button answers nothing and is the draft's; the focus leaves the button", approve, Key{Key: "y", On: OnButton, At: late}, []Effect{ToDraft{Text: "y"}, FocusMode{}}},
		{"a letter on a radio or a checkbox is the draft's", question, Key{Key: "h", On: OnChoice, At: late}, []Effect{ToDraft{Text: "h"}, FocusMode{}}},
		// The re-test of QA round 21: "ok then" typed on a confirm's No answered No.
		{"the Space after it is the draft's too", append(question, Key{Key: "o", On: OnButton, At: late}), Key{Key: " ", On: OnMode, At: late}, []Effect{ToDraft{Text: " "}}},
		{"and an Enter presses nothing, which the page says", append(question, Key{Key: "o", On: OnButton, At: late}), Key{Key: "Enter", On: OnMode, At: late}, []Effect{EnterHeld{}}},
		{"Space on a button is its own press", question, Key{Key: " ", On: OnButton, At: late}, nil},
		{"a chord on a button is no letter", question, Key{Key: "c", On: OnButton, Ctrl: true, At: late}, nil},
		{"a letter on the fn-form's buttons is the browser's", form, Key{Key: "h", On: OnButton, At: late}, nil},
		{"set aside, the composer is idle", append(question, ChatAbout{}), Key{Key: "Escape", On: OnOther, At: late}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, before, after := dispatchAfter(t, tt.events, tt.key)
			machinetest.Equal(t, got, tt.want)
			if !reflect.DeepEqual(after, before) && tt.key.Key != "Escape" {
				t.Errorf("a key changed the state:\n got %+v\nwant %+v", after, before)
			}
		})
	}
}

// TestPress: a click in the morphed area, as the view reads it (its time, its count, its
// pointer), is ignored when a pointer made it and it was meant for the decision the shown one
// replaced: inside the guard after it appeared, or as the rest of a multi-click that began
// before it did (QA round 16's P1: a double-click on Approve approved the next run too).
func TestPress(t *testing.T) {
	// q1 is answered at 1000 ms, and a1, asked meanwhile, takes its place then.
	next := []Event{Asked{approval("q1"), at(0)}, Asked{approval("a1"), at(500)}, Ended{ID: "q1", At: at(1000)}}
	swallow := []Effect{Swallow{}}
	mouse := func(detail, ms int) Press { return Press{Detail: detail, At: at(ms)} }
	tap := mouse // a finger's click is counted as a mouse's
	tests := []struct {
		name   string
		events []Event
		press  Press
		want   []Effect
	}{
		{"idle: a click is the page's", nil, mouse(1, 1000), nil},
		{"a click inside the guard after a decision appeared is ignored", next, mouse(1, 1100), swallow},
		{"at the guard's last moment too", next, mouse(1, 1399), swallow},
		{"after the guard it answers", next, mouse(1, 1400), nil},
		{"a double-click's second click, 120 ms after its first answered the decision before", append(next, mouse(1, 980)), mouse(2, 1100), swallow},
		{"a slow double-click's second click, past the guard, is still the gesture begun before", append(next, mouse(1, 950)), mouse(2, 1500), swallow},
		{"a multi-click's click with none of it seen (it began outside the decision)", next, mouse(3, 2000), swallow},
		{"a double-click begun on this decision goes through: its answer goes once", append(next, mouse(1, 2000)), mouse(2, 2120), nil},
		{"a first click inside the guard does not hold back the person's next one", append(next, mouse(1, 1300)), mouse(2, 1600), nil},
		{"two single clicks: the second inside the guard is ignored", append(next, mouse(1, 980)), mouse(1, 1240), swallow},
		{"a phone's second tap, 170 ms after the first", append(next, tap(1, 990)), tap(1, 1160), swallow},
		{"counted as a double tap, too", append(next, tap(1, 990)), tap(2, 1160), swallow},
		{"a tap after the guard answers", next, tap(1, 1600), nil},
		{"a key's or a script's click is not a pointer's: the keys have their guard", next, Press{At: at(1100)}, nil},
		{"the first decision shown on its own is guarded too", []Event{Asked{approval("a1"), at(0)}}, mouse(1, 100), swallow},
		{"a resumed decision is guarded as it comes back", []Event{Asked{approval("a1"), at(0)}, ChatAbout{}, Resume{At: at(5000)}}, mouse(2, 5100), swallow},
		{"the decision the person was in before a reload is not", []Event{Reset{Decisions: []Decision{approval("a1")}, Entered: "a1", At: at(0)}}, mouse(1, 100), nil},
		{"a decision set aside is not shown: the composer is idle", []Event{Asked{approval("a1"), at(0)}, ChatAbout{}}, mouse(1, 100), nil},
		{"the fn-form is the person's own, never guarded", []Event{OpenFnForm{"deploy"}}, mouse(2, 0), nil},
		{"a question's choice as an approval's", []Event{Asked{confirm("c1"), at(0)}, Asked{confirm("c2"), at(0)}, Ended{ID: "c1", At: at(2000)}}, mouse(2, 2240), swallow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, before, after := dispatchAfter(t, tt.events, tt.press)
			machinetest.Equal(t, got, tt.want)
			if !reflect.DeepEqual(after, before) {
				t.Errorf("a click changed the state:\n got %+v\nwant %+v", after, before)
			}
		})
	}
	t.Run("a negative guard turns the time rule off, not the multi-click's", func(t *testing.T) {
		m := New(Config{EnterGuard: -1})
		machinetest.Run[Event](t, m.Dispatch, Asked{approval("a1"), at(0)})
		machinetest.Equal(t, machinetest.Run[Event](t, m.Dispatch, mouse(1, 10)), nil)
		machinetest.Run[Event](t, m.Dispatch, Ended{ID: "a1", At: at(20)}, Asked{approval("a2"), at(20)})
		machinetest.Equal(t, machinetest.Run[Event](t, m.Dispatch, mouse(2, 30)), swallow)
	})
}

// TestStray: the rule of Press on its own, as a decision card applies it: shown when the card
// drew the decision, before the pointer's click before this one.
func TestStray(t *testing.T) {
	g := DefaultEnterGuard
	tests := []struct {
		name          string
		p             Press
		shown, before time.Time
		guard         time.Duration
		want          bool
	}{
		{"a click inside the guard", Press{Detail: 1, At: at(1300)}, at(1000), at(900), g, true},
		{"a click after it", Press{Detail: 1, At: at(1400)}, at(1000), at(900), g, false},
		{"a double-click's second, begun before the card drew this decision", Press{Detail: 2, At: at(1600)}, at(1000), at(950), g, true},
		{"a double-click begun on it", Press{Detail: 2, At: at(1600)}, at(1000), at(1500), g, false},
		{"a tap inside the guard", Press{Detail: 1, At: at(1100)}, at(1000), time.Time{}, g, true},
		{"a key's click", Press{At: at(1010)}, at(1000), time.Time{}, g, false},
		{"no guard: only the multi-click", Press{Detail: 1, At: at(1010)}, at(1000), time.Time{}, 0, false},
		{"a decision never drawn anew (zero) is not guarded", Press{Detail: 1, At: at(10)}, time.Time{}, time.Time{}, g, false},
	}
	for _, tt := range tests {
		if got := Stray(tt.p, tt.shown, tt.before, tt.guard); got != tt.want {
			t.Errorf("%s: Stray = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestModeDecision(t *testing.T) {
	for m, want := range map[Mode]bool{Idle: false, FnForm: false, Question: true, Approval: true} {
		if got := m.Decision(); got != want {
			t.Errorf("%v.Decision() = %v, want %v", m, got, want)
		}
	}
}

// TestFocus: a decision that appears on its own holds the focus on the morphed area for the
// focus delay, then takes it at its first field; a person still typing for the draft pushes that
// back, and one who moved into the decision keeps the focus where they put it.
func TestFocus(t *testing.T) {
	shown := Asked{ask("q1"), at(0)}
	tests := []struct {
		name   string
		events []Event
		want   []Effect // the last event's
	}{
		{"inside the focus delay, the tick waits on", []Event{shown, Tick{at(100)}}, []Effect{Wake{After: 900 * time.Millisecond}}},
		{"past the guard, still the draft's: a person looks up from the keyboard", []Event{shown, Tick{at(400)}, Key{Key: "a", On: OnMode, At: at(535)}}, []Effect{ToDraft{Text: "a"}}},
		{"after the focus delay, the first field", []Event{shown, Tick{at(1000)}}, []Effect{FocusField{}}},
		{"once only", []Event{shown, Tick{at(1000)}, Tick{at(1500)}}, nil},
		{"a letter for the draft: the writer keeps the focus", []Event{shown, Key{Key: "a", On: OnMode, At: at(300)}, Tick{at(400)}}, nil},
		{"even once the typing stops", []Event{shown, Key{Key: "a", On: OnMode, At: at(300)}, Tick{at(400)}, Tick{at(5000)}}, nil},
		{"the writer's letters all go to the draft", []Event{shown, Key{Key: "a", On: OnMode, At: at(300)}, Tick{at(800)}, Key{Key: " ", On: OnMode, At: at(900)}}, []Effect{ToDraft{Text: " "}}},
		{"a Backspace is the writer's: the focus stays", []Event{shown, Key{Key: "Backspace", On: OnMode, At: at(300)}, Tick{at(400)}, Tick{at(5000)}}, nil},
		{"and so are the Backspaces after a pause", []Event{shown, Covering{}, Tick{at(1400)}, Key{Key: "Backspace", On: OnMode, At: at(1500)}}, []Effect{ToDraft{Erase: -1}}},
		{"a person who moved in keeps the focus", []Event{shown, Key{Key: "Tab", On: OnOther, At: at(200)}, Tick{at(1000)}}, nil},
		{"landed over an unsent draft: the writer keeps the focus", []Event{shown, Covering{}, Tick{at(400)}}, nil},
		{"even after a long pause", []Event{shown, Covering{}, Tick{at(400)}, Tick{at(5000)}}, nil},
		{"and the Space after the pause is the draft's", []Event{shown, Covering{}, Tick{at(1400)}, Key{Key: " ", On: OnMode, At: at(1500)}}, []Effect{ToDraft{Text: " "}}},
		{"a Space alone is the draft's, but no writing: the field after the delay", []Event{shown, Key{Key: " ", On: OnMode, At: at(220)}, Tick{at(1000)}}, []Effect{FocusField{}}},
		{"a Space then a letter is writing", []Event{shown, Key{Key: " ", On: OnMode, At: at(220)}, Key{Key: "o", On: OnMode, At: at(400)}, Tick{at(1000)}}, nil},
		{"covering with nothing shown does nothing", []Event{Covering{}}, nil},
		{"the next decision, with the draft gone, takes the focus after its delay", []Event{shown, Covering{}, Asked{ask("q2"), at(0)}, Ended{ID: "q1", At: at(1000)}, Tick{at(2000)}}, []Effect{FocusField{}}},
		{"letters typed inside are the field's, no draft", []Event{shown, Tick{at(400)}, Key{Key: "a", On: OnMode, At: at(500)}}, []Effect{ToDraft{Text: "a"}}},
		{"set aside, nothing takes the focus", []Event{shown, ChatAbout{}, Tick{at(400)}}, nil},
		{"resumed, the field at once", []Event{shown, ChatAbout{}, Resume{at(900)}}, []Effect{Shown{Mode: Question, ID: "q1", Resumed: true}, FocusField{}}},
		{"the next decision waits its own delay", []Event{shown, Asked{ask("q2"), at(0)}, Tick{at(1000)}, Ended{ID: "q1", At: at(1000)}, Tick{at(1100)}}, []Effect{Wake{After: 900 * time.Millisecond}}},
		{"the fn-form focuses its field when opened", []Event{OpenFnForm{"deploy"}}, []Effect{Shown{Mode: FnForm, ID: "deploy"}, FocusField{}}},
		{"the decision the person was in before a reload: the field at once", []Event{Reset{Decisions: []Decision{ask("q1")}, Entered: "q1", At: at(0)}}, []Effect{Shown{Mode: Question, ID: "q1"}, FocusField{}}},
		{"entered names another decision: the head waits its delay", []Event{Reset{Decisions: []Decision{ask("q1"), ask("q2")}, Entered: "q2", At: at(0)}}, []Effect{Shown{Mode: Question, ID: "q1"}, FocusMode{}, wake}},
		{"entered but set aside before the reload: nothing takes the focus", []Event{Reset{Decisions: []Decision{ask("q1")}, Aside: []string{"q1"}, Entered: "q1", At: at(0)}}, nil},
		{"no guard, no wait", nil, nil},
		// A chain: the next decision lands as the one the person was in is answered.
		{"the next of a chain opens on its field at once", []Event{shown, Tick{at(1000)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{named("q2"), at(1700)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusField{}}},
		{"draft or none", []Event{shown, Tick{at(1000)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{named("q2"), at(1700)}, Covering{}, Tick{at(2700)}}, nil},
		{"a key inside is enough to be in it", []Event{shown, Key{Key: "ArrowLeft", On: OnChoice, At: at(600)}, Ended{ID: "q1", Outcome: Answered, At: at(900)}, Asked{named("q2"), at(1000)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusField{}}},
		{"queued behind it, the same", []Event{shown, Asked{named("q2"), at(0)}, Tick{at(1000)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}},
			[]Effect{Exit{Mode: Question, ID: "q1", Ended: true}, Shown{Mode: Question, ID: "q2"}, FocusField{}}},
		{"its Enter is still guarded", []Event{shown, Tick{at(1000)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{named("q2"), at(1700)}, Key{Key: "Enter", On: OnLine, At: at(1900)}},
			[]Effect{Swallow{}}},
		{"a chain's confirm waits its delay: its Space would press an option", []Event{shown, Tick{at(1000)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{confirm("q2"), at(1700)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake}},
		{"and so does an approval", []Event{shown, Tick{at(1000)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{approval("a2"), at(1700)}},
			[]Effect{Shown{Mode: Approval, ID: "a2"}, FocusMode{}, wake}},
		{"past the focus delay it is no chain", []Event{shown, Tick{at(1000)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{named("q2"), at(2500)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake}},
		{"nor after a decision the person never went into", []Event{shown, Ended{ID: "q1", Outcome: Answered, At: at(500)}, Asked{named("q2"), at(600)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake}},
		{"nor one typed over for the draft", []Event{shown, Key{Key: "a", On: OnMode, At: at(300)}, Ended{ID: "q1", Outcome: Answered, At: at(500)}, Asked{named("q2"), at(600)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake}},
		{"nor one that timed out", []Event{shown, Tick{at(1000)}, Ended{ID: "q1", Outcome: TimedOut, At: at(1500)}, Asked{named("q2"), at(1700)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake}},
		{"nor one answered elsewhere while the person typed in it", []Event{shown, Tick{at(1000)}, Key{Key: "p", On: OnText, At: at(1200)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{named("q2"), at(1700)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake}},
		{"but typed, then Enter: the person's answer", []Event{shown, Tick{at(1000)}, Key{Key: "p", On: OnLine, At: at(1200)}, Key{Key: "Enter", On: OnLine, At: at(1300)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{named("q2"), at(1700)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusField{}}},
		{"and typed, then a click (Send): the person's answer", []Event{shown, Tick{at(1000)}, Key{Key: "p", On: OnText, At: at(1200)}, Press{Detail: 1, At: at(1300)}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{named("q2"), at(1700)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusField{}}},
		{"nor one set aside", []Event{shown, Tick{at(1000)}, ChatAbout{}, Ended{ID: "q1", Outcome: Answered, At: at(1500)}, Asked{named("q2"), at(1700)}},
			[]Effect{Shown{Mode: Question, ID: "q2"}, FocusMode{}, wake}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Config{})
			var got []Effect
			if n := len(tt.events); n > 0 {
				machinetest.Run(t, m.Dispatch, tt.events[:n-1]...)
				got = m.Dispatch(tt.events[n-1])
			}
			machinetest.Equal(t, got, tt.want)
		})
	}
	m := New(Config{EnterGuard: -1})
	machinetest.Equal(t, m.Dispatch(shown), []Effect{Shown{Mode: Question, ID: "q1"}, FocusField{}})
}

// TestAsideIDFollowsTheSetAsideHead: what the view keeps across a reload is the set-aside
// head's id while it is set aside, and nothing once the person returned to it or it ended.
func TestAsideIDFollowsTheSetAsideHead(t *testing.T) {
	m := New(Config{})
	m.Dispatch(asked(ask("q1")))
	m.Dispatch(asked(ask("q2")))
	if got := m.AsideID(); got != "" {
		t.Fatalf("shown: AsideID = %q", got)
	}
	m.Dispatch(ChatAbout{})
	if got := m.AsideID(); got != "q1" {
		t.Fatalf("set aside: AsideID = %q, want q1", got)
	}
	m.Dispatch(Resume{At: at(5)})
	if got := m.AsideID(); got != "" {
		t.Fatalf("resumed: AsideID = %q", got)
	}
	m.Dispatch(ChatAbout{})
	m.Dispatch(Ended{ID: "q1", Outcome: Answered, At: at(9)})
	if got := m.AsideID(); got != "" {
		t.Fatalf("ended: AsideID = %q, want none (q2 has not been seen)", got)
	}
}

// TestEnteredIDFollowsTheFocus: what the view keeps across a reload is the shown head the
// focus went into (it took it, or the person pressed a key inside), and nothing while the
// head only waits its delay, or the person typed for their draft on it.
func TestEnteredIDFollowsTheFocus(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		want   string
	}{
		{"shown, waiting its delay", []Event{Asked{ask("q1"), at(0)}}, ""},
		{"the focus taken after the delay", []Event{Asked{ask("q1"), at(0)}, Tick{at(1000)}}, "q1"},
		{"a key inside it", []Event{Asked{ask("q1"), at(0)}, Key{Key: "x", On: OnLine, At: at(200)}}, "q1"},
		{"letters for the draft on it", []Event{Asked{ask("q1"), at(0)}, Key{Key: "x", On: OnMode, At: at(200)}, Tick{at(1000)}}, ""},
		{"set aside", []Event{Asked{ask("q1"), at(0)}, Tick{at(1000)}, ChatAbout{}}, ""},
		{"the next head is not entered yet", []Event{Asked{ask("q1"), at(0)}, Asked{ask("q2"), at(0)}, Tick{at(1000)}, Ended{ID: "q1", At: at(1100)}}, ""},
		{"resumed", []Event{Asked{ask("q1"), at(0)}, ChatAbout{}, Resume{at(500)}}, "q1"},
		{"back after a reload", []Event{Reset{Decisions: []Decision{ask("q1")}, Entered: "q1", At: at(0)}}, "q1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Config{})
			machinetest.Run(t, m.Dispatch, tt.events...)
			if got := m.EnteredID(); got != tt.want {
				t.Fatalf("EnteredID = %q, want %q", got, tt.want)
			}
		})
	}
}
