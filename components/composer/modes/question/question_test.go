package question

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/components/composer/modes"
	"parley/components/composer/modes/modetest"
	"parley/components/internal/domtest"
	"parley/machine/composer"
	"parley/machine/elicit"
	"parley/protocol"
)

// The tests are in the package: a DOM event cannot be fired natively, so a click or a
// keystroke is simulated by the form event its handler dispatches (m.view.Dispatch).

func newMode(t *testing.T, h *modetest.Host, req protocol.DecisionRequest, opts elicit.Options) *Mode {
	t.Helper()
	require.NoError(t, req.Validate(), "the fixture must be a valid request")
	m, ok := New(h, modes.Input{Key: "k1", Decision: composer.Decision{ID: "d1", Request: req}, Options: opts}).(*Mode)
	require.True(t, ok)
	return m
}

var ask = modetest.Ask

func no() *bool { b := false; return &b }

func num(x float64) *float64 { return &x }

func intp(n int) *int { return &n }

// ---- the question mode

func TestLoneChoiceRendersAButtonPerChoiceAndOther(t *testing.T) {
	req := ask("Which database?", &protocol.Schema{Type: "string", Enum: []string{"pg", "my", "lite"}, EnumNames: []string{"Postgres", "MySQL", "SQLite"}})
	h := &modetest.Host{}
	m := newMode(t, h, req, elicit.DefaultOptions())

	body := domtest.Render(t, m.Body())
	var labels []string
	for _, b := range body.All("button.choice") {
		if !b.HasClass("choice-other") {
			labels = append(labels, b.One(t, ".choice-label").TextContent())
		}
	}
	assert.Equal(t, []string{"Postgres", "MySQL", "SQLite"}, labels)
	other := body.One(t, "button.choice-other")
	assert.Equal(t, "Other…", other.TextContent())
	assert.Equal(t, "false", other.Attrs["aria-pressed"])
	assert.Empty(t, body.All("input[type=radio]"), "a lone choice is buttons, not radios")
	assert.Equal(t, "Which database?", body.One(t, "p.question-message").TextContent())

	p := m.Primary()
	assert.True(t, p.Disabled, "the click answers a lone choice, not the send button")
	assert.Equal(t, "Pick an answer: the click sends it", p.Title)
	assert.Equal(t, "Question: Which database?", m.Label())

	ctx := modetest.NewContext(t)
	m.view.Dispatch(ctx, elicit.Pick{Index: 0, Value: "my"})
	require.Len(t, h.Answers, 1, "a click on a lone choice answers")
	assert.Equal(t, "d1", h.Answers[0].ID)
	assert.Equal(t, protocol.ActionAccept, h.Answers[0].Reply.Action)
	assert.JSONEq(t, `"my"`, string(h.Answers[0].Reply.Content))
}

func TestLoneChoiceOtherGoesThroughTheSendButton(t *testing.T) {
	req := ask("Which database?", &protocol.Schema{Type: "string", Enum: []string{"pg", "my"}})
	h := &modetest.Host{}
	m := newMode(t, h, req, elicit.DefaultOptions())
	ctx := modetest.NewContext(t)

	m.view.Dispatch(ctx, elicit.ChooseOther{Index: 0})
	body := domtest.Render(t, m.Body())
	assert.True(t, body.One(t, "button.choice-other").Flag("aria-pressed"))
	in := body.One(t, "input.other-input")
	assert.Equal(t, "k1-0-other-text", in.Attrs["id"])
	assert.True(t, m.Primary().Disabled, "Other with no text is no answer")

	m.view.Dispatch(ctx, elicit.TypeOther{Index: 0, Text: "duckdb"})
	p := m.Primary()
	require.False(t, p.Disabled, "typed Other goes through the send button")
	p.Run(ctx)
	require.Len(t, h.Answers, 1)
	assert.JSONEq(t, `"duckdb"`, string(h.Answers[0].Reply.Content))
}

func TestChoiceWithoutAnswerOnClickUsesRadios(t *testing.T) {
	req := ask("Which database?", &protocol.Schema{Type: "string", Enum: []string{"pg", "my"}, AllowOther: no()})
	h := &modetest.Host{}
	opts := elicit.DefaultOptions()
	opts.AnswerOnClick = false
	m := newMode(t, h, req, opts)
	ctx := modetest.NewContext(t)

	body := domtest.Render(t, m.Body())
	assert.Empty(t, body.All("button.choice"))
	group := body.One(t, "[role=radiogroup]")
	assert.Equal(t, "k1-message", group.Attrs["aria-labelledby"], "a lone question is named by the message")
	assert.Len(t, group.All("input[type=radio]"), 2)
	assert.True(t, m.Primary().Disabled)

	m.view.Dispatch(ctx, elicit.Pick{Index: 0, Value: "pg"})
	assert.Empty(t, h.Answers, "without answer-on-click a pick does not send")
	radios := domtest.Render(t, m.Body()).All("input[type=radio]")
	assert.True(t, radios[0].Flag("checked"), "the picked radio is checked")
	assert.False(t, radios[1].Flag("checked"))
	m.Primary().Run(ctx)
	require.Len(t, h.Answers, 1)
	assert.JSONEq(t, `"pg"`, string(h.Answers[0].Reply.Content))
}

