package inputbar

import (
	"context"
	"runtime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/hub"
	"parley/app/slashhost"
	"parley/machine/input"
	"parley/machine/utf16x"
	"parley/protocol"
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
	substring app.Value // String.prototype.substring: reads a slice of the value in JS

	composing bool
	pending   pending
	lastSel   input.Range
	menu      slash.Menu // the current scope's, as the bar renders it
	empty     bool       // the current draft is empty: the send button's state
	bdDirty   bool       // the backdrop must be rebuilt before the next paint
	saving    bool       // a draft save is scheduled
	// swallow is the text of a key the controller took (Space after a command name): an
	// input path that inserts it despite the prevented keydown (synthetic keys, some
	// virtual keyboards) must not type it after all. It lasts until the key is released.
	swallow string

	listeners   []app.Func
	taListeners []taListener
	stats       stats
	// unsaved is when the oldest unsaved change happened, lastChange the newest: drafts
	// are written once typing pauses, or at the latest maxSaveDelay after a change.
	unsaved, lastChange time.Time
}

// stats count the costly paths, for `make bench`.
type stats struct {
	Observes, FullReads, Rebuilds, Saves int
	HandlerNanos                         int64 // time inside the bar's key and input handlers
}

func (sh *shell) timed(t0 time.Time) { sh.stats.HandlerNanos += int64(time.Since(t0)) }

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
}

// pending is what beforeinput saw: the edit the input event will report.
type pending struct {
	ok         bool
	typ        string
	start, end int
	n          int // the draft's length before
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
	}
	// Registration order is the menu's group order and the order Space and Enter poll.
	for _, src := range []slash.Source{
		&commands{cat: sh.cat},
		&skills{cat: sh.cat},
		&functions{cat: sh.cat, open: func(name string) { sh.ctx.NewActionWithValue(ActionFnFormOpen, name) }},
		&sessions{cat: sh.cat, known: sh.known},
		&files{cat: sh.cat, known: sh.known},
	} {
		_ = sh.reg.Register(src)
	}
	doc := app.Window().Get("document")
	sh.ta = doc.Call("getElementById", InputID)
	sh.field = sh.ta.Get("parentElement")
	sh.bd = newBackdrop(doc.Call("getElementById", backdropID), doc.Call("getElementById", refsID))
	sh.substring = app.Window().Get("String").Get("prototype").Get("substring")

	sh.cur = sh.scope(b.Session)
	// What was typed into the pre-rendered page before the wasm took over.
	if early := app.Window().Get("parleyEarlyDraft"); early.Truthy() && early.String() != "" {
		sc := sh.cur
		if sc.m.Len() == 0 {
			sc.m.Dispatch(input.DraftChanged{Draft: early.String(), At: time.Now()})
		} else {
			// The pre-rendered box did not show the saved draft: what was typed there goes
			// after it, and neither is lost.
			end := sc.m.Len()
			sc.m.Dispatch(input.InsertText{Text: " " + early.String(), Span: input.Span{Start: end, End: end, Rev: sc.m.Rev()}})
		}
		app.Window().Set("parleyEarlyDraft", "")
	}
	sh.show()
	sh.listen()
	if !b.Disabled {
		// After the render: a bar that was the disabled one a moment ago is still disabled
		// in the DOM here (OnUpdate runs before go-app applies the new attributes), and a
		// disabled textarea takes no focus.
		ctx.Defer(func(app.Context) {
			if app.Window().Get("document").Get("activeElement").Equal(app.Window().Get("document").Get("body")) {
				sh.ta.Call("focus")
			}
		})
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
	sh.listeners = append(sh.listeners, mem, st)
}

