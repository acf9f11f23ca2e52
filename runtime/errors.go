package runtime

import (
	"parley/runtime/catalogue"
	"parley/runtime/decision"
	"parley/runtime/fanout"
	"parley/runtime/gate"
)

// The errors the server maps to answers, named here so it needs only this package. Each is
// the same value as in the package that returns it.
var (
	// ErrNoDecision is returned for a decision id that was never asked in the session.
	ErrNoDecision = decision.ErrNoDecision
	// ErrNoGrant is returned when revoking a grant that does not exist.
	ErrNoGrant = gate.ErrNoGrant
	// ErrNoFunction is returned for a function name the catalogue does not have.
	ErrNoFunction = catalogue.ErrNoFunction
	// ErrFunctionBroken is returned for a function whose file does not load.
	ErrFunctionBroken = catalogue.ErrFunctionBroken
	// ErrSlow ends a Follow whose reader fell further behind than its queue holds.
	ErrSlow = fanout.ErrSlow
)

// AlreadyEndedError says a decision has ended, and how, for a reply that came too late.
type AlreadyEndedError = decision.AlreadyEndedError
