package elicit

// Effect is an output of Dispatch for the view to run. Every effect is a plain comparable
// struct (machine/machinetest holds the rule): the answer is not copied into it but named by
// the form's Version, and the view reads Form.Content as it runs the effect.
type Effect interface{ effect() }

// Settle says a lone choice was answered by its click: accept with the Content of Version,
// no button.
type Settle struct{ Version int }

// Send says Submit passed validation: accept with the Content of Version.
type Send struct{ Version int }

// Invalid says Submit failed validation: Errors holds the messages and Current is the
// first field in error.
type Invalid struct{}

// Show says the current question changed: the view shows and focuses it.
type Show struct{ Index int }

func (Settle) effect()  {}
func (Send) effect()    {}
func (Invalid) effect() {}
func (Show) effect()    {}
