// Package composer is the composer container (docs/composer.md): the input area that morphs
// in place between typing (idle), a function's form, a question and an approval. It knows
// modes only through the modes.Mode interface, the optional ones beside it, and the registry
// below; which mode shows, and what a key pressed in it means, is the pure machine/composer's
// decision, and this view only translates between it and the DOM.
package composer

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/elicitation"
	"parley/app/hub"
	"parley/app/locale"
	"parley/app/store"
	"parley/components/composer/modes"
	"parley/components/composer/modes/approval"
	"parley/components/composer/modes/fnform"
	"parley/components/composer/modes/question"
	"parley/components/composer/modes/widget"
	"parley/components/inputbar"
	"parley/components/internal/tabstore"
	"parley/i18n"
	machine "parley/machine/composer"
	mo "parley/machine/outbox"
	"parley/protocol"
)

// registry maps each morphed mode to the folder that implements it. Idle is not here: idle is
// the input bar (components/inputbar), which stays mounted under every mode in its own seat,
// so the draft and the textarea survive them.
var registry = map[machine.Mode]modes.Factory{
	machine.FnForm:   fnform.New,
	machine.Question: question.New,
	machine.Approval: approval.New,
}

// Actions the composer handles.
const (
	// ActionOpenFnForm opens the fn-form; its value is the function's name ("" to pick one).
	// The input bar's `/` menu sends it when a function is picked.
	ActionOpenFnForm = inputbar.ActionFnFormOpen
	// ActionNavigate asks the conversation to show a session; its value is the session id.
	ActionNavigate = "parley.navigate"
	// ActionAside says which decision the person set aside in a session, if any; its value
	// is an Aside. The thread's card of that decision says so, not "waiting below".
	ActionAside = "parley.aside"
)

// Aside is the decision set aside in Session ("" for none): what the composer publishes as
// it changes, so views outside it need not read its DOM.
type Aside struct{ Session, ID string }

// Composer is the input area of the conversation.
type Composer struct {
	app.Compo
	Session     string
	Placeholder string
	Disabled    bool
	// Pending are the session's open decisions, oldest first (store.Thread.Pending), and
	// TimedOut the ones that ended by timeout: the two props the decision queue follows.
	Pending  []protocol.Decision
	TimedOut []string
	// Working says a turn runs (Enter queues, Alt+Enter steers); Queued are the prompts
	// waiting for it, listed in the dock above the input.
	Working bool
	Queued  []store.Message
	// Unsent are the session's prompts the server has not stored yet while prompts wait in
	// the dock (Queued): they run after those, so they are listed after them (the page's
	// outbox fills that seat); RetryAbove says the page's strip offers Retry now.
	Unsent     []mo.Entry
	RetryAbove bool
	// Workspace is the session's workspace id: what the fn-form and the menus offer.
	Workspace string
	// Replaying says the session's stored events are still being replayed: the queue is
	// followed once they are all in, so a question asked and answered long ago never
	// flashes by, takes the focus or leaves a note.
	Replaying bool
	// Controls are the session's model, permission mode and usage, for the controls row's
	// seats (components/controls).
	Controls store.Controls

	machine *machine.Machine
	mode    modes.Mode
	// kind names the current mode: its CSS class, and whether it shows a decision.
	kind machine.Mode
	// modeKey is unique to each entry into a mode (see modes.Input.Key); gen counts entries.
	modeKey string
	gen     int
	// knownFor is the session whose decisions the machine holds.
	knownFor string
	// pendingIDs are the decisions pending at the last look (kept.go).
	pendingIDs map[string]bool
	functions  []protocol.Function
	// functionsOf is the workspace the functions were asked for.
	functionsOf string
	// waiting are the local requests (RequestUserInput) waiting for an answer, by id.
	waiting map[string]chan elicitation.Result
	nextID  int
	// localDue are local requests not yet handed to the machine: an input method composes in
	// the bar (askLocal).
	localDue []machine.Decision
	// problem is a failed answer or run, shown in the morphed area.
	problem string
	// enterHeld says an Enter on the decision itself sent nothing (machine.EnterHeld): the
	// morphed area says why, until the decision changes.
	enterHeld bool
	// ctx is the composer's own context, from OnMount: what Later defers with.
	ctx app.Context
	// aside is the mode of the decision set aside ("Chat about this"), kept with its answers.
	aside keptMode
	// keptDraft is the idle draft a shown decision covers, for its strip.
	keptDraft string
	// compositionTimer says a look at the bar's composition is due (waitComposition).
	compositionTimer bool
	// published is the last Aside told to the page (ActionAside).
	published Aside
}

// keptMode is a mode kept while its decision is set aside.
type keptMode struct {
	mode modes.Mode
	id   string
	key  string
}

// Later implements modes.Host.
func (c *Composer) Later(f func()) {
	if !app.IsClient {
		return
	}
	c.ctx.Defer(func(app.Context) { f() })
}

func (c *Composer) ensure() {
	if c.machine == nil {
		c.machine = machine.New(machine.Config{})
		c.waiting = map[string]chan elicitation.Result{}
	}
}

// ActionReconnected is what the page says when its socket is live again after it was not.
const ActionReconnected = "parley.controls.reconnected"

