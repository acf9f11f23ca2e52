package protocol

import (
	"encoding/json"
	"strings"
	"unicode"
)

// AnswerInWords says an accepted answer to a question as a person reads it, never as JSON: a
// form's answers as "Title: value" pairs joined by " · " ("Environment: Staging · Replicas:
// 3"), skipping those left out; one answer as its choice's label, Yes or No (or the schema's
// words for them), a list of labels, a number or a text as typed. A form answered with
// every field left empty is "Answered, every field left empty". It is "" when the content
// does not fit the schema (the caller says "Answered").
func AnswerInWords(s *Schema, content json.RawMessage) string {
	if s == nil {
		return ""
	}
	if s.Type != typeObject {
		return ValueInWords(s, content)
	}
	var values map[string]json.RawMessage
	if json.Unmarshal(content, &values) != nil {
		return ""
	}
	var parts []string
	for _, q := range s.Questions() {
		raw, ok := values[q.Key]
		if !ok || string(raw) == "null" {
			continue
		}
		title := q.Schema.Title
		if title == "" {
			title = KeyTitle(q.Key)
		}
		parts = append(parts, title+": "+ValueInWords(q.Schema, raw))
	}
	if len(parts) == 0 {
		return "Answered, every field left empty"
	}
	return strings.Join(parts, " · ")
}

// ValueInWords says one answer as a person reads it: a choice's label (an "Other…" answer as
// typed), Yes or No (or the schema's words for them), a list of labels, a number or a text
// as typed.
func ValueInWords(s *Schema, raw json.RawMessage) string {
	label := func(v string) string {
		for _, c := range s.Choices() {
			if c.Value == v {
				return c.Label
			}
		}
		return v
	}
	switch {
	case s.Type == "boolean":
		var yes bool
		if json.Unmarshal(raw, &yes) == nil {
			if yes {
				return cmpOr(s.TrueLabel, "Yes")
			}
			return cmpOr(s.FalseLabel, "No")
		}
	case s.IsSingleSelect():
		var v string
		if json.Unmarshal(raw, &v) == nil {
			return label(v)
		}
	case s.IsMultiSelect():
		var vs []string
		if json.Unmarshal(raw, &vs) == nil {
			if len(vs) == 0 {
				return "none"
			}
			out := make([]string, len(vs))
			for i, v := range vs {
				out[i] = label(v)
			}
			return strings.Join(out, ", ")
		}
	case s.Type == typeString:
		var v string
		if json.Unmarshal(raw, &v) == nil {
			if v == "" {
				return "(empty)"
			}
			return v
		}
	}
	return strings.TrimSpace(string(raw)) // a number, as typed
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// KeyTitle words a property's key as a title, for a question the schema gives no title:
// "max_replicas", "max-replicas" and "maxReplicas" are "Max replicas". The form's chips and
// the thread's summary of its answers say the same.
func KeyTitle(key string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range key {
		switch {
		case r == '_' || r == '-':
			r, prevLower = ' ', false
		case unicode.IsUpper(r) && prevLower:
			b.WriteByte(' ')
			r, prevLower = unicode.ToLower(r), false
		default:
			prevLower = unicode.IsLower(r)
		}
		if b.Len() == 0 {
			r = unicode.ToUpper(r)
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
