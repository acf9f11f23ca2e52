package question

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/app/elicitation"
	"parley/components/composer/modes"
	"parley/machine/composer"
	"parley/machine/elicit"
	"parley/protocol"
)

// The tests are in the package: a DOM event cannot be fired natively, so a click or a
// keystroke is simulated by the form event its handler dispatches (m.view.dispatch).

// fakeHost records what a mode asks of the container.
type fakeHost struct {
	answers  []answered
	done     []func(app.Context, error)
	problems []string
	closes   int
	chats    int
	laters   int
}

type answered struct {
	id    string
	reply protocol.ReplyRequest
}

func (h *fakeHost) Client() *api.Client            { return &api.Client{} }
func (h *fakeHost) SessionID() string              { return "s1" }
func (h *fakeHost) Functions() []protocol.Function { return nil }
func (h *fakeHost) Answer(_ app.Context, d composer.Decision, r protocol.ReplyRequest, done func(app.Context, error)) {
	h.answers = append(h.answers, answered{d.ID, r})
	h.done = append(h.done, done)
}
func (h *fakeHost) ChatAbout(app.Context)       { h.chats++ }
func (h *fakeHost) Close(app.Context)           { h.closes++ }
func (h *fakeHost) Ran(app.Context, string)     {}
func (h *fakeHost) SetProblem(text string)      { h.problems = append(h.problems, text) }
func (h *fakeHost) Later(f func())              { h.laters++; f() }
func (h *fakeHost) lastProblem() (string, bool) { return last(h.problems) }

func last(s []string) (string, bool) {
	if len(s) == 0 {
		return "", false
	}
	return s[len(s)-1], true
}

// grab captures a real Context: OnPreRender runs natively, OnMount does not.
type grab struct {
	app.Compo
	ctx app.Context
}

func (g *grab) OnPreRender(ctx app.Context) { g.ctx = ctx }
func (g *grab) Render() app.UI              { return app.Div() }

func testContext(t *testing.T) app.Context {
	t.Helper()
	e := app.NewTestEngine()
	g := &grab{}
	require.NoError(t, e.Load(g))
	e.ConsumeAll()
	return g.ctx
}

func newMode(t *testing.T, h *fakeHost, req protocol.DecisionRequest, opts elicit.Options) *Mode {
	t.Helper()
	require.NoError(t, req.Validate(), "the fixture must be a valid request")
	m, ok := New(h, modes.Input{Key: "k1", Decision: composer.Decision{ID: "d1", Request: req}, Options: opts}).(*Mode)
	require.True(t, ok)
	return m
}

func ask(message string, s *protocol.Schema) protocol.DecisionRequest {
	return protocol.DecisionRequest{Kind: protocol.KindAsk, Message: message, Schema: s}
}

func no() *bool { b := false; return &b }

func num(x float64) *float64 { return &x }

func intp(n int) *int { return &n }

// node is a parsed element of app.HTMLString's output: enough of a DOM to assert on
// structure without depending on the order go-app writes attributes in (a map's).
type node struct {
	tag   string
	attrs map[string]string
	kids  []*node
	text  string
}

var (
	tagRE    = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>]+(?:="(?:[^"\\]|\\.)*")?)*)\s*>`)
	attrRE   = regexp.MustCompile(`([^\s=]+)(="(?:[^"\\]|\\.)*")?`)
	selRE    = regexp.MustCompile(`([a-z][a-z0-9-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:=([^\]]*))?\]`)
	voidTags = map[string]bool{"input": true, "br": true, "img": true, "hr": true, "meta": true, "link": true, "source": true, "wbr": true}
)

func render(t *testing.T, ui app.UI) *node {
	t.Helper()
	return parseHTML(t, app.HTMLString(ui))
}