func (sh *shell) close() {
	sh.saveAll()
	for _, sc := range sh.scopes {
		sc.sl.Close()
		for _, cancel := range sc.cancels {
			cancel()
		}
	}
	app.Window().Call("removeEventListener", "pagehide", sh.listeners[0])
	for _, l := range sh.taListeners {
		sh.ta.Call("removeEventListener", l.name, l.f)
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
	sh.show()
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

// show writes the current scope's draft into the textarea and redraws the backdrop.
func (sh *shell) show() {
	sc := sh.cur
	sh.ta.Set("value", sc.m.Draft())
	sel := sc.m.Selection()
	if sel.End > sc.m.Len() || sel.Start > sel.End {
		sel = input.Range{Start: sc.m.Len(), End: sc.m.Len()}
	}
	sh.ta.Call("setSelectionRange", sel.Start, sel.End)
	sh.lastSel = sel
	sh.menu = sc.menu
	sh.empty = sc.m.Len() == 0
	sh.bdDirty = true
	sh.flush()
}

// --- events -----------------------------------------------------------------------------

func (b *Bar) live() (*shell, bool) {
	sh := b.sh
	return sh, sh != nil && sh.cur != nil && !b.Disabled
}

// listen handles the textarea's per-keystroke events with listeners of its own: they run
// straight in the browser's event, outside go-app's dispatch, and touch no go-app state, so
// a keystroke never renders a component.
func (sh *shell) listen() {
	on := func(name string, h func(e app.Event)) {
		f := app.FuncOf(func(_ app.Value, args []app.Value) any {
			if len(args) == 0 || sh.cur == nil || sh.bar.Disabled {
				return nil
			}
			t0 := time.Now()
			h(app.Event{Value: args[0]})
			sh.flush()
			sh.timed(t0)
			return nil
		})
		sh.ta.Call("addEventListener", name, f)
		sh.taListeners = append(sh.taListeners, taListener{name, f})
	}
	on("keydown", sh.keyDown)
	on("beforeinput", sh.beforeInput)
	on("input", sh.input)
	on("keyup", func(e app.Event) {
		if !sh.composing {
			sh.swallow = ""
			sh.caretMoved()
		}
	})
}

type taListener struct {
	name string
	f    app.Func
}

func (b *Bar) onCompositionStart(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.composing = true
		// While an IME composes, the textarea shows its own text: the backdrop cannot follow
		// a composition it is not told about.
		sh.field.Get("classList").Call("add", "composing")
	}
}

func (b *Bar) onCompositionEnd(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.composing = false
		sh.field.Get("classList").Call("remove", "composing")
		sh.pending = pending{}
		sh.edit(sh.cur, input.DraftChanged{Draft: sh.ta.Get("value").String(), At: time.Now()})
		sh.flush()
	}
}

func (b *Bar) onPaste(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.paste(e)
		sh.flush()
	}
}

func (b *Bar) onCopy(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.copy(e, false)
		sh.flush()
	}
}

func (b *Bar) onCut(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.copy(e, true)
		sh.flush()
	}
}

func (b *Bar) onScroll(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh := b.sh; sh != nil {
		sh.bd.root.Set("scrollTop", sh.ta.Get("scrollTop"))
	}
}

func (b *Bar) onClick(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.clickChip(e)
		sh.caretMoved()
		sh.flush()
	}
}

func (b *Bar) onBlur(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.runSlash(sh.cur, sh.cur.sl.Dispatch(slash.Dismiss{}))
		sh.flush()
	}
}

func (b *Bar) onSendClick(ctx app.Context, e app.Event) { b.clickSubmit(ctx, input.Queue) }

func (b *Bar) onSteerClick(ctx app.Context, e app.Event) { b.clickSubmit(ctx, input.Steer) }

func (b *Bar) clickSubmit(ctx app.Context, mode input.Mode) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.submit(sh.cur, mode)
		sh.ta.Call("focus")
		sh.flush()
	}
}

// choose picks a menu option with the mouse.
func (b *Bar) choose(ctx app.Context, i int) {
	ctx.PreventUpdate()
	if sh, ok := b.live(); ok {
		sh.runSlash(sh.cur, sh.cur.sl.Dispatch(slash.Choose{Index: i}))
		sh.ta.Call("focus")
		sh.flush()
	}
}

