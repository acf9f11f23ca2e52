package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of schemas and answers.
const (
	// MaxHeaderBytes bounds a question's header: it is what a chip holds, two or three words.
	MaxHeaderBytes = 40
	// MaxOtherChars bounds a free-text "Other…" answer to a choice, in characters.
	MaxOtherChars = 1000
	// MaxTimeoutMs bounds how long a decision may wait for its answer: a day.
	MaxTimeoutMs = 24 * 60 * 60 * 1000
	// MaxSafeInteger is the largest integer answer: beyond it a JavaScript number, and so
	// any browser's JSON, can no longer tell neighbouring integers apart.
	MaxSafeInteger = 1<<53 - 1
)

// The schema types of the vocabulary.
const (
	typeString  = "string"
	typeNumber  = "number"
	typeInteger = "integer"
	typeBoolean = "boolean"
	typeArray   = "array"
	typeObject  = "object"
)

// The string formats of the vocabulary.
const (
	formatEmail    = "email"
	formatURI      = "uri"
	formatDate     = "date"
	formatDateTime = "date-time"
)

// Questions returns what the schema asks, in order: one question per property of an object
// schema (required when its key is listed in Required), or the schema itself as its one
// question, with Key "" and always required. A nil schema asks nothing.
func (s *Schema) Questions() []Question {
	if s == nil {
		return nil
	}
	if s.Type != typeObject {
		return []Question{{Schema: s, Required: true}}
	}
	qs := make([]Question, 0, len(s.Properties))
	for _, p := range s.Properties {
		qs = append(qs, Question{Key: p.Key, Schema: p.Schema, Required: slices.Contains(s.Required, p.Key)})
	}
	return qs
}

// IsSingleSelect reports whether the schema asks to pick one of its choices: a string with
// enum or oneOf.
func (s *Schema) IsSingleSelect() bool {
	return s != nil && s.Type == typeString && (len(s.Enum) > 0 || len(s.OneOf) > 0)
}

// IsMultiSelect reports whether the schema asks to pick several of its choices: an array with
// items.
func (s *Schema) IsMultiSelect() bool {
	return s != nil && s.Type == typeArray && s.Items != nil
}

// Choices returns the choices of a single- or multi-select question, whichever spelling they
// were written in; a label falls back to the value. It is nil for any other question.
//
// A schema that spells its choices twice (enum and oneOf) fails Check; here the titled
// spelling wins.
func (s *Schema) Choices() []Choice {
	switch {
	case s.IsSingleSelect():
		if len(s.OneOf) > 0 {
			return optionChoices(s.OneOf)
		}
		return enumChoices(s.Enum, s.EnumNames)
	case s.IsMultiSelect():
		if len(s.Items.AnyOf) > 0 {
			return optionChoices(s.Items.AnyOf)
		}
		return enumChoices(s.Items.Enum, nil)
	}
	return nil
}

func enumChoices(values, names []string) []Choice {
	if len(values) == 0 {
		return nil
	}
	out := make([]Choice, len(values))
	for i, v := range values {
		label := v
		if i < len(names) && names[i] != "" {
			label = names[i]
		}
		out[i] = Choice{Value: v, Label: label}
	}
	return out
}

func optionChoices(opts []EnumOption) []Choice {
	out := make([]Choice, len(opts))
	for i, o := range opts {
		label := o.Title
		if label == "" {
			label = o.Const
		}
		out[i] = Choice{Value: o.Const, Label: label, Description: o.Description, Recommended: o.Recommended}
	}
	return out
}

// allowsOther reports whether a single-select accepts free text besides its choices. Unset
// means yes: the host offers "Other…" unless the schema closes it.
func (s *Schema) allowsOther() bool {
	return s.AllowOther == nil || *s.AllowOther
}

// CloseChoices closes "Other…" on every single choice of the schema (the schema itself, or
// each of an object's questions) that does not say whether it takes free text: for an asker
// that is a program checking its own enum (a script, an MCP server), a value outside the
// choices breaks its contract (QA round 22: a script's ask() got "qa" for env). A choice
// that opens Other itself (allowOther: true) keeps it.
func (s *Schema) CloseChoices() {
	closed := false
	for _, q := range append([]*Schema{s}, s.Properties.schemas()...) {
		if q != nil && q.AllowOther == nil && (len(q.Enum) > 0 || len(q.OneOf) > 0) {
			q.AllowOther = &closed
		}
	}
}

// schemas are the properties' schemas, in order.
func (p Properties) schemas() []*Schema {
	out := make([]*Schema, len(p))
	for i, prop := range p {
		out[i] = prop.Schema
	}
	return out
}

