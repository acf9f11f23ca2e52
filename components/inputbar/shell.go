package inputbar

import (
	"context"
	"runtime"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/slashhost"
	"parley/machine/debounce"
	"parley/machine/handoff"
	"parley/machine/input"
	"parley/slash"
)

// shell is the bar's live state in the browser: the sources, one scope per session, and
// the DOM it writes. Everything runs on go-app's UI goroutine; asynchronous work comes back
// through ctx.Dispatch.
type shell struct {
	bar    *Bar
	ctx    app.Context
	client *api.Client
	cat    *catalogue
	reg    *slashhost.Registry
	known  *known
	scopes map[string]*scope
	cur    *scope

	ta, field app.Value
	bd        *backdrop
	sizer     *sizer    // each chip's glyph (chipsize.go)
	resize    app.Value // the ResizeObserver that refits the chips to the textarea's width
	substring app.Value // String.prototype.substring: reads a slice of the value in JS

	composing bool
	before    input.BeforeInput // what beforeinput saw: the edit the input event will report
	lastSel   input.Range
	menu      slash.Menu // the current scope's, as the bar renders it
	voice     menuVoice  // what the status region says of the current scope's menu
	voiceGen  int        // counts menuVoice's waits: only the last one's end says the count
	empty     bool       // the current draft is empty: the send button's state
	bdDirty   bool       // the backdrop must be rebuilt before the next paint
	// swallow is the text of a key the controller took (Space after a command name): an
	// input path that inserts it despite the prevented keydown (synthetic keys, some
	// virtual keyboards) must not type it after all. It lasts until the key is released.
	swallow string
	// handback holds Enter while the person types on past a decision that ended under them
	// (ActionHandBack).
	handback input.Handback

	closed      bool // the bar was dismounted: a pending take-over has nothing to take into
	listeners   []app.Func
	taListeners []taListener
	stats       stats
	perKey      []int64 // with ?bench: the handlers' time for each key, from its keydown on
	benchKeys   bool
	saves       *debounce.Debounce // when the drafts are written
}

// stats count the costly paths, for `make bench`.
type stats struct {
	Observes, FullReads, Rebuilds, Saves int
	HandlerNanos                         int64 // time inside the bar's key and input handlers
}

func (sh *shell) timed(t0 time.Time) {
	d := int64(time.Since(t0))
	sh.stats.HandlerNanos += d
	if n := len(sh.perKey); n > 0 {
		sh.perKey[n-1] += d
	}
}

// scope is one session's input: its machine, its slash controller and what the view keeps
// of them.
type scope struct {
	key      string // the session id; "" for the hero
	m        *input.Machine
	sl       *slashhost.Session // the slash pipeline
	refs     []slash.TextRef
	menu     slash.Menu
	tier     slash.Tier
	stale    bool // edits went by without the controller seeing them
	savedRev uint64
	cancels  map[input.AttemptID]context.CancelFunc
	lastErr  error // the send's error while its settlement is applied
	// noticed says the last notice spoke of the text put back in the box (the bar's own, or a
	// decision's words handed back): it is taken back once the box is emptied.
	noticed bool
}

