package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

func TestMessageOf(t *testing.T) {
	data := func(m protocol.Message) json.RawMessage { b, _ := json.Marshal(m); return b }
	cases := []struct {
		name string
		ev   protocol.Event
		want Message
		ok   bool
	}{
		{"user", protocol.Event{Offset: 1, Type: protocol.EventUserMessage, Data: data(protocol.Message{Text: "q"})}, Message{Offset: 1, Role: RoleUser, Text: "q"}, true},
		{"agent", protocol.Event{Offset: 2, Type: protocol.EventAgentMessage, Data: data(protocol.Message{Text: "a"})}, Message{Offset: 2, Role: RoleAgent, Text: "a"}, true},
		{"not shown", protocol.Event{Offset: 3, Type: protocol.EventSessionCreated}, Message{}, false},
		{"unreadable", protocol.Event{Offset: 4, Type: protocol.EventAgentMessage, Data: json.RawMessage(`1`)}, Message{Offset: 4, Role: RoleAgent}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := MessageOf(c.ev)
			assert.Equal(t, c.ok, ok)
			if c.name == "unreadable" {
				assert.Contains(t, got.Text, "could not be read")
				return
			}
			assert.Equal(t, c.want, got)
		})
	}
}

func TestThreadAppliesEventsInOrder(t *testing.T) {
	c := &Thread{}
	raw := func(text string) json.RawMessage { b, _ := json.Marshal(protocol.Message{Text: text}); return b }
	created, _ := json.Marshal(protocol.SessionCreated{Title: "Plans"})
	c.Apply(protocol.Event{Offset: 1, Type: protocol.EventSessionCreated, Data: created})
	assert.Equal(t, "Plans", c.Title)
	c.Apply(protocol.Event{Offset: 2, Type: protocol.EventUserMessage, Data: raw("q")})
	assert.True(t, c.Working, "a prompt without a reply means the agent works")
	c.Apply(protocol.Event{Offset: 3, Type: protocol.EventAgentMessage, Data: raw("a")})
	assert.False(t, c.Working)
	assert.Equal(t, []Message{{Offset: 2, Role: RoleUser, Text: "q"}, {Offset: 3, Role: RoleAgent, Text: "a"}}, c.Messages)
}
