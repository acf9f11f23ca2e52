// Package idle is the composer's idle mode: the input bar people type prompts in. It stays
// mounted under every other mode, so its draft and its textarea survive them.
package idle

import (
	"strconv"
	"strings"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
)

// Actions between the bar and the conversation root. Actions rather than func props: a func
// prop never compares equal, so it would re-render the bar on every change.
const (
	ActionSend       = "parley.send"        // value: SendIntent
	ActionSendFailed = "parley.send-failed" // value: SendIntent
)

// SendIntent is a prompt the person sent, with the attempt id that its retries keep.
type SendIntent struct {
	From      string // the composer's session when it sent; empty from the hero
	Session   string // empty from the hero: the root creates a session first
	Text      string
	AttemptID string
}

// Bar is the input box. The textarea is uncontrolled: the draft is copied out on input
// and written back through the DOM only when the composer rewrites it, so re-renders never
// disturb the caret or an IME composition.
type Bar struct {
	app.Compo
	Session     string
	Placeholder string
	Disabled    bool // nothing can be sent from here (no access, no such session)

	draft     string
	composing bool
	// shown is the session whose draft the textarea holds; drafts keeps the others', so a
	// draft stays with its session when the person moves between them.
	shown  string
	drafts map[string]string
}

// OnMount takes over from the pre-rendered page: it keeps what was typed before the wasm
// loaded and the focus, and listens for failed sends to put their text back.
func (c *Bar) OnMount(ctx app.Context) {
	c.shown = c.Session
	if early := app.Window().Get("parleyEarlyDraft"); early.Truthy() && c.draft == "" {
		c.setDraft(early.String())
		app.Window().Set("parleyEarlyDraft", "")
	}
	if ta := app.Window().GetElementByID("composer-input"); ta.Truthy() && !c.Disabled {
		ta.Call("focus")
	}
	ctx.Handle(ActionSendFailed, func(ctx app.Context, a app.Action) {
		intent, ok := a.Value.(SendIntent)
		// From the hero, the failed send may come back before or after the composer moved
		// to the session it created.
		if !ok || (intent.Session != c.Session && intent.From != c.Session) {
			return
		}
		// Put the text back only into an empty composer: someone who kept typing is never
		// overwritten.
		if strings.TrimSpace(c.draft) == "" {
			c.setDraft(intent.Text)
		}
	})
}

// OnUpdate swaps the draft when the composer moves to another session.
func (c *Bar) OnUpdate(ctx app.Context) {
	if c.Session == c.shown {
		return
	}
	if c.drafts == nil {
		c.drafts = map[string]string{}
	}
	c.drafts[c.shown] = c.draft
	next := c.drafts[c.Session]
	delete(c.drafts, c.Session)
	c.shown = c.Session
	c.setDraft(next)
}

// Render draws the input card: the textarea and the send button.
func (c *Bar) Render() app.UI {
	textarea := app.Textarea().
		ID("composer-input").
		Class("composer-input").
		Rows(1).
		Placeholder(c.Placeholder).
		Aria("label", "Message").
		AutoFocus(!c.Disabled).
		OnInput(c.onInput).
		OnKeyDown(c.onKeyDown).
		On("compositionstart", func(ctx app.Context, e app.Event) { c.composing = true; ctx.PreventUpdate() }).
		On("compositionend", func(ctx app.Context, e app.Event) { c.composing = false; ctx.PreventUpdate() })
	if c.Disabled {
		// Only ever Disabled(true): go-app writes a false boolean as disabled="false" in the
		// pre-rendered HTML, which a browser reads as disabled.
		textarea = textarea.Disabled(true)
	}
	send := app.Button().Type("submit").Class("send").Title("Send (Enter)").Aria("label", "Send").Text("Send")
	if strings.TrimSpace(c.draft) == "" || c.Disabled {
		send = send.Disabled(true)
	}
	return app.Form().Class("bar").
		Aria("label", "Composer").
		OnSubmit(func(ctx app.Context, e app.Event) {
			e.PreventDefault()
			c.submit(ctx)
		}).
		Body(
			textarea,
			app.Div().Class("composer-controls").Body(
				app.Span().Class("composer-hint").Text("Enter to send · Shift+Enter for a new line"),
				send,
			),
		)
}

func (c *Bar) onInput(ctx app.Context, e app.Event) {
	was := strings.TrimSpace(c.draft) == ""
	c.draft = ctx.JSSrc().Get("value").String()
	c.autosize(ctx.JSSrc())
	if was == (strings.TrimSpace(c.draft) == "") {
		ctx.PreventUpdate() // only the send button's enabled state needs a render
	}
}

func (c *Bar) onKeyDown(ctx app.Context, e app.Event) {
	// IME: the Enter that ends a composition belongs to the composition, never to us.
	if c.composing || e.Get("isComposing").Bool() || e.Get("keyCode").Int() == 229 {
		ctx.PreventUpdate()
		return
	}
	if e.Get("key").String() == "Enter" && !e.Get("shiftKey").Bool() {
		e.PreventDefault()
		c.submit(ctx)
		return
	}
	ctx.PreventUpdate()
}

func (c *Bar) submit(ctx app.Context) {
	text := c.draft
	if strings.TrimSpace(text) == "" || c.Disabled {
		return
	}
	// Clear first: the send is optimistic, and a failure brings the text back.
	c.setDraft("")
	ctx.NewActionWithValue(ActionSend, SendIntent{From: c.Session, Session: c.Session, Text: text, AttemptID: api.NewAttemptID()})
}

// setDraft rewrites the draft and the textarea together.
func (c *Bar) setDraft(text string) {
	c.draft = text
	if !app.IsClient {
		return
	}
	// By id, not through the element Render returned: after a re-render that element is a
	// fresh description, never mounted, and writing to it would change nothing on screen.
	if v := app.Window().GetElementByID("composer-input"); v.Truthy() {
		v.Set("value", text)
		c.autosize(v)
	}
}

// autosize grows the textarea with its content, up to the CSS max-height. Where the
// browser sizes it itself (field-sizing: content) this does nothing, and a keystroke forces
// no layout.
func (c *Bar) autosize(v app.Value) {
	if sizesItself() {
		return
	}
	st := v.Get("style")
	st.Set("height", "auto")
	st.Set("height", strconv.Itoa(v.Get("scrollHeight").Int())+"px")
}

var fieldSizing struct {
	once sync.Once
	ok   bool
}

// sizesItself reports whether the browser supports CSS field-sizing, asked once.
func sizesItself() bool {
	fieldSizing.once.Do(func() {
		css := app.Window().Get("CSS")
		fieldSizing.ok = css.Truthy() && css.Call("supports", "field-sizing", "content").Bool()
	})
	return fieldSizing.ok
}
