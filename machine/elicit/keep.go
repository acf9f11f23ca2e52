package elicit

import (
	"encoding/json"
	"fmt"

	"parley/machine/enum"
)

// Log is the answers given so far in a form, kept as the events that gave them: a page that
// reloads mid-question replays them into a new form of the same decision, which then holds
// the same answers by construction (the form is a pure machine). It encodes to JSON for the
// tab's storage; where it is stored is the view's business (docs/elicitation.md).
//
// The zero Log is empty and ready.
type Log struct{ entries []entry }

// entry is one answering event as stored. The short JSON names keep a long form's log small.
type entry struct {
	Kind  entryKind `json:"k"`
	Index int       `json:"i"`
	Value string    `json:"v,omitempty"`
	Stay  bool      `json:"s,omitempty"`
}

// entryKind names the event an entry stands for.
type entryKind int

const (
	// unknownEntry is a kind this version does not know (a log written by another one): it
	// is skipped on replay, and the rest of the log still counts.
	unknownEntry entryKind = iota
	pickEntry
	toggleEntry
	otherEntry
	typeEntry
	typeOtherEntry
	gotoEntry
)

// entryNames are the kinds as stored: changing one forgets what tabs kept under it.
var entryNames = [...]string{"unknown", "pick", "toggle", "other", "type", "type-other", "goto"}

// String returns the kind as stored.
func (k entryKind) String() string { return enum.Name(entryNames[:], k) }

// MarshalText writes the kind's stored name.
func (k entryKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a stored name; one it does not know is unknownEntry, not an error.
func (k *entryKind) UnmarshalText(b []byte) error {
	*k = unknownEntry
	for i, n := range entryNames {
		if i > 0 && n == string(b) {
			*k = entryKind(i)
		}
	}
	return nil
}

// typing reports whether the kind replaces a field's whole text: such entries coalesce.
func (k entryKind) typing() bool { return k == typeEntry || k == typeOtherEntry }

func entryOf(ev Event) (entry, bool) {
	switch e := ev.(type) {
	case Pick:
		return entry{pickEntry, e.Index, e.Value, e.Stay}, true
	case Toggle:
		return entry{toggleEntry, e.Index, e.Value, false}, true
	case ChooseOther:
		return entry{otherEntry, e.Index, "", false}, true
	case Type:
		return entry{typeEntry, e.Index, e.Text, false}, true
	case Unparsed:
		// What the input showed is the browser's, and a reload loses it: the field comes
		// back empty, as the input does.
		return entry{typeEntry, e.Index, "", false}, true
	case TypeOther:
		return entry{typeOtherEntry, e.Index, e.Text, false}, true
	case Goto:
		return entry{gotoEntry, e.Index, "", false}, true
	}
	return entry{}, false // Submit is not an answer
}

func (e entry) event() (Event, bool) {
	switch e.Kind {
	case pickEntry:
		// Replayed as browsing: a lone choice must not answer itself on a reload.
		return Pick{Index: e.Index, Value: e.Value, Stay: true}, true
	case toggleEntry:
		return Toggle{Index: e.Index, Value: e.Value}, true
	case otherEntry:
		return ChooseOther{Index: e.Index}, true
	case typeEntry:
		return Type{Index: e.Index, Text: e.Value}, true
	case typeOtherEntry:
		return TypeOther{Index: e.Index, Text: e.Value}, true
	case gotoEntry:
		return Goto{Index: e.Index}, true
	}
	return nil, false
}

// Record adds ev to the log and reports whether the log changed: Submit is not an answer,
// and is not kept. Typing replaces the last entry when it types in the same field, since it
// carries the input's whole value: the log grows with the form, not with the typing.
func (l *Log) Record(ev Event) bool {
	e, ok := entryOf(ev)
	if !ok {
		return false
	}
	if n := len(l.entries); n > 0 && e.Kind.typing() && l.entries[n-1].Kind == e.Kind && l.entries[n-1].Index == e.Index {
		l.entries[n-1] = e
	} else {
		l.entries = append(l.entries, e)
	}
	return true
}

// At notes that the form is at question current, when that is not where the log last had
// it, and reports whether the log changed. A view notes it after every event it dispatches:
// moving on (Enter, Next) is not an answer, yet a reload must come back to the question the
// person was at, half-typed words and all. Replayed from the first question still
// unanswered, the person's next keys went to a later question and an Enter sent "Barba" for
// "Barbara" (QA round 12 #6).
func (l *Log) At(current int) bool {
	at, ok := l.position()
	if (ok && at == current) || (!ok && len(l.entries) == 0 && current == 0) {
		return false // where the log has it, or nothing kept yet at the form's start
	}
	l.entries = append(l.entries, entry{Kind: gotoEntry, Index: current})
	return true
}

// position is the question the log last moved to, if it moved at all.
func (l Log) position() (int, bool) {
	for i := len(l.entries) - 1; i >= 0; i-- {
		if l.entries[i].Kind == gotoEntry {
			return l.entries[i].Index, true
		}
	}
	return 0, false
}

// Last returns the question the log last answered, if it answered any: a reload of a form that
// shows every question at once (the fn-form) gives the focus back there, where the person was
// typing, rather than to its first field.
func (l Log) Last() (int, bool) {
	for i := len(l.entries) - 1; i >= 0; i-- {
		if k := l.entries[i].Kind; k != gotoEntry && k != unknownEntry {
			return l.entries[i].Index, true
		}
	}
	return 0, false
}

// Len returns how many entries the log holds.
func (l Log) Len() int { return len(l.entries) }

// Events returns the events that replaying the log dispatches, in order.
func (l Log) Events() []Event {
	out := make([]Event, 0, len(l.entries))
	for _, e := range l.entries {
		if ev, ok := e.event(); ok {
			out = append(out, ev)
		}
	}
	return out
}

// MarshalJSON writes the log as a JSON array of its entries.
func (l Log) MarshalJSON() ([]byte, error) {
	if l.entries == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(l.entries)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (l *Log) UnmarshalJSON(b []byte) error {
	var entries []entry
	if err := json.Unmarshal(b, &entries); err != nil {
		return fmt.Errorf("decode kept answers: %w", err)
	}
	l.entries = entries
	return nil
}

// Replay dispatches the log's events into f, a new form of the same decision, and drops their
// effects: they were had before the reload. A stepped form then shows the question the log
// last moved to (At), where the person was; a log that never moved, the first question still
// unanswered, where the person was headed.
func (l Log) Replay(f *Form) {
	for _, ev := range l.Events() {
		f.Dispatch(ev)
	}
	if !f.Stepped() {
		return
	}
	if at, ok := l.position(); ok {
		f.Dispatch(Goto{Index: at})
		return
	}
	for i := range f.fields {
		if !f.Complete(i) {
			f.Dispatch(Goto{Index: i})
			return
		}
	}
}
