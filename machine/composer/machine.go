package composer

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"parley/machine/elicit"
	"parley/machine/keymap"
)

// DefaultEnterGuard is how long Enter is ignored after a decision appears: long enough to
// swallow the Enter of someone finishing a sentence as the question lands, short enough
// that nobody notices it when they mean to answer.
const DefaultEnterGuard = 400 * time.Millisecond

// DefaultFocusDelay is how long a decision that appeared on its own waits, shown, before it
// takes the focus at its first field: about the time a person who was typing takes to look
// up from the keyboard. Until then a letter typed on it is the draft's. At the guard's 400 ms
// a person who went on typing their next thought (the first key 535 ms after an approval
// landed, measured at a person's pace) wrote it into the approval's field for words, and
// their Enter rejected the tool (QA round 12 #5).
const DefaultFocusDelay = time.Second

// NoteTimedOut is the note left when the shown decision times out. It says what happened
// without calling it a refusal (docs/composer.md: a timeout is "no answer in time", never a refusal).
const NoteTimedOut = "No response, timed out."

// Config is the machine's policy.
type Config struct {
	// EnterGuard is how long Enter is ignored after a decision appears. Zero means
	// DefaultEnterGuard; a negative value turns the guard off.
	EnterGuard time.Duration
	// FocusDelay is how long a decision that appeared on its own waits before it takes the
	// focus at its first field. Zero means DefaultFocusDelay, and never less than the guard.
	FocusDelay time.Duration
}

// Machine is the composer's mode container and decision queue. The zero value is not
// ready: use New.
type Machine struct {
	guard, focusDelay time.Duration
	// queue is FIFO, head first; no ID appears twice.
	queue []Decision
	// ended remembers every ID that ended, so that an Asked or a Reset that lost a race
	// with its own end cannot bring a dead decision back.
	ended map[string]bool
	// fnOpen says the user's fn-form is open, on function fn ("" while the person picks
	// one). Never set while a decision is shown: showing a decision cancels the fn-form.
	fnOpen bool
	fn     string
	// aside says the head is set aside ("Chat about this"). Only true with a head.
	aside   bool
	note    string
	shownAt time.Time
	// focusDue is when the shown decision may take the focus at its first field: the focus
	// delay after it appeared. focused says it took it, the person moved into it, or the person
	// typed for their draft on it: the focus moves there once, or never, and never again.
	focusDue time.Time
	focused  bool
	// typedAt is when the person last typed in a field of their fn-form. held says the head
	// waits behind that form until they pause for the focus delay: a decision that displaced
	// the form mid-word left the word's start in the form's kept fields and its end in the
	// draft (QA round 12 #17). Only true with a head and the fn-form open.
	typedAt time.Time
	held    bool
	// composing says an input method's composition is open in a field of the fn-form.
	composing bool
	// entered says the focus went into the shown decision: it took it at its first field, or
	// the person pressed a key inside it. The view keeps EnteredID across a reload (Reset's
	// Entered).
	entered bool
	// pressedAt is when the last click in a morphed area came, whatever it showed: where a
	// multi-click began (Press).
	pressedAt time.Time
	// answeredAt is when the head the person was in (entered) ended answered: a decision
	// shown within the focus delay after it is the next of a chain they are answering.
	answeredAt time.Time
	// typing says the person's last act in the head was typing in one of its fields (not an
	// Enter, a chord or a click that answers): an answer that ends it then came from
	// elsewhere, and is no chain.
	typing bool
}

// New returns an idle machine with an empty queue.
func New(cfg Config) *Machine {
	g := cfg.EnterGuard
	switch {
	case g == 0:
		g = DefaultEnterGuard
	case g < 0:
		g = 0
	}
	d := cmp.Or(cfg.FocusDelay, DefaultFocusDelay)
	if g == 0 {
		d = 0 // no guard: the decision takes the focus as it appears
	}
	return &Machine{guard: g, focusDelay: max(d, g), ended: map[string]bool{}}
}

// occupant is what holds the input area: a mode and its decision id or function.
type occupant struct {
	mode Mode
	id   string
}

func (m *Machine) showing() bool { return len(m.queue) > 0 && !m.aside && !m.held }

func (m *Machine) occupant() occupant {
	switch {
	case m.showing():
		return occupant{m.queue[0].Mode(), m.queue[0].ID}
	case m.fnOpen:
		return occupant{FnForm, m.fn}
	}
	return occupant{}
}

