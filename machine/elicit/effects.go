package elicit

import "encoding/json"

// Effect is an output of Dispatch for the view to run.
type Effect interface{ effect() }

// Settle says a lone choice was answered by its click: accept with Content, no button.
type Settle struct{ Content json.RawMessage }

// Send says Submit passed validation: accept with Content.
type Send struct{ Content json.RawMessage }

// Invalid says Submit failed validation: Errors holds the messages and Current is the
// first field in error.
type Invalid struct{}

// Show says the current question changed: the view shows and focuses it.
type Show struct{ Index int }

func (Settle) effect()  {}
func (Send) effect()    {}
func (Invalid) effect() {}
func (Show) effect()    {}