func newShell(ctx app.Context, b *Bar) *shell {
	u := ctx.Page().URL()
	sh := &shell{
		bar:    b,
		ctx:    ctx,
		client: &api.Client{Base: u.Scheme + "://" + u.Host},
		cat:    &catalogue{c: &api.Client{Base: u.Scheme + "://" + u.Host}, bar: b},
		reg:    slashhost.NewRegistry(),
		known:  &known{},
		scopes: map[string]*scope{},
		empty:  true,
		saves:  debounce.New(saveIdle, maxSaveDelay),
	}
	// Registration order is the menu's group order and the order Space and Enter poll. Files
	// come before sessions: "@READ" and Tab is README.md, not a session whose title holds the
	// words (QA round 25).
	for _, src := range []slash.Source{
		&commands{cat: sh.cat},
		&skills{cat: sh.cat},
		&functions{cat: sh.cat, open: func(name string) { sh.ctx.NewActionWithValue(ActionFnFormOpen, name) }},
		&files{cat: sh.cat, known: sh.known},
		&sessions{cat: sh.cat, known: sh.known},
		exampleArguments(sh.cat),
	} {
		_ = sh.reg.Register(src)
	}
	doc := app.Window().Get("document")
	sh.ta = doc.Call("getElementById", InputID)
	sh.field = sh.ta.Get("parentElement")
	sh.sizer = newSizer(sh.ta)
	sh.bd = newBackdrop(doc.Call("getElementById", backdropID), doc.Call("getElementById", refsID))
	sh.substring = app.Window().Get("String").Get("prototype").Get("substring")

	sh.cur = sh.scope(b.Session)
	sh.markSession()
	// Marks the textarea as the shell's: web/early.js no longer copies its value.
	sh.ta.Set("parleyShell", true)
	sh.show()
	sh.takeRowKeys()
	sh.listen()
	sh.watchWidth()
	if !b.Disabled {
		// After the render: a bar that was the disabled one a moment ago is still disabled
		// in the DOM here (OnUpdate runs before go-app applies the new attributes), and a
		// disabled textarea takes no focus.
		ctx.Defer(func(ctx app.Context) { sh.takeOver(ctx, false) })
	}
	save := app.FuncOf(func(app.Value, []app.Value) any { sh.saveAll(); return nil })
	app.Window().Call("addEventListener", "pagehide", save)
	sh.listeners = append(sh.listeners, save)
	if strings.Contains(u.RawQuery, "bench") {
		sh.benchHooks()
	}
	return sh
}

// benchHooks expose the Go heap's allocation counter to `make bench`.
func (sh *shell) benchHooks() {
	mem := app.FuncOf(func(app.Value, []app.Value) any {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.TotalAlloc)
	})
	app.Window().Set("parleyHeapAlloc", mem)
	st := app.FuncOf(func(app.Value, []app.Value) any {
		return map[string]any{"observes": sh.stats.Observes, "fullReads": sh.stats.FullReads, "rebuilds": sh.stats.Rebuilds, "saves": sh.stats.Saves, "handlerMicros": int(sh.stats.HandlerNanos / 1000)}
	})
	app.Window().Set("parleyInputStats", st)
	// The handlers' own work for each key since the last call, in ms: every listener of the
	// textarea from the key's keydown to the next keydown.
	sh.benchKeys = true
	keys := app.FuncOf(func(app.Value, []app.Value) any {
		out := make([]any, len(sh.perKey))
		for i, d := range sh.perKey {
			out[i] = float64(d) / 1e6
		}
		sh.perKey = sh.perKey[:0]
		return out
	})
	app.Window().Set("parleyHandlerKeys", keys)
	sh.listeners = append(sh.listeners, mem, st, keys)
}

func (sh *shell) close() {
	sh.closed = true
	sh.suspend()
	sh.saveAll()
	for _, sc := range sh.scopes {
		sc.sl.Close()
		for _, cancel := range sc.cancels {
			cancel()
		}
	}
	app.Window().Call("removeEventListener", "pagehide", sh.listeners[0])
	if sh.resize != nil {
		sh.resize.Call("disconnect")
	}
	for _, l := range sh.taListeners {
		sh.ta.Call("removeEventListener", l.name, l.listener)
		l.f.Release()
	}
}

// scope returns the session's scope, building it (and restoring its saved draft) on first
// use.
func (sh *shell) scope(key string) *scope {
	if sc, ok := sh.scopes[key]; ok {
		return sc
	}
	sc := &scope{key: key, cancels: map[input.AttemptID]context.CancelFunc{}, menu: slash.Menu{Active: -1}}
	sc.m = input.New(input.Config{Session: key, Owns: Owns})
	if text := loadDraft(key); text != "" {
		sc.m.Dispatch(input.InsertText{Text: text, Span: input.Span{Rev: sc.m.Rev()}})
	}
	sc.savedRev = sc.m.Rev()
	sh.scopes[key] = sc
	sh.attach(sc)
	return sc
}