func (sh *shell) keyDown(e app.Event) {
	sc := sh.cur
	k := slash.Key{
		Key:       e.Get("key").String(),
		Shift:     e.Get("shiftKey").Truthy(),
		Ctrl:      e.Get("ctrlKey").Truthy(),
		Alt:       e.Get("altKey").Truthy(),
		Meta:      e.Get("metaKey").Truthy(),
		Composing: sh.composing || e.Get("isComposing").Truthy(),
		KeyCode:   e.Get("keyCode").Int(),
	}
	if sc.stale && (k.Key == " " || k.Key == "Tab" || strings.HasPrefix(k.Key, "Arrow")) {
		// Space and the menu keys read the controller's hit. Unobserved edits never made
		// one (an edit near a trigger is always observed), so only a caret bound to a
		// trigger needs the controller to look again.
		if sel := sh.selection(); sh.nearTrigger(sc, sel.Start, sel.End) {
			sh.observe(sc)
		}
	}
	effs := sc.sl.Dispatch(k)
	prevented := slash.Prevented(effs)
	if prevented {
		e.PreventDefault()
		if k.Key == " " {
			sh.swallow = " "
		}
	}
	sh.runSlash(sc, effs)
	if prevented || k.IME() {
		return
	}
	mod := k.Ctrl || k.Meta
	key := strings.ToLower(k.Key)
	switch {
	case mod && !k.Alt && key == "z" && !k.Shift:
		e.PreventDefault()
		sh.machine(sc, input.Undo{})
	case mod && !k.Alt && (key == "z" && k.Shift || key == "y" && k.Ctrl && !k.Shift):
		e.PreventDefault()
		sh.machine(sc, input.Redo{})
	case k.Key == "Enter" && !k.Shift && k.Ctrl:
		// Ctrl+Enter breaks the line through the machine: one undo history.
		e.PreventDefault()
		sh.machine(sc, input.Newline{Selection: sh.selection(), At: time.Now()})
	case k.Key == "Enter" && !k.Shift:
		e.PreventDefault()
		mode := input.Queue
		if k.Alt {
			mode = input.Steer
		}
		sh.submit(sc, mode)
	case k.Key == "Escape":
		if sc.m.Phase() == input.Claimed {
			sh.machine(sc, input.Release{})
		}
	}
}

// machine dispatches ev, applies its effects and lets the controller see the result.
func (sh *shell) machine(sc *scope, ev input.Event) {
	sh.apply(sc, sc.m.Dispatch(ev))
	sh.observe(sc)
}

func (sh *shell) beforeInput(e app.Event) {
	sc := sh.cur
	switch t := e.Get("inputType").String(); t {
	case "historyUndo":
		// The browser's own undo would fork a second history: the machine's is the one.
		e.PreventDefault()
		sh.machine(sc, input.Undo{})
		return
	case "historyRedo":
		e.PreventDefault()
		sh.machine(sc, input.Redo{})
		return
	case "insertText":
		if sh.swallow != "" && e.Get("data").String() == sh.swallow {
			sh.swallow = ""
			e.PreventDefault()
			return
		}
		fallthrough
	default:
		if sh.composing || e.Get("isComposing").Truthy() {
			sh.pending = pending{}
			return
		}
		sel := sh.selection()
		sh.pending = pending{ok: true, typ: t, start: sel.Start, end: sel.End, n: sc.m.Len()}
	}
}

// input turns the textarea's change into the machine's event: a delta derived from what
// beforeinput saw, so a keystroke never copies the draft into Go; the whole value only
// when the delta cannot be known.
func (sh *shell) input(e app.Event) {
	if sh.composing || e.Get("isComposing").Truthy() {
		sh.pending = pending{}
		return
	}
	sc := sh.cur
	p := sh.pending
	sh.pending = pending{}
	n := sh.ta.Get("textLength").Int()
	caret := sh.ta.Get("selectionStart").Int()
	now := time.Now()
	var ev input.Event
	if p.ok && p.n == sc.m.Len() {
		switch {
		case strings.HasPrefix(p.typ, "insert") && p.typ != "insertReplacementText" && p.typ != "insertFromDrop":
			k := caret - p.start
			if k >= 0 && n == p.n-(p.end-p.start)+k {
				text := ""
				if k > 0 {
					text = sh.substring.Call("call", sh.ta.Get("value"), p.start, caret).String()
				}
				ev = input.Edit{Start: p.start, End: p.end, Text: text, At: now}
			}
		case strings.HasPrefix(p.typ, "delete") && p.typ != "deleteByDrag":
			if d := p.n - n; d > 0 && caret+d <= p.n {
				ev = input.Edit{Start: caret, End: caret + d, At: now}
			}
		}
	}
	if ev == nil {
		sh.stats.FullReads++
		ev = input.DraftChanged{Draft: sh.ta.Get("value").String(), At: now}
	}
	sh.edit(sc, ev)
}

