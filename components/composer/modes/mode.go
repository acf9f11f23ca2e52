// Package modes is the contract between the composer container and its modes
// (docs/composer.md): each mode is a folder that implements Mode, and the container knows
// nothing else of it. Adding a mode means adding a folder and one line in the container's
// registry, which also names the mode (machine/composer.Mode). A mode may implement the
// optional one-method interfaces below, as a go-app component implements only the lifecycle
// hooks it needs; what modes draw alike is in the widget subpackage.
package modes

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/elicitation"
	"parley/machine/composer"
	"parley/machine/elicit"
	"parley/protocol"
)

// Mode is one shape of the input area. A mode value is created when the container enters
// the mode and dropped when it exits, so it holds its own state (the fn-form's values, the
// question's form) and nothing outlives it.
type Mode interface {
	// Label says, for a screen reader, what the morphed input area is (the dialog's name).
	Label() string
	// Header is the left part of the 48 px header: a badge, the question chips.
	Header() app.UI
	// Body is the input area's content, under the header, with 12 px padding.
	Body() app.UI
	// Primary takes over the composer's send button.
	Primary() Action
	// Secondary is the cancel or reject action, if any.
	Secondary() (Action, bool)
	// Exit cleans up when the container leaves the mode (a local request that nobody
	// answered is rejected by the container, not here).
	Exit()
}

// Unsent is a mode that can hold words the person typed and did not send (an approval's
// words for the agent). When its decision ends without them (it timed out, another tab
// answered it), the container puts them back in the composer's box: never dropped.
type Unsent interface {
	Unsent() string
}

// Refresher is a mode that shows what the container fetches for it (the function list):
// Refresh is called when a new copy arrives, so a form opened before it can fill in.
type Refresher interface {
	Refresh()
}

// Stepper is a mode whose form takes Enter itself. Enter in a one-line field or on a radio
// calls Next, which reports whether it handled it (an invalid value stays with its error, a
// stepped form moves on, the last question of a complete one sends); when it did not, Enter
// runs the primary action.
type Stepper interface {
	Next(ctx app.Context) bool
}

// Tabber is a mode whose fields take Tab on to what follows them: Tab in a field calls
// TabOn, which reports whether it moved the focus (a stepped form's next question, or Send
// from the last); when it did not, Tab is the browser's.
type Tabber interface {
	TabOn(ctx app.Context) bool
}

// Focuser is a mode that knows its first field: FocusFirst moves the focus there when the
// decision takes the focus, and reports whether it found one.
type Focuser interface {
	FocusFirst() bool
}

// FieldTaker is a mode whose fields take the keys typed on its body (machine/composer's
// ToField): FocusNow moves the focus to the field FocusFirst would, at once, within the
// key's event, so the browser types the key there; it reports whether it found one.
type FieldTaker interface {
	FocusNow() bool
}

// Approver is a mode with approve and reject chords (mod+Enter, mod+Shift+Enter):
// Shortcut runs the one pressed.
type Approver interface {
	Shortcut(ctx app.Context, approve bool)
}

// Action is a button the container draws for a mode.
type Action struct {
	Label    string
	Title    string // the tooltip and the accessible description
	Disabled bool
	// Hidden says there is nothing to press: the mode's own controls answer (a lone
	// choice's buttons). A button that could never be enabled is not drawn.
	Hidden bool
	Run    func(ctx app.Context)
	// Keys is the chord that runs it too, as machine/keymap writes it ("mod+enter"): the
	// button shows it as a hint.
	Keys string
	// Hint is a line the container shows under a form's fields: why the action cannot run
	// yet, or that it can. A disabled action with a hint stays focusable (aria-disabled), and
	// the hint describes it.
	Hint string
	// Quiet draws the primary action as a secondary button: the mode's own controls hold its
	// main answer (an approval's Approve), and this one is the way round it.
	Quiet bool
}

// AriaKeys writes a keymap chord as aria-keyshortcuts does: "mod+enter" is
// "Control+Enter Meta+Enter".
func AriaKeys(chord string) string {
	parts := strings.Split(chord, "+")
	var ctrl, meta []string
	for _, p := range parts {
		switch p {
		case "mod":
			ctrl, meta = append(ctrl, "Control"), append(meta, "Meta")
		case "shift":
			ctrl, meta = append(ctrl, "Shift"), append(meta, "Shift")
		case "alt":
			ctrl, meta = append(ctrl, "Alt"), append(meta, "Alt")
		case "enter":
			ctrl, meta = append(ctrl, "Enter"), append(meta, "Enter")
		default:
			ctrl, meta = append(ctrl, p), append(meta, p)
		}
	}
	out := strings.Join(ctrl, "+")
	if m := strings.Join(meta, "+"); m != out {
		out += " " + m
	}
	return out
}

// Input is what a mode is entered with.
type Input struct {
	// Key is unique to this entry into a mode: element ids and event scopes derive from it.
	// go-app keeps an element's old handler when the new one comes from the same func
	// literal, whatever it captured, unless the handler's EventScope differs; without the
	// key, the next decision's buttons would still answer the previous one.
	Key      string
	Decision composer.Decision // question, approval
	Function string            // fn-form: the function the person picked ("" to pick one)
	Options  elicit.Options
	Fields   elicitation.FieldRenderer
}

// Host is what a mode may ask of the container.
type Host interface {
	// Client calls the server.
	Client() *api.Client
	// SessionID is the session the composer serves ("" on the hero).
	SessionID() string
	// Functions are the functions the fn-form offers, as last fetched.
	Functions() []protocol.Function
	// Answer sends the reply to a decision: over HTTP for a server decision, to the waiting
	// caller for a local one. The mode exits when the answer is taken; done, if not nil,
	// runs on the UI goroutine with nil or the failure.
	Answer(ctx app.Context, d composer.Decision, reply protocol.ReplyRequest, done func(ctx app.Context, err error))
	// ChatAbout sets the shown decision aside: back to typing, the decision stays pending.
	ChatAbout(ctx app.Context)
	// Close leaves the fn-form.
	Close(ctx app.Context)
	// Ran says a function run started in session: the fn-form closes and the view follows
	// the run there.
	Ran(ctx app.Context, session string)
	// SetProblem shows a failure in the morphed area ("" clears it).
	SetProblem(text string)
	// Later runs f after the next render, e.g. to move the focus to an element that render
	// creates. Not ctx.Defer of an event handler: go-app drops a deferred function when the
	// element that handled the event is gone by then, and a mode's render often replaces it.
	Later(f func())
}

// Factory makes a mode for the container's registry.
type Factory func(h Host, in Input) Mode
