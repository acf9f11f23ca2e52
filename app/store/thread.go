// Package store holds the browser's state as folds of the event log: plain values that the
// views render and tests drive without a browser.
package store

import (
	"encoding/json"

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

// Thread is one session as the thread shows it.
type Thread struct {
	Title    string
	Messages []Message // appended only, so the view's by-index diff touches just the new ones
	Working  bool      // a prompt is still owed a reply
}

// Apply folds one event, in log order, into the thread.
func (t *Thread) Apply(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventSessionCreated:
		var sc protocol.SessionCreated
		if json.Unmarshal(ev.Data, &sc) == nil && sc.Title != "" {
			t.Title = sc.Title
		}
	case protocol.EventUserMessage:
		t.Working = true
	case protocol.EventAgentMessage:
		t.Working = false
	}
	if m, ok := MessageOf(ev); ok {
		t.Messages = append(t.Messages, m)
	}
}

// MessageOf derives the thread entry of an event; ok is false for events a thread does not
// show.
func MessageOf(ev protocol.Event) (Message, bool) {
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