// Mode returns the shape of the input area: Question or Approval when a decision is shown,
// FnForm when the user's form is open, Idle otherwise.
func (m *Machine) Mode() Mode { return m.occupant().mode }

// Head returns the decision occupying the input area; false when none is shown (the queue
// is empty, or its head is set aside).
func (m *Machine) Head() (Decision, bool) {
	if !m.showing() {
		return Decision{}, false
	}
	return m.queue[0], true
}

// Queue returns every pending decision in FIFO order, head first, set aside or not.
func (m *Machine) Queue() []Decision { return slices.Clone(m.queue) }

// Function returns the open fn-form's function, or "" when Mode is not FnForm.
func (m *Machine) Function() string { return m.fn }

// SetAside reports whether the head is set aside: the composer is idle (or in the fn-form)
// while the head stays pending.
func (m *Machine) SetAside() bool { return m.aside }

// AsideID returns the id of the decision set aside, or "" when none is: what the view keeps
// across a reload, for Reset's Aside.
func (m *Machine) AsideID() string {
	if !m.aside {
		return ""
	}
	return m.queue[0].ID
}

// Held reports whether the head waits behind the fn-form the person is typing in: it shows
// once they pause for the focus delay, or close the form.
func (m *Machine) Held() bool { return m.held }

// EnteredID returns the id of the shown decision the focus went into (it took the focus at
// its first field, or the person pressed a key inside it), or "": what the view keeps across
// a reload, for Reset's Entered.
func (m *Machine) EnteredID() string {
	if !m.showing() || !m.entered {
		return ""
	}
	return m.queue[0].ID
}

// Note returns the one-line note of the input area, or "".
func (m *Machine) Note() string { return m.note }

// Guarded reports whether an Enter pressed at `at` falls inside the guard after the shown
// decision appeared, and so must be ignored.
func (m *Machine) Guarded(at time.Time) bool {
	return m.showing() && m.guard > 0 && at.Sub(m.shownAt) < m.guard
}

func (m *Machine) index(id string) int {
	return slices.IndexFunc(m.queue, func(d Decision) bool { return d.ID == id })
}

// Dispatch applies one event and returns what the view must do. Every event is one
// transition: the effects are derived from what occupied the input area before and after,
// so they cannot disagree with the state.
func (m *Machine) Dispatch(ev Event) []Effect {
	switch e := ev.(type) {
	case Sync:
		return m.sync(e)
	case Key:
		return m.key(e)
	case Press:
		// Ignored when it was meant for the decision the one shown replaced (Stray). Only a
		// decision shown: the fn-form is the person's own, and a decision set aside or held
		// is not on screen.
		before := m.pressedAt
		m.pressedAt = e.At
		if m.showing() && Stray(e, m.shownAt, before, m.guard) {
			return []Effect{Swallow{}}
		}
		m.typing = false // a click: the Send button, an option
		return nil
	case Tick:
		return m.tick(e)
	case Composing:
		if m.Mode() == FnForm {
			m.composing, m.typedAt = e.On, e.At
		}
		return nil
	case Covering:
		if m.showing() && !m.focused {
			m.focused = true // the focus is the writer's
		}
		return nil
	}
	before := m.occupant()
	var at time.Time
	noted, resumed, entered := false, false, false
	switch e := ev.(type) {
	case Asked:
		id := e.Decision.ID
		if id == "" || m.ended[id] || m.index(id) >= 0 {
			return nil
		}
		m.queue = append(m.queue, e.Decision)
		at = e.At
	case Ended:
		i := m.index(e.ID)
		if e.ID != "" {
			m.ended[e.ID] = true
		}
		if i < 0 {
			return nil
		}
		// The head's timeout leaves the note, shown or set aside: the person saw that one,
		// and its chip just went. A queued decision never seen goes quietly.
		head := i == 0
		if head && m.showing() && m.entered && !m.typing && e.Outcome == Answered {
			// Answered by the person (their last act was an Enter, a chord or a click), not
			// from another tab while they typed: then the next question taking the focus at
			// once took the rest of their words, and their Enter answered it (QA round 25).
			m.answeredAt = e.At
		}
		if head {
			// The aside flag belongs to the head: whatever comes next has not been seen.
			m.aside = false
		}
		m.queue = slices.Delete(m.queue, i, i+1)
		if head && e.Outcome == TimedOut && !m.held { // a held head was never seen
			m.note, noted = NoteTimedOut, true
		}
		at = e.At
	case Reset:
		m.reset(e.Decisions, e.Aside)
		if e.FnForm && !m.fnOpen {
			m.fn, m.fnOpen = "", true
		}
		at = e.At
		entered = e.Entered != "" && m.showing() && m.queue[0].ID == e.Entered
	case OpenFnForm:
		// Refused while a decision is shown: opening would cancel the user's own form on
		// the spot, or hide the system's question. While set aside, the user chose to do
		// something else, and the head stays set aside.
		if m.showing() || m.fnOpen && e.Function == m.fn {
			return nil
		}
		m.fn, m.fnOpen = e.Function, true
	case CloseFnForm:
		if !m.fnOpen {
			return nil
		}
		m.fn, m.fnOpen = "", false
	case ChatAbout:
		if !m.showing() {
			return nil
		}
		m.aside = true
	case Resume:
		if !m.aside {
			return nil
		}
		m.aside, resumed = false, true
		at = e.At
	case ClearNote:
		m.note = ""
		return nil
	default:
		return nil
	}

	form, wait := m.displace(at)
	out := m.effects(before, at, form, noted, resumed, entered)
	if wait > 0 {
		out = append(out, Wake{After: wait})
	}
	return out
}

