package composer

import "time"

// Effect is an output of Dispatch for the view to run. Every effect is a plain comparable
// struct (machine/machinetest holds the rule).
type Effect interface{ effect() }

// Shown says a mode began: morph the input area into it. ID is the decision's id, or the
// function's name for FnForm. Resumed says it is the decision set aside with "Chat about
// this" coming back: the view brings back the mode it kept, with the answers given so far.
type Shown struct {
	Mode    Mode
	ID      string
	Resumed bool
}

// Exit says a mode ended: morph the input area out of it. ID is as in Shown. Aside says the
// decision was set aside ("Chat about this"), not ended: the view keeps the mode, answers and
// all, for the Shown that resumes it. Ended says the shown decision ended (answered here or
// elsewhere, declined, timed out, withdrawn), not that a session switch took it away: only
// then do the words its mode holds unsent go back to the composer's box (a decision still
// pending keeps them for its return).
type Exit struct {
	Mode  Mode
	ID    string
	Aside bool
	Ended bool
}

// CancelFnForm says a system decision displaced the user's fn-form: drop its values, there
// is no stash and no restore. An Exit of the fn-form follows.
type CancelFnForm struct{ Function string }

// ShowNote shows a one-line note in the input area (Machine.Note holds it until cleared).
type ShowNote struct{ Text string }

// FocusInput gives focus back to the idle textarea, whose draft was kept all along.
type FocusInput struct{}

// FocusMode focuses the morphed area itself (the dialog): the decision just appeared, and
// letters typed now go to the draft (ToDraft). A Wake follows.
type FocusMode struct{}

// FocusField moves the focus to the mode's first field or option, unless the person already
// moved into the mode.
type FocusField struct{}

// TabIn is Tab on the morphed area itself: the view moves the focus to the decision's
// first field or option within the key's event, instead of the browser's next stop.
type TabIn struct{}

// Wake asks for a Tick after the given time.
type Wake struct{ After time.Duration }

// The answers to a Key. Each one means the view prevents the key's default action, except
// RunSecondary, which prevents it only when the mode had a secondary action to run.

// Swallow says the key does nothing: an Enter inside the guard after a decision appeared
// was meant for the draft, not for the question that just took its place. For a Press, the
// click does nothing: it was meant for the decision this one replaced.
type Swallow struct{}

// EnterHeld says an Enter pressed on the decision itself, the person not yet in it, sends
// nothing: their draft waits under the decision. The page says so, for the person was
// writing and meant to send (QA round 26: the Enter went without a word).
type EnterHeld struct{}

// ToDraft says a letter typed on the morphed area itself, before the person moved into the
// decision, goes to the draft the decision covered; Erase says the key was a Backspace (-1)
// or a Delete (+1), which edits that draft as the letters do. It answers nothing.
type ToDraft struct {
	Text  string
	Erase int
}

// ToField says a key typed on the fn-form's body (a click on its words put the focus there)
// is its fields': the view moves the focus to the form's field within the key's event, and
// the browser types the key there. The person opened the form to fill it, and the draft it
// hides shows nowhere while it is open.
type ToField struct{}

// Advance is Enter in a one-line field: the mode's next question when it asks one at a time
// and one follows (modes.Stepper), else its primary action.
type Advance struct{}

// TabOn is Tab in a field the person types in, in a question: the mode's next question
// when it asks one at a time and one follows, else the send button (modes.Tabber). The view
// prevents the key's default only when the mode moved the focus; otherwise Tab goes on as
// the browser's.
type TabOn struct{}

// RunSecondary is Escape outside a field the person types in, in the fn-form: its close.
type RunSecondary struct{}

// RunPrimary is the primary chord (mod+Enter) in a question or the fn-form: its primary
// action, from any field.
type RunPrimary struct{}

// Approve is mod+Enter in an approval: its first affirming option.
type Approve struct{}

// Reject is mod+Shift+Enter in an approval: reject, with the words typed if any.
type Reject struct{}

func (TabOn) effect()        {}
func (Shown) effect()        {}
func (Exit) effect()         {}
func (CancelFnForm) effect() {}
func (ShowNote) effect()     {}
func (FocusInput) effect()   {}
func (FocusMode) effect()    {}
func (Swallow) effect()      {}
func (EnterHeld) effect()    {}
func (ToDraft) effect()      {}
func (ToField) effect()      {}
func (TabIn) effect()        {}
func (Advance) effect()      {}
func (RunSecondary) effect() {}
func (RunPrimary) effect()   {}
func (Approve) effect()      {}
func (Reject) effect()       {}
func (FocusField) effect()   {}
func (Wake) effect()         {}