// edit applies a typed change. The controller sees the draft only when the change could
// touch a trigger or a plain-text reference (or a menu is open); otherwise the keystroke
// costs the machine's O(edit) work and one text node's replaceData.
func (sh *shell) edit(sc *scope, ev input.Event) {
	x, delta := ev.(input.Edit)
	observe := !delta || sh.touchesTrigger(sc, x)
	rev := sc.m.Rev()
	effs := sc.m.Dispatch(ev)
	sh.apply(sc, effs)
	if delta && !observe {
		observe = sh.nearTrigger(sc, x.Start, x.Start+utf16x.Len(x.Text))
	}
	if observe {
		sh.observe(sc)
	} else if sc.m.Rev() != rev {
		sc.stale = true
	}
	if delta && !sh.bdDirty && len(effs) == 0 {
		if !sh.bd.edit(x.Start, x.End, x.Text, utf16x.Len(x.Text)) {
			sh.bdDirty = true
		}
	} else if sc.m.Rev() != rev || !delta {
		sh.bdDirty = true
	}
	if n := sh.ta.Get("textLength").Int(); n != sc.m.Len() {
		// The derived edit was wrong: take the whole value once, and redraw.
		sh.apply(sc, sc.m.Dispatch(input.DraftChanged{Draft: sh.ta.Get("value").String(), At: time.Now()}))
		sh.observe(sc)
		sh.bdDirty = true
	}
	sel := sh.selection()
	sh.lastSel = sel
}

// touchesTrigger reports, before the edit, whether it inserts or deletes a trigger
// character, or a hit or menu is live: the controller must then see the draft.
func (sh *shell) touchesTrigger(sc *scope, x input.Edit) bool {
	if _, ok := sc.sl.Controller().Hit(); ok || sc.menu.Open || sc.m.Phase() != input.Plain {
		return true
	}
	if strings.ContainsAny(x.Text, "/@") {
		return true
	}
	if x.End > x.Start && strings.ContainsAny(sc.m.Slice(x.Start, x.End), "/@") {
		return true
	}
	return tierOf(sc.m) != sc.tier
}

// nearTrigger reports, after the edit, whether the name run around [s, e) is bound to a
// trigger on either side: the hit and the references can change only then. A run longer
// than the window counts as bound.
func (sh *shell) nearTrigger(sc *scope, s, e int) bool {
	const window = 48
	left := sc.m.Slice(s-window, s)
	i := len(left)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(left[:i])
		if !isNameRune(r) {
			if r == '/' || r == '@' {
				return true
			}
			break
		}
		i -= size
	}
	if i == 0 && s-window > 0 {
		return true
	}
	right := sc.m.Slice(e, e+window)
	j := 0
	for j < len(right) {
		r, size := utf8.DecodeRuneInString(right[j:])
		if !isNameRune(r) {
			if r == '/' || r == '@' {
				return true
			}
			break
		}
		j += size
	}
	return j == len(right) && e+window < sc.m.Len()
}

// isNameRune is slash's name grammar: letters, digits, marks and _ - . : +.
func isNameRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_-.:+", r)
	}
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
}

func tierOf(m *input.Machine) slash.Tier {
	switch m.Phase() {
	case input.Claimed:
		return slash.Claimed
	case input.Adjudicating, input.Submitting:
		return slash.Frozen
	}
	return slash.Plain
}

// observe tells the controller the draft and the selection.
func (sh *shell) observe(sc *scope) {
	sh.stats.Observes++
	sc.tier = tierOf(sc.m)
	sc.stale = false
	sel := sc.m.Selection()
	if sc == sh.cur {
		sel = sh.selection()
	}
	sh.runSlash(sc, sc.sl.Dispatch(slash.DraftObserved{Draft: sc.m.Draft(), SelStart: sel.Start, SelEnd: sel.End, Rev: sc.m.Rev(), Tier: sc.tier}))
}

// caretMoved follows a selection change that was no edit: it ends a paste's matching and
// may enter or leave a trigger.
func (sh *shell) caretMoved() {
	sc := sh.cur
	sel := sh.selection()
	if sel == sh.lastSel {
		return
	}
	sh.lastSel = sel
	sc.m.Dispatch(input.InvalidatePaste{})
	if _, ok := sc.sl.Controller().Hit(); ok || sc.menu.Open || sc.stale || sh.nearTrigger(sc, sel.Start, sel.Start) {
		sh.observe(sc)
	}
}