// displace lets a decision that is due take the user's fn-form's place: no stash, no restore
// (the view keeps the form's fields). While the person is typing in the form, the decision is
// held until they pause for the focus delay, so it never lands mid-word; wait is how long
// until that pause, for a Wake.
func (m *Machine) displace(at time.Time) (form displaced, wait time.Duration) {
	if !m.fnOpen {
		m.held, m.composing = false, false
		return displaced{}, 0
	}
	if len(m.queue) == 0 || m.aside {
		m.held = false
		return displaced{}, 0
	}
	if m.composing {
		m.held = true
		return displaced{}, m.focusDelay // looked at again then: a composition ends with no key
	}
	if quiet := max(at.Sub(m.typedAt), 0); !m.typedAt.IsZero() && quiet < m.focusDelay {
		m.held = true
		return displaced{}, m.focusDelay - quiet
	}
	m.held, m.composing = false, false
	form = displaced{function: m.fn, ok: true}
	m.fn, m.fnOpen = "", false
	return form, 0
}

// displaced is the person's fn-form a decision just took the place of, if ok.
type displaced struct {
	function string // "" for the form's picker
	ok       bool
}

// The actions of the keys a morphed mode reads (docs/composer.md#focus-and-keys).
type keyAction int

const (
	keyEnter keyAction = iota + 1
	keyEscape
	keyApprove
	keyReject
	keyTab
)

// modeKeys are the bindings of every morphed mode, as data (machine/keymap): what a key
// means there also depends on what had the focus (key). The approve and reject chords hold a
// modifier, so a letter typed in the wrong place answers nothing.
var modeKeys = keymap.Map[keyAction]{
	{Keys: []string{"Enter"}, Mods: keymap.Primary | keymap.Shift, Action: keyReject, Help: keymap.Help{Key: "mod+shift+enter", Desc: "reject"}},
	{Keys: []string{"Enter"}, Mods: keymap.Primary, Action: keyApprove, Help: keymap.Help{Key: "mod+enter", Desc: "approve"}},
	{Keys: []string{"Enter"}, Optional: keymap.Shift, Action: keyEnter, Help: keymap.Help{Key: "enter", Desc: "next, and send from the last question"}},
	{Keys: []string{"Escape"}, Action: keyEscape, Help: keymap.Help{Key: "esc", Desc: "chat about this"}},
	{Keys: []string{"Tab"}, Action: keyTab, Help: keymap.Help{Key: "tab", Desc: "from a field: the next question, and Send from the last"}},
}

// KeyHelp is what the morphed modes' keys do, for a help view.
func KeyHelp() []keymap.Help { return modeKeys.Help() }

