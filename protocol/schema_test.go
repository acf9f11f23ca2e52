package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pointerTo is &v for a literal.
func pointerTo[T any](v T) *T { return &v }

// parseSchema reads a schema written as JSON, the way askers write them.
func parseSchema(t testing.TB, data string) *Schema {
	t.Helper()
	var s Schema
	require.NoError(t, json.Unmarshal([]byte(data), &s), data)
	return &s
}

// assertFields checks that err is a ValidationError with exactly the fields of want, each
// message containing its part; a nil want means no error.
func assertFields(t *testing.T, err error, want map[string]string) {
	t.Helper()
	if want == nil {
		assert.NoError(t, err)
		return
	}
	var verr *ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Len(t, verr.Fields, len(want), "fields: %v", verr.Fields)
	for field, part := range want {
		if assert.Contains(t, verr.Fields, field, "fields: %v", verr.Fields) {
			assert.Contains(t, verr.Fields[field], part, field)
		}
	}
}

func TestSchemaQuestions(t *testing.T) {
	form := parseSchema(t, `{"type":"object","properties":{
		"zeta":{"type":"string"},"alpha":{"type":"boolean"},"mid":{"type":"number"}},
		"required":["alpha"]}`)
	qs := form.Questions()
	require.Len(t, qs, 3)
	var keys []string
	for _, q := range qs {
		keys = append(keys, q.Key)
	}
	assert.Equal(t, []string{"zeta", "alpha", "mid"}, keys, "the order they were written in")
	assert.Equal(t, []bool{false, true, false}, []bool{qs[0].Required, qs[1].Required, qs[2].Required})
	assert.Equal(t, "boolean", qs[1].Schema.Type)

	one := parseSchema(t, `{"type":"string"}`)
	assert.Equal(t, []Question{{Key: "", Schema: one, Required: true}}, one.Questions())

	var none *Schema
	assert.Nil(t, none.Questions())
}

func TestSchemaChoices(t *testing.T) {
	cases := []struct {
		name          string
		schema        string
		single, multi bool
		want          []Choice
	}{
		{"enum with names", `{"type":"string","enum":["s","p"],"enumNames":["Staging",""]}`, true, false,
			[]Choice{{Value: "s", Label: "Staging"}, {Value: "p", Label: "p"}}},
		{"plain enum", `{"type":"string","enum":["a"]}`, true, false, []Choice{{Value: "a", Label: "a"}}},
		{"oneOf", `{"type":"string","oneOf":[{"const":"s","title":"Staging","recommended":true},{"const":"p","description":"Live traffic"}]}`, true, false,
			[]Choice{{Value: "s", Label: "Staging", Recommended: true}, {Value: "p", Label: "p", Description: "Live traffic"}}},
		{"items enum", `{"type":"array","items":{"type":"string","enum":["x","y"]}}`, false, true,
			[]Choice{{Value: "x", Label: "x"}, {Value: "y", Label: "y"}}},
		{"items anyOf", `{"type":"array","items":{"anyOf":[{"const":"x","title":"Ex"}]}}`, false, true,
			[]Choice{{Value: "x", Label: "Ex"}}},
		{"array without choices", `{"type":"array","items":{}}`, false, true, nil},
		{"text", `{"type":"string"}`, false, false, nil},
		{"enum on a number", `{"type":"number","enum":["1"]}`, false, false, nil},
		{"array without items", `{"type":"array"}`, false, false, nil},
		{"form", `{"type":"object","properties":{"a":{"type":"string","enum":["a"]}}}`, false, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := parseSchema(t, c.schema)
			assert.Equal(t, c.single, s.IsSingleSelect(), "single")
			assert.Equal(t, c.multi, s.IsMultiSelect(), "multi")
			assert.Equal(t, c.want, s.Choices())
		})
	}
	var none *Schema
	assert.False(t, none.IsSingleSelect())
	assert.False(t, none.IsMultiSelect())
	assert.Nil(t, none.Choices())
}