func (sh *shell) selection() input.Range {
	return input.Range{Start: sh.ta.Get("selectionStart").Int(), End: sh.ta.Get("selectionEnd").Int()}
}

func (sh *shell) submit(sc *scope, mode input.Mode) {
	if sc.stale {
		sh.observe(sc)
	}
	sh.machine(sc, input.Enter{Mode: mode})
}

// paste goes through paste-begin: the references the hot snapshot knows become chips in the
// same transaction (one undo), and the matcher looks for more asynchronously.
func (sh *shell) paste(e app.Event) {
	dt := e.Get("clipboardData")
	if !dt.Truthy() {
		return
	}
	e.PreventDefault()
	text := strings.ReplaceAll(dt.Call("getData", "text/plain").String(), "\r\n", "\n")
	if text == "" {
		return
	}
	sc := sh.cur
	if sc.stale {
		sh.observe(sc)
	}
	sh.machine(sc, input.PasteBegin{Text: text, Selection: sh.selection(), Components: sh.known.MatchSync(text), At: time.Now()})
}

// copy puts the selection's clipboard projection on the clipboard: chips expand to their
// text. A cut then deletes the selection through the machine.
func (sh *shell) copy(e app.Event, cut bool) {
	sc := sh.cur
	sel := sh.selection()
	if sel.Start == sel.End {
		return
	}
	dt := e.Get("clipboardData")
	if !dt.Truthy() {
		return
	}
	e.PreventDefault()
	dt.Call("setData", "text/plain", sc.m.ClipboardText(sel.Start, sel.End))
	if cut {
		sh.machine(sc, input.InsertText{Span: input.Span{Start: sel.Start, End: sel.End, Rev: sc.m.Rev()}})
	}
}

// clickChip selects a whole chip that a mouse click landed on.
func (sh *shell) clickChip(e app.Event) {
	sel := sh.selection()
	if sel.Start != sel.End {
		return
	}
	x, y := e.Get("clientX").Float(), e.Get("clientY").Float()
	for _, p := range []int{sel.Start - 1, sel.Start} {
		nd, ok := sh.bd.chipAt(p)
		if !ok {
			continue
		}
		r := nd.el.Call("getBoundingClientRect")
		if x >= r.Get("left").Float() && x <= r.Get("right").Float() && y >= r.Get("top").Float() && y <= r.Get("bottom").Float() {
			sh.ta.Call("setSelectionRange", nd.start, nd.start+1)
			return
		}
	}
}

// --- effects ----------------------------------------------------------------------------

// apply runs the machine's effects.
func (sh *shell) apply(sc *scope, effs []input.Effect) {
	for i := 0; i < len(effs); i++ {
		switch x := effs[i].(type) {
		case input.SetView:
			if sc == sh.cur {
				sh.ta.Call("setRangeText", x.Text, x.Start, x.End)
				sh.ta.Call("setSelectionRange", x.SelStart, x.SelEnd)
				sh.lastSel = input.Range{Start: x.SelStart, End: x.SelEnd}
				sh.bdDirty = true
			}
		case input.ChipRemoved:
			if sc == sh.cur {
				sh.bdDirty = true
			}
		case input.Adjudicate:
			sh.runSlash(sc, sc.sl.Dispatch(slash.Adjudicate{Attempt: x.Attempt, Draft: x.Draft}))
		case input.Serialize:
			text, ok := Serialize(x.Source, x.Ref)
			var err error
			if !ok {
				err = input.ErrNoOwner
			}
			effs = append(effs, sc.m.Dispatch(input.Serialized{Attempt: x.Attempt, ID: x.ID, Text: text, Err: err})...)
		case input.DefaultSink:
			sh.send(sc, x.Attempt, x.Text, x.Mode)
		case input.BeginSubmit:
			// Server commands are claimed for the ghost hint and the guard tiers; they travel
			// as text, and the server's door runs them.
			sh.send(sc, x.Attempt, x.Text, x.Mode)
		case input.Abort:
			if cancel := sc.cancels[x.Attempt]; cancel != nil {
				cancel()
			}
		case input.Notice:
			sh.ctx.NewActionWithValue(ActionNotice, hub.NoticeOf(x, sc.lastErr))
		case input.MatchPaste:
			sh.matchPaste(sc, x)
		}
	}
	sh.scheduleSave()
}