// attach gives the scope a controller for its session.
func (sh *shell) attach(sc *scope) {
	var sl *slashhost.Session
	post := func(ev slash.Event) {
		sh.ctx.Dispatch(func(ctx app.Context) {
			ctx.PreventUpdate()
			if sc.sl == sl {
				sh.runSlash(sc, sl.Dispatch(ev))
				sh.flush()
			}
		})
	}
	// A rewrite the pipeline asks for goes into the scope's machine; the answer is whether
	// it really rewrote.
	rewrite := func(r slash.Rewrite) bool {
		ev := r.Event()
		if ev == nil {
			return false
		}
		effs := sc.m.Dispatch(ev)
		sh.apply(sc, effs)
		return input.Rewrote(effs)
	}
	sl, effs := slashhost.Open(sh.reg, slashhost.Config{Session: slash.Projection{SessionID: sc.key}, Rewrite: rewrite, Post: post})
	sc.sl = sl
	sc.stale = true
	sh.runSlash(sc, effs)
}

// switchTo shows another session's draft in the same textarea.
func (sh *shell) switchTo(key string) {
	if sh.cur != nil && sh.cur.key == key {
		return
	}
	sh.saveAll()
	if sh.cur != nil {
		sh.cur.sl.Dispatch(slash.Dismiss{})
		sh.cur.menu = slash.Menu{Active: -1}
	}
	sh.cur = sh.scope(key)
	sh.markSession()
	sh.show()
	sh.takeRowKeys()
}

// markSession tells web/early.js whose draft the textarea shows (data-session): a character
// typed on that session's row in the list is handed to it, and to no other session's.
func (sh *shell) markSession() {
	sh.ta.Get("dataset").Set("session", sh.cur.key)
}

// takeRowKeys takes the characters web/early.js kept for this session while they were typed
// on its row, just clicked, before the textarea showed its draft: they go after the draft,
// and the focus comes to the textarea with them. Kept for another session, they are dropped.
func (sh *shell) takeRowKeys() {
	k := app.Window().Get("parleyRowKeys")
	if !k.Truthy() || k.Get("text").String() == "" {
		sh.focusAfterRowClick()
		return
	}
	session, text := k.Get("session").String(), k.Get("text").String()
	k.Set("session", "")
	k.Set("text", "")
	if session != sh.cur.key {
		return
	}
	sh.appendText(text)
	if a := app.Window().Get("document").Get("activeElement"); Free() || a.Get("classList").Call("contains", "session-link").Bool() {
		sh.ta.Call("focus")
	}
	end := sh.cur.m.Len()
	sh.ta.Call("setSelectionRange", end, end)
	sh.lastSel = input.Range{Start: end, End: end}
}

// focusAfterRowClick gives the box the focus when a click of the mouse (or a tap) on its row
// in the list opened the session shown: the person means to write there, and a focus left on
// the link let letters through (parleyRowKeys) but not Backspace or Ctrl+A, so "clear and
// retype" appended to the old draft (QA round 20 #12). Enter on the link keeps the focus in
// the list, where a keyboard user goes on browsing, and a tap keeps it off the box.
func (sh *shell) focusAfterRowClick() {
	f := app.Window().Get("parleyFollowedRow")
	if !f.Truthy() {
		return
	}
	row := f.Invoke()
	recent := app.Window().Get("performance").Call("now").Float()-row.Get("at").Float() < 2000
	if !recent || !row.Get("pointer").Bool() || row.Get("href").String() != "/s/"+sh.cur.key {
		return
	}
	if app.Window().Call("matchMedia", "(pointer: coarse)").Get("matches").Bool() {
		return // a tap on a phone: the on-screen keyboard would cover the thread just opened
	}
	if a := app.Window().Get("document").Get("activeElement"); !a.Get("classList").Call("contains", "session-link").Bool() {
		return // the person already went elsewhere
	}
	sh.ta.Call("focus")
	end := sh.cur.m.Len()
	sh.ta.Call("setSelectionRange", end, end)
	sh.lastSel = input.Range{Start: end, End: end}
}

