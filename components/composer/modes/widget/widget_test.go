package widget

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/app/elicitation"
	"parley/components/composer/modes/modetest"
	"parley/components/internal/domtest"
	"parley/machine/elicit"
	"parley/protocol"
)

// The question and fn-form modes' tests drive FormView through their modes; these cover what
// only a host's field renderer reaches, and the wording of failures.

var ask = modetest.Ask

var threeQuestions = modetest.ThreeQuestions

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
	ctx := modetest.NewContext(t)

	v.Form().Dispatch(elicit.Type{Index: 0, Text: "Ada"})
	assert.False(t, v.CanProceed(), "the custom control is required and not complete")
	assert.Equal(t, "Colour", domtest.Render(t, v.Chips()).One(t, "#p-chip-1").TextContent())
	complete = true
	assert.True(t, v.CanProceed())
	assert.Equal(t, "Colour ✓", domtest.Render(t, v.Chips()).One(t, "#p-chip-1").TextContent())

	fields := domtest.Render(t, v.Fields())
	assert.Equal(t, "pick a swatch", fields.One(t, "#p-1-field").One(t, ".swatches").TextContent())
	fields.One(t, "#p-0-input")

	effs := v.Submit()
	require.Len(t, effs, 1)
	_, ok := effs[0].(elicit.Send)
	require.True(t, ok, "got %#v, want a Send", effs[0])
	assert.JSONEq(t, `{"name":"Ada","color":"blue"}`, string(v.Content()))
	v.Dispatch(ctx, elicit.Goto{Index: 2})
	assert.Equal(t, [][]elicit.Effect{{elicit.Show{Index: 2}}}, effects)
}

func TestFormViewCustomControlOfALoneQuestionIsTheContent(t *testing.T) {
	complete := true
	req := ask("Colour?", &protocol.Schema{Type: "string"})
	v := NewFormView(elicit.New(req, elicit.DefaultOptions()), "p", customColour(&complete), func(f func()) { f() }, func(app.Context, []elicit.Effect) {})
	effs := v.Submit()
	require.Len(t, effs, 1)
	assert.Equal(t, elicit.Send{Version: v.Form().Version()}, effs[0])
	assert.Equal(t, `"blue"`, string(v.Content()))
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
		if _, ok := e.(elicit.Send); ok {
			t.Fatalf("sent %s, want the email refused", v.Content())
		}
	}
}

// TestRequestWordsNameABatchRequest: a batch request's answer group is named by its command,
// one line, cut short (QA round 22: "Answer request 2" named none).
func TestRequestWordsNameABatchRequest(t *testing.T) {
	for _, c := range []struct{ details, want string }{
		{"echo s1-a", "echo s1-a"},
		{"  git push origin main\nin /work/repo\n", "git push origin main"},
		{strings.Repeat("é", 100), strings.Repeat("é", 79) + "…"},
		{"", ""},
	} {
		assert.Equal(t, c.want, RequestWords(c.details), "%q", c.details)
	}
}