func TestValidateContentOneQuestion(t *testing.T) {
	const (
		text     = `{"type":"string"}`
		short    = `{"type":"string","minLength":3,"maxLength":5}`
		email    = `{"type":"string","format":"email"}`
		uri      = `{"type":"string","format":"uri"}`
		date     = `{"type":"string","format":"date"}`
		dateTime = `{"type":"string","format":"date-time"}`
		number   = `{"type":"number","minimum":1,"maximum":2.5}`
		integer  = `{"type":"integer","minimum":-3}`
		boolean  = `{"type":"boolean"}`
		closed   = `{"type":"string","enum":["staging","prod"],"allowOther":false}`
		open     = `{"type":"string","enum":["staging","prod"]}`
		openTrue = `{"type":"string","oneOf":[{"const":"staging"},{"const":"prod"}],"allowOther":true}`
		titled   = `{"type":"string","oneOf":[{"const":"s","title":"Staging"},{"const":"p"}],"allowOther":false}`
		multi    = `{"type":"array","items":{"enum":["a","b","c"]},"minItems":1,"maxItems":2,"allowOther":true}`
		anyOf    = `{"type":"array","items":{"type":"string","anyOf":[{"const":"x"},{"const":"y"}]}}`
	)
	long := `"` + strings.Repeat("é", MaxOtherChars+1) + `"`
	cases := []struct {
		schema, content string
		want            string // part of the message on "content"; "" for a valid answer
	}{
		{text, `"hi"`, ""},
		{text, `"  hi  "`, ""},
		{text, `3`, "must be text"},
		{text, `["hi"]`, "must be text"},
		{text, `""`, "is required"},
		{text, `" \n"`, "is required"},
		{text, `null`, "is required"},
		{text, ``, "is required"},
		{text, `"hi`, "is not valid JSON"},
		{text, `"a" "b"`, "is not valid JSON"},

		{short, `"abc"`, ""},
		{short, `"ééé"`, ""}, // three characters, six bytes
		{short, `"ab"`, "must be at least 3 characters"},
		{short, `"abcdef"`, "must be at most 5 characters"},
		{short, `"日本語です"`, ""},
		{short, `"日本語ですね"`, "must be at most 5 characters"},

		{email, `"name@example.com"`, ""},
		{email, `"first.last+tag@sub.example.org"`, ""},
		{email, `"name"`, "must be an email address like name@example.com"},
		{email, `"name@example"`, "email address"},
		{email, `"@example.com"`, "email address"},
		{email, `"name@"`, "email address"},
		{email, `"a@b@c.com"`, "email address"},
		{email, `"a b@c.com"`, "email address"},
		{email, `"a@c.com "`, "email address"},
		{email, `"a@c .com"`, "email address"},
		{email, `"a@.com"`, "email address"},
		{email, `"a@c.com."`, "email address"},
		{email, `"a@c..com"`, "email address"},

		{uri, `"https://example.com/page"`, ""},
		{uri, `"https://x/y"`, ""},
		{uri, `"mailto:a@b"`, ""},
		{uri, `"urn:isbn:0451450523"`, ""},
		{uri, `"git+ssh://host/repo.git"`, ""},
		{uri, `"https://例え.jp/パス"`, ""},
		{uri, `"example.com"`, "must be a link like https://example.com/page"},
		{uri, `"https:"`, "must be a link"},
		{uri, `"://x"`, "must be a link"},
		{uri, `"1http://x"`, "must be a link"},
		{uri, `"ht_tp://x"`, "must be a link"},
		{uri, `"http://"`, "must be a link"},
		{uri, `"https:///path"`, "must be a link"},
		{uri, `"https:example.com"`, "must be a link"},
		{uri, `"https://a b"`, "must be a link"},
		{uri, `"C:\\path"`, "must be a link"},
		{uri, `"https://x/<y>"`, "must be a link"},

		{date, `"2026-11-30"`, ""},
		{date, `"2024-02-29"`, ""},
		{date, `"2025-02-29"`, "must be a date like 2026-11-30"},
		{date, `"2026-04-31"`, "must be a date like"},
		{date, `"2026-13-01"`, "must be a date like"},
		{date, `"2026-1-05"`, "must be a date like"},
		{date, `"30/11/2026"`, "must be a date like"},
		{date, `"2026-11-30T10:00:00Z"`, "must be a date like"},

		{dateTime, `"2026-11-30T14:00:00Z"`, ""},
		{dateTime, `"2026-11-30T14:00:00.25+02:00"`, ""},
		{dateTime, `"2026-11-30 14:00:00Z"`, "must be a date and time like 2026-11-30T14:00:00Z"},
		{dateTime, `"2026-11-30"`, "must be a date and time"},
		{dateTime, `"2026-11-30T25:00:00Z"`, "must be a date and time"},
		{dateTime, `"2026-11-30T14:00:00"`, "must be a date and time"},

		{number, `1`, ""},
		{number, `2.5`, ""},
		{number, `1.25e0`, ""},
		{number, `0.5`, "must be at least 1"},
		{number, `2.6`, "must be at most 2.5"},
		{number, `"2"`, "must be a number"},
		{number, `true`, "must be a number"},
		{number, `1e400`, "too large"},

		{integer, `3`, ""},
		{integer, `-3`, ""},
		{integer, `-4`, "must be at least -3"},
		{integer, `9007199254740991`, ""},
		{integer, `3.5`, "must be a whole number"},
		{integer, `3.0`, "must be a whole number"},
		{integer, `3e2`, "must be a whole number"},
		{integer, `"3"`, "must be a whole number"},
		{integer, `9007199254740992`, "must be between -9007199254740991 and 9007199254740991"},
		{integer, `123456789012345678901234567890`, "must be between"},

		{boolean, `true`, ""},
		{boolean, `false`, ""},
		{boolean, `"true"`, "must be true or false"},
		{boolean, `1`, "must be true or false"},

		{closed, `"prod"`, ""},
		{closed, `"dev"`, "must be one of: staging, prod"},
		{closed, `3`, "must be one of: staging, prod"},
		{closed, `""`, "is required"},
		{titled, `"s"`, ""},
		{titled, `"Staging"`, "must be one of: s, p"},

		{open, `"prod"`, ""},
		{open, `"dev, the one on the left"`, ""},
		{open, `" "`, "is required"},
		{open, `3`, "must be one of: staging, prod, or your own text"},
		{open, `"` + strings.Repeat("é", MaxOtherChars) + `"`, ""},
		{open, long, "must be at most 1000 characters"},
		{openTrue, `"dev"`, ""},

		{multi, `["a"]`, ""},
		{multi, `["c","a"]`, ""},
		{multi, `"a"`, "must be a list of choices"},
		{multi, `{"a":true}`, "must be a list of choices"},
		{multi, `[]`, "pick at least 1"},
		{multi, `["a","b","c"]`, "pick at most 2"},
		{multi, `["a","a"]`, `picks "a" twice`},
		{multi, `["z"]`, `"z" is not one of: a, b, c`}, // allowOther does not open a multi-select
		{multi, `[1]`, "must be a list of choices from: a, b, c"},
		{multi, `[null]`, "must be a list of choices from"},
		{anyOf, `[]`, ""},
		{anyOf, `["y","x"]`, ""},
		{anyOf, `["a"]`, `"a" is not one of: x, y`},
	}
	for _, c := range cases {
		t.Run(c.schema+" "+c.content, func(t *testing.T) {
			err := parseSchema(t, c.schema).ValidateContent(json.RawMessage(c.content))
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			assertFields(t, err, map[string]string{"content": c.want})
		})
	}
}

func TestValidateContentMessagesExactly(t *testing.T) {
	s := &Schema{Type: "string", MinLength: pointerTo(1), MaxLength: pointerTo(1)}
	assert.NoError(t, s.ValidateContent(json.RawMessage(`"x"`)))
	assert.EqualError(t, s.ValidateContent(json.RawMessage(`"xy"`)), "invalid request: content: must be at most 1 character")

	big := json.RawMessage(`"` + strings.Repeat("x", MaxContentBytes) + `"`)
	assertFields(t, (&Schema{Type: "string"}).ValidateContent(big), map[string]string{"content": "the limit is 64 KiB"})

	var none *Schema
	assertFields(t, none.ValidateContent(json.RawMessage(`"x"`)), map[string]string{"content": "no question"})

	many := &Schema{Type: "string", AllowOther: pointerTo(false)}
	for i := range 12 {
		many.Enum = append(many.Enum, fmt.Sprintf("c%d", i))
	}
	assertFields(t, many.ValidateContent(json.RawMessage(`"x"`)), map[string]string{"content": "c9, … (12 in all)"})
}

// TestValidateContentUncheckedSchema: a schema that fails Check still gets an answer that
// says why, not a panic.
func TestValidateContentUncheckedSchema(t *testing.T) {
	cases := []struct{ schema, content, field, want string }{
		{`{"type":"date"}`, `"x"`, "content", `the question's type "date" is unknown`},
		{`{"type":"object","properties":{"a":{"type":"object"}}}`, `{"a":{}}`, "a", "a form inside a form"},
		{`{"type":"array","items":{}}`, `["a"]`, "content", `"a" is not one of: `},
	}
	for _, c := range cases {
		err := parseSchema(t, c.schema).ValidateContent(json.RawMessage(c.content))
		assertFields(t, err, map[string]string{c.field: c.want})
	}
	nilQuestion := &Schema{Type: "object", Properties: Properties{{Key: "a"}}}
	assertFields(t, nilQuestion.ValidateContent(json.RawMessage(`{"a":1}`)), map[string]string{"a": "has no schema"})
}

