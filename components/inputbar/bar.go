// Package inputbar is the input bar: the textarea people type in, wired to the pure input
// machine (machine/input) and the slash pipeline (slash). It draws the chips, the text-ref
// highlights and the claim's ghost hint on a backdrop behind a plain, uncontrolled textarea;
// keeps one machine and one slash controller per session; and mirrors each session's draft
// in localStorage.
//
// Keystrokes stay out of go-app's render path: the handlers apply the machine's effects to
// the textarea and the backdrop directly and call ctx.PreventUpdate(). go-app renders the
// bar only when something it draws changes: the menu, the send button, the mode.
package inputbar

import (
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/locale"
	"parley/i18n"
	"parley/slash"
)

// Actions the bar emits. Actions rather than func props: a func prop never compares equal,
// so it would re-render the bar on every change of its parent.
const (
	// ActionFnFormOpen asks the composer to open the fn-form; value: the function's name
	// (string).
	ActionFnFormOpen = "parley.fnform.open"
	// ActionSessionCreated says the hero's first send created a session; value:
	// protocol.SessionInfo. The conversation lists it and navigates to /s/<id>.
	ActionSessionCreated = "parley.session.created"
	// ActionNotice asks the conversation to show a notice; value: hub.Notice.
	ActionNotice = "parley.notice"
	// ActionSent says the person sent a prompt (its value is the session's key, "" for a
	// session not created yet): the thread shows its newest end, where the prompt lands.
	ActionSent = "parley.prompt.sent"
	// ActionCarryDraft moves a draft from one session to another; value: Carry. The hero
	// sends it when the person re-picks a workspace: the words typed go along.
	ActionCarryDraft = "parley.draft.carry"
	// ActionTypeInDraft types text into the shown session's draft where the person left the
	// caret (over their selection), the caret after it; value: string, or an int to erase
	// there instead (-1 a Backspace, +1 a Delete).
	// The composer sends the keys typed on a decision that took the input area while they
	// were writing.
	ActionTypeInDraft = "parley.draft.type"
	// ActionRestoreDraft puts a prompt taken back from the outbox into the shown session's
	// draft, after what is typed there (on a line of its own), and focuses the box; value:
	// string.
	ActionRestoreDraft = "parley.draft.restore"
	// ActionHandBack is ActionRestoreDraft for the words typed into a decision that ended
	// under the person: the Enter they go on to press is held until their keys pause
	// (input.Handback); value: string.
	ActionHandBack = "parley.draft.handback"
)

// Carry names the sessions a draft moves between.
type Carry struct{ From, To string }

// DOM ids. The textarea keeps the composer's id: the rest of the app and early.js use it.
const (
	InputID    = "composer-input"
	backdropID = "composer-backdrop"
	listboxID  = "composer-menu"
	refsID     = "composer-refs"
	statusID   = "composer-menu-status"
)

// Bar is the input bar. Its props are values; its live state (machines, controllers,
// drafts) sits in an unexported field, so a parent's re-render never overwrites it.
type Bar struct {
	app.Compo
	// Session is the session prompts go to; "" is the hero, whose first send creates one.
	Session string
	// Disabled shows the presentation-only bar: no machine is built and nothing is sent.
	Disabled bool
	// Working says a turn runs: Enter queues the prompt, Alt+Enter steers it in.
	Working bool
	// Placeholder is the empty textarea's text.
	Placeholder string
	// Workspace is the id of the session's workspace: whose commands, skills, functions and
	// files the menus offer ("" for the default).
	Workspace string

	sh *shell
}