// key is what a key pressed in a morphed mode means there. Only two keys change the state:
// a letter typed on the morphed area for the draft pushes back the moment the decision takes
// the focus, and Escape on a decision sets it aside, as ChatAbout does.
func (m *Machine) key(k Key) []Effect {
	if m.Mode() == FnForm && (k.On == OnLine || k.On == OnText) {
		m.typedAt = k.At // an input method's keys are typing too
	}
	if m.Mode() == Idle || k.Composing {
		return nil
	}
	if erase := eraseOf(k.Key); k.On == OnMode && (erase != 0 || utf8.RuneCountInString(k.Key) == 1) && !k.Ctrl && !k.Meta && !k.Alt {
		if m.Mode() == FnForm {
			// The person opened the form to fill it: what they type on its body is its
			// fields', never the hidden draft's (QA round 20 #7: the letters meant for a
			// field went into the draft, unseen, and out with the next prompt).
			return []Effect{ToField{}}
		}
		// A letter typed before the person moved into the decision: they were writing their
		// draft when the decision took its place. The decision then never takes the focus on
		// its own: any pause could be a writer's (measured at a person's pace: 430 ms between
		// words was enough for a quiet-time rule to move the focus, and the next Space
		// pressed a choice). The person moves in with Tab or a click when they are ready.
		// Backspace and Delete there are the writer's too: they take back what the letters
		// put in the draft (QA round 14 #5: the letters went in, Backspace went nowhere).
		if m.showing() && !m.focused && strings.TrimSpace(k.Key) != "" {
			// The focus is the writer's. A Space alone is no writing yet: pressed on the dialog
			// after an answer (a second press of the key that gave it), it made the person a
			// writer, and the next question never took the focus (QA round 24). It still goes
			// to the draft: no key is dropped.
			m.focused = true
		}
		if erase != 0 {
			return []Effect{ToDraft{Erase: erase}}
		}
		return []Effect{ToDraft{Text: k.Key}}
	}
	if k.On != OnMode {
		m.focused = true // the person is inside the decision: the focus is theirs
		m.entered = m.showing()
		if typed := eraseOf(k.Key) != 0 || utf8.RuneCountInString(k.Key) == 1; typed && (k.On == OnLine || k.On == OnText) && !k.Ctrl && !k.Meta && !k.Alt {
			m.typing = true
		} else if k.Key == "Enter" && (k.On != OnText || k.Ctrl || k.Meta) {
			m.typing = false // a textarea's own Enter is a line break: still typing
		}
	}
	if k.On == OnMode && k.Key == "Tab" && !k.Shift && !k.Ctrl && !k.Meta && !k.Alt && m.showing() {
		// Tab on the dialog itself is the way into the decision: its first field or option,
		// not the next button in the page's order ("Chat about this" came first, and the
		// field took a second Tab; QA round 23 #2).
		m.focused, m.entered = true, true
		return []Effect{TabIn{}}
	}
	if (k.On == OnChoice || k.On == OnButton) && m.showing() && k.Key != " " && utf8.RuneCountInString(k.Key) == 1 && !k.Ctrl && !k.Meta && !k.Alt {
		// A letter typed on a choice or a button, where no text goes: it answers nothing, and
		// it is not lost either. It is the draft's, shown in the strip under the decision (QA
		// round 21: a confirm's focused No dropped them, and after a reload the first went to
		// the hidden draft and the rest nowhere). The person is writing: the focus leaves the
		// choice for the dialog, so the Space between two words, or an Enter, presses nothing
		// (the re-test: "ok then" answered No). Space alone is the choice's own press.
		m.entered = false
		return []Effect{ToDraft{Text: k.Key}, FocusMode{}}
	}
	act, ok := modeKeys.Match(keymap.Key{Key: k.Key, Shift: k.Shift, Ctrl: k.Ctrl, Alt: k.Alt, Meta: k.Meta})
	if !ok {
		return nil
	}
	switch act {
	case keyEnter, keyApprove, keyReject:
		if m.Guarded(k.At) {
			return []Effect{Swallow{}}
		}
	}
	switch act {
	case keyApprove:
		if m.Mode() == Approval {
			return []Effect{Approve{}}
		}
		return []Effect{RunPrimary{}}
	case keyReject:
		if m.Mode() == Approval {
			return []Effect{Reject{}}
		}
	case keyEnter:
		// A textarea's Enter breaks the line and a button's presses the button; Shift+Enter
		// is the person's own line break.
		if (k.On == OnLine || k.On == OnChoice) && !k.Shift {
			return []Effect{Advance{}}
		}
		if k.On == OnMode && m.showing() {
			return []Effect{EnterHeld{}}
		}
	case keyTab:
		// A textarea takes Enter for its lines: Tab is the way on to the question after it,
		// as Enter is from a one-line field (a stepped form hides the questions after it, so
		// the browser's Tab would skip them all to Decline).
		if m.Mode() == Question && (k.On == OnLine || k.On == OnText) {
			return []Effect{TabOn{}}
		}
	case keyEscape:
		if m.showing() {
			// A decision is set aside, answers and all, never declined: declining is its
			// own button.
			return m.Dispatch(ChatAbout{})
		}
		// Escape in a field the person types in closes the browser's own lists or leaves the
		// field: it must not throw the fn-form and the typing away.
		if k.On != OnLine && k.On != OnText {
			return []Effect{RunSecondary{}}
		}
	}
	return nil
}