func TestValidateContentForm(t *testing.T) {
	form := parseSchema(t, `{"type":"object","properties":{
		"name":{"type":"string","title":"Name","minLength":2},
		"env":{"type":"string","enum":["staging","prod"],"allowOther":false},
		"tags":{"type":"array","items":{"enum":["a","b"]}},
		"count":{"type":"integer","maximum":10},
		"note":{"type":"string","format":"email"}
	},"required":["name","env"]}`)
	cases := []struct {
		name, content string
		want          map[string]string
	}{
		{"required only", `{"name":"Ada","env":"prod"}`, nil},
		{"everything", `{"name":"Ada","env":"prod","tags":["b"],"count":10,"note":"a@b.co"}`, nil},
		{"any order, spaced", ` { "env" : "staging" , "name" : "Ada" } `, nil},
		{"optional null counts as absent", `{"name":"Ada","env":"prod","tags":null,"count":null}`, nil},
		{"optional blank counts as absent", `{"name":"Ada","env":"prod","note":""}`, nil},
		{"missing required", `{"tags":["a"]}`, map[string]string{"name": "is required", "env": "is required"}},
		{"empty object", `{}`, map[string]string{"name": "is required", "env": "is required"}},
		{"required null", `{"name":null,"env":"prod"}`, map[string]string{"name": "is required"}},
		{"required blank", `{"name":"  ","env":"prod"}`, map[string]string{"name": "is required"}},
		{"unknown key", `{"name":"Ada","env":"prod","Name":"x"}`, map[string]string{"Name": "is not a question of this form"}},
		{"answered twice", `{"name":"Ada","env":"prod","name":"Bob"}`, map[string]string{"name": "is answered twice"}},
		{"wrong answers", `{"name":"A","env":"dev","tags":"a","count":11,"note":"nope"}`, map[string]string{
			"name":  "must be at least 2 characters",
			"env":   "must be one of: staging, prod",
			"tags":  "must be a list of choices",
			"count": "must be at most 10",
			"note":  "must be an email address",
		}},
		{"wrong types", `{"name":1,"env":"prod","count":"3"}`, map[string]string{"name": "must be text", "count": "must be a whole number"}},
		{"not an object", `["Ada","prod"]`, map[string]string{"content": "must be an object keyed by question"}},
		{"a string", `"Ada"`, map[string]string{"content": "must be an object"}},
		{"null", `null`, map[string]string{"content": "is required: answer with an object"}},
		{"not JSON", `{"name":"Ada",}`, map[string]string{"content": "is not valid JSON"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertFields(t, form.ValidateContent(json.RawMessage(c.content)), c.want)
		})
	}
}

