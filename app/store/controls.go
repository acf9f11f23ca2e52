package store

import "parley/protocol"

// Controls is a session's controls row as its log says: the model picked, the permission
// mode, and the tokens the last model call used. A value, compared by ==, so the composer's
// seats re-render only when one of them changes.
type Controls struct {
	// Model is the session's pick (session.model); "" is the server's default model.
	Model string
	// Mode is the permission mode (session.permissions); DefaultPermissionMode until set.
	Mode protocol.PermissionMode
	// Used is the tokens of the conversation after the last model call (turn.usage): what
	// it takes of the model's window. UsedBy is the model that call named.
	Used   int
	UsedBy string
}

// NewControls is the controls row of a session whose log holds none of its events yet.
func NewControls() Controls { return Controls{Mode: protocol.DefaultPermissionMode} }

// Apply folds one event, in log order.
func (c *Controls) Apply(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventSessionModel:
		if m, err := protocol.DecodeEventData[protocol.SessionModel](ev); err == nil {
			c.Model = m.Model
		}
	case protocol.EventSessionPermissions:
		if p, err := protocol.DecodeEventData[protocol.SessionPermissions](ev); err == nil && p.Mode.Valid() {
			c.Mode = p.Mode
		}
	case protocol.EventTurnUsage:
		if u, err := protocol.DecodeEventData[protocol.TurnUsage](ev); err == nil {
			c.Used = u.TotalTokens
			if c.Used == 0 {
				c.Used = u.PromptTokens + u.CompletionTokens // servers that leave the total out
			}
			c.UsedBy = u.Model
		}
	}
}