// runSlash runs the controller's effects.
func (sh *shell) runSlash(sc *scope, effs []slash.Effect) {
	for _, ef := range effs {
		switch x := ef.(type) {
		case slash.FetchCandidates, slash.RunEnterMatch, slash.Warm:
			sl := sc.sl
			sh.ctx.Async(func() {
				ev, ok := sl.Perform(context.Background(), x)
				if !ok {
					return
				}
				sh.ctx.Dispatch(func(ctx app.Context) {
					ctx.PreventUpdate()
					if sc.sl == sl {
						sh.runSlash(sc, sl.Dispatch(ev))
						sh.flush()
					}
				})
			})
		case slash.ShowMenu:
			sh.setMenu(sc, sc.sl.Controller().Menu())
		case slash.HideMenu:
			sh.setMenu(sc, slash.Menu{Active: -1})
		case slash.Adjudicated:
			sh.apply(sc, sc.m.Dispatch(x.Answer()))
		case slash.Decorate:
			sc.refs = sc.sl.Controller().TextRefs()
			if sc == sh.cur {
				sh.bdDirty = true
			}
		case slash.Picked:
			if x.Rewrote {
				sh.observe(sc)
			}
		}
	}
}

func (sh *shell) setMenu(sc *scope, m slash.Menu) {
	sc.menu = m
	if sc == sh.cur {
		sh.menu = m
		sh.ctx.Update()
		if id := m.ActiveID(); id != "" {
			// After the render that marks it: the active option stays in view as ↑↓ move.
			sh.ctx.Defer(func(app.Context) {
				if el := app.Window().GetElementByID(listboxID + "-" + id); el.Truthy() {
					el.Call("scrollIntoView", map[string]any{"block": "nearest"})
				}
			})
		}
	}
}

// flush brings the view in line with the current scope: the backdrop when it must be
// redrawn, the ghost hint, the send button.
func (sh *shell) flush() {
	sc := sh.cur
	if sc == nil {
		return
	}
	if sh.bdDirty {
		if sc.stale {
			sh.observe(sc) // the marks must be the draft's before they are drawn
		}
		sh.bdDirty = false
		sh.stats.Rebuilds++
		sh.bd.rebuild(sc.m, sc.refs)
		sh.bd.root.Set("scrollTop", sh.ta.Get("scrollTop"))
	}
	sh.bd.setGhost(sc.m.Ghost())
	if empty := sc.m.Len() == 0; empty != sh.empty {
		sh.empty = empty
		sh.ctx.Update()
	}
}

// send hands a submit to the hub and settles the attempt with its result.
func (sh *shell) send(sc *scope, attempt input.AttemptID, text string, mode input.Mode) {
	cctx, cancel := context.WithCancel(context.Background())
	sc.cancels[attempt] = cancel
	client, session, id := sh.client, sc.key, api.NewAttemptID()
	sh.ctx.NewActionWithValue(ActionNotice, hub.Notice{}) // a new send clears the last notice
	sh.ctx.Async(func() {
		r := hub.Send(cctx, client, hub.Prompt{Session: session, Text: text, Mode: mode, AttemptID: id}, func(info protocol.SessionInfo) {
			sh.ctx.Dispatch(func(ctx app.Context) {
				ctx.PreventUpdate()
				sh.created(sc, info)
			})
		})
		sh.ctx.Dispatch(func(ctx app.Context) {
			ctx.PreventUpdate()
			delete(sc.cancels, attempt)
			cancel()
			sc.lastErr = r.Err
			sh.apply(sc, sc.m.Dispatch(input.SubmitSettled{Attempt: attempt, Err: r.Err}))
			sc.lastErr = nil
			sh.observe(sc)
			sh.flush()
		})
	})
}

