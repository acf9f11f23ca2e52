package elicit

// Event is an input to Dispatch. The set is closed: only this package's types implement it.
// An event whose Index names no field, or a field of another kind, is ignored.
type Event interface{ event() }

// Pick picks a choice of a Single field, or "true"/"false" of a Boolean field (a click).
type Pick struct {
	Index int
	Value string
	// Stay keeps the current question: the choice moved under the arrow keys, which walk a
	// radio group, rather than a click that means "this one".
	Stay bool
}

// Toggle checks or unchecks a choice of a Multi field.
type Toggle struct {
	Index int
	Value string
}

// ChooseOther chooses "Other…": instead of the choice on a Single field, and toggled in
// addition to the picks on a Multi field.
type ChooseOther struct{ Index int }

// Type sets the text of a text-like field (text, textarea, number, integer, date,
// date-time, email, uri): the input's whole value.
type Type struct {
	Index int
	Text  string
}

// Unparsed says a number's or a date's field shows text its input cannot read as a value: a
// date input's 02/30/2026, a number input's 1-2 (the browser's validity.badInput, with the
// value ""). It is an answer given and wrong, never "unanswered": Enter and Submit say so.
// Type clears it.
type Unparsed struct{ Index int }

// TypeOther sets the "Other…" text of a field. Typing there also chooses Other, since the
// text is the answer the user is giving.
type TypeOther struct {
	Index int
	Text  string
}

// Goto shows a question (a chip).
type Goto struct{ Index int }

// Submit is the composer's button: send the answer if it is valid.
type Submit struct{}

// Advance is Enter on the current question (a one-line field, a radio; Space on a radio):
// a value its question refuses shows the question's error and stays. Otherwise a stepped form
// moves on to the next question not yet shown and unanswered; when none is left, it goes on
// to the following question while the form could be sent, and submits from the last one, or
// at once when a required question is still unanswered (Submit's errors say which). An
// optional question left empty is an answer: Enter never goes back to it. An unstepped form
// submits.
type Advance struct{}

func (Pick) event()        {}
func (Toggle) event()      {}
func (ChooseOther) event() {}
func (Type) event()        {}
func (Unparsed) event()    {}
func (TypeOther) event()   {}
func (Goto) event()        {}
func (Submit) event()      {}
func (Advance) event()     {}