// OnMount registers the composer as the presenter of browser-side questions, follows the
// decision queue, and listens for the fn-form's openers (the `/` menu, the functions button).
func (c *Composer) OnMount(ctx app.Context) {
	c.ensure()
	c.ctx = ctx
	elicitation.SetElicitationPresenter(c.presenter(ctx))
	elicitation.Expose()
	c.exposeLocale(ctx)
	ctx.Handle(locale.ActionChanged, func(ctx app.Context, a app.Action) {
		ctx.Update() // relabel in place: the same elements, new words
	})
	ctx.Handle(ActionReconnected, func(ctx app.Context, a app.Action) { c.reconnected() })
	ctx.Handle(inputbar.ActionSent, func(ctx app.Context, a app.Action) { c.clearNote(ctx, app.Event{}) })
	ctx.Handle(ActionOpenFnForm, func(ctx app.Context, a app.Action) {
		name, _ := a.Value.(string)
		open := func(ctx app.Context) { c.run(ctx, c.machine.Dispatch(machine.OpenFnForm{Function: name})) }
		if name != "" && !slices.ContainsFunc(c.functions, func(f protocol.Function) bool { return f.Name == name }) {
			// The menu offers what the workspace holds now; the form's list was read before
			// the function was added. It is read again first, so the form opens on the
			// function picked, not on an empty picker (QA round 20 #8).
			c.loadFunctions(ctx, open)
			return
		}
		open(ctx)
	})
	c.follow(ctx)
	c.loadFunctions(ctx, nil)
	// Every click in a morphed mode goes to the machine, with the facts it decides on (when,
	// and the click's count), from a listener on the document in the capture phase:
	// before any handler of the mode's own buttons, choices and batch picks, whichever was
	// clicked. A click the machine says was meant for the decision this one replaced (a
	// double-click's second, a second tap) stops there, and answers nothing. The listener is
	// the browser's own, run in the click, since only then can it stop it; one for the page's
	// life, handing the clicks to the composer mounted last.
	pressed = c
	if !listening {
		listening = true
		app.Window().Get("document").Call("addEventListener", "click", app.FuncOf(func(_ app.Value, args []app.Value) any {
			e := args[0]
			if e.Get("target").Call("closest", "#composer-mode").Truthy() && pressed.machine.Dispatch(pressOf(e)) != nil {
				e.Call("stopPropagation")
				e.Call("preventDefault") // a radio stays as it was
			}
			return nil
		}), true)
	}
}

// OnDismount stops presenting.
func (c *Composer) OnDismount() {
	elicitation.SetElicitationPresenter(nil)
}

// pressed is the composer mounted last, which the page's click listener hands the clicks in
// its morphed mode to (OnMount): a morphed mode is only ever its; listening says that
// listener is in place.
var (
	pressed   *Composer
	listening bool
)

// pressOf reads a click event into the facts machine/composer decides a click on a decision
// by: when, and its count (which tells a pointer's click from a key's).
func pressOf(e app.Value) machine.Press {
	return machine.Press{Detail: e.Get("detail").Int(), At: time.Now()}
}

// cardPressed is when the last click on a decision card's answers came (Stray).
var cardPressed time.Time

// Stray says a click (the DOM event e) on the answers of a decision card, of the thread or
// the approvals screen, was meant for what the card showed before it drew this decision at
// drawn, as the composer's machine decides a click on its own (machine/composer.Stray): the
// second click of a double-click on the card before, a second tap. The thread's cards move
// up as the next one lands under the pointer, and the screen's list reuses a card for the
// next decision.
func Stray(e app.Value, drawn time.Time) bool {
	p, before := pressOf(e), cardPressed
	cardPressed = p.At
	return machine.Stray(p, drawn, before, machine.DefaultEnterGuard)
}

// OnUpdate follows the decision queue when the props change, and the workspace's functions
// when the workspace does.
func (c *Composer) OnUpdate(ctx app.Context) {
	c.ensure()
	c.follow(ctx)
	if c.Workspace != c.functionsOf {
		c.loadFunctions(ctx, nil)
	}
}

// follow hands the store's pending list to the machine: a new session resets the queue,
// and every change is a Sync, which ends what left the list and asks what joined it.
func (c *Composer) follow(ctx app.Context) {
	if c.Replaying && c.knownFor != "" && c.knownFor != c.Session {
		// Another session, whose replay has not ended (offline it may never end): the last
		// session's decisions leave now, and this one's land once its replay is over. They
		// stayed until then, and offline the last session's question took the keys typed in
		// the one on screen (QA round 15).
		c.forgetEnded(true)
		c.knownFor = c.Session
		c.run(ctx, c.machine.Dispatch(machine.Reset{Aside: readAside(c.Session), At: time.Now()}))
		return
	}
	if c.Replaying || c.waitComposition(ctx, len(c.Pending) > 0 && c.knownFor == c.Session) {
		return
	}
	list := make([]machine.Decision, 0, len(c.Pending))
	for _, d := range c.Pending {
		list = append(list, machine.Decision{ID: d.ID, Request: d.Request})
	}
	c.forgetEnded(c.knownFor != c.Session)
	if c.knownFor != c.Session {
		// The decision the person was in goes back to its field only after a reload (the
		// page's first session): a session switched to within the page shows its head as
		// any decision that lands.
		entered, fn := "", false
		if c.knownFor == "" {
			entered, fn = tabstore.Get(enteredKey(c.Session)), tabstore.Get(fnKey(c.Session)) != ""
		}
		aside := readAside(c.Session)
		if id := linkedDecision(); id != "" {
			// Honoured once: the thread's card has had its scroll by the time this runs out,
			// and a later reload shows the newest end, not that card again (QA round 20).
			ctx.After(time.Second, func(app.Context) { forgetLink(id) })
		}
		if id := linkedDecision(); id != "" && slices.ContainsFunc(list, func(d machine.Decision) bool { return d.ID == id }) {
			// Opened on this decision (the approvals screen's entry, a notification): the
			// person chose it to answer now. It is not set aside any more, and takes the focus
			// as one they were in does (QA round 20 #9: it stayed set aside, a step away).
			aside = slices.DeleteFunc(aside, func(a string) bool { return a == id })
			if entered == "" {
				entered = id
			}
		}
		c.knownFor = c.Session
		c.run(ctx, c.machine.Dispatch(machine.Reset{Decisions: list, Aside: aside, Entered: entered, FnForm: fn, At: time.Now()}))
		if entered != "" || fn {
			// The keys typed while the page came back (web/early.js held them): into the
			// field the decision, or the fn-form, just focused, or to the draft when neither
			// came back (QA round 20 #10: an open fn-form's went to the hidden draft).
			back := c.machine.EnteredID() == entered
			if entered == "" {
				back = c.machine.Mode() == machine.FnForm
			}
			c.Later(func() { handHeldKeys(back) })
		}
		return
	}
	c.run(ctx, c.machine.Dispatch(machine.Sync{Decisions: list, TimedOut: c.TimedOut, At: time.Now()}))
}

