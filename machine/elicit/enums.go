package elicit

import "parley/machine/enum"

// Layout is how a form of several questions is presented.
type Layout int

const (
	// Stepped shows one question at a time with a chip per question: asking a person
	// several things mid-conversation, the default.
	Stepped Layout = iota
	// Stacked shows every question at once: a form collecting structured data.
	Stacked
)

var layoutNames = [...]string{"stepped", "stacked"}

// String returns the layout's name as setElicitationOptions spells it.
func (l Layout) String() string { return enum.Name(layoutNames[:], l) }

// Kind is how a field is rendered and what its answer is.
type Kind int

// The kinds of field, one per input the protocol's vocabulary can ask for.
const (
	Text     Kind = iota // one line of text
	Textarea             // multiline text
	Number               // a number input
	Integer              // a whole-number input
	Date                 // a date input (format date)
	DateTime             // a date and time input (format date-time)
	Email                // an email input (format email)
	URI                  // a link input (format uri)
	Boolean              // two choices: true and false
	Single               // radios: pick one choice (or Other…)
	Multi                // checkboxes: pick several choices
)

var kindNames = [...]string{"text", "textarea", "number", "integer", "date", "date-time", "email", "uri", "boolean", "single", "multi"}

// String returns the kind's name.
func (k Kind) String() string { return enum.Name(kindNames[:], k) }

// typed reports whether the field's answer is typed text rather than picked.
func (k Kind) typed() bool { return k >= Text && k <= URI }

// picked reports whether the field's answer is one click on a choice.
func (k Kind) picked() bool { return k == Boolean || k == Single }
