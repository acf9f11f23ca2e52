package protocol

import (
	"encoding/json"
	"testing"
)

func TestAnswerInWords(t *testing.T) {
	var form Schema
	if err := json.Unmarshal([]byte(`{"type": "object", "properties": {
		"env": {"type": "string", "title": "Environment", "oneOf": [{"const": "stg", "title": "Staging"}, {"const": "prod", "title": "Production"}]},
		"n": {"type": "integer", "title": "Replicas"},
		"tags": {"type": "array", "title": "Tags", "items": {"type": "string", "enum": ["a", "b"]}},
		"ok": {"type": "boolean", "title": "Sure", "trueLabel": "Sure thing"},
		"note": {"type": "string"}}}`), &form); err != nil { // no title: its key, worded as the form words it
		t.Fatal(err)
	}
	for _, c := range []struct {
		schema  *Schema
		content string
		want    string
	}{
		{&form, `{"env": "stg", "n": 3}`, "Environment: Staging · Replicas: 3"},
		{&form, `{"tags": ["a", "b"], "ok": true, "note": "hi"}`, "Tags: a, b · Sure: Sure thing · Note: hi"},
		{&form, `{"env": "other place", "tags": [], "note": ""}`, "Environment: other place · Tags: none · Note: (empty)"},
		{&form, `{"n": null}`, "Answered, every field left empty"},
		{&form, `{}`, "Answered, every field left empty"},
		{&form, `[1]`, ""},
		{&Schema{Type: "boolean"}, `false`, "No"},
		{&Schema{Type: "string", Enum: []string{"x"}, EnumNames: []string{"Ex"}}, `"x"`, "Ex"},
		{&Schema{Type: "number"}, `2.5`, "2.5"},
		{nil, `"x"`, ""},
	} {
		if got := AnswerInWords(c.schema, json.RawMessage(c.content)); got != c.want {
			t.Errorf("AnswerInWords(%s) = %q, want %q", c.content, got, c.want)
		}
	}
}

func TestKeyTitle(t *testing.T) {
	for key, want := range map[string]string{
		"notify": "Notify", "max_replicas": "Max replicas", "max-replicas": "Max replicas", "maxReplicas": "Max replicas",
		"URL": "URL", "a__b": "A b", "": "", "名字": "名字",
	} {
		if got := KeyTitle(key); got != want {
			t.Errorf("KeyTitle(%q) = %q, want %q", key, got, want)
		}
	}
}
