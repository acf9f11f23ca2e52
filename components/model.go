package components

import (
	"parley/protocol"
)

// Role says who wrote a message.
type Role string

// The roles a thread shows.
const (
	RoleUser  Role = "user"
	RoleAgent Role = "agent"
)

// Message is a thread entry, derived once from its event so rendering never decodes.
type Message struct {
	Offset uint64
	Role   Role
	Text   string
}

// messageOf derives the thread entry of an event; ok is false for events a thread does not show.
func messageOf(ev protocol.Event) (Message, bool) {
	var role Role
	switch ev.Type {
	case protocol.EventUserMessage:
		role = RoleUser
	case protocol.EventAgentMessage:
		role = RoleAgent
	default:
		return Message{}, false
	}
	m, err := ev.DecodeMessage()
	if err != nil {
		return Message{Offset: ev.Offset, Role: role, Text: "(this message could not be read: " + err.Error() + ")"}, true
	}
	return Message{Offset: ev.Offset, Role: role, Text: m.Text}, true
}