func TestSchemaCheck(t *testing.T) {
	thirtyThree := `{"type":"object","properties":{`
	for i := range MaxQuestions + 1 {
		if i > 0 {
			thirtyThree += ","
		}
		thirtyThree += fmt.Sprintf(`"q%d":{"type":"boolean"}`, i)
	}
	thirtyThree += `}}`
	manyChoices, _ := json.Marshal(map[string]any{"type": "string", "enum": func() []string {
		var out []string
		for i := range MaxChoices + 1 {
			out = append(out, fmt.Sprint(i))
		}
		return out
	}()})

	cases := []struct {
		name, schema string
		want         map[string]string
	}{
		{"text", `{"type":"string","title":"Name","minLength":1,"maxLength":80,"multiline":true,"placeholder":"Ada"}`, nil},
		{"number", `{"type":"number","minimum":-1.5,"maximum":-1.5}`, nil},
		{"integer", `{"type":"integer","minimum":0}`, nil},
		{"boolean", `{"type":"boolean","trueLabel":"Delete it","falseLabel":"Keep it","default":false}`, nil},
		{"single select", `{"type":"string","enum":["a","b"],"enumNames":["A","B"],"header":"Engine","default":"b"}`, nil},
		{"titled select", `{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"b"}],"allowOther":false}`, nil},
		{"multi select", `{"type":"array","items":{"type":"string","anyOf":[{"const":"a"},{"const":"b"}]},"minItems":2,"maxItems":2,"default":["a","b"]}`, nil},
		{"form", `{"type":"object","properties":{"a":{"type":"string","default":"x"},"b":{"type":"boolean"}},"required":["a"]}`, nil},
		{"null default", `{"type":"string","minLength":3,"default":null}`, nil},
		{"blank default of a required text", `{"type":"string","minLength":3,"default":""}`, nil},
		{"other as default", `{"type":"string","enum":["a"],"default":"z"}`, nil},

		{"no type", `{}`, map[string]string{"schema.type": "is missing: use string, number"}},
		{"unknown type", `{"type":"enum"}`, map[string]string{"schema.type": `unknown type "enum"`}},
		{"empty form", `{"type":"object","properties":{}}`, map[string]string{"schema.properties": "lists no questions"}},
		{"form without properties", `{"type":"object"}`, map[string]string{"schema.properties": "lists no questions"}},
		{"too many questions", thirtyThree, map[string]string{"schema.properties": "lists 33 questions; the limit is 32"}},
		{"nested form", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
			map[string]string{"schema.properties.a.type": "forms do not nest"}},
		{"empty key", `{"type":"object","properties":{"ok":{"type":"string"},"":{"type":"string"}}}`,
			map[string]string{"schema.properties[1]": "has an empty key"}},
		{"required names no question", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`,
			map[string]string{"schema.required": `"b" is not a question of this form`}},
		{"error inside a question", `{"type":"object","properties":{"env":{"type":"string","minLength":-1}}}`,
			map[string]string{"schema.properties.env.minLength": "must not be negative"}},
		{"bad question type", `{"type":"object","properties":{"env":{"type":"text"}}}`,
			map[string]string{"schema.properties.env.type": `unknown type "text"`}},
		{"negative max length", `{"type":"string","maxLength":-2}`, map[string]string{"schema.maxLength": "must not be negative"}},
		{"min over max length", `{"type":"string","minLength":5,"maxLength":4}`, map[string]string{"schema.maxLength": "must be at least minLength (5)"}},
		{"min over max items", `{"type":"array","items":{"enum":["a","b","c"]},"minItems":3,"maxItems":1}`, map[string]string{"schema.maxItems": "must be at least minItems (3)"}},
		{"negative min items", `{"type":"array","items":{"enum":["a"]},"minItems":-1}`, map[string]string{"schema.minItems": "must not be negative"}},
		{"more picks than choices", `{"type":"array","items":{"enum":["a","b"]},"minItems":3}`, map[string]string{"schema.minItems": "asks for 3 picks but there are only 2 choices"}},
		{"minimum over maximum", `{"type":"number","minimum":10,"maximum":2.5}`, map[string]string{"schema.maximum": "must be at least minimum (10)"}},
		{"unknown format", `{"type":"string","format":"phone"}`, map[string]string{"schema.format": `unknown format "phone"`}},
		{"format on a number", `{"type":"number","format":"date"}`, map[string]string{"schema.format": "applies only to a text or choice question"}},
		{"format on a choice", `{"type":"string","enum":["a"],"format":"email"}`, map[string]string{"schema.format": "applies to free text, not to a choice"}},
		{"length on a choice", `{"type":"string","enum":["a"],"maxLength":3}`, map[string]string{"schema.maxLength": "not to a choice"}},
		{"minimum on text", `{"type":"string","minimum":1}`, map[string]string{"schema.minimum": "applies only to a number or integer"}},
		{"items on text", `{"type":"string","items":{"enum":["a"]}}`, map[string]string{"schema.items": "applies only to a multi-select"}},
		{"enum on a boolean", `{"type":"boolean","enum":["yes"]}`, map[string]string{"schema.enum": "applies only to a text or choice question"}},
		{"properties on text", `{"type":"string","properties":{"a":{"type":"string"}},"required":["a"]}`,
			map[string]string{"schema.properties": "applies only to a form", "schema.required": "applies only to a form"}},
		{"enumNames too short", `{"type":"string","enum":["a","b"],"enumNames":["A"]}`, map[string]string{"schema.enumNames": "has 1 names for 2 enum values"}},
		{"enumNames without enum", `{"type":"string","enumNames":["A"]}`, map[string]string{"schema.enumNames": "for 0 enum values"}},
		{"empty enum", `{"type":"string","enum":[]}`, map[string]string{"schema.enum": "lists no choices"}},
		{"too many choices", string(manyChoices), map[string]string{"schema.enum": "lists 257 choices; the limit is 256"}},
		{"repeated choice", `{"type":"string","enum":["a","b","a"]}`, map[string]string{"schema.enum[2]": `"a" is listed twice`}},
		{"empty choice", `{"type":"string","enum":["a",""]}`, map[string]string{"schema.enum[1]": "is empty"}},
		{"empty const", `{"type":"string","oneOf":[{"const":"","title":"None"}]}`, map[string]string{"schema.oneOf[0].const": "is empty"}},
		{"enum and oneOf", `{"type":"string","enum":["a"],"oneOf":[{"const":"a"}]}`, map[string]string{"schema.oneOf": "use enum or oneOf, not both"}},
		{"array without items", `{"type":"array"}`, map[string]string{"schema.items": "is missing"}},
		{"items without choices", `{"type":"array","items":{"type":"string"}}`, map[string]string{"schema.items": "lists no choices"}},
		{"items of numbers", `{"type":"array","items":{"type":"number","enum":["1"]}}`, map[string]string{"schema.items.type": "must be string"}},
		{"items enum and anyOf", `{"type":"array","items":{"enum":["a"],"anyOf":[{"const":"a"}]}}`, map[string]string{"schema.items.anyOf": "not both"}},
		{"repeated item choice", `{"type":"array","items":{"anyOf":[{"const":"a"},{"const":"a"}]}}`, map[string]string{"schema.items.anyOf[1].const": "listed twice"}},
		{"empty item enum", `{"type":"array","items":{"enum":[]}}`, map[string]string{"schema.items.enum": "lists no choices"}},
		{"long header", `{"type":"string","header":"` + strings.Repeat("h", MaxHeaderBytes+1) + `"}`, map[string]string{"schema.header": "is 41 bytes; keep it to 40"}},
		{"header at the limit", `{"type":"string","header":"` + strings.Repeat("h", MaxHeaderBytes) + `"}`, nil},
		{"invalid default", `{"type":"string","minLength":3,"default":"ab"}`, map[string]string{"schema.default": "is not a valid answer: must be at least 3 characters"}},
		{"default of another type", `{"type":"boolean","default":"yes"}`, map[string]string{"schema.default": "must be true or false"}},
		{"default outside closed choices", `{"type":"string","enum":["a"],"allowOther":false,"default":"z"}`, map[string]string{"schema.default": "must be one of: a"}},
		{"default picks twice", `{"type":"array","items":{"enum":["a"]},"default":["a","a"]}`, map[string]string{"schema.default": `picks "a" twice`}},
		{"default of a question", `{"type":"object","properties":{"n":{"type":"integer","default":1.5}}}`, map[string]string{"schema.properties.n.default": "must be a whole number"}},
		{"default of a form", `{"type":"object","properties":{"n":{"type":"integer"}},"default":{"n":1}}`, map[string]string{"schema.default": "set a default on each question"}},
		{"a broken question's default is not judged", `{"type":"string","minLength":-1,"default":5}`, map[string]string{"schema.minLength": "must not be negative"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertFields(t, parseSchema(t, c.schema).Check(), c.want)
		})
	}

	var none *Schema
	assertFields(t, none.Check(), map[string]string{"schema": "is missing"})
	nilQuestion := &Schema{Type: "object", Properties: Properties{{Key: "a"}}}
	assertFields(t, nilQuestion.Check(), map[string]string{"schema.properties.a": "has no schema"})
	twice := &Schema{Type: "object", Properties: Properties{{Key: "a", Schema: &Schema{Type: "string"}}, {Key: "a", Schema: &Schema{Type: "string"}}}}
	assertFields(t, twice.Check(), map[string]string{"schema.properties.a": "appears twice"})
	invalidDefault := &Schema{Type: "string", Default: json.RawMessage(`{`)}
	assertFields(t, invalidDefault.Check(), map[string]string{"schema.default": "is not valid JSON"})
}

func TestDefaultContent(t *testing.T) {
	cases := []struct {
		schema, want string // want "" means nil
	}{
		{`{"type":"string","default":"x"}`, `"x"`},
		{`{"type":"array","items":{"enum":["a","b"]},"default":[ "b", "a" ]}`, `["b","a"]`},
		{`{"type":"boolean"}`, ``},
		{`{"type":"boolean","default":null}`, ``},
		{`{"type":"object","properties":{"z":{"type":"boolean","default":true},"m":{"type":"string"},"a":{"type":"integer","default":3}}}`, `{"z":true,"a":3}`},
		{`{"type":"object","properties":{"m":{"type":"string"}}}`, ``},
	}
	for _, c := range cases {
		t.Run(c.schema, func(t *testing.T) {
			s := parseSchema(t, c.schema)
			got := DefaultContent(s)
			if c.want == "" {
				assert.Nil(t, got)
				return
			}
			assert.Equal(t, c.want, string(got))
			assert.NoError(t, s.ValidateContent(got), "the defaults answer the form")
		})
	}
	assert.Nil(t, DefaultContent(nil))
}

func TestPropertiesJSON(t *testing.T) {
	in := `{"type":"object","properties":{"zeta":{"type":"string","header":"Z"},"alpha":{"type":"boolean","default":true},"mid":{"type":"array","items":{"enum":["a"]}}},"required":["alpha"]}`
	s := parseSchema(t, in)
	out, err := json.Marshal(s)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
	assert.True(t, strings.Index(string(out), `"zeta"`) < strings.Index(string(out), `"alpha"`) &&
		strings.Index(string(out), `"alpha"`) < strings.Index(string(out), `"mid"`), "order kept: %s", out)
	again := parseSchema(t, string(out))
	assert.Equal(t, s, again)

	var dup Schema
	err = json.Unmarshal([]byte(`{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}`), &dup)
	assert.ErrorContains(t, err, `property "a" appears twice`)
	err = json.Unmarshal([]byte(`{"type":"object","properties":["a"]}`), &dup)
	assert.ErrorContains(t, err, "properties must be an object")
}

func TestDecisionRequestValidate(t *testing.T) {
	approval := DecisionRequest{
		Kind:    KindApproval,
		Message: "Run git status?",
		Details: "git status",
		Options: []ApprovalOption{
			{Value: OptionAllow, Label: "Approve", Tone: ToneAffirm},
			{Value: OptionAllow, Label: "Always for git", Tone: ToneAffirm, Grant: &GrantScope{Kind: GrantPrefix, Tool: "bash", Words: []string{"git"}}},
			{Value: OptionAllow, Label: "Always for bash", Grant: &GrantScope{Kind: GrantTool, Tool: "bash"}},
			{Value: OptionDeny, Label: "Reject", Tone: ToneDeny},
		},
		Items:     []ApprovalItem{{Tool: "bash", Details: "git status"}},
		TimeoutMs: 60_000,
	}
	ask := DecisionRequest{Kind: KindAsk, Message: "Which environment?", Schema: parseSchema(t, `{"type":"string","enum":["staging","prod"]}`)}
	titledForm := parseSchema(t, `{"type":"object","properties":{"a":{"type":"string","title":"Engine?"},"b":{"type":"string","title":"Theme?"}}}`)
	untitledForm := parseSchema(t, `{"type":"object","properties":{"a":{"type":"string","title":"Engine?"},"b":{"type":"string"}}}`)

	cases := []struct {
		name   string
		base   DecisionRequest
		mutate func(*DecisionRequest)
		want   map[string]string
	}{
		{"approval", approval, func(*DecisionRequest) {}, nil},
		{"ask", ask, func(*DecisionRequest) {}, nil},
		{"confirm without schema", ask, func(r *DecisionRequest) { *r = DecisionRequest{Kind: KindConfirm, Message: "Delete?"} }, nil},
		{"confirm with labels", ask, func(r *DecisionRequest) {
			*r = DecisionRequest{Kind: KindConfirm, Message: "Delete?", Schema: &Schema{Type: "boolean", TrueLabel: "Delete it"}}
		}, nil},
		{"form whose questions carry titles", ask, func(r *DecisionRequest) { r.Message = ""; r.Schema = titledForm }, nil},
		{"longest timeout", approval, func(r *DecisionRequest) { r.TimeoutMs = MaxTimeoutMs }, nil},

		{"no kind", ask, func(r *DecisionRequest) { r.Kind = "" }, map[string]string{"kind": "is missing: use \"ask\", \"confirm\" or \"approval\""}},
		{"unknown kind", ask, func(r *DecisionRequest) { r.Kind = "choose" }, map[string]string{"kind": `unknown kind "choose"`}},
		{"ask without schema", ask, func(r *DecisionRequest) { r.Schema = nil }, map[string]string{"schema": "an ask needs a schema"}},
		{"ask with a bad schema", ask, func(r *DecisionRequest) { r.Schema = &Schema{Type: "string", Enum: []string{"a", "a"}} },
			map[string]string{"schema.enum[1]": "listed twice"}},
		{"confirm with a text schema", ask, func(r *DecisionRequest) { r.Kind = KindConfirm }, map[string]string{"schema.type": "must be boolean"}},
		{"confirm with a bad default", ask, func(r *DecisionRequest) {
			*r = DecisionRequest{Kind: KindConfirm, Message: "Sure?", Schema: &Schema{Type: "boolean", Default: json.RawMessage(`"yes"`)}}
		}, map[string]string{"schema.default": "must be true or false"}},
		{"ask with options", ask, func(r *DecisionRequest) { r.Options = approval.Options; r.Items = approval.Items },
			map[string]string{"options": "only an approval has options", "items": "only an approval"}},
		{"approval with a schema", approval, func(r *DecisionRequest) { r.Schema = ask.Schema }, map[string]string{"schema": "an approval is answered by picking"}},
		{"approval without options", approval, func(r *DecisionRequest) { r.Options = nil }, map[string]string{"options": "needs at least one option"}},
		{"too many options", approval, func(r *DecisionRequest) {
			r.Options = nil
			for range MaxOptions + 1 {
				r.Options = append(r.Options, ApprovalOption{Value: "v", Label: "l"})
			}
		}, map[string]string{"options": "lists 17 options; the limit is 16"}},
		{"option without value and label", approval, func(r *DecisionRequest) { r.Options = append(r.Options, ApprovalOption{Label: " "}) },
			map[string]string{"options[4].value": "is empty", "options[4].label": "the button's text"}},
		{"unknown tone", approval, func(r *DecisionRequest) { r.Options[0].Tone = "danger" }, map[string]string{"options[0].tone": `unknown tone "danger"`}},
		{"grant without words", approval, func(r *DecisionRequest) { r.Options[1].Grant = &GrantScope{Kind: GrantExact, Tool: "bash"} },
			map[string]string{"options[1].grant.words": "an exact grant needs the command's words"}},
		{"prefix grant without words", approval, func(r *DecisionRequest) { r.Options[1].Grant = &GrantScope{Kind: GrantPrefix, Tool: "bash"} },
			map[string]string{"options[1].grant.words": "a prefix grant needs the command's first words"}},
		{"tool grant with words", approval, func(r *DecisionRequest) {
			r.Options[2].Grant = &GrantScope{Kind: GrantTool, Tool: "bash", Words: []string{"git"}}
		},
			map[string]string{"options[2].grant.words": "must be empty"}},
		{"grant without tool or kind", approval, func(r *DecisionRequest) { r.Options[2].Grant = &GrantScope{} },
			map[string]string{"options[2].grant.tool": "is empty", "options[2].grant.kind": "is missing"}},
		{"unknown grant kind", approval, func(r *DecisionRequest) { r.Options[2].Grant = &GrantScope{Kind: "workspace", Tool: "bash"} },
			map[string]string{"options[2].grant.kind": `unknown kind "workspace"`}},
		{"empty message", approval, func(r *DecisionRequest) { r.Message = " \n" }, map[string]string{"message": "is empty: say what you are asking"}},
		{"empty message, a question without title", ask, func(r *DecisionRequest) { r.Message = ""; r.Schema = untitledForm },
			map[string]string{"message": "is empty"}},
		{"long message", ask, func(r *DecisionRequest) { r.Message = strings.Repeat("m", MaxMessageBytes+1) }, map[string]string{"message": "the limit is 16 KiB"}},
		{"message not UTF-8", ask, func(r *DecisionRequest) { r.Message = "a\xffb" }, map[string]string{"message": "UTF-8"}},
		{"long details", approval, func(r *DecisionRequest) { r.Details = strings.Repeat("d", MaxDetailsBytes+1) }, map[string]string{"details": "the limit is 64 KiB"}},
		{"item without tool", approval, func(r *DecisionRequest) { r.Items = append(r.Items, ApprovalItem{Details: "x"}) }, map[string]string{"items[1].tool": "is empty"}},
		{"negative timeout", approval, func(r *DecisionRequest) { r.TimeoutMs = -1 }, map[string]string{"timeoutMs": "must not be negative"}},
		{"timeout over a day", approval, func(r *DecisionRequest) { r.TimeoutMs = MaxTimeoutMs + 1 }, map[string]string{"timeoutMs": "at most 86400000 (24 hours)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.base
			r.Options = append([]ApprovalOption(nil), c.base.Options...)
			r.Items = append([]ApprovalItem(nil), c.base.Items...)
			c.mutate(&r)
			assertFields(t, r.Validate(), c.want)
		})
	}
}

func TestReplyRequestValidate(t *testing.T) {
	cases := []struct {
		name  string
		reply ReplyRequest
		want  map[string]string
	}{
		{"accept", ReplyRequest{Action: ActionAccept, Content: json.RawMessage(`"prod"`)}, nil},
		{"accept false", ReplyRequest{Action: ActionAccept, Content: json.RawMessage(`false`)}, nil},
		{"decline", ReplyRequest{Action: ActionDecline, Reason: "not now"}, nil},
		{"decline with null", ReplyRequest{Action: ActionDecline, Content: json.RawMessage(`null`)}, nil},
		{"no action", ReplyRequest{}, map[string]string{"action": `is missing: use "accept" with content, or "decline"`}},
		{"cancel", ReplyRequest{Action: "cancel"}, map[string]string{"action": `unknown action "cancel"`}},
		{"accept without content", ReplyRequest{Action: ActionAccept}, map[string]string{"content": "an accept carries the answer"}},
		{"accept with null", ReplyRequest{Action: ActionAccept, Content: json.RawMessage(` null `)}, map[string]string{"content": "is missing"}},
		{"accept too large", ReplyRequest{Action: ActionAccept, Content: json.RawMessage(`"` + strings.Repeat("x", MaxContentBytes) + `"`)},
			map[string]string{"content": "the limit is 64 KiB"}},
		{"accept not JSON", ReplyRequest{Action: ActionAccept, Content: json.RawMessage(`{`)}, map[string]string{"content": "is not valid JSON"}},
		{"decline with content", ReplyRequest{Action: ActionDecline, Content: json.RawMessage(`"x"`)}, map[string]string{"content": "a decline carries no answer"}},
		{"long reason", ReplyRequest{Action: ActionDecline, Reason: strings.Repeat("r", MaxReasonBytes+1)}, map[string]string{"reason": "the limit is 4 KiB"}},
		{"reason not UTF-8", ReplyRequest{Action: ActionDecline, Reason: "\xff"}, map[string]string{"reason": "UTF-8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertFields(t, c.reply.Validate(), c.want)
		})
	}

	r, err := DecodeRequest[ReplyRequest]([]byte(`{"action":"accept","content":{"env":"prod"}}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"env":"prod"}`, string(r.Content))
	_, err = DecodeRequest[ReplyRequest]([]byte(`{"action":"accept","content":1,"extra":true}`))
	assert.ErrorContains(t, err, "unknown field")
	_, err = DecodeRequest[ReplyRequest]([]byte(`{"action":"decline","content":1}`))
	var verr *ValidationError
	assert.ErrorAs(t, err, &verr)
}

func TestValidateReply(t *testing.T) {
	accept := func(content string) ReplyRequest {
		return ReplyRequest{Action: ActionAccept, Content: json.RawMessage(content)}
	}
	ask := DecisionRequest{Kind: KindAsk, Message: "Deploy?", Schema: parseSchema(t, `{"type":"object","properties":{"env":{"type":"string","enum":["staging","prod"],"allowOther":false}},"required":["env"]}`)}
	confirm := DecisionRequest{Kind: KindConfirm, Message: "Delete?"}
	confirmLabelled := DecisionRequest{Kind: KindConfirm, Message: "Delete?", Schema: &Schema{Type: "boolean", TrueLabel: "Delete it"}}
	approval := DecisionRequest{Kind: KindApproval, Message: "Run?", Options: []ApprovalOption{
		{Value: OptionAllow, Label: "Approve"}, {Value: OptionAllow, Label: "Always"}, {Value: OptionDeny, Label: "Reject"},
	}}
	batch := DecisionRequest{Kind: KindApproval, Message: "Allow these 2 requests?", Items: []ApprovalItem{{Tool: "run", Details: "a"}, {Tool: "run", Details: "b"}},
		Options: []ApprovalOption{{Value: OptionAllow, Label: "Approve all"}, {Value: OptionDeny, Label: "Reject all"}}}
	cases := []struct {
		name  string
		req   DecisionRequest
		reply ReplyRequest
		want  map[string]string
	}{
		{"ask", ask, accept(`{"env":"prod"}`), nil},
		{"ask, wrong choice", ask, accept(`{"env":"dev"}`), map[string]string{"env": "must be one of: staging, prod"}},
		{"ask, unknown key", ask, accept(`{"env":"prod","why":"x"}`), map[string]string{"why": "is not a question of this form"}},
		{"ask declined", ask, ReplyRequest{Action: ActionDecline}, nil},
		{"ask, bad shape first", ask, ReplyRequest{Action: ActionDecline, Content: json.RawMessage(`{"env":"prod"}`)}, map[string]string{"content": "a decline carries no answer"}},
		{"ask without schema", DecisionRequest{Kind: KindAsk}, accept(`"x"`), map[string]string{"content": "no question"}},
		{"confirm yes", confirm, accept(`true`), nil},
		{"confirm no", confirmLabelled, accept(`false`), nil},
		{"confirm with text", confirm, accept(`"yes"`), map[string]string{"content": "must be true or false"}},
		{"confirm with a number", confirmLabelled, accept(`1`), map[string]string{"content": "must be true or false"}},
		{"confirm with a text schema", DecisionRequest{Kind: KindConfirm, Schema: &Schema{Type: "string"}}, accept(`"yes"`), map[string]string{"content": "must be true or false"}},
		{"unknown kind", DecisionRequest{Kind: "x"}, accept(`1`), map[string]string{"kind": `"x" is unknown`}},

		{"first option", approval, accept(`{"option":0}`), nil},
		{"last option", approval, accept(`{"option":2}`), nil},
		{"option with a null instruction", approval, accept(`{"option":1,"instruction":null}`), nil},
		{"option with an empty instruction", approval, accept(`{"option":1,"instruction":""}`), nil},
		{"instruction", approval, accept(`{"instruction":"use rg instead"}`), nil},
		{"option out of range", approval, accept(`{"option":3}`), map[string]string{"option": "is 3, not the index of an option: a whole number from 0 to 2"}},
		{"negative option", approval, accept(`{"option":-1}`), map[string]string{"option": "is -1"}},
		{"option by value", approval, accept(`{"option":"allow"}`), map[string]string{"option": "must be the index of an option: a whole number from 0 to 2"}},
		{"fractional option", approval, accept(`{"option":1.5}`), map[string]string{"option": "must be the index"}},
		{"huge option", approval, accept(`{"option":1e30}`), map[string]string{"option": "must be the index"}},
		{"both", approval, accept(`{"option":0,"instruction":"x"}`), map[string]string{"content": "not both"}},
		{"both, blank instruction", approval, accept(`{"option":0,"instruction":" "}`), map[string]string{"content": "not both"}},
		{"neither", approval, accept(`{}`), map[string]string{"content": "is empty: pick an option or write an instruction"}},
		{"blank instruction", approval, accept(`{"instruction":"  "}`), map[string]string{"content": "is empty"}},
		{"null option", approval, accept(`{"option":null}`), map[string]string{"content": "is empty"}},
		{"instruction not text", approval, accept(`{"instruction":["x"]}`), map[string]string{"instruction": "must be text"}},
		{"long instruction", approval, accept(`{"instruction":"` + strings.Repeat("i", MaxReasonBytes+1) + `"}`), map[string]string{"instruction": "the limit is 4 KiB"}},
		{"unknown field", approval, accept(`{"option":0,"value":"allow"}`), map[string]string{"content": `unknown field "value"`}},
		{"field in another case", approval, accept(`{"Option":0}`), map[string]string{"content": `unknown field "Option"`}},
		{"option twice", approval, accept(`{"option":0,"option":2}`), map[string]string{"content": `gives "option" twice`}},
		{"an index alone", approval, accept(`0`), map[string]string{"content": "must be an object"}},
		{"no options to pick", DecisionRequest{Kind: KindApproval}, accept(`{"option":0}`), map[string]string{"option": "the question has no options"}},

		{"batch, one answer each", batch, accept(`{"items":["allow","deny"]}`), nil},
		{"batch, an option still", batch, accept(`{"option":0}`), nil},
		{"batch, too few answers", batch, accept(`{"items":["allow"]}`), map[string]string{"items": "has 1 answers for 2 requests"}},
		{"batch, an unknown answer", batch, accept(`{"items":["allow","maybe"]}`), map[string]string{"items": `answer 1 is "maybe"`}},
		{"batch, items and an option", batch, accept(`{"items":["allow","deny"],"option":0}`), map[string]string{"content": "not both"}},
		// The words typed go with the requests rejected (QA round 20 #5).
		{"batch, items and the reason of those rejected", batch, accept(`{"items":["allow","deny"],"instruction":"no date please"}`), nil},
		{"batch, a reason and nothing rejected", batch, accept(`{"items":["allow","allow"],"instruction":"why"}`), map[string]string{"instruction": `no answer is "deny"`}},
		{"batch, a long reason", batch, accept(`{"items":["allow","deny"],"instruction":"` + strings.Repeat("i", MaxReasonBytes+1) + `"}`), map[string]string{"instruction": "the limit is 4 KiB"}},
		{"batch, items not a list", batch, accept(`{"items":"allow"}`), map[string]string{"items": "must be a list"}},
		{"items on a single request", approval, accept(`{"items":["allow"]}`), map[string]string{"items": "not a batch"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertFields(t, ValidateReply(c.req, c.reply), c.want)
		})
	}
}

func TestApprovalAnswerPicked(t *testing.T) {
	req := DecisionRequest{Kind: KindApproval, Options: []ApprovalOption{{Value: OptionAllow, Label: "Yes"}, {Value: OptionDeny, Label: "No"}}}
	cases := []struct {
		answer ApprovalAnswer
		want   ApprovalOption
		ok     bool
	}{
		{ApprovalAnswer{Option: pointerTo(0)}, req.Options[0], true},
		{ApprovalAnswer{Option: pointerTo(1)}, req.Options[1], true},
		{ApprovalAnswer{Option: pointerTo(2)}, ApprovalOption{}, false},
		{ApprovalAnswer{Option: pointerTo(-1)}, ApprovalOption{}, false},
		{ApprovalAnswer{Instruction: "do it differently"}, ApprovalOption{}, false},
	}
	for i, c := range cases {
		got, ok := c.answer.Picked(req)
		assert.Equal(t, c.ok, ok, i)
		assert.Equal(t, c.want, got, i)
	}

	// What ValidateReply accepts, the plain decoder reads the same way.
	var a ApprovalAnswer
	require.NoError(t, ValidateReply(req, ReplyRequest{Action: ActionAccept, Content: json.RawMessage(`{"option":1}`)}))
	require.NoError(t, json.Unmarshal([]byte(`{"option":1}`), &a))
	got, ok := a.Picked(req)
	assert.True(t, ok)
	assert.Equal(t, OptionDeny, got.Value)
}

func TestRunFunctionRequestValidate(t *testing.T) {
	cases := []struct {
		name string
		req  RunFunctionRequest
		want map[string]string
	}{
		{"empty", RunFunctionRequest{}, nil},
		{"args", RunFunctionRequest{Args: json.RawMessage(` {"n":1} `), Session: "s-1"}, nil},
		{"null args", RunFunctionRequest{Args: json.RawMessage(`null`)}, nil},
		{"bad session", RunFunctionRequest{Session: "a.b"}, map[string]string{"session": "is not a session id"}},
		{"args as a list", RunFunctionRequest{Args: json.RawMessage(`[1]`)}, map[string]string{"args": "must be an object of the function's parameters"}},
		{"args as text", RunFunctionRequest{Args: json.RawMessage(`"n=1"`)}, map[string]string{"args": "must be an object"}},
		{"args not JSON", RunFunctionRequest{Args: json.RawMessage(`{"n":}`)}, map[string]string{"args": "is not valid JSON"}},
		{"args too large", RunFunctionRequest{Args: json.RawMessage(`{"s":"` + strings.Repeat("x", MaxContentBytes) + `"}`)}, map[string]string{"args": "the limit is 64 KiB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertFields(t, c.req.Validate(), c.want)
		})
	}
	r, err := DecodeRequest[RunFunctionRequest]([]byte(`{"args":{"env":"prod"},"session":"abc"}`))
	require.NoError(t, err)
	assert.Equal(t, "abc", r.Session)
}

// FuzzDecodeReplyRequest: any body gives a valid reply or an error, never a panic; checking
// an accepted reply against any kind of decision never panics either.
func FuzzDecodeReplyRequest(f *testing.F) {
	seeds := []string{
		`{"action":"accept","content":{"option":0}}`, `{"action":"accept","content":{"instruction":"x"}}`,
		`{"action":"decline","reason":"no"}`, `{"action":"accept","content":null}`, `{"action":"accept","content":"prod"}`,
		`{"action":"accept","content":{"option":1.5,"option":-1}}`, `{"action":"cancel"}`, `{"content":[true]}`, `null`, `[`,
	}
	decisions := []DecisionRequest{
		{Kind: KindAsk, Schema: &Schema{Type: "string", Enum: []string{"staging", "prod"}}},
		{Kind: KindConfirm},
		{Kind: KindApproval, Options: []ApprovalOption{{Value: OptionAllow, Label: "Yes"}, {Value: OptionDeny, Label: "No"}}},
		{Kind: "unknown"},
	}
	fuzzDecode(f, seeds, func(t *testing.T, r ReplyRequest) {
		for _, d := range decisions {
			err := ValidateReply(d, r)
			if err == nil && d.Kind == KindApproval && r.Action == ActionAccept {
				var a ApprovalAnswer
				if err := json.Unmarshal(r.Content, &a); err != nil {
					t.Fatalf("accepted an answer the decoder refuses: %s: %v", r.Content, err)
				}
				if _, ok := a.Picked(d); ok == (a.Instruction != "") {
					t.Fatalf("accepted an answer that is not exactly a pick or an instruction: %s", r.Content)
				}
			}
		}
	})
}

// FuzzValidateContent: a random schema and a random answer never panic; an accepted answer,
// re-encoded, is still accepted.
func FuzzValidateContent(f *testing.F) {
	seeds := []struct{ schema, content string }{
		{`{"type":"string","minLength":2,"maxLength":4}`, `"abc"`},
		{`{"type":"string","format":"email"}`, `"a@b.co"`},
		{`{"type":"string","format":"uri"}`, `"https://x/y"`},
		{`{"type":"string","format":"date","default":"2026-02-29"}`, `"2024-02-29"`},
		{`{"type":"string","format":"date-time"}`, `"2026-11-30T14:00:00Z"`},
		{`{"type":"number","minimum":0,"maximum":1e3}`, `12.5`},
		{`{"type":"integer","maximum":9007199254740991}`, `-9007199254740991`},
		{`{"type":"boolean","default":true}`, `false`},
		{`{"type":"string","enum":["a","b"],"enumNames":["A","B"],"allowOther":false}`, `"a"`},
		{`{"type":"string","oneOf":[{"const":"a","title":"A"}]}`, `"other \u003c text"`},
		{`{"type":"array","items":{"anyOf":[{"const":"a"},{"const":"b"}]},"minItems":1,"maxItems":2}`, `["b","a"]`},
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"enum":["x"]}}},"required":["a"]}`, `{"a":"x","b":["x"],"c":1}`},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{}}}}`, `{"a":{}}`},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":1,"a":null}`},
		{`{"type":"array"}`, `[]`},
		{`{}`, `null`},
	}
	for _, s := range seeds {
		f.Add([]byte(s.schema), []byte(s.content))
	}
	f.Fuzz(func(t *testing.T, schemaJSON, content []byte) {
		var s Schema
		if json.Unmarshal(schemaJSON, &s) != nil {
			return
		}
		checkErr := s.Check()
		_ = s.Questions()
		_ = s.Choices()
		if checkErr == nil {
			if d := DefaultContent(&s); d != nil {
				// The seed need not be complete, but what it holds must be answers.
				var verr *ValidationError
				if err := s.ValidateContent(d); errors.As(err, &verr) {
					for field, msg := range verr.Fields {
						if msg != "is required" {
							t.Fatalf("the defaults of a sound schema are refused: %s: %s: %s", d, field, msg)
						}
					}
				} else if err != nil {
					t.Fatal(err)
				}
			}
		}
		if s.ValidateContent(content) != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(content))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("accepted content that does not decode: %q: %v", content, err)
		}
		var again bytes.Buffer
		enc := json.NewEncoder(&again)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if err := s.ValidateContent(again.Bytes()); err != nil {
			t.Fatalf("accepted %q but not its re-encoding %q: %v", content, again.Bytes(), err)
		}
	})
}

// FuzzDecodeRunFunction: any body gives a valid run request or an error, never a panic; the
// arguments of an accepted request are an object or nothing.
func FuzzDecodeRunFunction(f *testing.F) {
	seeds := []string{`{"args":{"n":1},"session":"abc"}`, `{"args":null}`, `{"args":[1]}`, `{"session":"a.b"}`, `{}`, `{"args":"x"}`, `1`}
	fuzzDecode(f, seeds, func(t *testing.T, r RunFunctionRequest) {
		if !isJSONNull(r.Args) {
			var args map[string]json.RawMessage
			if err := json.Unmarshal(r.Args, &args); err != nil {
				t.Fatalf("accepted args that are not an object: %s", r.Args)
			}
		}
	})
}
