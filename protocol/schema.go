package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Schema is a requested schema in the MCP 2025-11-25 elicitation form vocabulary, with the
// presentation hints Parley's composer reads (header, multiline, placeholder, labels).
//
// A schema is either one question (a string, number, integer, boolean, single-select enum or
// multi-select array) or an object whose properties are several questions, kept in the order
// they were written. The answer to one question is its value; the answer to an object is a
// JSON object keyed by property.
type Schema struct {
	Type        string `json:"type"` // string, number, integer, boolean, array, object
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Header is the question's short name: what its chip holds when several are asked.
	Header  string          `json:"header,omitempty"`
	Default json.RawMessage `json:"default,omitempty"`

	// string
	MinLength   *int   `json:"minLength,omitempty"`
	MaxLength   *int   `json:"maxLength,omitempty"`
	Format      string `json:"format,omitempty"` // email, uri, date, date-time
	Multiline   bool   `json:"multiline,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`

	// single-select enum (type string): plain enum with optional enumNames, or titled oneOf.
	Enum      []string     `json:"enum,omitempty"`
	EnumNames []string     `json:"enumNames,omitempty"`
	OneOf     []EnumOption `json:"oneOf,omitempty"`
	// AllowOther says whether a free-text "Other…" answer is accepted besides the choices.
	// Unset means yes: the host offers it unless the schema closes it.
	AllowOther *bool `json:"allowOther,omitempty"`

	// number and integer
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`

	// boolean
	TrueLabel  string `json:"trueLabel,omitempty"`
	FalseLabel string `json:"falseLabel,omitempty"`

	// multi-select array
	Items    *ItemsSchema `json:"items,omitempty"`
	MinItems *int         `json:"minItems,omitempty"`
	MaxItems *int         `json:"maxItems,omitempty"`

	// object
	Properties Properties `json:"properties,omitempty"`
	Required   []string   `json:"required,omitempty"`
}

// EnumOption is a titled choice (oneOf / anyOf entries: const and title).
type EnumOption struct {
	Const       string `json:"const"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
}

// ItemsSchema is a multi-select's item type: a plain enum or titled anyOf choices.
type ItemsSchema struct {
	Type  string       `json:"type,omitempty"` // string
	Enum  []string     `json:"enum,omitempty"`
	AnyOf []EnumOption `json:"anyOf,omitempty"`
}

// Property is one question of an object schema.
type Property struct {
	Key    string
	Schema *Schema
}

// Properties are an object's questions in the order they were written. JSON objects have no
// order in Go maps, and the order is the order a person is asked in.
type Properties []Property

// MarshalJSON writes the properties as a JSON object in order.
func (p Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, prop := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(prop.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(prop.Schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object keeping its keys' order; a repeated key is an error.
func (p *Properties) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("properties must be an object")
	}
	var out Properties
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		if seen[key] {
			return fmt.Errorf("property %q appears twice", key)
		}
		seen[key] = true
		var s Schema
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("property %q: %w", key, err)
		}
		out = append(out, Property{Key: key, Schema: &s})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*p = out
	return nil
}

// Choice is a normalised option of a single- or multi-select question, whichever of the
// vocabulary's spellings (enum + enumNames, oneOf, items.enum, items.anyOf) it came from.
type Choice struct {
	Value       string
	Label       string
	Description string
	Recommended bool
}

// Question is one question of a schema, as a form asks it.
type Question struct {
	// Key is the property name, or "" when the schema is a single question.
	Key      string
	Schema   *Schema
	Required bool
}