// Stray reports whether a click on a decision that appeared at shown was not the person's
// answer to it but meant for what was there before (the click before this one came
// at before; guard is the Enter guard, none when 0). It holds a decision that has just
// replaced another in place: the next run of a script, the next confirm, a batch's next
// request, a card the approvals screen's list moved up. Without it the second click of a
// double-click on Approve (or a second tap) approved the next request too, which the person
// never saw (QA round 16's P1). The composer applies it (Press), and so do the decision cards
// of the thread and the approvals screen.
//
//   - Inside the guard after the decision appeared, as for Enter: nobody reads a decision and
//     aims at one of its buttons in 400 ms, so the click was meant for what was there
//     before. It holds whatever the click's count: two single clicks, and a phone's two taps
//     (their count is the browser's guess), are caught as a double-click is.
//   - The second (third…) click of a multi-click (Detail >= 2) whose click before it came
//     before this decision appeared: the gesture began on another decision. A double-click
//     can outlast the guard (a system's double-click time is 500 ms and more, and the next
//     decision appears as soon as the first answer is taken), and its second click is never
//     a new aim. A multi-click that began on this decision goes through: nothing in a
//     decision takes a double-click, its answer goes once (one reply at a time), and a
//     person whose first click fell inside the guard is not held back again for clicking
//     twice.
//
// A click not counted (Detail 0) is a key's or a script's: the keys have their own rules
// (Key: the guard, the focus delay), and a script's click is nobody's slip.
func Stray(p Press, shown, before time.Time, guard time.Duration) bool {
	if p.Detail <= 0 {
		return false
	}
	return guard > 0 && p.At.Sub(shown) < guard || p.Detail >= 2 && before.Before(shown)
}

// eraseOf is -1 for Backspace, +1 for Delete, 0 for any other key: ToDraft's Erase.
func eraseOf(key string) int {
	switch key {
	case "Backspace":
		return -1
	case "Delete":
		return 1
	}
	return 0
}

// tick is the clock reaching a Wake: the shown decision takes the focus at its first field
// once the person stopped typing for the draft.
func (m *Machine) tick(t Tick) []Effect {
	if m.held {
		before := m.occupant()
		form, wait := m.displace(t.At)
		if wait > 0 {
			return []Effect{Wake{After: wait}}
		}
		return m.effects(before, t.At, form, false, false, false)
	}
	if !m.showing() || m.focused {
		return nil
	}
	if t.At.Before(m.focusDue) {
		return []Effect{Wake{After: m.focusDue.Sub(t.At)}}
	}
	m.focused, m.entered = true, true
	return []Effect{FocusField{}}
}

// sync is Sync: Ended for each server decision gone from the list, then Asked for each new
// one, with their effects in that order.
func (m *Machine) sync(s Sync) []Effect {
	pending := make(map[string]bool, len(s.Decisions))
	for _, d := range s.Decisions {
		pending[d.ID] = true
	}
	var gone []string
	for _, d := range m.queue {
		if !d.Local && !pending[d.ID] {
			gone = append(gone, d.ID)
		}
	}
	var out []Effect
	for _, id := range gone {
		outcome := Answered
		if slices.Contains(s.TimedOut, id) {
			outcome = TimedOut
		}
		out = append(out, m.Dispatch(Ended{ID: id, Outcome: outcome, At: s.At})...)
	}
	for _, d := range s.Decisions {
		out = append(out, m.Dispatch(Asked{Decision: d, At: s.At})...)
	}
	return out
}