// compositionWait is the longest a decision waits for the bar's input method to finish: a
// composition left open (a lost compositionend) must not hold decisions back for good.
const compositionWait = 5 * time.Second

// waitComposition holds decisions that are due back while an input method composes in the
// bar, and reports whether it did: shown now, a decision would take the focus
// mid-composition, and the draft kept the half-converted "かんj" while the rest went nowhere
// (QA round 12 #4). It looks again every 100 ms, and shows them once the composition ends.
// The server's decisions (follow) and the page's own requests (askLocal) wait alike: the
// page's went straight in, and the converted "你好" was lost (QA round 24).
func (c *Composer) waitComposition(ctx app.Context, due bool) bool {
	since, open := inputbar.ComposingSince()
	if !due || !open || time.Since(since) > compositionWait || c.kind != machine.Idle {
		return false
	}
	if !c.compositionTimer {
		c.compositionTimer = true
		ctx.After(100*time.Millisecond, func(ctx app.Context) {
			c.compositionTimer = false
			c.follow(ctx)
			c.askLocal(ctx)
		})
	}
	return true
}

// askLocal hands the machine the page's own requests that are due, in the order they came,
// unless they wait for an input method (waitComposition).
func (c *Composer) askLocal(ctx app.Context) {
	if c.waitComposition(ctx, len(c.localDue) > 0) {
		return
	}
	due := c.localDue
	c.localDue = nil
	for _, d := range due {
		c.run(ctx, c.machine.Dispatch(machine.Asked{Decision: d, At: time.Now()}))
	}
}

// run carries out the machine's effects.
func (c *Composer) run(ctx app.Context, effs []machine.Effect) {
	defer c.keepAside(ctx)
	for _, e := range effs {
		switch e := e.(type) {
		case machine.Shown:
			c.show(e)
			c.enterHeld = false
			if e.Mode.Decision() && !e.Resumed && strings.TrimSpace(c.keptDraft) != "" {
				// It lands over the person's unsent draft: they were writing, and the
				// decision waits, shown, until they move in (docs/composer.md).
				c.machine.Dispatch(machine.Covering{})
			}
		case machine.Exit:
			if c.mode != nil && e.Aside {
				// "Chat about this": the decision stays pending, and so do the answers
				// given so far; the Shown that resumes it brings this same mode back.
				c.dropAside()
				c.aside = keptMode{mode: c.mode, id: e.ID, key: c.modeKey}
			} else if c.mode != nil {
				if e.Ended {
					c.keepUnsent(ctx, c.mode)
				}
				c.mode.Exit()
			}
			c.mode, c.kind, c.problem, c.enterHeld = nil, machine.Idle, "", false
		case machine.FocusInput:
			c.Later(func() { focusByID("composer-input") })
		case machine.FocusMode:
			c.Later(func() {
				// Not from a field the person types in elsewhere: a decision that landed
				// while they renamed a session took the focus, and the Space of their next
				// word answered it (QA round 21's re-test).
				doc := app.Window().Get("document")
				if !typingElsewhere(doc.Get("activeElement"), doc.Call("getElementById", "composer-mode")) {
					focusByID("composer-mode")
				}
			})
		case machine.FocusField:
			c.Later(c.focusField)
		case machine.Wake:
			if app.IsClient && c.ctx.Context != nil {
				c.ctx.After(e.After, func(ctx app.Context) {
					c.run(ctx, c.machine.Dispatch(machine.Tick{At: time.Now()}))
				})
			}
		}
	}
}

// focusField moves the focus to the mode's first field or option, unless the person already
// put it somewhere in the mode: the focus never jumps while they are in the decision.
// typingElsewhere reports whether the focus is in a field outside the decision's dialog root
// and the composer's box (a decision card's reason on the thread, the sidebar's rename): the
// person's keys would land in the decision.
func typingElsewhere(active, root app.Value) bool {
	if !active.Truthy() || root.Truthy() && root.Call("contains", active).Bool() || active.Get("id").String() == "composer-input" {
		return false
	}
	tag := active.Get("tagName").String()
	return tag == "INPUT" || tag == "TEXTAREA" || tag == "SELECT" || active.Get("isContentEditable").Bool()
}

