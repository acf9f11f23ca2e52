package inputbar

import (
	"strconv"
	"strings"

	"parley/app/hub"
	"parley/app/locale"
	"parley/i18n"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	"parley/components/internal/tabstore"
)

// QueueDock lists the prompts waiting for the running turn, above the input
// (conversation.input.dock). Until its turn starts, a prompt can be edited in place (it keeps
// its place in the queue: a prompt.edited on the server) or removed (withdrawn); the server
// records either in the log and refuses it once the turn started.
type QueueDock struct {
	app.Compo
	Queued []store.Message

	editing uint64 // the offset of the prompt being edited; 0 for none
	draft   string // its text so far
	orig    string // its text when the edit began
	refocus uint64 // the prompt whose Edit button takes the focus back once its edit ended
	resumed bool   // an edit kept in the tab was looked for (resumeKeptEdit), once
}

// Actions the dock asks of the conversation, which calls the server.
const (
	// ActionWithdraw withdraws a waiting prompt; value: Withdraw.
	ActionWithdraw = "parley.queue.withdraw"
	// ActionEditQueued changes a waiting prompt in place; value: EditQueued.
	ActionEditQueued = "parley.queue.edit"
)

// Withdraw names a waiting prompt to take back.
type Withdraw struct {
	Offset uint64
	Text   string
}

// EditQueued names a waiting prompt, its new text, and the text it had (Was).
type EditQueued struct {
	Offset uint64
	Text   string
	Was    string
}

// EditStartedFirst is the notice for an edit of a queued prompt whose turn began before the
// change was saved (was is the text it ran with): the change is put in the box.
func EditStartedFirst(was string) hub.Notice {
	say := func() string { return locale.T(i18n.EditStartedFirst, clipText(was, 60)) }
	return hub.Notice{Info: true, Text: say(), Say: say}
}

// Render draws the list; with nothing queued it is an empty strip, so the bar after it keeps
// its place among its parent's children.
func (d *QueueDock) Render() app.UI {
	if len(d.Queued) == 0 {
		return app.Div().Class("queue-dock empty")
	}
	d.resumeKeptEdit()
	// It scrolls past a few prompts, so a long queue never pushes the input off the screen;
	// a scroll region takes the focus, so the keyboard can scroll it too.
	return app.Div().Class("queue-dock").Role("list").Aria("label", locale.T(i18n.QueuedPrompts)).TabIndex(0).Body(
		app.Range(d.Queued).Slice(func(i int) app.UI {
			m := d.Queued[i]
			if m.Offset == d.editing {
				return d.renderEditor(m)
			}
			when := locale.T(i18n.QueuedLater)
			if m.Steer {
				when = locale.T(i18n.QueuedSteer)
			}
			key := strconv.FormatUint(m.Offset, 10)
			return app.Div().Class("queue-item").Role("listitem").
				DataSet("queued", key).
				Body(
					app.Span().Class("queue-text").Attr("dir", "auto").Text(m.Text),
					app.Div().Class("queue-side").Body(
						app.Span().Class("queue-when").Text(when),
						app.Button().Type("button").Class("queue-op queue-edit").Text(locale.T(i18n.QueueEdit)).
							Aria("label", locale.T(i18n.QueueEditLabel)).OnClick(func(ctx app.Context, e app.Event) {
							d.editing, d.draft, d.orig, d.refocus = m.Offset, m.Text, m.Text, 0
							d.keepEdit()
						}, app.EventScope(key)),
						app.Button().Type("button").Class("queue-op queue-remove").Text(locale.T(i18n.QueueRemove)).
							Aria("label", locale.T(i18n.QueueRemoveLabel)).OnClick(func(ctx app.Context, e app.Event) {
							ctx.NewActionWithValue(ActionWithdraw, Withdraw{Offset: m.Offset, Text: m.Text})
						}, app.EventScope(key)),
					),
				)
		}),
		// The focus goes back to Edit from an element of its own: the field and the button
		// that ended the edit are gone by then, and go-app runs no Defer of an unmounted one.
		app.If(d.refocus != 0 && d.editing == 0, func() app.UI {
			return &focusOnMount{Selector: `.queue-item[data-queued="` + strconv.FormatUint(d.refocus, 10) + `"] .queue-edit`}
		}),
	)
}

// OnUpdate sees the prompt being edited leave the queue before its edit was saved: its turn
// began (or another client removed it). What the person typed is not thrown away with the
// field: a change goes to the box, which takes the focus (the keys typed on land there, not
// on the page), and a notice says the prompt ran as it was.
//
// A prompt that leaves while the focus is on its Edit or Remove (or the last one, the dock
// itself going) would drop the focus to the page: it goes to the decision the composer
// shows, else to the box (refocus moves it only from the body).
func (d *QueueDock) OnUpdate(ctx app.Context) {
	if app.IsClient && inDock(app.Window().Get("document").Get("activeElement")) {
		ctx.Defer(refocus)
	}
	if d.editing == 0 {
		return
	}
	for _, m := range d.Queued {
		if m.Offset == d.editing {
			return
		}
	}
	text, orig := d.draft, d.orig
	tabstore.Set(editKey(d.editing), "")
	d.editing, d.draft, d.orig, d.refocus = 0, "", "", 0
	if strings.TrimSpace(text) == "" || text == orig {
		ctx.Defer(func(app.Context) { Focus() })
		return
	}
	// Handed back, as the words of a decision that ended under the person: the Enter they
	// meant for Save must not send the change as a second prompt (QA round 26).
	ctx.NewActionWithValue(ActionHandBack, text)
	ctx.NewActionWithValue(ActionNotice, EditStartedFirst(orig))
}

