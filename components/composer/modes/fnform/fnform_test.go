package fnform

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/locale"
	"parley/components/composer/modes"
	"parley/components/composer/modes/modetest"
	"parley/components/internal/domtest"
	"parley/i18n"
	"parley/machine/elicit"
	"parley/protocol"
)

// The tests are in the package: a DOM event cannot be fired natively, so typing or picking
// in the select is simulated by what its handler does (the form's Dispatch, m.choose).

// ---- the fn-form

func greet() protocol.Function {
	min := 1.0
	return protocol.Function{Name: "greet", Title: "Greet", Description: "Say hello", Source: "builtin", Params: &protocol.Schema{
		Type: "object",
		Properties: protocol.Properties{
			{Key: "name", Schema: &protocol.Schema{Type: "string", Title: "Name", Default: json.RawMessage(`"world"`)}},
			{Key: "loud", Schema: &protocol.Schema{Type: "boolean", Title: "Loud", Default: json.RawMessage(`false`)}},
			{Key: "times", Schema: &protocol.Schema{Type: "integer", Title: "Times", Minimum: &min, Default: json.RawMessage(`2`)}},
			{Key: "to", Schema: &protocol.Schema{Type: "string", Title: "To"}},
		},
		Required: []string{"name", "to"},
	}}
}

func count() protocol.Function {
	return protocol.Function{Name: "count", Source: ".parley/functions/count.star", Params: &protocol.Schema{
		Type:       "object",
		Properties: protocol.Properties{{Key: "upto", Schema: &protocol.Schema{Type: "integer", Title: "Up to", Default: json.RawMessage(`10`)}}},
	}}
}

func newForm(t *testing.T, h *modetest.Host, function string) *Mode {
	t.Helper()
	for _, f := range h.Fns {
		if f.Params != nil {
			require.NoError(t, f.Params.Check(), "fixture %s", f.Name)
		}
	}
	m, ok := New(h, modes.Input{Key: "k1", Function: function, Options: elicit.DefaultOptions()}).(*Mode)
	require.True(t, ok)
	return m
}

func TestWithoutFunctionsItSaysNoneAreAvailable(t *testing.T) {
	for _, function := range []string{"", "greet"} {
		t.Run("asked for "+strconv.Quote(function), func(t *testing.T) {
			m := newForm(t, &modetest.Host{}, function)
			body := domtest.Render(t, m.Body())
			assert.Equal(t, "No functions are available: add one under .parley/functions in the workspace.", body.One(t, "p.fn-empty").TextContent())
			p := m.Primary()
			assert.True(t, p.Disabled)
			options := domtest.Render(t, m.Header()).One(t, "select#fn-pick").All("option")
			require.Len(t, options, 1, "only the prompt")
			assert.True(t, options[0].Flag("disabled"))
		})
	}
	m := newForm(t, &modetest.Host{}, "")
	assert.Equal(t, "Run", m.Primary().Label)
	assert.Equal(t, "Choose a function first", m.Primary().Title)
	assert.Equal(t, "Run a function", m.Label())
}

func TestWithoutAChoiceItAsksForOne(t *testing.T) {
	m := newForm(t, &modetest.Host{Fns: []protocol.Function{greet(), count()}}, "")
	assert.Equal(t, "Choose the function to run.", domtest.Render(t, m.Body()).One(t, "p.fn-empty").TextContent())
	options := domtest.Render(t, m.Header()).All("option")
	require.Len(t, options, 3)
	assert.Equal(t, []string{"Choose a function…", "Greet", "count"}, domtest.Texts(options))
	assert.True(t, options[0].Flag("selected"), "the prompt is selected")
	assert.True(t, m.Primary().Disabled)
}

func TestFunctionFieldsAreSeededFromTheirDefaults(t *testing.T) {
	m := newForm(t, &modetest.Host{Fns: []protocol.Function{greet(), count()}}, "greet")
	assert.Equal(t, "Run Greet", m.Label())

	options := domtest.Render(t, m.Header()).All("option")
	require.Len(t, options, 3)
	assert.Equal(t, "greet", options[1].Attrs["value"])
	assert.True(t, options[1].Flag("selected"), "the function is selected in the picker")
	assert.False(t, options[0].Flag("selected"))

	body := domtest.Render(t, m.Body())
	assert.Equal(t, "Say hello", body.One(t, "p.fn-description").TextContent())
	assert.Empty(t, body.All(".is-hidden"), "a function's form shows every field at once")
	assert.Empty(t, body.All("button.choice"), "no answer-on-click in a form")
	fields := body.All(".field")
	require.Len(t, fields, 4)
	assert.Equal(t, "world", fields[0].One(t, "input").Attrs["value"])
	radios := fields[1].All("input[type=radio]")
	require.Len(t, radios, 2)
	assert.Equal(t, []string{"Yes", "No"}, domtest.Texts(fields[1].All(".option-label")))
	assert.False(t, radios[0].Flag("checked"), "true is not checked")
	assert.Equal(t, "false", radios[1].Attrs["value"])
	assert.True(t, radios[1].Flag("checked"), "the default false is checked")
	times := fields[2].One(t, "input")
	assert.Equal(t, "2", times.Attrs["value"])
	assert.Equal(t, "number", times.Attrs["type"])
	assert.Equal(t, "1", times.Attrs["min"])
	to := fields[3].One(t, "input")
	assert.Empty(t, to.Attrs["value"])
	assert.True(t, to.Flag("aria-required"))
}