// Check reports whether the schema itself is well formed, with fields named by their path
// ("schema.type", "schema.properties.env.minLength"). A schema that passes can be rendered
// as a form and its answers validated.
func (s *Schema) Check() error {
	f := fieldErrors{}
	s.check(f, "schema")
	return f.err()
}

func (s *Schema) check(f fieldErrors, path string) {
	if s == nil {
		f.add(path, "is missing")
		return
	}
	s.checkQuestion(f, path, true)
}

const typeList = "string, number, integer, boolean, array or object"

// checkQuestion checks one schema at path; top says whether it may be a form (an object).
func (s *Schema) checkQuestion(f fieldErrors, path string, top bool) {
	at := func(field string) string { return path + "." + field }
	before := len(f)

	switch s.Type {
	case typeString, typeNumber, typeInteger, typeBoolean, typeArray:
	case typeObject:
		if !top {
			f.add(at("type"), "a question cannot hold questions: forms do not nest")
			return
		}
	case "":
		f.add(at("type"), "is missing: use %s", typeList)
		return
	default:
		f.add(at("type"), "unknown type %q: use %s", s.Type, typeList)
		return
	}

	switch {
	case len(s.Header) > MaxHeaderBytes:
		f.add(at("header"), "is %d bytes; keep it to %d (two or three words)", len(s.Header), MaxHeaderBytes)
	case !utf8.ValidString(s.Header):
		f.add(at("header"), "is not valid UTF-8")
	}

	s.checkPlacement(f, path)
	checkCounts(f, path, "minLength", "maxLength", s.MinLength, s.MaxLength)
	checkCounts(f, path, "minItems", "maxItems", s.MinItems, s.MaxItems)
	checkBounds(f, path, s.Minimum, s.Maximum)

	switch s.Format {
	case "", formatEmail, formatURI, formatDate, formatDateTime:
	default:
		f.add(at("format"), "unknown format %q: use email, uri, date or date-time", s.Format)
	}

	switch s.Type {
	case typeString:
		s.checkSingleSelect(f, path)
	case typeArray:
		s.checkMultiSelect(f, path)
	case typeObject:
		s.checkForm(f, path)
	}

	// A default is what the form starts with, so it must be an answer the form would take.
	// Checked last, and only on an otherwise sound question, because the rules it is held
	// to are the ones checked above.
	if isJSONNull(s.Default) || len(f) != before {
		return
	}
	switch {
	case s.Type == typeObject:
		f.add(at("default"), "a form has no default of its own: set a default on each question")
	case !json.Valid(s.Default):
		f.add(at("default"), "is not valid JSON")
	default:
		if msg := s.checkAnswer(s.Default, false); msg != "" {
			f.add(at("default"), "is not a valid answer: %s", msg)
		}
	}
}

// checkPlacement rejects keywords that do not apply to the schema's type: they would be
// ignored silently, and the asker would believe they hold.
func (s *Schema) checkPlacement(f fieldErrors, path string) {
	misplaced := func(set bool, field, why string) {
		if set {
			f.add(path+"."+field, "%s", why)
		}
	}
	if s.Type != typeString {
		const why = "applies only to a text or choice question (type string)"
		misplaced(s.MinLength != nil, "minLength", why)
		misplaced(s.MaxLength != nil, "maxLength", why)
		misplaced(s.Format != "", "format", why)
		misplaced(s.Enum != nil, "enum", why)
		misplaced(s.EnumNames != nil, "enumNames", why)
		misplaced(s.OneOf != nil, "oneOf", why)
	} else if s.IsSingleSelect() {
		// The answer is a choice, or free text bounded by MaxOtherChars: text rules would
		// hold only for the "Other…" arm, which nobody would expect.
		const why = "applies to free text, not to a choice"
		misplaced(s.MinLength != nil, "minLength", why)
		misplaced(s.MaxLength != nil, "maxLength", why)
		misplaced(s.Format != "", "format", why)
	}
	if s.Type != typeNumber && s.Type != typeInteger {
		const why = "applies only to a number or integer question"
		misplaced(s.Minimum != nil, "minimum", why)
		misplaced(s.Maximum != nil, "maximum", why)
	}
	if s.Type != typeArray {
		const why = "applies only to a multi-select question (type array)"
		misplaced(s.Items != nil, "items", why)
		misplaced(s.MinItems != nil, "minItems", why)
		misplaced(s.MaxItems != nil, "maxItems", why)
	}
	if s.Type != typeObject {
		const why = "applies only to a form (type object)"
		misplaced(s.Properties != nil, "properties", why)
		misplaced(s.Required != nil, "required", why)
	}
}

