package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"parley/protocol"
)

// Conversions between Starlark values and JSON. starlarkjson would do, except that both
// directions here keep an object's key order: a schema's properties are asked in the order
// they were written, and a person reads an answer in the order it was asked.

// maxDepth bounds nesting both ways, so a cyclic or absurdly deep value fails cleanly.
const maxDepth = 64

// toJSON encodes v: dicts with string keys (in insertion order) and structs become objects,
// lists and tuples arrays, and None, bools, ints, finite floats and strings themselves.
func toJSON(v starlark.Value) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v starlark.Value, depth int) error {
	if depth > maxDepth {
		return errors.New("value nested too deeply (or cyclic)")
	}
	switch v := v.(type) {
	case starlark.NoneType:
		b.WriteString("null")
	case starlark.Bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case starlark.Int:
		b.WriteString(v.String())
	case starlark.Float:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("cannot encode %s as JSON", v)
		}
		out, _ := json.Marshal(f)
		b.Write(out)
	case starlark.String:
		writeString(b, string(v))
	case *starlark.Dict:
		b.WriteByte('{')
		for i, item := range v.Items() {
			k, ok := item[0].(starlark.String)
			if !ok {
				return fmt.Errorf("dict key %s is a %s; JSON object keys are strings", item[0], item[0].Type())
			}
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, string(k))
			b.WriteByte(':')
			if err := writeJSON(b, item[1], depth+1); err != nil {
				return fmt.Errorf("[%q]: %w", string(k), err)
			}
		}
		b.WriteByte('}')
	case *starlarkstruct.Struct:
		b.WriteByte('{')
		for i, name := range v.AttrNames() {
			field, _ := v.Attr(name)
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, name)
			b.WriteByte(':')
			if err := writeJSON(b, field, depth+1); err != nil {
				return fmt.Errorf(".%s: %w", name, err)
			}
		}
		b.WriteByte('}')
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		b.WriteByte('[')
		for i := range seq.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, seq.Index(i), depth+1); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		b.WriteByte(']')
	default:
		return fmt.Errorf("cannot encode a %s as JSON", v.Type())
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	out, _ := json.Marshal(s) // a Go string always marshals; invalid UTF-8 becomes U+FFFD
	b.Write(out)
}

// fromJSON decodes one JSON value into Starlark: objects become dicts in the document's key
// order, integers ints (of any size), other numbers floats.
func fromJSON(data []byte) (starlark.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readJSON(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func readJSON(dec *json.Decoder, depth int) (starlark.Value, error) {
	if depth > maxDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(t), nil
	case string:
		return starlark.String(t), nil
	case json.Number:
		return numberValue(t)
	case json.Delim:
		switch t {
		case '{':
			d := starlark.NewDict(0)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := readJSON(dec, depth+1)
				if err != nil {
					return nil, err
				}
				if err := d.SetKey(starlark.String(kt.(string)), v); err != nil {
					return nil, err
				}
			}
			_, err := dec.Token() // '}'
			return d, err
		case '[':
			var elems []starlark.Value
			for dec.More() {
				v, err := readJSON(dec, depth+1)
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
			}
			_, err := dec.Token() // ']'
			return starlark.NewList(elems), err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

func numberValue(n json.Number) (starlark.Value, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("bad JSON number %s", s)
		}
		return starlark.MakeBigInt(i), nil
	}
	f, err := n.Float64()
	if err != nil {
		return nil, fmt.Errorf("bad JSON number %s", s)
	}
	return starlark.Float(f), nil
}

// jsonObjectToDict decodes vars or args: a JSON object, or nothing (an empty dict). Its
// error reads after the name of what was decoded: "vars must be a JSON object like …".
func jsonObjectToDict(raw json.RawMessage) (*starlark.Dict, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return starlark.NewDict(0), nil
	}
	v, err := fromJSON(t)
	if err != nil {
		return nil, fmt.Errorf("must be a JSON object like {\"name\": \"Ada\"}, and this is not valid JSON: %w", err)
	}
	d, ok := v.(*starlark.Dict)
	if !ok {
		shown := string(t)
		if len(shown) > 40 {
			shown = shown[:runeBoundary(t[:40])] + "…"
		}
		return nil, fmt.Errorf("must be a JSON object like {\"name\": \"Ada\"}, not %s", shown)
	}
	return d, nil
}

// fieldsText words a protocol validation error field by field ("schema.type: unknown type
// …; schema.required: …"), its field names starting with from renamed to start with to;
// other errors as they are.
func fieldsText(err error, from, to string) string {
	var ve *protocol.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	for _, field := range slices.Sorted(maps.Keys(ve.Fields)) {
		name := field
		if rest, ok := strings.CutPrefix(field, from); ok && (rest == "" || rest[0] == '.') {
			name = to + rest
		}
		parts = append(parts, name+": "+ve.Fields[field])
	}
	return strings.Join(parts, "; ")
}

// jsonError words an error decoding JSON into a Go value for a person who wrote Starlark:
// `minLength must be a whole number, not a string` rather than `json: cannot unmarshal
// string into Go struct field Schema.minLength of type int`.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	got := map[string]string{
		"string": "a string", "number": "a number", "bool": "a bool",
		"array": "a list", "object": "a dict", "null": "None",
	}[te.Value]
	if got == "" {
		got = "a " + te.Value
	}
	// Wrapping context ("property \"a\": ") is kept; the decoder's own text is replaced.
	prefix := strings.TrimSuffix(err.Error(), te.Error())
	what := "the value"
	if te.Field != "" {
		what = te.Field
	}
	return fmt.Errorf("%s%s must be %s, not %s", prefix, what, goTypeText(te.Type), got)
}

// goTypeText words the Go type a JSON value was meant to fill in Starlark's terms.
func goTypeText(t reflect.Type) string {
	if t == nil {
		return "something else"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "True or False"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if elem := goTypeText(t.Elem()); strings.HasPrefix(elem, "a ") {
			return "a list of " + strings.TrimPrefix(elem, "a ") + "s"
		}
		return "a list"
	case reflect.Struct, reflect.Map:
		return "a dict"
	}
	return "something else"
}