// carry moves the draft of session from to session to, which takes it only while its own
// draft is empty. It travels as its clipboard projection, as across a reload: a chip made in
// one workspace may mean nothing in another.
func (sh *shell) carry(from, to string) {
	src, ok := sh.scopes[from]
	if !ok || from == to || src.m.Len() == 0 {
		return
	}
	dst := sh.scope(to)
	if dst.m.Len() != 0 {
		return
	}
	dst.m.Dispatch(input.InsertText{Text: src.m.PersistText(), Span: input.Span{Rev: dst.m.Rev()}})
	src.m.Dispatch(input.DraftChanged{Draft: "", At: time.Now()})
	saveDraft(from, "")
	sh.scheduleSave()
	if sh.cur == src || sh.cur == dst {
		sh.show()
	}
}

// appendText adds text at the end of the shown draft, as one undo step.
func (sh *shell) appendText(text string) {
	sc := sh.cur
	end := sc.m.Len()
	sh.apply(sc, sc.m.Dispatch(input.InsertText{Text: text, Span: input.Span{Start: end, End: end, Rev: sc.m.Rev()}}))
	sh.flush()
}

// replaceText puts text in place of the whole draft, the caret after it.
func (sh *shell) replaceText(text string) {
	sc := sh.cur
	sh.apply(sc, sc.m.Dispatch(input.InsertText{Text: text, Span: input.Span{Start: 0, End: sc.m.Len(), Rev: sc.m.Rev()}}))
	sh.flush()
}

// typeIn types text, or erases (input.TypeIn's Erase), where the person left the caret (the bar's last selection: the textarea
// is hidden under a decision, and its keys land there), as one undo step, and leaves the
// caret after it, so the next letters typed follow in order. The marks are read again before
// they are drawn: the text may shift a reference the controller saw.
func (sh *shell) typeIn(text string, erase int) {
	sc := sh.cur
	sc.stale = true
	sh.apply(sc, sc.m.Dispatch(input.TypeIn{Text: text, Erase: erase, Selection: sh.lastSel, At: time.Now()}))
	sh.flush()
}

// show writes the current scope's draft into the textarea and redraws the backdrop.
func (sh *shell) show() {
	sc := sh.cur
	sh.sizer.refresh()
	sh.ta.Set("value", sh.viewOf(sc.m))
	sel := sc.m.Selection()
	if sel.End > sc.m.Len() || sel.Start > sel.End {
		sel = input.Range{Start: sc.m.Len(), End: sc.m.Len()}
	}
	sh.ta.Call("setSelectionRange", sel.Start, sel.End)
	sh.lastSel = sel
	sh.menu, sh.voice = sc.menu, menuVoice{}
	sh.voiceGen++
	sh.voice.settle(sc.menu)
	sh.empty = sc.m.Len() == 0
	sh.placeholder()
	sh.bdDirty = true
	sh.flush()
}

// liveAttr on <html> tells web/early.js that the live bar takes the keys now.
const liveAttr = "data-composer-live"

// suspend hands the keys back to web/early.js: the bar is dismounted, or disabled for a
// while (the hero between a session and its next blank one, a gate). A disabled textarea
// takes no key, and a key on the body would go nowhere; early.js holds it, and the bar takes
// it when it is enabled again (takeOver).
func (sh *shell) suspend() {
	app.Window().Get("document").Get("documentElement").Call("removeAttribute", liveAttr)
}

// isLive reports whether the page is marked live.
func isLive() bool {
	return app.Window().Get("document").Get("documentElement").Call("hasAttribute", liveAttr).Bool()
}