func checkCounts(f fieldErrors, path, minName, maxName string, lo, hi *int) {
	if lo != nil && *lo < 0 {
		f.add(path+"."+minName, "must not be negative")
	}
	if hi != nil && *hi < 0 {
		f.add(path+"."+maxName, "must not be negative")
	}
	if lo != nil && hi != nil && *lo >= 0 && *hi >= 0 && *lo > *hi {
		f.add(path+"."+maxName, "must be at least %s (%d)", minName, *lo)
	}
}

func checkBounds(f fieldErrors, path string, lo, hi *float64) {
	finite := func(p *float64) bool { return p == nil || !(math.IsNaN(*p) || math.IsInf(*p, 0)) }
	if !finite(lo) {
		f.add(path+".minimum", "must be a finite number")
	}
	if !finite(hi) {
		f.add(path+".maximum", "must be a finite number")
	}
	if lo != nil && hi != nil && *lo > *hi {
		f.add(path+".maximum", "must be at least minimum (%s)", formatNumber(*lo))
	}
}

func (s *Schema) checkSingleSelect(f fieldErrors, path string) {
	switch {
	case s.Enum != nil && s.OneOf != nil:
		f.add(path+".oneOf", "use enum or oneOf, not both")
	case s.OneOf != nil:
		checkChoiceValues(f, path+".oneOf", constsOf(s.OneOf), ".const")
	case s.Enum != nil:
		checkChoiceValues(f, path+".enum", s.Enum, "")
	}
	if s.EnumNames != nil && len(s.EnumNames) != len(s.Enum) {
		f.add(path+".enumNames", "has %d names for %d enum values: give one name per value", len(s.EnumNames), len(s.Enum))
	}
}

func (s *Schema) checkMultiSelect(f fieldErrors, path string) {
	it := s.Items
	if it == nil {
		f.add(path+".items", "is missing: a multi-select needs items with enum or anyOf choices")
		return
	}
	if it.Type != "" && it.Type != typeString {
		f.add(path+".items.type", "must be string: the choices are text")
	}
	n := 0
	switch {
	case it.Enum != nil && it.AnyOf != nil:
		f.add(path+".items.anyOf", "use enum or anyOf, not both")
		return
	case it.AnyOf != nil:
		n = len(it.AnyOf)
		checkChoiceValues(f, path+".items.anyOf", constsOf(it.AnyOf), ".const")
	case it.Enum != nil:
		n = len(it.Enum)
		checkChoiceValues(f, path+".items.enum", it.Enum, "")
	default:
		f.add(path+".items", "lists no choices: give items an enum or anyOf")
		return
	}
	if s.MinItems != nil && n > 0 && *s.MinItems > n {
		f.add(path+".minItems", "asks for %d picks but there are only %d choices", *s.MinItems, n)
	}
}

func (s *Schema) checkForm(f fieldErrors, path string) {
	switch {
	case len(s.Properties) == 0:
		f.add(path+".properties", "lists no questions: a form needs at least one property")
	case len(s.Properties) > MaxQuestions:
		f.add(path+".properties", "lists %d questions; the limit is %d", len(s.Properties), MaxQuestions)
	}
	seen := map[string]bool{}
	for i, p := range s.Properties {
		pp := path + ".properties." + p.Key
		switch {
		case p.Key == "":
			f.add(fmt.Sprintf("%s.properties[%d]", path, i), "has an empty key: every question needs a name")
			continue
		case seen[p.Key]:
			f.add(pp, "appears twice")
			continue
		case p.Schema == nil:
			f.add(pp, "has no schema")
		default:
			p.Schema.checkQuestion(f, pp, false)
		}
		seen[p.Key] = true
	}
	for _, r := range s.Required {
		if !seen[r] {
			f.add(path+".required", "%q is not a question of this form", r)
		}
	}
}

func constsOf(opts []EnumOption) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Const
	}
	return out
}

// checkChoiceValues checks a list of choice values at path; an entry's field is
// path[i]+suffix.
func checkChoiceValues(f fieldErrors, path string, values []string, suffix string) {
	switch {
	case len(values) == 0:
		f.add(path, "lists no choices")
	case len(values) > MaxChoices:
		f.add(path, "lists %d choices; the limit is %d", len(values), MaxChoices)
	}
	seen := map[string]bool{}
	for i, v := range values {
		field := fmt.Sprintf("%s[%d]%s", path, i, suffix)
		switch {
		case v == "":
			f.add(field, "is empty: every choice needs a value")
		case seen[v]:
			f.add(field, "%q is listed twice: choice values must differ", v)
		}
		seen[v] = true
	}
}

