package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Request is a request body that can check itself.
type Request interface {
	Validate() error
}

// DecodeRequest parses and validates a request body. Errors say what to fix: the size limit,
// the JSON syntax error with its position, an unknown field, or the per-field problems.
func DecodeRequest[T Request](data []byte) (T, error) {
	var req T
	if len(data) > MaxRequestBytes {
		return req, fmt.Errorf("request body larger than %d KiB", MaxRequestBytes/1024)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return req, errors.New("the request body is empty: send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return req, fmt.Errorf("request body is not valid JSON at byte %d: %w", syntax.Offset, err)
		}
		return req, fmt.Errorf("request body: %w", err)
	}
	if dec.More() {
		return req, errors.New("request body holds more than one JSON value")
	}
	if err := noRepeatedNames(data); err != nil {
		return req, fmt.Errorf("request body: %w", err)
	}
	return req, req.Validate()
}

// noRepeatedNames refuses a JSON value in which an object names a member twice. Go's decoder
// keeps the last and says nothing, so {"text": "a", "text": "b"} was stored as "b" and a
// frame of two types was taken for its second (QA round 22); which one the sender meant is
// theirs to say. data has been decoded already: it is valid JSON.
func noRepeatedNames(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type object struct {
		names map[string]bool
		name  bool // the next token is a member's name
	}
	var stack []*object
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end (or an error the decode before has said)
		}
		var top *object
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.name {
			if name, ok := tok.(string); ok {
				if top.names[name] {
					return fmt.Errorf("%q is given twice in one object: give each name once", name)
				}
				top.names[name] = true
				top.name = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &object{names: map[string]bool{}, name: true})
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: in an object, a name comes next.
		if len(stack) > 0 && stack[len(stack)-1] != nil {
			stack[len(stack)-1].name = true
		}
	}
}