func parseHTML(t *testing.T, s string) *node {
	t.Helper()
	root := &node{tag: "#root"}
	stack := []*node{root}
	addText := func(txt string) {
		if txt = strings.TrimSpace(txt); txt != "" {
			top := stack[len(stack)-1]
			top.kids = append(top.kids, &node{text: html.UnescapeString(txt)})
		}
	}
	pos := 0
	for _, m := range tagRE.FindAllStringSubmatchIndex(s, -1) {
		addText(s[pos:m[0]])
		pos = m[1]
		tag := s[m[4]:m[5]]
		if m[3] > m[2] {
			if top := stack[len(stack)-1]; top.tag != tag {
				t.Fatalf("</%s> closes <%s> in:\n%s", tag, top.tag, s)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		n := &node{tag: tag, attrs: map[string]string{}}
		for _, a := range attrRE.FindAllStringSubmatch(s[m[6]:m[7]], -1) {
			v := ""
			if a[2] != "" {
				uq, err := strconv.Unquote(a[2][1:])
				require.NoError(t, err, "attribute %s", a[0])
				v = uq
			}
			n.attrs[a[1]] = v
		}
		top := stack[len(stack)-1]
		top.kids = append(top.kids, n)
		if !voidTags[tag] {
			stack = append(stack, n)
		}
	}
	addText(s[pos:])
	if len(stack) != 1 {
		t.Fatalf("<%s> is not closed in:\n%s", stack[len(stack)-1].tag, s)
	}
	return root
}

func (n *node) hasClass(c string) bool {
	return n.tag != "" && n.attrs != nil && containsWord(n.attrs["class"], c)
}

func containsWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

// matches reports whether n matches one compound selector: tag, #id, .class, [attr],
// [attr=value].
func (n *node) matches(sel string) bool {
	if n.attrs == nil {
		return false
	}
	for _, m := range selRE.FindAllStringSubmatch(sel, -1) {
		switch {
		case m[1] != "":
			if n.tag != m[1] {
				return false
			}
		case m[2] != "":
			if n.attrs["id"] != m[2] {
				return false
			}
		case m[3] != "":
			if !n.hasClass(m[3]) {
				return false
			}
		default:
			v, ok := n.attrs[m[4]]
			if !ok || strings.Contains(m[0], "=") && v != m[5] {
				return false
			}
		}
	}
	return true
}

// all returns the descendants matching sel, in document order.
func (n *node) all(sel string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(p *node) {
		for _, k := range p.kids {
			if k.matches(sel) {
				out = append(out, k)
			}
			walk(k)
		}
	}
	walk(n)
	return out
}

func (n *node) one(t *testing.T, sel string) *node {
	t.Helper()
	got := n.all(sel)
	if len(got) != 1 {
		t.Fatalf("%q matches %d elements, want 1", sel, len(got))
	}
	return got[0]
}

// textContent is the element's text, its text nodes joined by spaces.
func (n *node) textContent() string {
	if n.attrs == nil {
		return n.text
	}
	var parts []string
	for _, k := range n.kids {
		if s := k.textContent(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// flag reports whether a boolean attribute is on. go-app writes a true value bare
// (`disabled`) and a false one as the string (`disabled="false"`).
func (n *node) flag(name string) bool {
	v, ok := n.attrs[name]
	return ok && (v == "" || v == "true")
}

func texts(ns []*node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.textContent())
	}
	return out
}

// ---- the question mode

func TestLoneChoiceRendersAButtonPerChoiceAndOther(t *testing.T) {
	req := ask("Which database?", &protocol.Schema{Type: "string", Enum: []string{"pg", "my", "lite"}, EnumNames: []string{"Postgres", "MySQL", "SQLite"}})
	h := &fakeHost{}
	m := newMode(t, h, req, elicit.DefaultOptions())

	body := render(t, m.Body())
	var labels []string
	for _, b := range body.all("button.choice") {
		if !b.hasClass("choice-other") {
			labels = append(labels, b.one(t, ".choice-label").textContent())
		}
	}
	assert.Equal(t, []string{"Postgres", "MySQL", "SQLite"}, labels)
	other := body.one(t, "button.choice-other")
	assert.Equal(t, "Other…", other.textContent())
	assert.Equal(t, "false", other.attrs["aria-pressed"])
	assert.Empty(t, body.all("input[type=radio]"), "a lone choice is buttons, not radios")
	assert.Equal(t, "Which database?", body.one(t, "p.question-message").textContent())

	p := m.Primary()
	assert.True(t, p.Disabled, "the click answers a lone choice, not the send button")
	assert.Equal(t, "Pick an answer: the click sends it", p.Title)
	assert.Equal(t, "Question: Which database?", m.Label())

	ctx := testContext(t)
	m.view.dispatch(ctx, elicit.Pick{Index: 0, Value: "my"})
	require.Len(t, h.answers, 1, "a click on a lone choice answers")
	assert.Equal(t, "d1", h.answers[0].id)
	assert.Equal(t, protocol.ActionAccept, h.answers[0].reply.Action)
	assert.JSONEq(t, `"my"`, string(h.answers[0].reply.Content))
}

func TestLoneChoiceOtherGoesThroughTheSendButton(t *testing.T) {
	req := ask("Which database?", &protocol.Schema{Type: "string", Enum: []string{"pg", "my"}})
	h := &fakeHost{}
	m := newMode(t, h, req, elicit.DefaultOptions())
	ctx := testContext(t)

	m.view.dispatch(ctx, elicit.ChooseOther{Index: 0})
	body := render(t, m.Body())
	assert.True(t, body.one(t, "button.choice-other").flag("aria-pressed"))
	in := body.one(t, "input.other-input")
	assert.Equal(t, "k1-0-other-text", in.attrs["id"])
	assert.True(t, m.Primary().Disabled, "Other with no text is no answer")

	m.view.dispatch(ctx, elicit.TypeOther{Index: 0, Text: "duckdb"})
	p := m.Primary()
	require.False(t, p.Disabled, "typed Other goes through the send button")
	p.Run(ctx)
	require.Len(t, h.answers, 1)
	assert.JSONEq(t, `"duckdb"`, string(h.answers[0].reply.Content))
}

func TestChoiceWithoutAnswerOnClickUsesRadios(t *testing.T) {
	req := ask("Which database?", &protocol.Schema{Type: "string", Enum: []string{"pg", "my"}, AllowOther: no()})
	h := &fakeHost{}
	opts := elicit.DefaultOptions()
	opts.AnswerOnClick = false
	m := newMode(t, h, req, opts)
	ctx := testContext(t)

	body := render(t, m.Body())
	assert.Empty(t, body.all("button.choice"))
	group := body.one(t, "[role=radiogroup]")
	assert.Equal(t, "k1-message", group.attrs["aria-labelledby"], "a lone question is named by the message")
	assert.Len(t, group.all("input[type=radio]"), 2)
	assert.True(t, m.Primary().Disabled)

	m.view.dispatch(ctx, elicit.Pick{Index: 0, Value: "pg"})
	assert.Empty(t, h.answers, "without answer-on-click a pick does not send")
	radios := render(t, m.Body()).all("input[type=radio]")
	assert.True(t, radios[0].flag("checked"), "the picked radio is checked")
	assert.False(t, radios[1].flag("checked"))
	m.Primary().Run(ctx)
	require.Len(t, h.answers, 1)
	assert.JSONEq(t, `"pg"`, string(h.answers[0].reply.Content))
}

// threeQuestions is a stepped form: two required questions and an optional one.
func threeQuestions() protocol.DecisionRequest {
	return ask("About you", &protocol.Schema{
		Type: "object",
		Properties: protocol.Properties{
			{Key: "name", Schema: &protocol.Schema{Type: "string", Header: "Name", Title: "Your name"}},
			{Key: "color", Schema: &protocol.Schema{Type: "string", Header: "Colour", Enum: []string{"red", "green"}}},
			{Key: "notify", Schema: &protocol.Schema{Type: "boolean", Header: "Notify"}},
		},
		Required: []string{"name", "color"},
	})
}

func TestSteppedFormDrawsChipsAndHidesAllButTheCurrentField(t *testing.T) {
	h := &fakeHost{}
	m := newMode(t, h, threeQuestions(), elicit.DefaultOptions())
	ctx := testContext(t)

	header := render(t, m.Header())
	assert.Equal(t, "Question", header.one(t, ".badge").textContent())
	header.one(t, "[role=tablist]")
	chips := header.all("[role=tab]")
	require.Len(t, chips, 3)
	assert.Equal(t, []string{"Name", "Colour", "Notify"}, texts(chips))
	for i, c := range chips {
		assert.Equal(t, i == 0, c.flag("aria-selected"), "chip %d aria-selected=%q", i, c.attrs["aria-selected"])
		assert.Equal(t, "k1-panel", c.attrs["aria-controls"])
		assert.Equal(t, "k1-chip-"+strconv.Itoa(i), c.attrs["id"])
	}
	assert.Equal(t, "false", chips[1].attrs["aria-selected"])

	body := render(t, m.Body())
	panel := body.one(t, "#k1-panel")
	assert.Equal(t, "tabpanel", panel.attrs["role"])
	assert.Equal(t, "k1-chip-0", panel.attrs["aria-labelledby"])
	fields := panel.all(".field")
	require.Len(t, fields, 3, "every field is in the DOM, so each keeps its elements")
	for i, f := range fields {
		assert.Equal(t, "k1-"+strconv.Itoa(i)+"-field", f.attrs["id"])
		assert.Equal(t, i != 0, f.hasClass("is-hidden"), "field %d class=%q", i, f.attrs["class"])
	}
	assert.Equal(t, "Your name *", fields[0].one(t, ".field-title").textContent(), "a required question is marked")
	assert.Equal(t, "Colour *", fields[1].one(t, ".field-title").textContent(), "the header stands in for a missing title")

	assert.False(t, m.view.CanProceed())
	p := m.Primary()
	assert.True(t, p.Disabled)
	assert.Equal(t, "Answer every required question first", p.Title)

	m.view.dispatch(ctx, elicit.Type{Index: 0, Text: "Ada"})
	chip0 := render(t, m.Header()).one(t, "#k1-chip-0")
	assert.Equal(t, "Name ✓", chip0.textContent())
	assert.True(t, chip0.hasClass("chip-answered"))
	assert.Equal(t, "Name, answered", chip0.attrs["aria-label"])
	assert.False(t, m.view.CanProceed(), "colour is still required")

	m.view.dispatch(ctx, elicit.Goto{Index: 1})
	body = render(t, m.Body())
	assert.False(t, body.one(t, "#k1-1-field").hasClass("is-hidden"), "the chip's field shows")
	assert.True(t, body.one(t, "#k1-0-field").hasClass("is-hidden"))
	assert.Equal(t, "k1-chip-1", body.one(t, "#k1-panel").attrs["aria-labelledby"])

	laters := h.laters
	m.view.dispatch(ctx, elicit.Pick{Index: 1, Value: "green"})
	assert.Equal(t, 2, m.view.Form().Current(), "a pick moves on to the next unanswered question")
	assert.Equal(t, laters+1, h.laters, "and focuses it after the render")
	assert.Empty(t, h.answers, "a pick in a form never sends")
	assert.True(t, m.view.CanProceed())
	require.False(t, m.Primary().Disabled)
	assert.True(t, render(t, m.Header()).one(t, "#k1-chip-2").flag("aria-selected"))
}

func TestSubmitSendsContentShapedByTheSchema(t *testing.T) {
	tests := []struct {
		name   string
		events []elicit.Event
		want   string
	}{
		{"optional left out", []elicit.Event{elicit.Type{Index: 0, Text: "Ada"}, elicit.Pick{Index: 1, Value: "green"}}, `{"name":"Ada","color":"green"}`},
		{"every answer", []elicit.Event{elicit.Type{Index: 0, Text: "Ada"}, elicit.Pick{Index: 1, Value: "red"}, elicit.Pick{Index: 2, Value: "false"}}, `{"name":"Ada","color":"red","notify":false}`},
		{"other text", []elicit.Event{elicit.Type{Index: 0, Text: " Ada "}, elicit.TypeOther{Index: 1, Text: "teal"}, elicit.Pick{Index: 2, Value: "true"}}, `{"name":" Ada ","color":"teal","notify":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &fakeHost{}
			m := newMode(t, h, threeQuestions(), elicit.DefaultOptions())
			ctx := testContext(t)
			for _, ev := range tt.events {
				m.view.dispatch(ctx, ev)
			}
			p := m.Primary()
			require.False(t, p.Disabled)
			p.Run(ctx)
			require.Len(t, h.answers, 1)
			got := h.answers[0].reply
			assert.Equal(t, protocol.ActionAccept, got.Action)
			assert.JSONEq(t, tt.want, string(got.Content))
			assert.NoError(t, protocol.ValidateReply(threeQuestions(), got), "the server takes what the form sends")
		})
	}
}

func TestSecondaryDeclines(t *testing.T) {
	h := &fakeHost{}
	m := newMode(t, h, threeQuestions(), elicit.DefaultOptions())
	s, ok := m.Secondary()
	require.True(t, ok)
	assert.Equal(t, "Decline", s.Label)
	assert.False(t, s.Disabled)
	s.Run(testContext(t))
	require.Len(t, h.answers, 1)
	assert.Equal(t, protocol.ReplyRequest{Action: protocol.ActionDecline}, h.answers[0].reply)
}

func TestConfirmShowsItsTwoAnswers(t *testing.T) {
	tests := []struct {
		name      string
		schema    *protocol.Schema
		wantLabel []string
	}{
		{"no schema", nil, []string{"Yes", "No"}},
		{"labelled", &protocol.Schema{Type: "boolean", TrueLabel: "Delete", FalseLabel: "Keep"}, []string{"Delete", "Keep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &fakeHost{}
			req := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Delete 3 files?", Schema: tt.schema}
			m := newMode(t, h, req, elicit.DefaultOptions())
			assert.Equal(t, "Confirm", render(t, m.Header()).one(t, ".badge").textContent())
			body := render(t, m.Body())
			buttons := body.all("button.choice")
			require.Len(t, buttons, 2, "a confirm has no Other")
			assert.Equal(t, tt.wantLabel, texts(buttons))
			assert.True(t, buttons[0].hasClass("tone-affirm"), "yes is the affirming answer")
			assert.True(t, buttons[1].hasClass("tone-neutral"))

			m.view.dispatch(testContext(t), elicit.Pick{Index: 0, Value: "false"})
			require.Len(t, h.answers, 1)
			assert.JSONEq(t, `false`, string(h.answers[0].reply.Content))
		})
	}
}

func TestEveryFieldKindRendersItsControl(t *testing.T) {
	tests := []struct {
		key    string
		schema *protocol.Schema
		kind   string
		sel    string // the control, within the field
		count  int
		attrs  map[string]string
	}{
		{"text", &protocol.Schema{Type: "string", MaxLength: intp(20), Placeholder: "Ada"}, "text", "input[type=text]", 1, map[string]string{"maxlength": "20", "placeholder": "Ada"}},
		{"email", &protocol.Schema{Type: "string", Format: "email"}, "email", "input[type=email]", 1, nil},
		{"uri", &protocol.Schema{Type: "string", Format: "uri"}, "uri", "input[type=url]", 1, nil},
		{"date", &protocol.Schema{Type: "string", Format: "date"}, "date", "input[type=date]", 1, nil},
		{"when", &protocol.Schema{Type: "string", Format: "date-time"}, "date-time", "input[type=datetime-local]", 1, nil},
		{"ratio", &protocol.Schema{Type: "number", Minimum: num(0.5), Maximum: num(2)}, "number", "input[type=number]", 1, map[string]string{"min": "0.5", "max": "2", "step": "any"}},
		{"count", &protocol.Schema{Type: "integer", Minimum: num(1), Maximum: num(10)}, "integer", "input[type=number]", 1, map[string]string{"min": "1", "max": "10", "step": "1"}},
		{"notes", &protocol.Schema{Type: "string", Multiline: true}, "textarea", "textarea", 1, map[string]string{"rows": "3"}},
		{"pick", &protocol.Schema{Type: "string", Enum: []string{"a", "b", "c"}, AllowOther: no()}, "single", "input[type=radio]", 3, nil},
		{"pickother", &protocol.Schema{Type: "string", Enum: []string{"a", "b"}}, "single", "input[type=radio]", 3, nil},
		{"tags", &protocol.Schema{Type: "array", Items: &protocol.ItemsSchema{Type: "string", Enum: []string{"x", "y"}}}, "multi", "input[type=checkbox]", 2, nil},
		{"ok", &protocol.Schema{Type: "boolean"}, "boolean", "input[type=radio]", 2, nil},
	}
	var props protocol.Properties
	for _, tt := range tests {
		props = append(props, protocol.Property{Key: tt.key, Schema: tt.schema})
	}
	req := ask("Fill in", &protocol.Schema{Type: "object", Properties: props, Required: []string{"text"}})
	opts := elicit.DefaultOptions()
	opts.Layout = elicit.Stacked
	m := newMode(t, &fakeHost{}, req, opts)
	body := render(t, m.Body())
	assert.Empty(t, body.all(".is-hidden"), "a stacked form shows every field")
	assert.Empty(t, render(t, m.Header()).all("[role=tab]"), "a stacked form has no chips")

	for i, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			field := body.one(t, "#k1-"+strconv.Itoa(i)+"-field")
			assert.True(t, field.hasClass("field-"+tt.kind), "class=%q, want field-%s", field.attrs["class"], tt.kind)
			controls := field.all(tt.sel)
			require.Len(t, controls, tt.count, "%s in field %s", tt.sel, tt.key)
			for name, want := range tt.attrs {
				got, ok := controls[0].attrs[name]
				assert.True(t, ok && got == want, "%s=%q, want %q", name, got, want)
			}
			switch tt.sel {
			case "input[type=radio]":
				group := field.one(t, "[role=radiogroup]")
				assert.Equal(t, "k1-"+strconv.Itoa(i)+"-title", group.attrs["aria-labelledby"])
				for _, r := range controls {
					assert.Equal(t, "k1-"+strconv.Itoa(i)+"-radio", r.attrs["name"], "one group per field")
				}
			case "input[type=checkbox]":
				group := field.one(t, "[role=group]")
				assert.Equal(t, "k1-"+strconv.Itoa(i)+"-title", group.attrs["aria-labelledby"])
			default:
				c := controls[0]
				assert.Equal(t, "k1-"+strconv.Itoa(i)+"-input", c.attrs["id"])
				assert.Equal(t, "k1-"+strconv.Itoa(i)+"-title", c.attrs["aria-labelledby"])
				assert.Equal(t, "false", c.attrs["aria-invalid"])
				assert.Equal(t, tt.key == "text", c.flag("aria-required"), "aria-required only on the required field")
			}
		})
	}
	assert.Equal(t, []string{"Yes", "No"}, texts(body.one(t, "#k1-11-field").all(".option-label")))
}

func TestInvalidAnswerShowsTheProtocolsMessage(t *testing.T) {
	email := &protocol.Schema{Type: "string", Format: "email"}
	tests := []struct {
		name    string
		req     protocol.DecisionRequest
		content string // what the protocol is asked about, to take its words
		key     string // the protocol's field name
	}{
		{"one question", ask("Your email?", email), `"nope"`, "content"},
		{"a form", ask("Contact", &protocol.Schema{Type: "object", Properties: protocol.Properties{{Key: "mail", Schema: email}}}), `{"mail":"nope"}`, "mail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var verr *protocol.ValidationError
			require.ErrorAs(t, tt.req.Schema.ValidateContent(json.RawMessage(tt.content)), &verr)
			msg := verr.Fields[tt.key]
			require.Contains(t, msg, "email address")
			want := strings.ToUpper(msg[:1]) + msg[1:] + "."

			h := &fakeHost{}
			m := newMode(t, h, tt.req, elicit.DefaultOptions())
			ctx := testContext(t)
			before := render(t, m.Body())
			assert.Empty(t, before.all(".field-error"))
			assert.Equal(t, "false", before.one(t, "#k1-0-input").attrs["aria-invalid"])

			m.view.dispatch(ctx, elicit.Type{Index: 0, Text: "nope"})
			p := m.Primary()
			require.False(t, p.Disabled, "the format is checked on send, not while typing")
			p.Run(ctx)
			assert.Empty(t, h.answers, "an invalid answer is not sent")

			body := render(t, m.Body())
			e := body.one(t, ".field-error")
			assert.Equal(t, "alert", e.attrs["role"])
			assert.Equal(t, "k1-0-error", e.attrs["id"])
			assert.Equal(t, want, e.textContent())
			in := body.one(t, "#k1-0-input")
			assert.True(t, in.flag("aria-invalid"), "aria-invalid=%q", in.attrs["aria-invalid"])
			assert.Contains(t, strings.Fields(in.attrs["aria-describedby"]), "k1-0-error")

			m.view.dispatch(ctx, elicit.Type{Index: 0, Text: "ada@example.com"})
			assert.Empty(t, render(t, m.Body()).all(".field-error"), "a change drops the stale message")
			m.Primary().Run(ctx)
			require.Len(t, h.answers, 1)
		})
	}
}

func TestAgentTextIsEscaped(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	req := ask(evil, &protocol.Schema{Type: "object", Properties: protocol.Properties{
		{Key: "a", Schema: &protocol.Schema{Type: "string", Title: "<b>Name</b>", Description: "<i>why</i> & more", Placeholder: `<img src=x>`}},
		{Key: "b", Schema: &protocol.Schema{Type: "string", OneOf: []protocol.EnumOption{{Const: "x", Title: "<img src=x onerror=alert(1)>", Description: "<u>d</u>"}}}},
	}})
	opts := elicit.DefaultOptions()
	opts.Layout = elicit.Stacked
	m := newMode(t, &fakeHost{}, req, opts)
	raw := app.HTMLString(m.Body())
	for _, tag := range []string{"<script", "<b>", "<i>", "<u>"} {
		assert.NotContains(t, raw, tag)
	}
	assert.Contains(t, raw, "&lt;img src=x onerror=alert(1)&gt;")
	body := parseHTML(t, raw)
	assert.Equal(t, evil, body.one(t, "p.question-message").textContent())
	assert.Equal(t, "<b>Name</b>", body.one(t, "#k1-0-title").textContent())
	assert.Equal(t, "<i>why</i> & more", body.one(t, "#k1-0-desc").textContent())
	assert.Equal(t, `<img src=x>`, body.one(t, "#k1-0-input").attrs["placeholder"])
	assert.Equal(t, "<img src=x onerror=alert(1)>", body.all(".option-label")[0].textContent())
	assert.Equal(t, "<u>d</u>", body.one(t, ".option-description").textContent())
	assert.Equal(t, "Question: "+evil, m.Label(), "the dialog's name is an attribute, escaped by the renderer")
}

func TestAFailedAnswerIsShownAndCanBeRetried(t *testing.T) {
	h := &fakeHost{}
	m := newMode(t, h, ask("Name?", &protocol.Schema{Type: "string"}), elicit.DefaultOptions())
	ctx := testContext(t)
	m.view.dispatch(ctx, elicit.Type{Index: 0, Text: "Ada"})

	m.Primary().Run(ctx)
	require.Len(t, h.answers, 1)
	assert.True(t, m.Primary().Disabled, "disabled while the answer is in flight")
	s, _ := m.Secondary()
	s.Run(ctx)
	m.Primary().Run(ctx)
	assert.Len(t, h.answers, 1, "nothing else is sent while one answer is in flight")

	h.done[0](ctx, api.ErrUnreachable)
	got, _ := h.lastProblem()
	assert.Equal(t, "Not answered: the server is not reachable.", got)
	require.False(t, m.Primary().Disabled, "a failure lets the person try again")
	m.Primary().Run(ctx)
	require.Len(t, h.answers, 2)
	got, _ = h.lastProblem()
	assert.Equal(t, "", got, "a new attempt clears the old problem")
	h.done[1](ctx, nil)
	got, _ = h.lastProblem()
	assert.Equal(t, "", got)
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unreachable", fmt.Errorf("%w (dial tcp: refused)", api.ErrUnreachable), "the server is not reachable"},
		{"validation", &protocol.ValidationError{Fields: map[string]string{"mail": "must be an email address"}}, "must be an email address"},
		{"api fields", &api.Error{Status: 400, ErrorResponse: protocol.ErrorResponse{Error: "bad", Fields: map[string]string{"content": "is required"}}}, "is required"},
		{"api message", &api.Error{Status: 409, ErrorResponse: protocol.ErrorResponse{Error: "already answered"}}, "already answered"},
		{"other", errors.New("boom"), "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Describe(tt.err))
		})
	}
}

// ---- FormView with a custom field renderer

func customColour(complete *bool) elicitation.FieldRenderer {
	return func(f elicit.Field, fc elicitation.FieldContext) *elicitation.FieldControl {
		if f.Key != "color" && f.Key != "" {
			return nil // keep the built-in control
		}
		return &elicitation.FieldControl{
			Render:   func() app.UI { return app.Div().Class("swatches").Text("pick a swatch") },
			Value:    func() json.RawMessage { return json.RawMessage(`"blue"`) },
			Complete: func() bool { return *complete },
		}
	}
}

func TestFormViewTakesCustomControls(t *testing.T) {
	req := threeQuestions()
	complete := false
	var effects [][]elicit.Effect
	v := NewFormView(elicit.New(req, elicit.DefaultOptions()), "p", customColour(&complete), func(f func()) { f() },
		func(_ app.Context, effs []elicit.Effect) { effects = append(effects, effs) })
	ctx := testContext(t)

	v.Form().Dispatch(elicit.Type{Index: 0, Text: "Ada"})
	assert.False(t, v.CanProceed(), "the custom control is required and not complete")
	assert.Equal(t, "Colour", render(t, v.Chips()).one(t, "#p-chip-1").textContent())
	complete = true
	assert.True(t, v.CanProceed())
	assert.Equal(t, "Colour ✓", render(t, v.Chips()).one(t, "#p-chip-1").textContent())

	fields := render(t, v.Fields())
	assert.Equal(t, "pick a swatch", fields.one(t, "#p-1-field").one(t, ".swatches").textContent())
	fields.one(t, "#p-0-input")

	effs := v.Submit()
	require.Len(t, effs, 1)
	send, ok := effs[0].(elicit.Send)
	require.True(t, ok, "got %#v, want a Send", effs[0])
	assert.JSONEq(t, `{"name":"Ada","color":"blue"}`, string(send.Content))
	v.dispatch(ctx, elicit.Goto{Index: 2})
	assert.Equal(t, [][]elicit.Effect{{elicit.Show{Index: 2}}}, effects)
}

func TestFormViewCustomControlOfALoneQuestionIsTheContent(t *testing.T) {
	complete := true
	req := ask("Colour?", &protocol.Schema{Type: "string"})
	v := NewFormView(elicit.New(req, elicit.DefaultOptions()), "p", customColour(&complete), func(f func()) { f() }, func(app.Context, []elicit.Effect) {})
	effs := v.Submit()
	require.Len(t, effs, 1)
	assert.Equal(t, elicit.Send{Content: json.RawMessage(`"blue"`)}, effs[0])
}

func TestFormViewValidatesBuiltInFieldsBesideCustomOnes(t *testing.T) {
	complete := true
	req := ask("Contact", &protocol.Schema{Type: "object", Properties: protocol.Properties{
		{Key: "mail", Schema: &protocol.Schema{Type: "string", Format: "email"}},
		{Key: "color", Schema: &protocol.Schema{Type: "string"}},
	}, Required: []string{"mail"}})
	v := NewFormView(elicit.New(req, elicit.DefaultOptions()), "p", customColour(&complete), func(f func()) { f() }, func(app.Context, []elicit.Effect) {})
	v.Form().Dispatch(elicit.Type{Index: 0, Text: "nope"})
	for _, e := range v.Submit() {
		if s, ok := e.(elicit.Send); ok {
			t.Fatalf("sent %s, want the email refused", s.Content)
		}
	}
}