// threeQuestions is a stepped form: two required questions and an optional one.
var threeQuestions = modetest.ThreeQuestions

func TestSteppedFormDrawsChipsAndHidesAllButTheCurrentField(t *testing.T) {
	h := &modetest.Host{}
	m := newMode(t, h, threeQuestions(), elicit.DefaultOptions())
	ctx := modetest.NewContext(t)

	header := domtest.Render(t, m.Header())
	assert.Equal(t, "Question", header.One(t, ".badge").TextContent())
	header.One(t, "[role=tablist]")
	chips := header.All("[role=tab]")
	require.Len(t, chips, 3)
	assert.Equal(t, []string{"Name", "Colour", "Notify"}, domtest.Texts(chips))
	for i, c := range chips {
		assert.Equal(t, i == 0, c.Flag("aria-selected"), "chip %d aria-selected=%q", i, c.Attrs["aria-selected"])
		assert.Equal(t, "k1-panel", c.Attrs["aria-controls"])
		assert.Equal(t, "k1-chip-"+strconv.Itoa(i), c.Attrs["id"])
	}
	assert.Equal(t, "false", chips[1].Attrs["aria-selected"])

	body := domtest.Render(t, m.Body())
	panel := body.One(t, "#k1-panel")
	assert.Equal(t, "tabpanel", panel.Attrs["role"])
	assert.Equal(t, "k1-chip-0", panel.Attrs["aria-labelledby"])
	fields := panel.All(".field")
	require.Len(t, fields, 3, "every field is in the DOM, so each keeps its elements")
	for i, f := range fields {
		assert.Equal(t, "k1-"+strconv.Itoa(i)+"-field", f.Attrs["id"])
		assert.Equal(t, i != 0, f.HasClass("is-hidden"), "field %d class=%q", i, f.Attrs["class"])
	}
	assert.Equal(t, "Your name *", fields[0].One(t, ".field-title").TextContent(), "a required question is marked")
	assert.Equal(t, "Colour *", fields[1].One(t, ".field-title").TextContent(), "the header stands in for a missing title")

	assert.False(t, m.view.CanProceed())
	p := m.Primary()
	assert.True(t, p.Disabled)
	assert.Equal(t, "Answer every required question first", p.Title)

	m.view.Dispatch(ctx, elicit.Type{Index: 0, Text: "Ada"})
	chip0 := domtest.Render(t, m.Header()).One(t, "#k1-chip-0")
	assert.Equal(t, "Name ✓", chip0.TextContent())
	assert.True(t, chip0.HasClass("chip-answered"))
	assert.Equal(t, "Name, answered", chip0.Attrs["aria-label"])
	assert.False(t, m.view.CanProceed(), "colour is still required")

	m.view.Dispatch(ctx, elicit.Goto{Index: 1})
	body = domtest.Render(t, m.Body())
	assert.False(t, body.One(t, "#k1-1-field").HasClass("is-hidden"), "the chip's field shows")
	assert.True(t, body.One(t, "#k1-0-field").HasClass("is-hidden"))
	assert.Equal(t, "k1-chip-1", body.One(t, "#k1-panel").Attrs["aria-labelledby"])

	laters := h.Laters
	m.view.Dispatch(ctx, elicit.Pick{Index: 1, Value: "green"})
	assert.Equal(t, 2, m.view.Form().Current(), "a pick moves on to the next unanswered question")
	assert.Equal(t, laters+1, h.Laters, "and focuses it after the render")
	assert.Empty(t, h.Answers, "a pick in a form never sends")
	assert.True(t, m.view.CanProceed())
	require.False(t, m.Primary().Disabled)
	assert.True(t, domtest.Render(t, m.Header()).One(t, "#k1-chip-2").Flag("aria-selected"))
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
			h := &modetest.Host{}
			m := newMode(t, h, threeQuestions(), elicit.DefaultOptions())
			ctx := modetest.NewContext(t)
			for _, ev := range tt.events {
				m.view.Dispatch(ctx, ev)
			}
			p := m.Primary()
			require.False(t, p.Disabled)
			p.Run(ctx)
			require.Len(t, h.Answers, 1)
			got := h.Answers[0].Reply
			assert.Equal(t, protocol.ActionAccept, got.Action)
			assert.JSONEq(t, tt.want, string(got.Content))
			assert.NoError(t, protocol.ValidateReply(threeQuestions(), got), "the server takes what the form sends")
		})
	}
}