// OnMount builds the shell: the sources, the session's machine and controller, the
// restored draft.
func (b *Bar) OnMount(ctx app.Context) {
	ctx.Handle(ActionTypeInDraft, func(ctx app.Context, a app.Action) {
		if b.sh == nil || b.sh.cur == nil {
			return
		}
		switch v := a.Value.(type) {
		case string:
			b.sh.typeIn(v, 0)
		case int:
			b.sh.typeIn("", v)
		}
	})
	ctx.Handle(locale.ActionChanged, func(ctx app.Context, a app.Action) {
		ctx.Update() // the hint, the buttons' words; the textarea and its draft stay
	})
	restore := func(a app.Action) (string, bool) {
		text, ok := a.Value.(string)
		if !ok || text == "" || b.sh == nil || b.sh.cur == nil {
			return "", false
		}
		switch cur := b.sh.cur.m.Draft(); {
		case cur != "" && strings.TrimSpace(cur) == "":
			// Only what was typed in the moment between the field's end and this (the
			// space after a word): it continues the words given back, so it follows them
			// (QA round 27: " \nshort q7 morewords").
			b.sh.replaceText(text + cur)
		case cur != "":
			b.sh.appendText("\n" + text)
		default:
			b.sh.appendText(text)
		}
		b.sh.ta.Call("focus")
		return text, true
	}
	ctx.Handle(ActionRestoreDraft, func(ctx app.Context, a app.Action) { restore(a) })
	ctx.Handle(ActionHandBack, func(ctx app.Context, a app.Action) {
		if words, ok := restore(a); ok {
			b.sh.handback.Give(time.Now(), words)
			// Its notice ("They are back in the box below") goes once the box is emptied, as
			// the bar's own notices of text put back do: it stayed over later decisions (QA
			// round 24).
			b.sh.cur.noticed = true
		}
	})
	ctx.Handle(ActionCarryDraft, func(ctx app.Context, a app.Action) {
		if c, ok := a.Value.(Carry); ok && b.sh != nil {
			b.sh.carry(c.From, c.To)
		}
	})
	if !b.Disabled {
		b.start(ctx)
	}
}

// OnUpdate follows the session: each one keeps its own machine and draft.
func (b *Bar) OnUpdate(ctx app.Context) {
	if b.Disabled {
		if b.sh != nil {
			// Between a session and the hero's next blank one (New session), or behind a
			// gate: web/early.js holds the keys until the bar is enabled again.
			b.sh.suspend()
		}
		return
	}
	if b.sh == nil {
		b.start(ctx)
		return
	}
	b.sh.switchTo(b.Session)
	// Keys typed while the bar was disabled were held by web/early.js.
	sh := b.sh
	ctx.Defer(func(ctx app.Context) { sh.takeOver(ctx, true) })
}

// OnDismount saves the drafts and closes the controllers.
func (b *Bar) OnDismount() {
	if b.sh != nil {
		if live == b.sh {
			live = nil
		}
		b.sh.close()
		b.sh = nil
	}
}

func (b *Bar) start(ctx app.Context) {
	if !app.IsClient {
		return
	}
	b.sh = newShell(ctx, b)
	live = b.sh
}

// live is the shell of the bar on the page (one at a time), for DraftText.
var live *shell

// DraftText is the shown draft as the send and the saved draft read it (input's
// PersistText): a chip is its words, not the textarea's U+FFFC. "" with no live bar.
func DraftText() string {
	if live == nil || live.cur == nil {
		return ""
	}
	return live.cur.m.PersistText()
}