// reset keeps the queued decisions still pending (and every local one), in their order,
// then appends the listed ones not yet queued, in the list's order.
func (m *Machine) reset(list []Decision, aside []string) {
	head := ""
	if len(m.queue) > 0 {
		head = m.queue[0].ID
	}
	pending := map[string]bool{}
	for _, d := range list {
		pending[d.ID] = true
	}
	q := make([]Decision, 0, len(list))
	in := map[string]bool{}
	for _, d := range m.queue {
		if d.Local || pending[d.ID] {
			q = append(q, d)
			in[d.ID] = true
		}
	}
	for _, d := range list {
		if d.ID == "" || in[d.ID] || m.ended[d.ID] {
			continue
		}
		q = append(q, d)
		in[d.ID] = true
	}
	m.queue = q
	if m.aside && (len(q) == 0 || q[0].ID != head) {
		m.aside = false
	}
	if len(q) > 0 && slices.Contains(aside, q[0].ID) {
		m.aside = true // set aside before a reload, and not returned to since
	}
}

// effects derives the view's work from the occupant before and after a transition.
// resumed says the person brought the head back (Resume), entered that they were inside it
// before a reload (Reset's Entered): either way it takes the focus at its field at once.
func (m *Machine) effects(before occupant, at time.Time, form displaced, noted, resumed, entered bool) []Effect {
	after := m.occupant()
	var out []Effect
	if form.function != "" {
		out = append(out, CancelFnForm{Function: form.function})
	}
	if before == after {
		if noted {
			out = append(out, ShowNote{Text: m.note}) // the set-aside head's timeout
		}
		return out
	}
	if before.mode != Idle {
		// Set aside, the decision is still the head: only ChatAbout makes that so.
		aside := m.aside && before.mode.Decision() && m.queue[0].ID == before.id
		out = append(out, Exit{Mode: before.mode, ID: before.id, Aside: aside, Ended: before.mode.Decision() && m.ended[before.id]})
	}
	if noted {
		out = append(out, ShowNote{Text: m.note})
	}
	if after.mode == Idle {
		return append(out, FocusInput{})
	}
	if !noted {
		// The note was about what the input area held before; a new shape replaces it.
		m.note = ""
	}
	out = append(out, Shown{Mode: after.mode, ID: after.id, Resumed: resumed && after.mode.Decision()})
	if after.mode != FnForm {
		m.shownAt = at
	}
	if entered {
		// No Enter guard either: the person was answering it, and the Enter they press as it
		// comes back is its own (a field's next question), not a sentence's end.
		m.shownAt = time.Time{}
	}
	m.entered, m.typing = false, false // a new occupant: the focus has not gone into it yet
	if after.mode == FnForm || resumed || entered || m.guard == 0 {
		// The person opened it, asked for it back, or was in it before a reload: its first
		// field is where they go.
		m.focused, m.entered = true, after.mode.Decision()
		return append(out, FocusField{})
	}
	chained := !m.answeredAt.IsZero() && at.Sub(m.answeredAt) < m.focusDelay
	m.answeredAt = time.Time{}
	if chained && after.mode == Question && elicit.OpensOnText(m.queue[0].Request) {
		// The next of a chain the person is answering (a script's next ask, landing as its
		// last answer is taken): their keys are answers, not a draft's, and the field takes
		// them at once, draft or none. A fast typist's name for the second question went to
		// the draft, and the focus stayed on the dialog (QA round 23 #1). Only a field that
		// opens on text: letters write there and Enter is still guarded, where a confirm's
		// or a choice's Space would press an option nobody read.
		m.focused, m.entered = true, true
		return append(out, FocusField{})
	}
	if form.ok {
		// It took the place of the form the person was filling, after a pause in their
		// typing: the focus is the writer's, as when a decision lands over their draft. It
		// never moves into the decision on its own; they move in with Tab or a click (QA
		// round 21 P1: a pause to think of a surname, then " Johnson" and Enter rejected
		// the approval that had arrived, with "Johnson" as its reason).
		m.focused = true
		return append(out, FocusMode{})
	}
	// A decision that appears on its own holds the focus on the morphed area for the focus
	// delay: letters typed as it lands go to the draft they were meant for. Then it takes the
	// focus at its first field.
	m.focusDue, m.focused = at.Add(m.focusDelay), false
	return append(out, FocusMode{}, Wake{After: m.focusDelay})
}