func TestSecondaryDeclines(t *testing.T) {
	h := &modetest.Host{}
	m := newMode(t, h, threeQuestions(), elicit.DefaultOptions())
	s, ok := m.Secondary()
	require.True(t, ok)
	assert.Equal(t, "Decline", s.Label)
	assert.False(t, s.Disabled)
	s.Run(modetest.NewContext(t))
	require.Len(t, h.Answers, 1)
	assert.Equal(t, protocol.ReplyRequest{Action: protocol.ActionDecline}, h.Answers[0].Reply)
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
			h := &modetest.Host{}
			req := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Delete 3 files?", Schema: tt.schema}
			m := newMode(t, h, req, elicit.DefaultOptions())
			assert.Equal(t, "Confirm", domtest.Render(t, m.Header()).One(t, ".badge").TextContent())
			body := domtest.Render(t, m.Body())
			buttons := body.All("button.choice")
			require.Len(t, buttons, 2, "a confirm has no Other")
			assert.Equal(t, tt.wantLabel, domtest.Texts(buttons))
			assert.True(t, buttons[0].HasClass("tone-affirm"), "yes is the affirming answer")
			assert.True(t, buttons[1].HasClass("tone-neutral"))

			m.view.Dispatch(modetest.NewContext(t), elicit.Pick{Index: 0, Value: "false"})
			require.Len(t, h.Answers, 1)
			assert.JSONEq(t, `false`, string(h.Answers[0].Reply.Content))
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
		{"text", &protocol.Schema{Type: "string", MaxLength: intp(20), Placeholder: "Ada"}, "text", "input[type=text]", 1, map[string]string{"placeholder": "Ada"}},
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
	m := newMode(t, &modetest.Host{}, req, opts)
	body := domtest.Render(t, m.Body())
	assert.Empty(t, body.All(".is-hidden"), "a stacked form shows every field")
	assert.Empty(t, domtest.Render(t, m.Header()).All("[role=tab]"), "a stacked form has no chips")

	for i, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			field := body.One(t, "#k1-"+strconv.Itoa(i)+"-field")
			assert.True(t, field.HasClass("field-"+tt.kind), "class=%q, want field-%s", field.Attrs["class"], tt.kind)
			controls := field.All(tt.sel)
			require.Len(t, controls, tt.count, "%s in field %s", tt.sel, tt.key)
			for name, want := range tt.attrs {
				got, ok := controls[0].Attrs[name]
				assert.True(t, ok && got == want, "%s=%q, want %q", name, got, want)
			}
			// A maxLength is counted in characters, shown and checked by the form; the
			// browser's maxlength counts UTF-16 units and cut "ab😀😀c" to "ab😀c" unsaid
			// (QA round 21).
			assert.NotContains(t, controls[0].Attrs, "maxlength")
			switch tt.sel {
			case "input[type=radio]":
				group := field.One(t, "[role=radiogroup]")
				assert.Equal(t, "k1-"+strconv.Itoa(i)+"-title", group.Attrs["aria-labelledby"])
				for _, r := range controls {
					assert.Equal(t, "k1-"+strconv.Itoa(i)+"-radio", r.Attrs["name"], "one group per field")
				}
			case "input[type=checkbox]":
				group := field.One(t, "[role=group]")
				assert.Equal(t, "k1-"+strconv.Itoa(i)+"-title", group.Attrs["aria-labelledby"])
			default:
				c := controls[0]
				assert.Equal(t, "k1-"+strconv.Itoa(i)+"-input", c.Attrs["id"])
				assert.Equal(t, "k1-"+strconv.Itoa(i)+"-title", c.Attrs["aria-labelledby"])
				assert.Equal(t, "false", c.Attrs["aria-invalid"])
				assert.Equal(t, tt.key == "text", c.Flag("aria-required"), "aria-required only on the required field")
			}
		})
	}
	assert.Equal(t, []string{"Yes", "No"}, domtest.Texts(body.One(t, "#k1-11-field").All(".option-label")))
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

			h := &modetest.Host{}
			m := newMode(t, h, tt.req, elicit.DefaultOptions())
			ctx := modetest.NewContext(t)
			before := domtest.Render(t, m.Body())
			assert.Empty(t, before.All(".field-error"))
			assert.Equal(t, "false", before.One(t, "#k1-0-input").Attrs["aria-invalid"])

			m.view.Dispatch(ctx, elicit.Type{Index: 0, Text: "nope"})
			p := m.Primary()
			require.False(t, p.Disabled, "the format is checked on send, not while typing")
			p.Run(ctx)
			assert.Empty(t, h.Answers, "an invalid answer is not sent")

			body := domtest.Render(t, m.Body())
			e := body.One(t, ".field-error")
			assert.Equal(t, "alert", e.Attrs["role"])
			assert.Equal(t, "k1-0-error", e.Attrs["id"])
			assert.Equal(t, want, e.TextContent())
			in := body.One(t, "#k1-0-input")
			assert.True(t, in.Flag("aria-invalid"), "aria-invalid=%q", in.Attrs["aria-invalid"])
			assert.Contains(t, strings.Fields(in.Attrs["aria-describedby"]), "k1-0-error")

			m.view.Dispatch(ctx, elicit.Type{Index: 0, Text: "ada@example.com"})
			assert.Empty(t, domtest.Render(t, m.Body()).All(".field-error"), "a change drops the stale message")
			m.Primary().Run(ctx)
			require.Len(t, h.Answers, 1)
		})
	}
}

