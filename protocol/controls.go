package protocol

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The controls row's events and requests (docs/composer.md): a session's model and
// permission mode are events in its log, so every replica and every tab reads the same
// choice, and the turn that runs next uses it. The tokens a model call used are an event too,
// for the context ring.
const (
	// EventSessionModel records the model a session's next model calls name.
	EventSessionModel EventType = "session.model"
	// EventSessionPermissions records a session's permission mode, which the gate applies.
	EventSessionPermissions EventType = "session.permissions"
	// EventTurnUsage records the tokens one model call used, as the endpoint reported them.
	EventTurnUsage EventType = "turn.usage"
)

// PermissionMode says which of the model's tool calls pass the gate without asking. The
// modes are a ladder: each lets through what the one before did, and more. Grants ("always")
// apply in every mode; commands always ask unless a grant covers them.
type PermissionMode string

// The permission modes.
const (
	// PermissionAsk asks for everything: every read, write and command of the model.
	PermissionAsk PermissionMode = "ask"
	// PermissionReads lets reads inside the workspace through (read_file, list_files,
	// search_files); writes and commands ask. The default: it is what Parley did before modes.
	PermissionReads PermissionMode = "reads"
	// PermissionEdits also lets writes inside the workspace through (write_file, edit_file);
	// commands still ask.
	PermissionEdits PermissionMode = "edits"
)

// DefaultPermissionMode is a session's mode until one is chosen.
const DefaultPermissionMode = PermissionReads

// PermissionModes lists the modes in ladder order.
var PermissionModes = []PermissionMode{PermissionAsk, PermissionReads, PermissionEdits}

// Label is the mode as the controls row names it.
func (m PermissionMode) Label() string {
	switch m {
	case PermissionAsk:
		return "Ask for everything"
	case PermissionReads:
		return "Allow reads"
	case PermissionEdits:
		return "Allow edits"
	}
	return string(m)
}

// Description says what a mode lets through, for a tooltip.
func (m PermissionMode) Description() string {
	switch m {
	case PermissionAsk:
		return "Every read, write and command of the agent asks first, unless an earlier “always” covers it"
	case PermissionReads:
		return "Reads inside the workspace run without asking; writes and commands ask"
	case PermissionEdits:
		return "Reads and writes inside the workspace run without asking; commands ask"
	}
	return ""
}

// Valid reports whether m is one of the modes.
func (m PermissionMode) Valid() bool {
	for _, v := range PermissionModes {
		if m == v {
			return true
		}
	}
	return false
}

// SessionModel is the data of session.model.
type SessionModel struct {
	Model string `json:"model"`
}

// SessionPermissions is the data of session.permissions.
type SessionPermissions struct {
	Mode PermissionMode `json:"mode"`
}

// TurnUsage is the data of turn.usage: the tokens of one model call. PromptTokens is what
// the conversation so far took of the model's window; TotalTokens adds the reply.
type TurnUsage struct {
	Model            string `json:"model,omitempty"`
	PromptTokens     int    `json:"promptTokens"`
	CompletionTokens int    `json:"completionTokens"`
	TotalTokens      int    `json:"totalTokens"`
}

// MaxModelNameBytes bounds a model's name in a request.
const MaxModelNameBytes = 256

// SetModelRequest is the body of POST /api/sessions/{id}/model.
type SetModelRequest struct {
	Model string `json:"model"`
}

// Validate checks the model's name is one a request could carry; whether the endpoint
// serves it is the server's check.
func (r SetModelRequest) Validate() error {
	f := fieldErrors{}
	switch {
	case strings.TrimSpace(r.Model) == "":
		f.add("model", "missing: name one of the models GET /api/models lists")
	case len(r.Model) > MaxModelNameBytes:
		f.add("model", "longer than %d bytes", MaxModelNameBytes)
	case !utf8.ValidString(r.Model):
		f.add("model", "not valid UTF-8")
	case strings.IndexFunc(r.Model, unicode.IsControl) >= 0:
		f.add("model", "holds a control character: a model's name is one line of text")
	}
	return f.err()
}

// SetPermissionsRequest is the body of POST /api/sessions/{id}/permissions.
type SetPermissionsRequest struct {
	Mode PermissionMode `json:"mode"`
}

// Validate checks the mode is one of the modes.
func (r SetPermissionsRequest) Validate() error {
	f := fieldErrors{}
	if !r.Mode.Valid() {
		f.add("mode", "unknown mode %q: use %q (ask for everything), %q (allow reads) or %q (allow edits)",
			r.Mode, PermissionAsk, PermissionReads, PermissionEdits)
	}
	return f.err()
}

// ModelInfo is one model the endpoint serves.
type ModelInfo struct {
	ID string `json:"id"`
	// Window is the model's context window in tokens, when the listing says it (0 when not).
	Window int `json:"window,omitempty"`
}

// ModelList answers GET /api/models. Configured is false when no model endpoint is
// configured (the offline agent answers): the picker then says so. Error, when set, is why
// the endpoint's list could not be read, in words; Default is still usable.
type ModelList struct {
	Configured bool        `json:"configured"`
	Default    string      `json:"default,omitempty"`
	Models     []ModelInfo `json:"models"`
	Error      string      `json:"error,omitempty"`
	// Window is the context window the ring counts against when a model's own is unknown:
	// the -model-window flag.
	Window int `json:"window,omitempty"`
}

// WindowOf is the context window of a model and where it comes from: "listing" when the
// endpoint's list says it, "flag" when it is the -model-window default.
func (l ModelList) WindowOf(model string) (int, string) {
	for _, m := range l.Models {
		if m.ID == model && m.Window > 0 {
			return m.Window, "listing"
		}
	}
	return l.Window, "flag"
}

// SessionSettingResponse answers a change of a session's model or mode: the offset of the
// event that records it.
type SessionSettingResponse struct {
	Offset uint64 `json:"offset"`
}
