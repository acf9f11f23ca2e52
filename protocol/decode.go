package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
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
		return req, fmt.Errorf("request body %w", decodeWords(err))
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

// decodeWords says what a JSON decode failed on in a person's words, not Go's: "json: cannot
// unmarshal string into Go struct field ClientFrame.after of type uint64" names a Go type
// the sender never sees (QA round 25). It reads after "frame " or "request body ".
func decodeWords(err error) error {
	var syntax *json.SyntaxError
	var typed *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("is not valid JSON at byte %d: %s", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.Is(err, io.EOF):
		return errors.New("is empty: send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("is not valid JSON: it ends before its last value closes")
	case errors.As(err, &typed):
		got := typed.Value
		if n, ok := strings.CutPrefix(got, "number "); ok {
			got = n // the number itself: "-1", "1.5"
		} else {
			got = article(got)
		}
		if typed.Field == "" {
			return fmt.Errorf("must be a JSON object, not %s", got)
		}
		return fmt.Errorf("field %q must be %s, not %s", typed.Field, jsonKind(typed.Type), got)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("has an unknown field %s: check its spelling", name)
	}
	return fmt.Errorf("could not be read: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonKind names what JSON a Go type takes.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number from 0"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "an object"
}

// article puts "a" or "an" before a JSON kind as the decoder names it (string, array, …).
func article(kind string) string {
	if strings.ContainsAny(kind[:1], "aeiou") {
		return "an " + kind
	}
	return "a " + kind
}