func TestPrimaryWaitsForEveryRequiredField(t *testing.T) {
	tests := []struct {
		name     string
		events   []elicit.Event
		disabled bool
	}{
		{"defaults only", nil, true},
		{"to typed", []elicit.Event{elicit.Type{Index: 3, Text: "Bob"}}, false},
		{"to blank", []elicit.Event{elicit.Type{Index: 3, Text: "   "}}, true},
		{"default cleared", []elicit.Event{elicit.Type{Index: 3, Text: "Bob"}, elicit.Type{Index: 0, Text: ""}}, true},
		{"optional cleared", []elicit.Event{elicit.Type{Index: 3, Text: "Bob"}, elicit.Type{Index: 2, Text: ""}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newForm(t, &modetest.Host{Fns: []protocol.Function{greet()}}, "greet")
			for _, ev := range tt.events {
				m.view.Form().Dispatch(ev)
			}
			p := m.Primary()
			assert.Equal(t, tt.disabled, p.Disabled)
			assert.Equal(t, "Run Greet", p.Label)
		})
	}
}

func TestSecondaryCloses(t *testing.T) {
	h := &modetest.Host{Fns: []protocol.Function{greet()}}
	m := newForm(t, h, "greet")
	s, ok := m.Secondary()
	require.True(t, ok)
	assert.Equal(t, "Close", s.Label)
	_, ctx := modetest.Context(t)
	s.Run(ctx)
	assert.Equal(t, 1, h.Closes)
}

func TestABrokenFunctionShowsItsError(t *testing.T) {
	tests := []struct {
		name   string
		params *protocol.Schema
	}{
		{"no params", nil},
		{"with params", count().Params},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			broken := protocol.Function{Name: "broken", Source: ".parley/functions/broken.star", Params: tt.params, Error: "syntax error <line 3>"}
			m := newForm(t, &modetest.Host{Fns: []protocol.Function{greet(), broken}}, "broken")
			body := domtest.Render(t, m.Body())
			alert := body.One(t, "p.fn-broken")
			assert.Equal(t, "alert", alert.Attrs["role"])
			assert.Equal(t, "broken does not load: syntax error <line 3>", alert.TextContent())
			assert.Empty(t, body.All("input"))
			assert.True(t, m.Primary().Disabled, "a function that does not load cannot run")
			opt := domtest.Render(t, m.Header()).One(t, "option[value=broken]")
			assert.True(t, opt.Flag("disabled"))
			assert.Equal(t, "broken (does not load)", opt.TextContent())

			// In the page's locale: the function's name and its error are content.
			locale.Use(i18n.Chinese)
			defer locale.Use(i18n.English)
			assert.Equal(t, "broken 无法加载：syntax error <line 3>", domtest.Render(t, m.Body()).One(t, "p.fn-broken").TextContent())
			assert.Equal(t, "broken（无法加载）", domtest.Render(t, m.Header()).One(t, "option[value=broken]").TextContent())
		})
	}
}

func TestChoosingAnotherFunctionReseeds(t *testing.T) {
	h := &modetest.Host{Fns: []protocol.Function{greet(), count()}}
	m := newForm(t, h, "greet")
	m.view.Form().Dispatch(elicit.Type{Index: 0, Text: "Ada"})
	first := domtest.Render(t, m.Body())
	// The value attribute is what the control started with: what is typed is the browser's,
	// and a render never writes it back over the focused field.
	assert.Equal(t, "world", first.One(t, "#k1-1-0-input").Attrs["value"])
	firstTag := first.Kids[0].Tag

	m.choose("count") // what the picker's change handler does
	second := domtest.Render(t, m.Body())
	assert.Equal(t, "10", second.One(t, "#k1-2-0-input").Attrs["value"], "count's own default, in fresh ids")
	assert.Empty(t, second.All("#k1-1-0-input"))
	assert.NotEqual(t, firstTag, second.Kids[0].Tag, "a new function's fields go into new elements")
	assert.Equal(t, "Run count", m.Primary().Label)
	assert.False(t, m.Primary().Disabled)

	m.choose("greet")
	third := domtest.Render(t, m.Body())
	assert.Equal(t, "world", third.One(t, "#k1-3-0-input").Attrs["value"], "the default is back; the typed text is gone")
	assert.NotEqual(t, second.Kids[0].Tag, third.Kids[0].Tag)
}

