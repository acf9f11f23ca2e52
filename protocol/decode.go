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
	return req, req.Validate()
}
