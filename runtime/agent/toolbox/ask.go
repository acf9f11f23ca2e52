package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/gate"
)

const askDescription = "Ask the user a question and wait for the answer. Use it when you need a decision or a fact " +
	"only the user has. schema shapes the answer: a text question ({\"type\":\"string\"}), a choice " +
	"({\"type\":\"string\",\"oneOf\":[{\"const\":\"a\",\"title\":\"Option A\"}]}), several picks " +
	"({\"type\":\"array\",\"items\":{\"anyOf\":[…]}}), yes/no ({\"type\":\"boolean\"}), a number, or a form " +
	"({\"type\":\"object\",\"properties\":{…},\"required\":[…]}). Leave schema out for a plain text answer. " +
	"Whether a free-text answer is offered besides the choices is the host's decision."

// askParameters is the decision vocabulary, as far as a model needs it described; the full
// rules are protocol.Schema's, checked on the server.
const askParameters = `{"type":"object","properties":{
	"message":{"type":"string","description":"the question, as the user reads it"},
	"schema":{"type":"object","description":"the answer's shape (the elicitation vocabulary)","properties":{
		"type":{"type":"string","enum":["string","number","integer","boolean","array","object"]},
		"title":{"type":"string"},"description":{"type":"string"},
		"header":{"type":"string","description":"two or three words naming the question"},
		"enum":{"type":"array","items":{"type":"string"}},
		"oneOf":{"type":"array","items":{"type":"object","properties":{"const":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"}}}},
		"items":{"type":"object"},
		"multiline":{"type":"boolean"},
		"properties":{"type":"object"},
		"required":{"type":"array","items":{"type":"string"}}}}},
	"required":["message"]}`

func prepareAsk(_ *Box, args json.RawMessage) (*plan, error) {
	var a struct {
		Message string           `json:"message"`
		Schema  *protocol.Schema `json:"schema"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if a.Message == "" {
		return nil, errors.New("message is missing: say what you are asking")
	}
	req := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: a.Message, Schema: Question(a.Schema)}
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("the question cannot be asked: %v", err)
	}
	return &plan{run: func(ctx context.Context, t agent.Tools) (protocol.ToolResult, error) {
		ans, err := t.Ask(ctx, req)
		if err != nil {
			return protocol.ToolResult{}, fmt.Errorf("ask_user: %w", err)
		}
		receipt := map[string]any{"question": req.Message, "action": ans.Action}
		res := protocol.ToolResult{}
		switch {
		case ans.Action == protocol.ActionAccept:
			res.Text = "the user answered: " + string(ans.Content)
			receipt["answer"] = ans.Content
		case ans.Reason == protocol.ReasonTimeout:
			res.Text, res.Error = gate.TextTimedOut, true
			receipt["reason"] = ans.Reason
		default:
			res.Text, res.Error = "the user declined to answer", true
			if ans.Reason != "" {
				res.Text += ": " + ans.Reason
				receipt["reason"] = ans.Reason
			}
		}
		res.Details, _ = json.Marshal(receipt)
		return res, nil
	}}, nil
}

// Question is the schema a model asked with, under the host's policy: a missing schema asks
// for text; whether "Other…" is offered is the host's decision, so the model's allowOther is
// dropped; and a choice with no choices (an empty enum, oneOf or items) becomes a text
// question, so no list is drawn whose only entry is "Other…".
func Question(s *protocol.Schema) *protocol.Schema {
	if s == nil || s.Type == "" {
		return &protocol.Schema{Type: "string"}
	}
	q := *s
	q.AllowOther = nil
	switch q.Type {
	case "string":
		if len(q.Enum) == 0 && len(q.OneOf) == 0 {
			q.Enum, q.EnumNames, q.OneOf = nil, nil, nil
		}
	case "array":
		if q.Items == nil || len(q.Items.Enum) == 0 && len(q.Items.AnyOf) == 0 {
			q = protocol.Schema{Type: "string", Title: q.Title, Description: q.Description, Header: q.Header, Multiline: true}
		}
	case "object":
		props := make(protocol.Properties, len(q.Properties))
		for i, p := range q.Properties {
			props[i] = protocol.Property{Key: p.Key, Schema: Question(p.Schema)}
		}
		q.Properties = props
	}
	return &q
}