// Render draws the card: the backdrop and the textarea in one field, the menu, and the
// controls. The textarea is always the same element at the same place, so moving from the
// hero to a session, or between sessions, never rebuilds it.
func (b *Bar) Render() app.UI {
	menu := slash.Menu{Active: -1}
	empty, said := true, 0
	if sh := b.sh; sh != nil && sh.cur != nil {
		menu = sh.menu
		empty, said = sh.empty, sh.voice.said
	}
	// keydown, beforeinput, input and keyup are listened to by the shell itself (see
	// shell.listen): every keystroke runs them, and go-app's dispatch adds nothing they need.
	ta := app.Textarea().
		ID(InputID).
		Class("composer-input").
		Rows(1).
		Aria("label", locale.T(i18n.Message)).
		// A textarea's own role (a multi-line textbox) with the listbox it controls, not the
		// ARIA 1.2 combobox: ARIA in HTML allows a textarea no role but textbox (axe's
		// aria-allowed-role), ARIA gives a textbox no aria-expanded (aria-allowed-attr), and
		// the ARIA 1.1 pattern (a combobox around the textbox) no longer conforms and was
		// never announced, its state sitting on an element without the focus. So the menu's
		// state is data-expanded, and a screen reader hears it open and close through the
		// status region below (menuVoice); the active option is aria-activedescendant.
		Aria("autocomplete", "list").
		Aria("haspopup", "listbox").
		Aria("controls", listboxID).
		Aria("describedby", refsID).
		DataSet("expanded", strconv.FormatBool(menu.Open)).
		Attr("autocomplete", "off").
		// Arabic or Hebrew is typed right to left (QA round 12 #13); the backdrop, which
		// draws the same text under it, takes the same direction the same way.
		Attr("dir", "auto").
		AutoFocus(!b.Disabled).
		On("compositionstart", b.onCompositionStart).
		On("compositionend", b.onCompositionEnd).
		OnPaste(b.onPaste).
		OnCopy(b.onCopy).
		OnCut(b.onCut).
		OnScroll(b.onScroll).
		OnClick(b.onClick).
		OnBlur(b.onBlur)
	if empty {
		// Only over an empty draft (shell.placeholder says why).
		ta = ta.Placeholder(b.Placeholder)
	}
	if id := menu.ActiveID(); id != "" {
		ta = ta.Aria("activedescendant", listboxID+"-"+id)
	}
	if b.Disabled {
		// Only ever Disabled(true): go-app writes a false boolean as disabled="false" in
		// the pre-rendered HTML, which a browser reads as disabled.
		ta = ta.Disabled(true)
	}

	// A touch keyboard has no Shift+Enter to speak of, and its Enter is often its only way
	// to break a line: the hint names the button instead.
	touch := touchKeyboard()
	hint := locale.T(i18n.HintKeys)
	if touch {
		hint = locale.T(i18n.HintTouch)
	}
	sendLabel, sendTitle := locale.T(i18n.Send), locale.T(i18n.SendTitle)
	if b.Working {
		hint = locale.T(i18n.HintRunning)
		if touch {
			hint = locale.T(i18n.HintTouchRunning)
		}
		sendLabel, sendTitle = locale.T(i18n.Queue), locale.T(i18n.QueueTitle)
	}
	if menu.Open && !touch {
		hint = locale.T(i18n.HintMenu) // Enter picks while the menu is open (QA round 22)
	}
	send := app.Button().Type("button").Class("send").Title(sendTitle).Aria("label", sendLabel).Text(sendLabel).
		OnClick(b.onSendClick)
	steer := app.Button().Type("button").Class("steer").Title(locale.T(i18n.SteerTitle)).
		Aria("label", locale.T(i18n.Steer)).Text(locale.T(i18n.Steer)).OnClick(b.onSteerClick)
	if empty || b.Disabled {
		send = send.Disabled(true)
		steer = steer.Disabled(true)
	}

	cls := "inputbar"
	if b.Working {
		cls += " turn-running" // not "working": that is the thread's indicator
	}
	groups := groupsOf(menu.Options)
	menuCls := "ib-menu"
	if menu.Open {
		menuCls += " open"
	}
	return app.Div().Class(cls).Body(
		app.Div().Class("composer-card").Body(
			app.Div().Class("ib-field").Body(
				app.Div().ID(backdropID).Class("ib-backdrop").Attr("dir", "auto").Aria("hidden", "true"),
				ta,
			),
			// Written by the backdrop when the chips change; never by go-app, so a render
			// leaves it as it is.
			app.Span().ID(refsID).Class("sr-only"),
			// Says the menu opening (with how many options) and closing, politely: what
			// aria-expanded would say on a combobox (see the textarea's comment); a count
			// that changes while typing once it holds still (menuVoice).
			app.Span().ID(statusID).Class("sr-only").Role("status").Text(menuWords(said)),
			app.Elem("ul").ID(listboxID).Class(menuCls).Role("listbox").Aria("label", menuLabel(menu)).Body(
				// One group per source, named, so a screen reader says what kind of thing an
				// option is (a command, a skill, a file…).
				app.Range(groups).Slice(func(g int) app.UI {
					grp := groups[g]
					return app.Elem("li").Class("ib-group").Role("group").Aria("label", groupLabel(grp.source)).Body(
						app.Div().Class("ib-group-name").Aria("hidden", "true").Text(groupLabel(grp.source)),
						app.Elem("ul").Class("ib-group-options").Role("presentation").Body(
							app.Range(menu.Options[grp.from:grp.to]).Slice(func(j int) app.UI {
								i := grp.from + j
								o := menu.Options[i]
								id := o.ID()
								return app.Elem("li").ID(listboxID+"-"+id).
									Class("ib-option").
									Role("option").
									Aria("selected", strconv.FormatBool(i == menu.Active)).
									DataSet("source", o.Source.String()).
									OnMouseDown(func(ctx app.Context, e app.Event) { e.PreventDefault(); ctx.PreventUpdate() }).
									// Scoped by the option: the element at a place in a group can
									// show another option after the menu changes.
									OnClick(func(ctx app.Context, e app.Event) { b.choose(ctx, id) }, app.EventScope(id)).
									Body(
										// A session's title or a file's name in another script is
										// laid out by its own first strong letter (QA round 12 #13).
										app.Span().Class("ib-option-label").Attr("dir", "auto").Text(o.Item.Label),
										app.Span().Class("ib-option-detail").Attr("dir", "auto").Text(o.Item.Detail),
									)
							}),
						),
					)
				}),
			),
			app.Div().Class("composer-controls").Body(
				app.Span().Class("composer-hint").Text(hint),
				app.Div().Class("ib-actions").Body(
					send,
					app.If(b.Working, func() app.UI { return steer }),
				),
			),
		),
	)
}