// created moves the hero's scope to the session its first send created: the same machine
// and textarea carry on, so a failure after this point puts the draft back there.
func (sh *shell) created(sc *scope, info protocol.SessionInfo) {
	if sc.key == "" && sh.scopes[""] == sc {
		delete(sh.scopes, "")
		saveDraft("", "")
		sc.key = info.ID
		sh.scopes[info.ID] = sc
		sc.sl.Close()
		sh.attach(sc)
		sc.savedRev = 0 // save it under its new key
	}
	sh.ctx.NewActionWithValue(ActionSessionCreated, info)
}

// matchPaste runs the asynchronous matcher; each upgrade is its own transaction.
func (sh *shell) matchPaste(sc *scope, x input.MatchPaste) {
	known := sh.known
	sh.ctx.Async(func() {
		ups := known.MatchAsync(context.Background(), sh.cat, x.Paste, x.Text)
		if len(ups) == 0 {
			return
		}
		sh.ctx.Dispatch(func(ctx app.Context) {
			ctx.PreventUpdate()
			for _, up := range ups {
				sh.apply(sc, sc.m.Dispatch(up))
			}
			sh.observe(sc)
			sh.flush()
		})
	})
}

// --- drafts -----------------------------------------------------------------------------

// Drafts are written once typing pauses for saveIdle, and at the latest maxSaveDelay after
// the first unsaved change (and on pagehide), so a keystroke never serializes the draft.
const (
	saveIdle     = 700 * time.Millisecond
	maxSaveDelay = 5 * time.Second
)

func (sh *shell) scheduleSave() {
	now := time.Now()
	sh.lastChange = now
	if sh.saving {
		return
	}
	sh.saving, sh.unsaved = true, now
	sh.saveAfter(saveIdle)
}

func (sh *shell) saveAfter(d time.Duration) {
	sh.ctx.After(d, func(ctx app.Context) {
		ctx.PreventUpdate()
		now := time.Now()
		if idle := now.Sub(sh.lastChange); idle < saveIdle && now.Sub(sh.unsaved) < maxSaveDelay {
			sh.saveAfter(saveIdle - idle)
			return
		}
		sh.saving = false
		sh.saveAll()
	})
}

func (sh *shell) saveAll() {
	for _, sc := range sh.scopes {
		if sc.m.Rev() == sc.savedRev {
			continue
		}
		if _, busy := sc.m.Attempt(); busy {
			continue // the draft left with the attempt; what is stored stays until it settles
		}
		saveDraft(sc.key, sc.m.PersistText())
		sc.savedRev = sc.m.Rev()
		sh.stats.Saves++
	}
}

// draftKey is where a session's draft is mirrored in localStorage.
func draftKey(session string) string {
	if session == "" {
		return "parley.draft.hero"
	}
	return "parley.draft.s." + session
}

func saveDraft(session, text string) {
	ls := app.Window().Get("localStorage")
	if !ls.Truthy() {
		return
	}
	if text == "" {
		ls.Call("removeItem", draftKey(session))
		return
	}
	ls.Call("setItem", draftKey(session), text)
}

func loadDraft(session string) string {
	if !app.IsClient {
		return ""
	}
	ls := app.Window().Get("localStorage")
	if !ls.Truthy() {
		return ""
	}
	v := ls.Call("getItem", draftKey(session))
	if !v.Truthy() {
		return ""
	}
	return v.String()
}

// catalogue reads the server's catalogues for the workspace of the session the bar shows.
type catalogue struct {
	c   *api.Client
	bar *Bar
}

func (k *catalogue) Workspace() string { return k.bar.Workspace }

func (k *catalogue) ListCommands(ctx context.Context) (protocol.CommandList, error) {
	return k.c.ListCommandsIn(ctx, k.Workspace())
}

func (k *catalogue) ListFunctions(ctx context.Context) ([]protocol.Function, error) {
	return k.c.ListFunctionsIn(ctx, k.Workspace())
}

func (k *catalogue) ListSkills(ctx context.Context) ([]protocol.Skill, error) {
	return k.c.ListSkillsIn(ctx, k.Workspace())
}

func (k *catalogue) ListFiles(ctx context.Context, query string, limit int) (protocol.FileList, error) {
	return k.c.ListFilesIn(ctx, k.Workspace(), query, limit)
}

func (k *catalogue) ListSessions(ctx context.Context) ([]protocol.SessionInfo, error) {
	return k.c.ListSessions(ctx)
}