// TestARecommendedRadioSaysSo (QA round 17): in a form of several questions a recommended
// option's radio says "recommended", as a lone choice's button does.
func TestARecommendedRadioSaysSo(t *testing.T) {
	req := ask("Deploy settings", &protocol.Schema{Type: "object", Properties: protocol.Properties{
		{Key: "channel", Schema: &protocol.Schema{Type: "string", OneOf: []protocol.EnumOption{
			{Const: "stable", Title: "Stable", Recommended: true}, {Const: "beta", Title: "Beta"}}, AllowOther: no()}},
		{Key: "notes", Schema: &protocol.Schema{Type: "string"}},
	}})
	m := newMode(t, &modetest.Host{}, req, elicit.DefaultOptions())
	labels := domtest.Render(t, m.Body()).All(".option-label")
	require.Len(t, labels, 2, "the choice is radios")
	assert.Equal(t, "Stable recommended", labels[0].TextContent())
	assert.Equal(t, "Beta", labels[1].TextContent())
}

func TestAgentTextIsEscaped(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	req := ask(evil, &protocol.Schema{Type: "object", Properties: protocol.Properties{
		{Key: "a", Schema: &protocol.Schema{Type: "string", Title: "<b>Name</b>", Description: "<i>why</i> & more", Placeholder: `<img src=x>`}},
		{Key: "b", Schema: &protocol.Schema{Type: "string", OneOf: []protocol.EnumOption{{Const: "x", Title: "<img src=x onerror=alert(1)>", Description: "<u>d</u>"}}}},
	}})
	opts := elicit.DefaultOptions()
	opts.Layout = elicit.Stacked
	m := newMode(t, &modetest.Host{}, req, opts)
	raw := app.HTMLString(m.Body())
	for _, tag := range []string{"<script", "<b>", "<i>", "<u>"} {
		assert.NotContains(t, raw, tag)
	}
	assert.Contains(t, raw, "&lt;img src=x onerror=alert(1)&gt;")
	body := domtest.Parse(t, raw)
	assert.Equal(t, evil, body.One(t, "p.question-message").TextContent())
	assert.Equal(t, "<b>Name</b>", body.One(t, "#k1-0-title").TextContent())
	assert.Equal(t, "<i>why</i> & more", body.One(t, "#k1-0-desc").TextContent())
	assert.Equal(t, `<img src=x>`, body.One(t, "#k1-0-input").Attrs["placeholder"])
	assert.Equal(t, "<img src=x onerror=alert(1)>", body.All(".option-label")[0].TextContent())
	assert.Equal(t, "<u>d</u>", body.One(t, ".option-description").TextContent())
	assert.Equal(t, "Question: "+evil, m.Label(), "the dialog's name is an attribute, escaped by the renderer")
}

func TestAFailedAnswerIsShownAndCanBeRetried(t *testing.T) {
	h := &modetest.Host{}
	m := newMode(t, h, ask("Name?", &protocol.Schema{Type: "string"}), elicit.DefaultOptions())
	ctx := modetest.NewContext(t)
	m.view.Dispatch(ctx, elicit.Type{Index: 0, Text: "Ada"})

	m.Primary().Run(ctx)
	require.Len(t, h.Answers, 1)
	assert.True(t, m.Primary().Disabled, "disabled while the answer is in flight")
	s, _ := m.Secondary()
	s.Run(ctx)
	m.Primary().Run(ctx)
	assert.Len(t, h.Answers, 1, "nothing else is sent while one answer is in flight")

	h.Done[0](ctx, api.ErrUnreachable)
	got, _ := h.LastProblem()
	assert.Equal(t, "Not answered: the server is not reachable.", got)
	require.False(t, m.Primary().Disabled, "a failure lets the person try again")
	m.Primary().Run(ctx)
	require.Len(t, h.Answers, 2)
	got, _ = h.LastProblem()
	assert.Equal(t, "", got, "a new attempt clears the old problem")
	h.Done[1](ctx, nil)
	got, _ = h.LastProblem()
	assert.Equal(t, "", got)
}