func (c *Composer) focusField() {
	doc := app.Window().Get("document")
	active := doc.Get("activeElement")
	root := doc.Call("getElementById", "composer-mode")
	if !root.Truthy() {
		return
	}
	if active.Truthy() && !active.Equal(root) && root.Call("contains", active).Bool() {
		return
	}
	if typingElsewhere(active, root) {
		return
	}
	if f, ok := c.mode.(modes.Focuser); ok && f.FocusFirst() {
		return
	}
	if el := root.Call("querySelector", ".morph-body input:not([type=hidden]),.morph-body textarea,.morph-body select,.morph-body button"); el.Truthy() {
		el.Call("focus")
	}
}

func (c *Composer) show(e machine.Shown) {
	factory, ok := registry[e.Mode]
	if !ok {
		return
	}
	c.gen++
	if kept := c.aside; e.Resumed && kept.mode != nil && kept.id == e.ID {
		c.aside = keptMode{}
		c.mode, c.kind, c.modeKey, c.problem = kept.mode, e.Mode, kept.key, ""
		return
	}
	if e.Mode.Decision() {
		// Another decision took the input area: the set-aside one ended, or the list was
		// reset. (The user's fn-form leaves it kept: Resume may follow.)
		c.dropAside()
	}
	c.modeKey = "m" + strconv.Itoa(c.gen)
	in := modes.Input{Key: c.modeKey, Options: elicitation.Options(), Fields: elicitation.FieldRendererHook()}
	if app.IsClient {
		in.Options.Zone = browserZone
	}
	if e.Mode == machine.FnForm {
		in.Function = e.ID
	} else if d, ok := c.machine.Head(); ok {
		in.Decision = d
	}
	c.mode, c.kind, c.problem = factory(c, in), e.Mode, ""
	if e.Mode.Decision() {
		c.keptDraft = readDraft()
	}
}

// browserZone is the offset from UTC of the browser's clock at a wall-clock time: a
// date-and-time field's answer is that time there (elicit.Options.Zone).
func browserZone(wall time.Time) time.Duration {
	d := app.Window().Get("Date").New(wall.Year(), int(wall.Month())-1, wall.Day(), wall.Hour(), wall.Minute(), wall.Second())
	return -time.Duration(d.Call("getTimezoneOffset").Int()) * time.Minute
}

// readDraft is the first line of the idle draft, which a decision covers: the strip under the
// decision shows it, so the person sees it is safe.
func readDraft() string {
	if !app.IsClient {
		return ""
	}
	// The send's words: a chip reads as its label's text, not a bare mark (QA round 15 P3-4).
	return inputbar.DraftText()
}