// group is a run of options from one source, [from, to) in the menu.
type group struct {
	source   slash.SourceKey
	from, to int
}

// groupsOf splits the menu's options by source, in their order.
func groupsOf(opts []slash.Option) []group {
	var out []group
	for i, o := range opts {
		if n := len(out); n > 0 && out[n-1].source == o.Source {
			out[n-1].to = i + 1
			continue
		}
		out = append(out, group{source: o.Source, from: i, to: i + 1})
	}
	return out
}

// groupLabel names a source's group.
func groupLabel(k slash.SourceKey) string {
	if k.Trigger == slash.ArgTrigger {
		if k.Name == "example" {
			return "Examples"
		}
		return "/" + k.Name // the choices of its argument
	}
	switch k.Name {
	case "commands":
		return locale.T(i18n.MenuCommands)
	case "skills":
		return locale.T(i18n.MenuSkills)
	case "functions":
		return locale.T(i18n.MenuFunctions)
	case "sessions":
		return locale.T(i18n.MenuSessions)
	case "files":
		return locale.T(i18n.MenuFiles)
	}
	return k.String()
}

// menuSettle is how long the menu's count must hold still before the status says it again:
// a screen reader speaks every change of a live region, and each key typed into an `@` or
// `/` query changes the count (QA round 16: "5 suggestions", "3 suggestions", "1
// suggestion" queued behind the typed letters' echo). GOV.UK's accessible-autocomplete
// waits 1.4 s the same way.
const menuSettle = time.Second

// menuVoice is what the status region says of the menu: its opening, with how many options,
// and its closing, at once; a count that changes while it stays open (typing narrows it, a
// source answers) once the menu has held still for menuSettle, the last count only.
type menuVoice struct {
	// said is what the region says: a count of options (> 0), closed (-1), nothing (0,
	// before any menu opened: no menu opened, none closed).
	said int
	// owed says the menu opened while its sources were still answering (Loading): its
	// opening is said with the count once they have, or it held still.
	owed bool
}

// follow takes the menu m, which was before it; wait says the words wait for the menu to
// hold still (settle).
func (v *menuVoice) follow(was, m slash.Menu) (wait bool) {
	switch {
	case !m.Open:
		if v.said != 0 {
			v.said = -1 // only a menu that was said closes
		}
		v.owed = false
	case was.Open && !v.owed:
		return len(m.Options) != v.said
	case m.Loading:
		v.owed = true
		return true
	default:
		v.said, v.owed = len(m.Options), false
	}
	return false
}

// settle says the menu as it is now, once it held still.
func (v *menuVoice) settle(m slash.Menu) {
	if m.Open {
		v.said, v.owed = len(m.Options), false
	}
}

// menuWords are the words of said (menuVoice.said), in the page's locale.
func menuWords(said int) string {
	switch {
	case said > 0:
		return locale.T(i18n.MenuShown, said)
	case said < 0:
		return locale.T(i18n.MenuClosed)
	}
	return ""
}

func menuLabel(m slash.Menu) string {
	if m.Trigger == '@' {
		return locale.T(i18n.MenuFilesSessions)
	}
	if m.Trigger == slash.ArgTrigger {
		return locale.T(i18n.MenuArgChoices)
	}
	return locale.T(i18n.MenuAll)
}

// touchKeyboard reports whether the primary pointer is coarse (a phone, a tablet): its
// keyboard is on the screen. The pre-rendered page says the desktop hint.
func touchKeyboard() bool {
	if !app.IsClient {
		return false
	}
	mm := app.Window().Get("matchMedia")
	if !mm.Truthy() {
		return false
	}
	return app.Window().Call("matchMedia", "(pointer: coarse)").Get("matches").Bool()
}