// ValidateContent checks an answer against the schema. Problems are keyed by question: the
// property key for a form, "content" for a single question, and "content" for what is wrong
// with the whole (too large, not JSON, not an object).
//
// Blank text ("" or spaces) counts as no answer: a required question reports "is required",
// an optional one takes it as unanswered, and so does null.
func (s *Schema) ValidateContent(content json.RawMessage) error {
	f := fieldErrors{}
	s.validateContent(f, content)
	return f.err()
}

func (s *Schema) validateContent(f fieldErrors, content json.RawMessage) {
	switch {
	case len(content) > MaxContentBytes:
		kb, limit := strconv.Itoa((len(content)+1023)/1024), strconv.Itoa(MaxContentBytes/1024)
		f.say("content", "too_large", tooLarge(len(content), MaxContentBytes), kb, limit)
		return
	case s == nil:
		f.add("content", "there is no question to answer")
		return
	case isJSONNull(content):
		if s.Type == typeObject {
			f.add("content", "is required: answer with an object keyed by question")
		} else {
			f.say("content", "required", "is required")
		}
		return
	case !json.Valid(content):
		f.say("content", "not_json", "is not valid JSON")
		return
	case s.Type != typeObject:
		if msg := s.checkAnswer(content, true); msg != "" {
			f.add("content", "%s", msg)
		}
		return
	}

	entries, err := objectEntries(content)
	if err != nil {
		f.add("content", "must be an object keyed by question")
		return
	}
	questions := map[string]Question{}
	for _, q := range s.Questions() {
		if _, dup := questions[q.Key]; !dup {
			questions[q.Key] = q
		}
	}
	answered := map[string]bool{}
	for _, e := range entries {
		if answered[e.key] {
			f.say(e.key, "answered_twice", "is answered twice")
			continue
		}
		answered[e.key] = true
		q, ok := questions[e.key]
		if !ok {
			f.say(e.key, "not_a_question", "is not a question of this form")
			continue
		}
		if msg := q.Schema.checkAnswer(e.value, q.Required); msg != "" {
			f.add(e.key, "%s", msg)
		}
	}
	for _, q := range s.Questions() {
		if q.Required && !answered[q.Key] {
			f.say(q.Key, "required", "is required")
		}
	}
}

// checkAnswer checks the answer to one question and says what is wrong with it, or "".
// raw is valid JSON.
func (s *Schema) checkAnswer(raw json.RawMessage, required bool) string {
	raw = bytes.TrimSpace(raw)
	if isJSONNull(raw) {
		if required {
			return "is required"
		}
		return ""
	}
	if s == nil {
		return "cannot be answered: the question has no schema"
	}
	switch {
	case s.IsSingleSelect():
		return s.checkChoice(raw, required)
	case s.Type == typeString:
		return s.checkText(raw, required)
	case s.Type == typeNumber || s.Type == typeInteger:
		return s.checkNumber(raw)
	case s.Type == typeBoolean:
		if string(raw) != "true" && string(raw) != "false" {
			return "must be true or false"
		}
		return ""
	case s.Type == typeArray:
		return s.checkPicks(raw)
	case s.Type == typeObject:
		return "cannot be answered: a form inside a form is not supported"
	}
	return fmt.Sprintf("cannot be answered: the question's type %q is unknown", s.Type)
}

func (s *Schema) checkText(raw json.RawMessage, required bool) string {
	var v string
	if raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
		return "must be text"
	}
	if strings.TrimSpace(v) == "" {
		if required {
			return "is required"
		}
		return ""
	}
	n := utf8.RuneCountInString(v)
	if s.MinLength != nil && n < *s.MinLength {
		return "must be at least " + plural(*s.MinLength, "character")
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		return "must be at most " + plural(*s.MaxLength, "character")
	}
	return checkFormat(s.Format, v)
}

func checkFormat(format, v string) string {
	switch format {
	case formatEmail:
		if !isEmail(v) {
			return "must be an email address like name@example.com"
		}
	case formatURI:
		if !isURI(v) {
			return "must be a link like https://example.com/page"
		}
	case formatDate:
		// time.Parse reads no clock; it checks the day exists in its month.
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			return "must be a date like 2026-11-30"
		}
	case formatDateTime:
		// Go's RFC 3339 parser, so that whoever reads the answer in Go can parse it too.
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			return "must be a date and time like 2026-11-30T14:00:00Z"
		}
	}
	return ""
}