// draftLine is a draft's first non-empty line.
func draftLine(d string) string {
	for _, line := range strings.Split(d, "\n") {
		if strings.TrimSpace(line) != "" {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// keepUnsent puts the words a mode holds unsent back in the composer's box as its decision
// ends without them (machine.Exit's Ended), and says so: they vanished when an approval timed
// out or another tab answered it (QA round 12 #3), and so did a question's (QA round 14 #4).
func (c *Composer) keepUnsent(ctx app.Context, m modes.Mode) {
	u, ok := m.(modes.Unsent)
	if !ok {
		return
	}
	if text := withoutReading(u.Unsent()); text != "" {
		ctx.NewActionWithValue(inputbar.ActionHandBack, text)
		// Say: a switch of language while it shows words it again (QA round 25: it stayed
		// Chinese after a switch back to English).
		ctx.NewActionWithValue(inputbar.ActionNotice, hub.Notice{Info: true, Text: locale.T(i18n.WordsKeptEnded), Say: func() string { return locale.T(i18n.WordsKeptEnded) }})
	}
}

// withoutReading is text less the input method's reading not yet converted, when a
// composition is open in a field of the mode: it is no word of the person's yet ("wang" of
// "王"), and handed back with the rest it stood in the box as "我叫wang" (QA round 26). The
// field's value before the composition began (web/early.js) stands in for its value now.
func withoutReading(text string) string {
	if !app.IsClient || text == "" {
		return text
	}
	c := app.Window().Get("parleyComposition")
	if !c.Truthy() {
		return text
	}
	t := c.Get("target")
	if !t.Truthy() || !t.Call("closest", "#composer-mode").Truthy() || t.Get("value").IsUndefined() {
		return text
	}
	now, before := t.Get("value").String(), c.Get("before").String()
	if now == before || !strings.Contains(text, now) {
		return text
	}
	return strings.TrimSpace(strings.Replace(text, now, before, 1))
}

// dropAside lets go of the mode kept for a decision set aside.
func (c *Composer) dropAside() {
	if c.aside.mode != nil {
		c.aside.mode.Exit()
	}
	c.aside = keptMode{}
}

// asideKey is the sessionStorage key of the decision set aside in a session.
func asideKey(session string) string { return "parley.aside." + session }

// keepAside tells the page which decision is set aside (ActionAside) and keeps it across a
// reload (docs/composer.md, "Chat about this"): per session, in this tab's sessionStorage, until the person returns to it or it
// ends. Only once the machine follows the session: before that, it knows nothing yet.
func (c *Composer) keepAside(ctx app.Context) {
	if !app.IsClient || c.knownFor != c.Session || c.Session == "" {
		return
	}
	if now := (Aside{Session: c.Session, ID: c.machine.AsideID()}); now != c.published {
		c.published = now
		ctx.NewActionWithValue(ActionAside, now)
	}
	tabstore.Set(asideKey(c.Session), c.machine.AsideID())
	tabstore.Set(enteredKey(c.Session), c.machine.EnteredID())
	fn := ""
	if c.machine.Mode() == machine.FnForm {
		fn = "1"
	}
	tabstore.Set(fnKey(c.Session), fn)
}

// fnKey is the sessionStorage key that says the fn-form is open in a session: after a reload
// it opens again (Reset's FnForm), on its function and fields as kept (modes/fnform).
func fnKey(session string) string { return "parley.fnform.open." + session }

// enteredKey is the sessionStorage key of the decision the focus went into in a session
// (Reset's Entered): after a reload it takes the focus back at once.
func enteredKey(session string) string { return "parley.entered." + session }

// behind is how many decisions wait after the one shown.
func (c *Composer) behind() int { return max(len(c.machine.Queue())-1, 0) }

// linkedDecision is the decision the page's address names (#decision-<id>), if any.
func linkedDecision() string {
	if !app.IsClient {
		return ""
	}
	if id, ok := strings.CutPrefix(app.Window().Get("location").Get("hash").String(), "#decision-"); ok {
		return id
	}
	return ""
}

// forgetLink takes #decision-<id> off the page's address, if it still names that decision,
// leaving no step in the history.
func forgetLink(id string) {
	loc := app.Window().Get("location")
	if loc.Get("hash").String() == "#decision-"+id {
		app.Window().Get("history").Call("replaceState", nil, "", loc.Get("pathname").String()+loc.Get("search").String())
	}
}

// readAside is the decision set aside in session before a reload, if any.
func readAside(session string) []string {
	if id := tabstore.Get(asideKey(session)); session != "" && id != "" {
		return []string{id}
	}
	return nil
}

// handHeldKeys gives the keys web/early.js held for the decision the person was in before a
// reload to the focused field of that decision (into), or to the draft.
func handHeldKeys(into bool) {
	if w := app.Window(); w.Get("parleyDecisionKeys").Truthy() {
		w.Call("parleyDecisionKeys", into)
	}
}

func focusByID(id string) {
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Call("focus")
	}
}

// loadFunctions fetches the functions the fn-form offers, then runs then (if any), whether
// the list came or not.
func (c *Composer) loadFunctions(ctx app.Context, then func(app.Context)) {
	client, ws := c.Client(), c.Workspace
	// Asked for now, answered or not: a failure must not make every later update ask again
	// (the Functions button asks anew).
	c.functionsOf = ws
	ctx.Async(func() {
		list, err := client.ListFunctionsIn(ctx, ws)
		ctx.Dispatch(func(ctx app.Context) {
			if then != nil {
				defer then(ctx)
			}
			if err != nil || ws != c.Workspace {
				// The fn-form says there is nothing to run, and the list is fetched again on
				// open; an answer for a workspace the composer left is dropped.
				return
			}
			c.functions = list
			if r, ok := c.mode.(modes.Refresher); ok {
				r.Refresh()
				// A form reopened by a reload gets its fields only now, when the list came
				// after the mode showed: the focus goes where it would have gone had they
				// been there (focusField leaves a focus the person placed).
				c.Later(c.focusField)
			}
		})
	})
}

// presenter shows a browser-side request in the same queue as the server's decisions.
func (c *Composer) presenter(ctx app.Context) elicitation.Presenter {
	return func(rctx context.Context, req protocol.DecisionRequest) (elicitation.Result, error) {
		answer := make(chan elicitation.Result, 1)
		idc := make(chan string, 1)
		ctx.Dispatch(func(ctx app.Context) {
			if rctx.Err() != nil {
				return // the caller gave up before the request reached the queue
			}
			c.nextID++
			id := "local-" + strconv.Itoa(c.nextID)
			c.waiting[id] = answer
			idc <- id
			c.localDue = append(c.localDue, machine.Decision{ID: id, Request: req, Local: true})
			c.askLocal(ctx)
		})
		var id string
		select {
		case id = <-idc:
		case <-rctx.Done():
			return elicitation.Result{}, rctx.Err()
		}
		select {
		case res := <-answer:
			return res, nil
		case <-rctx.Done():
			ctx.Dispatch(func(ctx app.Context) {
				delete(c.waiting, id)
				c.localDue = slices.DeleteFunc(c.localDue, func(d machine.Decision) bool { return d.ID == id })
				c.run(ctx, c.machine.Dispatch(machine.Ended{ID: id, Outcome: machine.Aborted, At: time.Now()}))
			})
			return elicitation.Result{}, rctx.Err()
		}
	}
}

// Client implements modes.Host.
func (c *Composer) Client() *api.Client {
	u := app.Window().URL()
	return &api.Client{Base: u.Scheme + "://" + u.Host}
}

// SessionID implements modes.Host.
func (c *Composer) SessionID() string { return c.Session }

// Functions implements modes.Host.
func (c *Composer) Functions() []protocol.Function { return c.functions }

// Answer implements modes.Host: a local request gets its answer at once; a server decision
// is answered over HTTP, and the mode exits when the server took it (the socket's outcome
// then changes nothing). A reply that lost to another one exits too: it was answered.
func (c *Composer) Answer(ctx app.Context, d machine.Decision, reply protocol.ReplyRequest, done func(ctx app.Context, err error)) {
	if d.Local {
		if ch, ok := c.waiting[d.ID]; ok {
			delete(c.waiting, d.ID)
			ch <- elicitation.Result{Action: reply.Action, Content: reply.Content}
		}
		c.run(ctx, c.machine.Dispatch(machine.Ended{ID: d.ID, Outcome: machine.Answered, At: time.Now()}))
		return
	}
	client, session := c.Client(), c.Session
	ctx.Async(func() {
		_, err := client.Reply(ctx, session, d.ID, reply)
		ctx.Dispatch(func(ctx app.Context) {
			var apiErr *api.Error
			switch {
			case err == nil:
			case errors.As(err, &apiErr) && apiErr.Ended():
				c.machine.Dispatch(machine.ClearNote{})
				err = nil // answered elsewhere, or ended: either way it is no longer asked
			default:
				if done != nil {
					done(ctx, err)
				}
				return
			}
			c.run(ctx, c.machine.Dispatch(machine.Ended{ID: d.ID, Outcome: machine.Answered, At: time.Now()}))
			if done != nil {
				done(ctx, nil)
			}
		})
	})
}

// ChatAbout implements modes.Host.
func (c *Composer) ChatAbout(ctx app.Context) {
	c.run(ctx, c.machine.Dispatch(machine.ChatAbout{}))
}

// Close implements modes.Host.
func (c *Composer) Close(ctx app.Context) {
	c.run(ctx, c.machine.Dispatch(machine.CloseFnForm{}))
}

// Ran implements modes.Host: the function's run started in session; close the form and go
// there to watch it.
func (c *Composer) Ran(ctx app.Context, session string) {
	c.run(ctx, c.machine.Dispatch(machine.CloseFnForm{}))
	if session != c.Session {
		ctx.NewActionWithValue(ActionNavigate, session)
	}
}

// Render draws the three bands: what waits above (the dock, the stats band, notes), the input
// card, and the controls row. The card always holds the bar's seat, hidden while a mode is
// morphed in, so the bar keeps its place among the children and is never rebuilt. With no
// session, the seat holds the presentation-only bar (disabled, no machine) in the same place.
func (c *Composer) Render() app.UI {
	c.ensure()
	morphed := c.mode != nil
	return app.Div().Class("composer").Body(
		c.seat(SlotDock, "seat-dock"),
		c.seat(SlotStats, "seat-stats"),
		c.renderEnv(),
		app.Div().Class("composer-frame").Body(
			app.Div().Class("composer-morph-slot").Body(
				app.If(morphed, func() app.UI { return c.renderMode() }),
			),
			c.renderBar(morphed),
			c.seat(SlotOverlay, "seat-overlay"),
		),
		app.Div().Class("composer-controls-row").Body(
			c.seat(SlotLeft, "seat-left"),
			c.seat(SlotPlan, "seat-plan"),
			c.seat(SlotModel, "seat-model"),
			c.seat(SlotRight, "seat-right"),
		),
	)
}

// clearNote takes the note away: the person typed, or sent.
func (c *Composer) clearNote(ctx app.Context, _ app.Event) {
	if c.machine.Note() == "" {
		ctx.PreventUpdate()
		return
	}
	c.machine.Dispatch(machine.ClearNote{})
}

// renderBar is the bar's seat. Hidden by a class, never by Hidden(false): go-app writes a
// false boolean into the pre-rendered HTML as hidden="false", which a browser reads as hidden.
func (c *Composer) renderBar(morphed bool) app.UI {
	bar := app.Div().Class("composer-bar")
	if c.machine.Note() != "" {
		// The note a timeout left goes once the person types (docs/composer.md, "Timeouts").
		// Only while there is one: every keystroke would otherwise cross into this handler.
		bar = bar.OnInput(c.clearNote)
	}
	if morphed {
		bar = bar.Class("is-hidden")
	}
	if c.Session == "" {
		// Disabled only in the browser: the pre-rendered page keeps a live textarea, so what
		// a person types before the wasm takes over is kept (web/early.js) and lands in the
		// blank session the hero connects.
		return bar.Body(&inputbar.Bar{Placeholder: c.Placeholder, Disabled: app.IsClient})
	}
	return bar.Body(Slots.Render(SlotBar, c.Session, c)...)
}

// renderEnv is the band above the card: the note a timeout left, and the decisions waiting
// while the person chats about one.
func (c *Composer) renderEnv() app.UI {
	// Set aside only with a head: the chip always has a decision to count.
	waiting, aside := len(c.machine.Queue()), c.machine.SetAside()
	return app.Div().Class("composer-env").Body(
		app.Div().Class("composer-note").Role("status").Aria("live", "polite").Body(
			app.If(c.machine.Note() != "", func() app.UI {
				return app.Span().Text(noteText(c.machine.Note()))
			}).ElseIf(c.machine.Held(), func() app.UI {
				// The person is typing in their fn-form: the decision waits for their pause.
				return app.Span().Text(locale.T(i18n.DecisionHeld))
			}),
		),
		app.If(aside, func() app.UI {
			label := locale.T(i18n.DecisionsWaitingOne)
			if waiting > 1 {
				label = locale.T(i18n.DecisionsWaitingMany, waiting)
			}
			return app.Button().Type("button").Class("env-chip").
				Text(label + " · " + locale.T(i18n.AnswerWaiting)).
				OnClick(func(ctx app.Context, e app.Event) {
					c.run(ctx, c.machine.Dispatch(machine.Resume{At: time.Now()}))
				})
		}),
	)
}

// renderMode draws a morphed mode: a 48 px header and the body. A decision's header ends with
// "Chat about this" and its actions end its body; the fn-form's two actions sit in its
// header instead (docs/composer.md). Keys are read here for every mode, and the machine says
// what they mean.
func (c *Composer) renderMode() app.UI {
	m := c.mode
	primary := m.Primary()
	secondary, hasSecondary := m.Secondary()
	isForm := !c.kind.Decision()
	// The root's tag alternates with each entry into a mode, so the next decision is drawn
	// into new elements: go-app reuses elements by position and tag, and an input reused
	// from the previous decision would keep the text typed there (its Value("") clears
	// nothing).
	tag := "div"
	if c.gen%2 == 0 {
		tag = "section"
	}
	return app.Elem(tag).Class("composer-morph mode-"+c.kind.String()).
		ID("composer-mode").
		TabIndex(-1).
		Role("dialog").
		Aria("label", m.Label()).
		OnKeyDown(func(ctx app.Context, e app.Event) {
			c.onModeKey(ctx, e)
		}, app.EventScope(c.modeKey)).
		// An input method's composition in the fn-form holds a decision that is due
		// (machine.Composing): its keys stop while a candidate is chosen.
		On("compositionstart", func(ctx app.Context, e app.Event) { c.onComposition(ctx, true) }, app.EventScope(c.modeKey)).
		On("compositionend", func(ctx app.Context, e app.Event) { c.onComposition(ctx, false) }, app.EventScope(c.modeKey)).
		Body(
			app.Div().Class("morph-header").Body(
				app.Div().Class("morph-header-main").Body(m.Header()),
				app.If(!isForm && c.behind() > 0, func() app.UI {
					// The queue behind the decision shown: the band that counted them went as
					// the first showed, and nothing said more would follow (QA round 21).
					return app.Span().Class("morph-queue").Text(locale.T(i18n.QueuedBehind, c.behind()))
				}),
				app.If(!isForm, func() app.UI {
					return app.Button().Type("button").Class("chat-about").
						Text(locale.T(i18n.ChatAbout)).
						Title(locale.T(i18n.ChatAboutTitle)).
						Aria("keyshortcuts", "Escape").
						OnClick(func(ctx app.Context, e app.Event) { c.ChatAbout(ctx) })
				}),
			),
			app.Div().Class("morph-body").Body(
				m.Body(),
				app.If(isForm && primary.Hint != "", func() app.UI {
					return app.Elem("p").Class("morph-hint").ID(runHintID).Text(primary.Hint)
				}),
				app.If(!isForm && draftLine(c.keptDraft) != "", func() app.UI {
					// The draft the decision covers, one line: it is safe, and a click goes
					// back to it (the decision stays, as "Chat about this").
					return app.Button().Type("button").Class("draft-strip").
						Aria("label", locale.T(i18n.DraftKeptLabel)).
						Title(locale.T(i18n.ChatAboutTitle)).
						Text(locale.T(i18n.DraftKept, draftLine(c.keptDraft))).
						OnClick(func(ctx app.Context, e app.Event) { c.ChatAbout(ctx) })
				}),
				app.If(c.enterHeld, func() app.UI {
					words := i18n.EnterHeldHere
					if draftLine(c.keptDraft) != "" {
						words = i18n.EnterHeldDraft
					}
					return app.Elem("p").Class("morph-hint enter-held").Role("status").Text(locale.T(words))
				}),
				app.If(c.problem != "", func() app.UI {
					return app.Div().Class("morph-problem").Role("alert").Text(c.problem)
				}),
				app.If(!isForm, func() app.UI {
					return app.Div().Class("morph-actions").Body(
						app.If(hasSecondary, func() app.UI { return c.actionButton(secondary, false, "secondary", secondary.Label) }),
						app.If(!primary.Hidden, func() app.UI {
							class := "send"
							if primary.Quiet {
								class = "send quiet"
							}
							return c.actionButton(primary, true, class, primary.Label)
						}),
					)
				}),
			),
			// The fn-form's run and close buttons are drawn in the header's right end (the
			// stylesheet places them there) but come after the fields in the document, so
			// Tab goes from the picker to the first field, and to Run once the fields are
			// filled, as the eye reads a form.
			app.If(isForm, func() app.UI {
				return app.Div().Class("morph-header-actions morph-form-actions").Body(
					c.actionButton(primary, true, "send run", locale.T(i18n.Run)),
					app.If(hasSecondary, func() app.UI {
						return c.actionButton(secondary, false, "square close", "×")
					}),
				)
			}),
		)
}

// actionButton draws a mode's primary or secondary action. Its handler asks the mode for the
// action again when clicked: go-app keeps the handler of the first render (same func literal,
// same scope), so anything it captured from a render would be stale.
func (c *Composer) actionButton(a modes.Action, primary bool, class, text string) app.UI {
	b := app.Button().Type("button").Class(class).Title(a.Title).Aria("label", a.Label).
		OnClick(func(ctx app.Context, e app.Event) { c.runAction(ctx, primary) }, app.EventScope(c.modeKey, class))
	if a.Keys != "" {
		b = b.Aria("keyshortcuts", modes.AriaKeys(a.Keys)).Body(
			app.Span().Text(text), app.Elem("kbd").Class("key-hint").Aria("hidden", "true").Text(locale.Chord(a.Keys)))
	} else {
		b = b.Text(text)
	}
	if a.Hint != "" {
		b = b.Aria("describedby", runHintID)
	}
	switch {
	case a.Disabled && a.Hint != "":
		// Focusable, so its hint is read with it: a disabled button says nothing of why.
		b = b.Aria("disabled", "true")
	case a.Disabled:
		b = b.Disabled(true) // only ever true: see renderBar
	}
	return b
}

// runHintID is the line under a form's fields that says why its action cannot run yet.
const runHintID = "composer-run-hint"

// runAction runs the current mode's primary or secondary action, if it is enabled.
func (c *Composer) runAction(ctx app.Context, primary bool) bool {
	if c.mode == nil {
		return false
	}
	a, ok := c.mode.Primary(), true
	if !primary {
		a, ok = c.mode.Secondary()
	}
	if !ok || a.Disabled || a.Run == nil {
		return false
	}
	a.Run(ctx)
	return true
}

// onModeKey reads a key into the machine's terms and runs what it means. Every answer but
// RunSecondary prevents the key's default; RunSecondary does when the mode had a secondary
// action to run.
func (c *Composer) onModeKey(ctx app.Context, e app.Event) {
	k := machine.Key{
		Key:       e.Get("key").String(),
		On:        targetOf(e.Get("target")),
		Shift:     e.Get("shiftKey").Bool(),
		Ctrl:      e.Get("ctrlKey").Bool(),
		Meta:      e.Get("metaKey").Bool(),
		Alt:       e.Get("altKey").Bool(),
		Composing: e.Get("isComposing").Bool() || e.Get("keyCode").Int() == 229,
		At:        time.Now(),
	}
	var rest []machine.Effect
	for _, eff := range c.machine.Dispatch(k) {
		switch eff := eff.(type) {
		case machine.Swallow:
			e.PreventDefault()
		case machine.EnterHeld:
			e.PreventDefault()
			c.enterHeld = true
		case machine.ToDraft:
			e.PreventDefault()
			var v any = eff.Text
			if eff.Erase != 0 {
				v = eff.Erase
			}
			ctx.NewActionWithValue(inputbar.ActionTypeInDraft, v)
			// After the bar's handler (dispatched first): the letters went where its caret was.
			ctx.Dispatch(func(app.Context) { c.keptDraft = readDraft() })
		case machine.ToField:
			// Focused within the keydown, the field receives the key (Chromium and the
			// others type into the element focused by then).
			if f, ok := c.mode.(modes.FieldTaker); ok && f.FocusNow() {
				continue
			}
			e.PreventDefault()
		case machine.TabIn:
			e.PreventDefault()
			c.focusField()
		case machine.RunPrimary:
			e.PreventDefault()
			c.runAction(ctx, true)
		case machine.Approve, machine.Reject:
			e.PreventDefault()
			if a, ok := c.mode.(modes.Approver); ok {
				_, approve := eff.(machine.Approve)
				a.Shortcut(ctx, approve)
			}
		case machine.Exit:
			e.PreventDefault() // Escape set the decision aside
			rest = append(rest, eff)
		case machine.Advance:
			e.PreventDefault()
			if s, ok := c.mode.(modes.Stepper); ok && s.Next(ctx) {
				continue
			}
			c.runAction(ctx, true)
		case machine.TabOn:
			if t, ok := c.mode.(modes.Tabber); ok && t.TabOn(ctx) {
				e.PreventDefault()
			}
		case machine.RunSecondary:
			if c.runAction(ctx, false) {
				e.PreventDefault()
			}
		default:
			rest = append(rest, eff)
		}
	}
	c.run(ctx, rest)
}

// onComposition tells the machine an input method's composition started or ended in the
// fn-form.
func (c *Composer) onComposition(ctx app.Context, on bool) {
	if c.kind != machine.FnForm {
		return
	}
	c.run(ctx, c.machine.Dispatch(machine.Composing{On: on, At: time.Now()}))
}

// targetOf says what kind of element el is, as machine.Key reads it.
func targetOf(el app.Value) machine.Target {
	if el.Get("id").String() == "composer-mode" {
		return machine.OnMode
	}
	switch el.Get("tagName").String() {
	case "TEXTAREA":
		return machine.OnText
	case "BUTTON":
		return machine.OnButton
	case "SELECT":
		// A key reaches the page from a select only while its list is closed (an open list
		// takes the keys itself), so Escape there leaves the form, as on a button.
		return machine.OnOther
	case "INPUT":
		switch el.Get("type").String() {
		case "radio", "checkbox", "button", "submit":
			return machine.OnChoice
		}
		return machine.OnLine
	}
	return machine.OnOther
}

// reconnected takes back a problem that said the server could not be reached: the answer the
// mode still holds can be sent now. "Not answered: the server is not reachable" stayed under
// it after the server came back, until the next send (QA round 27).
func (c *Composer) reconnected() {
	if c.problem == locale.T(i18n.NotAnswered, widget.Describe(api.ErrUnreachable)) {
		c.problem = ""
	}
}

// SetProblem implements modes.Host: a failure the person should read, in the morphed area.
func (c *Composer) SetProblem(text string) { c.problem = text }

// noteText is the machine's note in the page's locale.
func noteText(note string) string {
	if note == machine.NoteTimedOut {
		return locale.T(i18n.NoteTimedOut)
	}
	return note
}