func TestAListThatArrivesLateFillsTheForm(t *testing.T) {
	h := &modetest.Host{}
	m := newForm(t, h, "greet")
	assert.Equal(t, "Run greet", m.Label(), "the name is kept while the list loads")
	assert.True(t, m.Primary().Disabled)

	h.Fns = []protocol.Function{greet()}
	assert.Equal(t, "Loading greet…", domtest.Render(t, m.Body()).One(t, "p.fn-empty").TextContent())
	m.Refresh()
	body := domtest.Render(t, m.Body())
	assert.Equal(t, "world", body.One(t, "#k1-1-0-input").Attrs["value"])
	assert.Equal(t, "Run Greet", m.Label())
}

func TestRunStartsTheFunctionAndFollowsIt(t *testing.T) {
	var mu sync.Mutex
	var got []protocol.RunFunctionRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req protocol.RunFunctionRequest
		if r.Method != http.MethodPost || r.URL.Path != "/api/functions/greet/run" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":"unexpected request"}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req)
		n := len(got)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"error":"invalid","fields":{"times":"must be at most 5"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"session":"s9","run":"r1"}`))
	}))
	defer srv.Close()

	h := &modetest.Host{Fns: []protocol.Function{greet()}, Base: srv.URL}
	m := newForm(t, h, "greet")
	e, ctx := modetest.Context(t)
	m.view.Form().Dispatch(elicit.Type{Index: 3, Text: "Bob"})

	m.Primary().Run(ctx)
	assert.True(t, m.Primary().Disabled, "disabled while the run starts")
	e.ConsumeAll()
	require.Len(t, got, 1)
	assert.JSONEq(t, `{"name":"world","loud":false,"times":2,"to":"Bob"}`, string(got[0].Args))
	assert.Equal(t, "s1", got[0].Session)
	problem, _ := h.LastProblem()
	assert.Equal(t, "Not run: must be at most 5.", problem)
	assert.Empty(t, h.Runs)

	require.False(t, m.Primary().Disabled, "a failure lets the person try again")
	m.Primary().Run(ctx)
	e.ConsumeAll()
	require.Len(t, got, 2)
	assert.Equal(t, []string{"s9"}, h.Runs, "the view follows the run into its session")
	problem, _ = h.LastProblem()
	assert.Equal(t, "", problem)
}

func TestAnInvalidArgumentIsRefusedBeforeRunning(t *testing.T) {
	h := &modetest.Host{Fns: []protocol.Function{greet()}, Base: "http://127.0.0.1:1"}
	m := newForm(t, h, "greet")
	e, ctx := modetest.Context(t)
	m.view.Form().Dispatch(elicit.Type{Index: 3, Text: "Bob"})
	m.view.Form().Dispatch(elicit.Type{Index: 2, Text: "0"})
	m.Primary().Run(ctx)
	e.ConsumeAll()
	assert.Empty(t, h.Runs)
	errs := m.view.Form().Errors()
	assert.Contains(t, errs, "times", "the minimum is checked on this side")
	body := domtest.Render(t, m.Body())
	assert.Equal(t, "alert", body.One(t, "#k1-1-2-error").Attrs["role"])
	problem, _ := h.LastProblem()
	assert.Equal(t, "", problem, "nothing was sent")
}

// TestRunSaysWhyItCannotRunYet: a form with a required field left empty cannot run, and says
// why in a hint the container shows under the fields; once it can, the hint says so
// (docs/qa-round11.md #9).
func TestRunSaysWhyItCannotRunYet(t *testing.T) {
	m := newForm(t, &modetest.Host{Fns: []protocol.Function{greet(), count()}}, "greet")
	p := m.Primary()
	require.True(t, p.Disabled, "To is required and empty")
	assert.Equal(t, "Fill in every required field (*) to run it.", p.Hint)
	assert.Equal(t, p.Hint, p.Title)

	m.choose("count")
	p = m.Primary()
	require.False(t, p.Disabled)
	assert.Equal(t, "Ready: Enter or Run runs count.", p.Hint)

	assert.Empty(t, newForm(t, &modetest.Host{Fns: []protocol.Function{greet()}}, "").Primary().Hint, "no function chosen: the body asks for one")
}