// An edit under way is kept in the tab (sessionStorage) as the person types, under the
// prompt's offset (unique across sessions), as every other field keeps its words: a reload
// opened the dock with the prompt as it was, and the words typed were gone (QA round 26).
// The kept text is "<the prompt's text when the edit began>\x00<the edit>".

func editKey(offset uint64) string { return "parley.queue.edit." + strconv.FormatUint(offset, 10) }

// keepEdit keeps the edit under way.
func (d *QueueDock) keepEdit() {
	if d.editing != 0 {
		tabstore.Set(editKey(d.editing), d.orig+"\x00"+d.draft)
	}
}

// resumeKeptEdit opens again the edit a reload interrupted, for a prompt still queued.
func (d *QueueDock) resumeKeptEdit() {
	if d.editing != 0 || d.resumed {
		return
	}
	d.resumed = true
	for _, m := range d.Queued {
		if orig, text, ok := strings.Cut(tabstore.Get(editKey(m.Offset)), "\x00"); ok {
			d.editing, d.orig, d.draft = m.Offset, orig, text
			return
		}
	}
}

// inDock reports whether the element a is in the queue dock.
func inDock(a app.Value) bool { return a.Truthy() && a.Call("closest", ".queue-dock").Truthy() }

// refocus gives a focus that fell to the body to the shown decision, else to the box.
func refocus(app.Context) {
	if !Free() {
		return
	}
	if m := app.Window().GetElementByID("composer-mode"); m.Truthy() {
		m.Call("focus")
		return
	}
	Focus()
}

// clipText cuts s to n characters at most, with an ellipsis.
func clipText(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// renderEditor is a waiting prompt being edited: its text in a field that takes the focus;
// Enter (or Save) saves it in place, Escape (or Cancel) keeps it as it was.
func (d *QueueDock) renderEditor(m store.Message) app.UI {
	off := m.Offset
	end := func() {
		tabstore.Set(editKey(off), "")
		d.editing, d.draft, d.orig, d.refocus = 0, "", "", off
	}
	save := func(ctx app.Context) {
		if text := d.draft; strings.TrimSpace(text) != "" && text != m.Text {
			ctx.NewActionWithValue(ActionEditQueued, EditQueued{Offset: off, Text: text, Was: m.Text})
		}
		end()
	}
	cancel := func(ctx app.Context) { end() }
	return app.Div().Class("queue-item editing").Role("listitem").DataSet("queued", strconv.FormatUint(off, 10)).Body(
		&queueField{Value: d.draft, Label: locale.T(i18n.QueueEditField),
			OnChange: func(v string) { d.draft = v; d.keepEdit() }, OnSave: save, OnCancel: cancel},
		app.Div().Class("queue-side").Body(
			app.Button().Type("button").Class("queue-op queue-save").Text(locale.T(i18n.QueueSave)).
				OnClick(func(ctx app.Context, e app.Event) { save(ctx) }),
			app.Button().Type("button").Class("queue-op queue-cancel").Text(locale.T(i18n.QueueCancel)).
				OnClick(func(ctx app.Context, e app.Event) { cancel(ctx) }),
		),
	)
}

// queueField is the edit field of a queued prompt: it takes the focus when it appears (a
// Defer of the Edit button's context would not run: the button is gone by then).
type queueField struct {
	app.Compo
	Value    string
	Label    string
	OnChange func(string)
	OnSave   func(app.Context)
	OnCancel func(app.Context)
}

func (f *queueField) OnMount(ctx app.Context) {
	ctx.Defer(func(ctx app.Context) {
		if in := ctx.JSSrc(); in.Truthy() {
			in.Call("focus")
			n := in.Get("textLength").Int() // a JS string has no properties to read from Go
			in.Call("setSelectionRange", n, n)
		}
	})
}

func (f *queueField) Render() app.UI {
	return app.Textarea().Class("queue-field").Attr("dir", "auto").Rows(2).Aria("label", f.Label).Text(f.Value).
		OnInput(func(ctx app.Context, e app.Event) {
			// The browser's text is the field's: a render writing it back would move the caret.
			ctx.PreventUpdate()
			f.OnChange(ctx.JSSrc().Get("value").String())
		}).
		OnKeyDown(func(ctx app.Context, e app.Event) {
			if e.Get("isComposing").Bool() || e.Get("keyCode").Int() == 229 {
				return
			}
			switch e.Get("key").String() {
			case "Enter":
				if !e.Get("shiftKey").Bool() {
					e.PreventDefault()
					f.OnSave(ctx)
				}
			case "Escape":
				e.PreventDefault()
				e.Call("stopPropagation")
				f.OnCancel(ctx)
			}
		})
}

// focusOnMount focuses the element Selector names once it is drawn.
type focusOnMount struct {
	app.Compo
	Selector string
}

func (f *focusOnMount) OnMount(ctx app.Context) {
	sel := f.Selector
	ctx.Defer(func(app.Context) {
		if el := app.Window().Get("document").Call("querySelector", sel); el.Truthy() {
			el.Call("focus")
		}
	})
}

func (f *focusOnMount) Render() app.UI { return app.Span().Class("sr-only").Aria("hidden", "true") }