// takeOver makes the bar live (docs/input.md, "The hand-off"): it takes the keys web/early.js
// held while no live bar could (typed into the pre-rendered box, on the body while the wasm
// took over, into the disabled bar), puts them after the draft in the order typed, focuses
// the textarea with the caret at the end, marks the page live, and sends a pending Enter
// once. With onlyHeld (every update of an enabled bar) it does nothing while the page is
// live and no key was held: a bar that was suspended (disabled for a while) takes over
// again, with what was held meanwhile; otherwise the focus is left alone.
func (sh *shell) takeOver(ctx app.Context, onlyHeld bool) {
	if sh.closed || sh.bar.Disabled || sh.cur == nil {
		return
	}
	if sh.ta.Get("disabled").Bool() {
		// Not enabled in the DOM yet: early.js keeps the keys until it is.
		ctx.After(10*time.Millisecond, func(ctx app.Context) { ctx.PreventUpdate(); sh.takeOver(ctx, onlyHeld) })
		return
	}
	// From reading the buffer to marking the page live nothing else runs (one JS task), so
	// no key falls between the two.
	e := takeEarly()
	if onlyHeld && e.Empty() && isLive() {
		return
	}
	doc := app.Window().Get("document")
	doc.Get("documentElement").Call("setAttribute", liveAttr, "")
	// Only when nothing else holds the focus: a control the person or the app focused (the
	// fn-form's picker, opened while the bar was connecting) keeps it, and the held keys
	// still land in the draft.
	if Free() || (!e.Empty() && heroLink(doc.Get("activeElement"))) {
		sh.ta.Call("focus")
	}
	if e.Empty() {
		return
	}
	sc := sh.cur
	plan := handoff.Take(sc.m.Draft(), e)
	if plan.Submit {
		sh.apply(sc, sc.m.Dispatch(input.DraftChanged{Draft: plan.Send, At: time.Now()}))
		sh.submit(sc, input.Queue)
	}
	sh.apply(sc, sc.m.Dispatch(input.DraftChanged{Draft: plan.Draft, At: time.Now()}))
	sc.m.Dispatch(input.InvalidatePaste{})
	sh.show()
	end := sc.m.Len()
	sh.ta.Call("setSelectionRange", end, end)
	sh.lastSel = input.Range{Start: end, End: end}
	sh.observe(sc)
	sh.flush()
}

// takeEarly reads and empties web/early.js's buffer.
func takeEarly() handoff.Early {
	var e handoff.Early
	b := app.Window().Get("parleyEarly")
	if !b.Truthy() {
		return e
	}
	e.Text = b.Get("text").String()
	sends := b.Get("sends")
	for i := range sends.Length() {
		e.Sends = append(e.Sends, sends.Index(i).String())
	}
	b.Set("text", "")
	sends.Set("length", 0)
	return e
}

// Free reports whether the page may move the focus to the composer on its own
// (docs/composer.md, "Focus and keys"): nothing holds it (the body, or no element), or the
// composer's textarea does. A control the person or the app focused deliberately (the
// fn-form's picker, a decision's field, a session's row) keeps it. With held keys
// (takeOver) the link just followed lets it go too: the keys were typed for the composer.
func Free() bool {
	doc := app.Window().Get("document")
	a := doc.Get("activeElement")
	return !a.Truthy() || a.Equal(doc.Get("body")) || a.Equal(doc.Get("documentElement")) || a.Get("id").String() == InputID
}

// heroLink reports whether a is a link to the hero (New session): after following it, its
// job is done, and the hero's composer takes the focus from it.
func heroLink(a app.Value) bool {
	return a.Truthy() && a.Get("tagName").String() == "A" && a.Call("getAttribute", "href").String() == "/"
}

// Focus gives the keys to the composer on entering the hero or a new session: the textarea
// takes the focus when the bar is live and enabled; otherwise the New session link, just
// followed, lets it go, so that web/early.js holds the keys until the bar takes them, and
// the focus with them (takeOver). Anything else that holds the focus keeps it (Free).
func Focus() {
	doc := app.Window().Get("document")
	a := doc.Get("activeElement")
	if !Free() && !heroLink(a) {
		return
	}
	ta := doc.Call("getElementById", InputID)
	if ta.Truthy() && isLive() && !ta.Get("disabled").Bool() {
		ta.Call("focus")
		return
	}
	if heroLink(a) {
		a.Call("blur")
	}
}