// isEmail is a shape check, not RFC 5322: one @ between a local part and a dotted domain,
// no spaces. It catches what people mistype; deliverability is for the one who sends.
func isEmail(v string) bool {
	local, domain, ok := strings.Cut(v, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") {
		return false
	}
	if strings.ContainsFunc(v, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return false
	}
	return strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") &&
		!strings.HasSuffix(domain, ".") && !strings.Contains(domain, "..")
}

// isURI checks an absolute URI's shape per RFC 3986: a scheme (a letter, then letters,
// digits, '+', '-', '.'), a colon and a non-empty rest without characters a URI cannot hold.
// Non-ASCII is let through, as in an IRI. http and https also need a host.
func isURI(v string) bool {
	scheme, rest, ok := strings.Cut(v, ":")
	if !ok || scheme == "" || rest == "" {
		return false
	}
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	for _, r := range rest {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`"<>\^`+"`"+`{|}`, r) || unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	if strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") {
		authority, ok := strings.CutPrefix(rest, "//")
		host, _, _ := strings.Cut(authority, "/")
		host, _, _ = strings.Cut(host, "?")
		host, _, _ = strings.Cut(host, "#")
		return ok && host != ""
	}
	return true
}

func (s *Schema) checkNumber(raw json.RawMessage) string {
	integer := s.Type == typeInteger
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		if integer {
			return "must be a whole number"
		}
		return "must be a number"
	}
	var x float64
	if integer {
		// The literal must be an integer, not 1.0 or 1e2: a Go reader decoding into an int
		// refuses those.
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return "must be a whole number"
		}
		if err != nil || n > MaxSafeInteger || n < -MaxSafeInteger {
			return fmt.Sprintf("must be between %d and %d", -MaxSafeInteger, MaxSafeInteger)
		}
		x = float64(n)
	} else {
		v, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return "is too large a number"
		}
		x = v
	}
	if s.Minimum != nil && x < *s.Minimum {
		return "must be at least " + formatNumber(*s.Minimum)
	}
	if s.Maximum != nil && x > *s.Maximum {
		return "must be at most " + formatNumber(*s.Maximum)
	}
	return ""
}

func (s *Schema) checkChoice(raw json.RawMessage, required bool) string {
	choices := s.Choices()
	open := s.allowsOther()
	oneOf := "must be one of: " + choiceList(choices)
	if open {
		oneOf += ", or your own text"
	}
	var v string
	if raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
		return oneOf
	}
	if slices.ContainsFunc(choices, func(c Choice) bool { return c.Value == v }) {
		return ""
	}
	if strings.TrimSpace(v) == "" {
		if required {
			return "is required"
		}
		return ""
	}
	if !open {
		return oneOf
	}
	if utf8.RuneCountInString(v) > MaxOtherChars {
		return "must be at most " + plural(MaxOtherChars, "character")
	}
	return ""
}

func (s *Schema) checkPicks(raw json.RawMessage) string {
	choices := s.Choices()
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return "must be a list of choices"
	}
	picked := map[string]bool{}
	for _, item := range items {
		var v string
		if len(item) == 0 || item[0] != '"' || json.Unmarshal(item, &v) != nil {
			return "must be a list of choices from: " + choiceList(choices)
		}
		if !slices.ContainsFunc(choices, func(c Choice) bool { return c.Value == v }) {
			return fmt.Sprintf("%q is not one of: %s", v, choiceList(choices))
		}
		if picked[v] {
			return fmt.Sprintf("picks %q twice", v)
		}
		picked[v] = true
	}
	if s.MinItems != nil && len(items) < *s.MinItems {
		return fmt.Sprintf("pick at least %d", *s.MinItems)
	}
	if s.MaxItems != nil && len(items) > *s.MaxItems {
		return fmt.Sprintf("pick at most %d", *s.MaxItems)
	}
	return ""
}

