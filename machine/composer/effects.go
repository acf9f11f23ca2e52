package composer

// Effect is an output of Dispatch for the view to run. Every effect is a plain comparable
// struct.
type Effect interface{ effect() }

// Enter says a mode began: morph the input area into it. ID is the decision's id, or the
// function's name for FnForm.
type Enter struct {
	Mode Mode
	ID   string
}

// Exit says a mode ended: morph the input area out of it. ID is as in Enter.
type Exit struct {
	Mode Mode
	ID   string
}

// CancelFnForm says a system decision displaced the user's fn-form: drop its values, there
// is no stash and no restore. An Exit of the fn-form follows.
type CancelFnForm struct{ Function string }

// ShowNote shows a one-line note in the input area (Machine.Note holds it until cleared).
type ShowNote struct{ Text string }

// FocusInput gives focus back to the idle textarea, whose draft was kept all along.
type FocusInput struct{}

// FocusMode focuses the first control of the mode just entered.
type FocusMode struct{}

func (Enter) effect()        {}
func (Exit) effect()         {}
func (CancelFnForm) effect() {}
func (ShowNote) effect()     {}
func (FocusInput) effect()   {}
func (FocusMode) effect()    {}
