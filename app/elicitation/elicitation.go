// Package elicitation is the browser's way for code to ask the person a typed question
// (docs/elicitation.md): RequestUserInput, and the hooks a host sets to present it.
//
// Requests asked here and decisions asked by the server go through the same presenter, the
// composer, and wait in the same queue. Declining is an answer; ending without one (the
// context was cancelled, nothing can present the question) is an error, so a caller that
// forgets a branch can never mistake it for a refusal.
package elicitation

import (
	"context"
	"encoding/json"
	"os"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/elicit"
	"parley/protocol"
)

// Result is a person's answer: accept with content shaped by the schema, or decline.
type Result struct {
	Action  protocol.ReplyAction
	Content json.RawMessage
}

// Reasons an AbortError carries.
const (
	ReasonAborted     = "aborted"      // the context ended: the turn stopped, the question was withdrawn
	ReasonNoPresenter = "no-presenter" // nothing is mounted that can ask
)

// AbortError ends a request without an answer.
type AbortError struct {
	Reason string
	Err    error // the context's error, for ReasonAborted
}

func (e *AbortError) Error() string {
	if e.Reason == ReasonNoPresenter {
		return "AbortError: nothing can present the question (no presenter registered)"
	}
	return "AbortError: the question ended without an answer"
}

// Unwrap returns the context's error, so errors.Is(err, context.Canceled) holds.
func (e *AbortError) Unwrap() error { return e.Err }

// Name is "AbortError", what callers that test a name expect.
func (e *AbortError) Name() string { return "AbortError" }

// Presenter shows a request and returns the person's answer. It must return when ctx ends.
type Presenter func(ctx context.Context, req protocol.DecisionRequest) (Result, error)

// FieldRenderer replaces the built-in control of one field of a question. Returning nil keeps
// the built-in control, so a renderer can take over a single kind.
type FieldRenderer func(f elicit.Field, fc FieldContext) *FieldControl

// FieldContext is what a field renderer gets besides the field.
type FieldContext struct {
	Key string // the form key (empty for a single question)
	// NotifyChange re-reads the control's value and completeness and re-gates the send
	// button. A control that never calls it can never be submitted.
	NotifyChange func(ctx app.Context)
}

// FieldControl is a custom field: how it renders, its value, and whether it is complete.
type FieldControl struct {
	Render   func() app.UI
	Value    func() json.RawMessage
	Complete func() bool
}

var hooks struct {
	mu        sync.Mutex
	presenter Presenter
	fields    FieldRenderer
	options   elicit.Options
	optionsOK bool
	warned    bool
}

// SetElicitationPresenter registers the presenter (nil removes it). The composer registers
// itself when it mounts.
func SetElicitationPresenter(p Presenter) {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	hooks.presenter = p
}

// SetElicitationFieldRenderer registers a field renderer (nil restores the built-in ones).
func SetElicitationFieldRenderer(r FieldRenderer) {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	hooks.fields = r
}

// FieldRendererHook returns the registered field renderer, or nil.
func FieldRendererHook() FieldRenderer {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	return hooks.fields
}

// SetElicitationOptions sets the host's policy: answer-on-click, who offers "Other…", the
// layout of several questions.
func SetElicitationOptions(o elicit.Options) {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	hooks.options, hooks.optionsOK = o, true
}

// Options returns the host's policy (elicit.DefaultOptions until set).
func Options() elicit.Options {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if !hooks.optionsOK {
		return elicit.DefaultOptions()
	}
	return hooks.options
}

// warn reports a problem to the developer; a var so tests can count it.
var warn = func(msg string) { _, _ = os.Stderr.WriteString(msg + "\n") }

// RequestUserInput asks the person and waits for the answer. A decline is a Result; a
// cancelled ctx rejects with an AbortError of reason "aborted", and with no presenter it
// rejects with reason "no-presenter" (warning once).
func RequestUserInput(ctx context.Context, req protocol.DecisionRequest) (Result, error) {
	if err := req.Validate(); err != nil {
		return Result{}, err
	}
	hooks.mu.Lock()
	p := hooks.presenter
	first := p == nil && !hooks.warned
	if first {
		hooks.warned = true
	}
	hooks.mu.Unlock()
	if p == nil {
		if first {
			warn("parley: RequestUserInput has no presenter: mount the composer or call SetElicitationPresenter")
		}
		return Result{}, &AbortError{Reason: ReasonNoPresenter}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, &AbortError{Reason: ReasonAborted, Err: err}
	}
	res, err := p(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, &AbortError{Reason: ReasonAborted, Err: ctx.Err()}
		}
		return Result{}, err
	}
	return res, nil
}