// choiceList names the choices' values for a message, the first few of a long list.
func choiceList(cs []Choice) string {
	const shown = 10
	vals := make([]string, 0, min(len(cs), shown))
	for _, c := range cs[:min(len(cs), shown)] {
		vals = append(vals, c.Value)
	}
	out := strings.Join(vals, ", ")
	if len(cs) > shown {
		out += fmt.Sprintf(", … (%d in all)", len(cs))
	}
	return out
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// formatNumber writes a bound the way a person wrote it: 3, not 3e+00.
func formatNumber(x float64) string {
	if math.Abs(x) < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// text checks a field of free text: valid UTF-8, at most limit bytes. It reports whether
// the text passed.
func (f fieldErrors) text(field, s string, limit int) bool {
	switch {
	case len(s) > limit:
		f.add(field, "%s", tooLarge(len(s), limit))
	case !utf8.ValidString(s):
		f.add(field, "is not valid UTF-8")
	default:
		return true
	}
	return false
}

func tooLarge(n, limit int) string {
	return fmt.Sprintf("is %d KiB; the limit is %d KiB", (n+1023)/1024, limit/1024)
}

type objectEntry struct {
	key   string
	value json.RawMessage
}

// objectEntries reads a JSON object's members in order, repeats included, so that a key
// given twice can be refused rather than silently resolved to its last value.
func objectEntries(data []byte) ([]objectEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []objectEntry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("not an object")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, objectEntry{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// DefaultContent is the answer a form starts with, seeded from its defaults: for an object
// schema, an object of the questions that have a default, in order; for a single question,
// its default. It is nil when there is no default.
func DefaultContent(s *Schema) json.RawMessage {
	if s == nil {
		return nil
	}
	if s.Type != typeObject {
		return compactJSON(s.Default)
	}
	var b bytes.Buffer
	seen := map[string]bool{}
	for _, p := range s.Properties {
		if p.Schema == nil || seen[p.Key] {
			continue
		}
		d := compactJSON(p.Schema.Default)
		if d == nil {
			continue
		}
		seen[p.Key] = true
		key, _ := json.Marshal(p.Key)
		if b.Len() == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(d)
	}
	if b.Len() == 0 {
		return nil
	}
	b.WriteByte('}')
	return b.Bytes()
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	if isJSONNull(raw) {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return nil
	}
	return b.Bytes()
}

// Validate checks that a decision request is well formed before it is asked: its kind, the
// schema of an ask or confirm, the options of an approval, and the sizes of its texts.
func (r DecisionRequest) Validate() error {
	f := fieldErrors{}
	switch r.Kind {
	case KindAsk:
		if r.Schema == nil {
			f.add("schema", "is missing: an ask needs a schema to shape its answer")
		} else {
			r.Schema.check(f, "schema")
		}
	case KindConfirm:
		if r.Schema != nil {
			if r.Schema.Type != typeBoolean {
				f.add("schema.type", "must be boolean: a confirm is answered yes or no")
			} else {
				r.Schema.check(f, "schema")
			}
		}
	case KindApproval:
		if r.Schema != nil {
			f.add("schema", "must be left out: an approval is answered by picking one of its options")
		}
		r.checkOptions(f)
	case "":
		f.add("kind", "is missing: use %q, %q or %q", KindAsk, KindConfirm, KindApproval)
	default:
		f.add("kind", "unknown kind %q: use %q, %q or %q", r.Kind, KindAsk, KindConfirm, KindApproval)
	}
	if r.Kind == KindAsk || r.Kind == KindConfirm {
		// They would be ignored: only an approval is answered by option.
		if r.Options != nil {
			f.add("options", "only an approval has options")
		}
		if r.Items != nil {
			f.add("items", "only an approval holds tool requests")
		}
	}

	if f.text("message", r.Message, MaxMessageBytes) && strings.TrimSpace(r.Message) == "" && !r.Schema.titledForm() {
		f.add("message", "is empty: say what you are asking, or give every question of a form a title")
	}
	f.text("details", r.Details, MaxDetailsBytes)
	for i, it := range r.Items {
		p := fmt.Sprintf("items[%d]", i)
		if strings.TrimSpace(it.Tool) == "" {
			f.add(p+".tool", "is empty: name the tool that asks")
		}
		if len(it.Details) > MaxDetailsBytes {
			f.add(p+".details", "%s", tooLarge(len(it.Details), MaxDetailsBytes))
		}
	}
	switch {
	case r.TimeoutMs < 0:
		f.add("timeoutMs", "must not be negative (0 picks the server's default)")
	case r.TimeoutMs > MaxTimeoutMs:
		f.add("timeoutMs", "must be at most %d (24 hours)", MaxTimeoutMs)
	}
	return f.err()
}

// titledForm reports whether the schema is a form whose every question carries its own
// title, which is what lets a request leave its message empty.
func (s *Schema) titledForm() bool {
	if s == nil || s.Type != typeObject || len(s.Properties) == 0 {
		return false
	}
	for _, p := range s.Properties {
		if p.Schema == nil || strings.TrimSpace(p.Schema.Title) == "" {
			return false
		}
	}
	return true
}

func (r DecisionRequest) checkOptions(f fieldErrors) {
	switch {
	case len(r.Options) == 0:
		f.add("options", "is empty: an approval needs at least one option to pick")
	case len(r.Options) > MaxOptions:
		f.add("options", "lists %d options; the limit is %d", len(r.Options), MaxOptions)
	}
	for i, o := range r.Options {
		p := fmt.Sprintf("options[%d]", i)
		if strings.TrimSpace(o.Value) == "" {
			f.add(p+".value", "is empty: it is what the asker receives")
		}
		if strings.TrimSpace(o.Label) == "" {
			f.add(p+".label", "is empty: it is the button's text")
		}
		switch o.Tone {
		case "", ToneAffirm, ToneDeny, ToneNeutral:
		default:
			f.add(p+".tone", "unknown tone %q: use %q, %q or %q", o.Tone, ToneAffirm, ToneDeny, ToneNeutral)
		}
		if o.Grant != nil {
			o.Grant.check(f, p+".grant")
		}
	}
}

func (g *GrantScope) check(f fieldErrors, path string) {
	if strings.TrimSpace(g.Tool) == "" {
		f.add(path+".tool", "is empty: a grant names the tool it lets through")
	}
	switch g.Kind {
	case GrantExact:
		if len(g.Words) == 0 {
			f.add(path+".words", "is empty: an exact grant needs the command's words")
		}
	case GrantPrefix:
		if len(g.Words) == 0 {
			f.add(path+".words", "is empty: a prefix grant needs the command's first words")
		}
	case GrantTool:
		if len(g.Words) > 0 {
			f.add(path+".words", "must be empty: a tool grant covers every request of the tool")
		}
	case "":
		f.add(path+".kind", "is missing: use %q, %q or %q", GrantExact, GrantPrefix, GrantTool)
	default:
		f.add(path+".kind", "unknown kind %q: use %q, %q or %q", g.Kind, GrantExact, GrantPrefix, GrantTool)
	}
}

// Validate checks a reply's shape: its action, and that content comes with an accept and
// only with it. Whether the content answers the question is ValidateReply's to say.
func (r ReplyRequest) Validate() error {
	f := fieldErrors{}
	switch r.Action {
	case ActionAccept:
		switch {
		case isJSONNull(r.Content):
			f.add("content", "is missing: an accept carries the answer")
		case len(r.Content) > MaxContentBytes:
			f.add("content", "%s", tooLarge(len(r.Content), MaxContentBytes))
		case !json.Valid(r.Content):
			f.add("content", "is not valid JSON")
		}
	case ActionDecline:
		if !isJSONNull(r.Content) {
			f.add("content", "must be left out: a decline carries no answer")
		}
	case "":
		f.add("action", "is missing: use %q with content, or %q", ActionAccept, ActionDecline)
	default:
		f.add("action", "unknown action %q: use %q with content, or %q", r.Action, ActionAccept, ActionDecline)
	}
	switch {
	case len(r.Reason) > MaxReasonBytes:
		f.add("reason", "is %d bytes; the limit is %d KiB", len(r.Reason), MaxReasonBytes/1024)
	case !utf8.ValidString(r.Reason):
		f.add("reason", "is not valid UTF-8")
	}
	return f.err()
}

// confirmSchema is the question a confirm without a schema asks.
var confirmSchema = Schema{Type: typeBoolean}

// ValidateReply checks a reply against the decision it answers: its shape, then for an
// accept the content. An ask's content is checked against its schema, a confirm's must be
// true or false, and an approval's must be an ApprovalAnswer that picks one of its options
// by index or carries an instruction, not both.
func ValidateReply(req DecisionRequest, reply ReplyRequest) error {
	if err := reply.Validate(); err != nil {
		return err
	}
	if reply.Action != ActionAccept {
		return nil
	}
	switch req.Kind {
	case KindAsk:
		return req.Schema.ValidateContent(reply.Content)
	case KindConfirm:
		s := req.Schema
		if s == nil || s.Type != typeBoolean {
			s = &confirmSchema
		}
		return s.ValidateContent(reply.Content)
	case KindApproval:
		return validateApprovalAnswer(req, reply.Content)
	}
	return &ValidationError{Fields: map[string]string{"kind": fmt.Sprintf("the question's kind %q is unknown", req.Kind)}}
}

// validateApprovalAnswer reads content as an ApprovalAnswer. Keys must match exactly: Go's
// decoder would also take "Option", and then two readers could disagree on the pick.
func validateApprovalAnswer(req DecisionRequest, content json.RawMessage) error {
	f := fieldErrors{}
	entries, err := objectEntries(content)
	if err != nil {
		f.add("content", `must be an object: {"option": 0} picks the first option, {"instruction": "…"} says what to do instead`)
		return f.err()
	}
	var a ApprovalAnswer
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.key] {
			f.add("content", "gives %q twice", e.key)
			continue
		}
		seen[e.key] = true
		switch e.key {
		case "option":
			if isJSONNull(e.value) {
				continue
			}
			var n int
			if json.Unmarshal(e.value, &n) != nil {
				f.add("option", "must be the index of an option: %s", indexRange(len(req.Options)))
				continue
			}
			a.Option = &n
		case "instruction":
			if isJSONNull(e.value) {
				continue
			}
			if bytes.TrimSpace(e.value)[0] != '"' || json.Unmarshal(e.value, &a.Instruction) != nil {
				f.add("instruction", "must be text")
			}
		case "items":
			if isJSONNull(e.value) {
				continue
			}
			if json.Unmarshal(e.value, &a.Items) != nil {
				f.add("items", `must be a list with one "allow" or "deny" per request`)
			}
		default:
			f.add("content", "has an unknown field %q: answer with \"option\", \"instruction\" or \"items\"", e.key)
		}
	}
	if len(f) > 0 {
		return f.err()
	}
	if a.Items != nil {
		switch {
		case a.Option != nil:
			f.add("content", "answer per request (items) or pick an option, not both")
		case len(a.Instruction) > MaxReasonBytes:
			f.add("instruction", "is %d bytes; the limit is %d KiB", len(a.Instruction), MaxReasonBytes/1024)
		case strings.TrimSpace(a.Instruction) != "" && !slices.Contains(a.Items, OptionDeny):
			// With items, an instruction is the reason of the requests they reject.
			f.add("instruction", `says why requests are rejected, and no answer is "deny"`)
		case len(req.Items) == 0:
			f.add("items", "this approval is not a batch: pick an option")
		case len(a.Items) != len(req.Items):
			f.add("items", "has %d answers for %d requests: give one \"allow\" or \"deny\" per request", len(a.Items), len(req.Items))
		default:
			for i, v := range a.Items {
				if v != OptionAllow && v != OptionDeny {
					f.add("items", "answer %d is %q: each answer is \"allow\" or \"deny\"", i, v)
					break
				}
			}
		}
		return f.err()
	}
	switch {
	case a.Option != nil && a.Instruction != "":
		f.add("content", "pick an option or write an instruction, not both")
	case a.Option == nil && strings.TrimSpace(a.Instruction) == "":
		f.add("content", "is empty: pick an option or write an instruction")
	case a.Option != nil && (*a.Option < 0 || *a.Option >= len(req.Options)):
		f.add("option", "is %d, not the index of an option: %s", *a.Option, indexRange(len(req.Options)))
	case len(a.Instruction) > MaxReasonBytes:
		f.add("instruction", "is %d bytes; the limit is %d KiB", len(a.Instruction), MaxReasonBytes/1024)
	}
	return f.err()
}

func indexRange(n int) string {
	if n == 0 {
		return "the question has no options"
	}
	return fmt.Sprintf("a whole number from 0 to %d", n-1)
}

// Picked returns the option the answer picked, if it picked one of req's options.
func (a ApprovalAnswer) Picked(req DecisionRequest) (ApprovalOption, bool) {
	if a.Option == nil || *a.Option < 0 || *a.Option >= len(req.Options) {
		return ApprovalOption{}, false
	}
	return req.Options[*a.Option], true
}

// Validate checks a function run's shape: the session it runs in, and that its arguments are
// an object. Whether they fit the function's parameters is the caller's to check, with
// Params.ValidateContent.
func (r RunFunctionRequest) Validate() error {
	f := fieldErrors{}
	if r.Session != "" && !ValidSessionID(r.Session) {
		f.add("session", "is not a session id: use up to 64 letters, digits, '-' and '_'")
	}
	switch {
	case len(r.Args) > MaxContentBytes:
		f.add("args", "%s", tooLarge(len(r.Args), MaxContentBytes))
	case isJSONNull(r.Args):
	case !json.Valid(r.Args):
		f.add("args", "is not valid JSON")
	case bytes.TrimSpace(r.Args)[0] != '{':
		f.add("args", "must be an object of the function's parameters")
	}
	return f.err()
}
