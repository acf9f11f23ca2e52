package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

func TestControlsFold(t *testing.T) {
	ev := func(typ protocol.EventType, data any) protocol.Event {
		raw, _ := json.Marshal(data)
		return protocol.Event{Type: typ, Data: raw}
	}
	cases := []struct {
		name   string
		events []protocol.Event
		want   Controls
	}{
		{"nothing yet: the default mode and model", nil, NewControls()},
		{"a model picked, then another", []protocol.Event{
			ev(protocol.EventSessionModel, protocol.SessionModel{Model: "a"}),
			ev(protocol.EventSessionModel, protocol.SessionModel{Model: "b"}),
		}, Controls{Model: "b", Mode: protocol.DefaultPermissionMode}},
		{"the mode, an unknown mode ignored", []protocol.Event{
			ev(protocol.EventSessionPermissions, protocol.SessionPermissions{Mode: protocol.PermissionEdits}),
			ev(protocol.EventSessionPermissions, protocol.SessionPermissions{Mode: "later"}),
		}, Controls{Mode: protocol.PermissionEdits}},
		{"the last call's usage counts", []protocol.Event{
			ev(protocol.EventTurnUsage, protocol.TurnUsage{Model: "a", PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}),
			ev(protocol.EventTurnUsage, protocol.TurnUsage{Model: "a", PromptTokens: 900, CompletionTokens: 100, TotalTokens: 1000}),
		}, Controls{Mode: protocol.DefaultPermissionMode, Used: 1000, UsedBy: "a"}},
		{"a usage without a total", []protocol.Event{
			ev(protocol.EventTurnUsage, protocol.TurnUsage{PromptTokens: 7, CompletionTokens: 3}),
		}, Controls{Mode: protocol.DefaultPermissionMode, Used: 10}},
		{"other events change nothing", []protocol.Event{
			ev(protocol.EventAgentMessage, protocol.Message{Text: "hi"}),
			{Type: protocol.EventSessionModel, Data: json.RawMessage(`"broken"`)},
		}, NewControls()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := NewControls()
			for _, e := range c.events {
				got.Apply(e)
			}
			assert.Equal(t, c.want, got)
		})
	}
}
