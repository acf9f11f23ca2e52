package components

import (
	"strings"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/components/inputbar"
	"parley/i18n"
	"parley/protocol"
)

// starters are what the empty page offers to begin with: a few of the workspace's examples,
// /help, its functions and, once a model is configured, a few prompts. They are read when
// the hero gets its session; a starter that cannot be read is left out, never an error.
type starters struct {
	workspace string
	examples  []protocol.CommandInfo
	functions []protocol.Function
	model     bool
	// modelKnown says the model list was read: only then does "no model" mean none is
	// configured (the hero says so, and how to configure one).
	modelKnown bool
}

// maxStarterExamples and maxStarterFunctions keep the empty page short.
const (
	maxStarterExamples  = 3
	maxStarterFunctions = 2
)

// starterPrompts are offered once a model is configured.
var starterPrompts = []struct{ label, text i18n.Msg }{
	{i18n.StarterWhatIs, i18n.StarterWhatIsText},
	{i18n.StarterChanged, i18n.StarterChangedText},
}

// actionStart carries a starter's prompt to the conversation, which sends it on the hero's
// blank session.
const actionStart = "parley.start"

// loadStarters reads the hero's starters for workspace ws.
func (c *Conversation) loadStarters(ctx app.Context, ws string) {
	if c.starters.workspace == ws && (len(c.starters.examples) > 0 || len(c.starters.functions) > 0) {
		return
	}
	client := clientOf(ctx)
	ctx.Async(func() {
		s := starters{workspace: ws}
		if cmds, err := client.ListCommandsIn(ctx, ws); err == nil {
			s.examples = cmds.Examples
		}
		if fns, err := client.ListFunctionsIn(ctx, ws); err == nil {
			for _, f := range fns {
				if f.Error == "" {
					s.functions = append(s.functions, f)
				}
			}
		}
		if models, err := client.Models(ctx); err == nil {
			s.model, s.modelKnown = models.Configured, true
		}
		ctx.Dispatch(func(ctx app.Context) {
			if c.workspace == ws {
				c.starters = s
			}
		})
	})
}

// onStart sends a starter's prompt, as if typed, on the hero's blank session: its echo on
// the socket makes it a session like any other (engaged).
func (c *Conversation) onStart(ctx app.Context, a app.Action) {
	text, ok := a.Value.(string)
	if !ok || c.session == "" || !c.blank {
		return
	}
	client, session := clientOf(ctx), c.session
	req := protocol.SendPromptRequest{Text: text, AttemptID: api.NewAttemptID()}
	c.started = req.AttemptID // its echo is this page's own (engaged)
	ctx.Async(func() {
		if _, err := client.SendPrompt(ctx, session, req); err != nil {
			ctx.Dispatch(func(ctx app.Context) { c.setNotice(tr(i18n.NotSent, describeError(err)), false) })
		}
	})
}

// renderStarters draws the starters under the hero's composer.
func (c *Conversation) renderStarters() app.UI {
	s := c.starters
	var items []app.UI
	start := func(label, detail, text string) app.UI {
		return starterButton(label, detail, func(ctx app.Context, e app.Event) {
			ctx.NewActionWithValue(actionStart, text)
		}, text)
	}
	for i, ex := range s.examples {
		if i == maxStarterExamples {
			break
		}
		items = append(items, start(ex.Usage, ex.Description, ex.Usage))
	}
	items = append(items, start("/help", tr(i18n.HelpDetail), "/help"))
	for i, f := range s.functions {
		if i == maxStarterFunctions {
			break
		}
		name := f.Name
		items = append(items, starterButton(tr(i18n.RunStarter, cmpOr(f.Title, f.Name)), cmpOr(f.Description, tr(i18n.FunctionOfWorkspace)),
			func(ctx app.Context, e app.Event) { ctx.NewActionWithValue(inputbar.ActionFnFormOpen, name) }, "fn:"+name))
	}
	if s.model {
		for _, p := range starterPrompts {
			items = append(items, start(tr(p.label), tr(i18n.AskTheAgent), tr(p.text)))
		}
	}
	return app.Div().Class("starters").Role("group").Aria("label", tr(i18n.WaysToStart)).Body(items...)
}

func starterButton(label, detail string, onClick app.EventHandler, key string) app.UI {
	return app.Button().Type("button").Class("starter").DataSet("starter", key).
		Body(
			app.Span().Class("starter-label").Body(labelWords(label)...),
			app.Span().Class("starter-detail").Body(detailWords(detail)...),
		).
		OnClick(onClick, app.EventScope(key))
}

// maxDetailWord is the longest word a starter's detail holds together: a longer one (a
// path, a sentence of a language written without spaces) breaks as text does.
const maxDetailWord = 24

// detailWords are a starter's detail as words that each hold together (the stylesheet
// draws them as inline blocks): the detail is cut to its lines with an ellipsis after a
// whole word, never inside one ("(a singl…").
func detailWords(detail string) []app.UI { return heldWords(detail, "detail-word", maxDetailWord) }

// offlineNote is the empty page's word on a model that is not configured: the controls
// row says "offline", and this says what that means and how to configure one.
func (c *Conversation) offlineNote() app.UI {
	return app.Div().Class("hero-offline").ID("hero-offline").Body(
		app.Elem("p").Body(
			app.Elem("strong").Text(tr(i18n.HeroOfflineTitle)),
			app.Text(" "+tr(i18n.HeroOfflineText)),
		),
		app.Elem("pre").Body(app.Elem("code").Text(modelCommand)),
		app.Elem("p").Text(tr(i18n.HeroOfflineEnv)),
		app.Elem("pre").Body(app.Elem("code").Text(modelEnvCommand)),
	)
}

// modelCommand and modelEnvCommand start Parley with a local Ollama's model, by its flags and
// by their environment variables (README, "Using a model", server_model.go): commands, in
// every language.
const (
	modelCommand    = "parley -model-url http://127.0.0.1:11434/v1 -model llama3.2"
	modelEnvCommand = "PARLEY_MODEL_URL=http://127.0.0.1:11434/v1 PARLEY_MODEL=llama3.2 parley"
)

// labelWords are a starter's label as words that each hold together: a phone wraps the
// label between its words only, never inside a slug at its hyphen ("/example ask-" over
// "deploy").
func labelWords(label string) []app.UI { return heldWords(label, "starter-word", 0) }

// heldWords are text's words, each a span of class that the stylesheet holds together, and
// the spaces between them; a word longer than longest runes (when it is not 0) stays text
// and breaks as text does.
func heldWords(text, class string, longest int) []app.UI {
	words := strings.Fields(text)
	out := make([]app.UI, 0, 2*len(words))
	for i, w := range words {
		if i > 0 {
			out = append(out, app.Text(" "))
		}
		if longest > 0 && utf8.RuneCountInString(w) > longest {
			out = append(out, app.Text(w))
			continue
		}
		out = append(out, app.Span().Class(class).Text(w))
	}
	return out
}
