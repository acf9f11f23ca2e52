package composer

import (
	"context"
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/elicitation"
	"parley/app/store"
	machine "parley/machine/composer"
	"parley/protocol"
)

// The container is driven through app.NewTestEngine: loading a new *Composer over the
// mounted one is how a parent passes new props, and it runs OnUpdate (OnMount does not run
// natively), which feeds the decision queue. What only a DOM event reaches (a click, the
// presenter) is called directly, in the package.

// harness holds a mounted composer; set passes it new props as its parent would.
type harness struct {
	t *testing.T
	e app.TestEngine
	c *Composer
}

func mount(t *testing.T, c *Composer) *harness {
	t.Helper()
	e := app.NewTestEngine()
	require.NoError(t, e.Load(c))
	e.ConsumeAll()
	return &harness{t: t, e: e, c: c}
}

func (h *harness) set(props *Composer) {
	h.t.Helper()
	require.NoError(h.t, h.e.Load(props))
	h.e.ConsumeAll()
}

// dom is the mounted tree, as the engine last rendered it.
func (h *harness) dom() *node {
	h.t.Helper()
	return parseHTML(h.t, app.HTMLString(h.c))
}

// fresh renders the composer's state now: for changes made by a direct call, which no
// engine update follows.
func (h *harness) fresh() *node {
	h.t.Helper()
	return parseHTML(h.t, app.HTMLString(h.c.Render()))
}

// grab captures a real Context: OnPreRender runs natively, OnMount does not.
type grab struct {
	app.Compo
	ctx app.Context
}

func (g *grab) OnPreRender(ctx app.Context) { g.ctx = ctx }
func (g *grab) Render() app.UI              { return app.Div() }

func testEngine(t *testing.T) (app.TestEngine, app.Context) {
	t.Helper()
	e := app.NewTestEngine()
	g := &grab{}
	require.NoError(t, e.Load(g))
	e.ConsumeAll()
	return e, g.ctx
}

func decision(id, message string) protocol.Decision {
	req := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: message, Schema: &protocol.Schema{Type: "string"}}
	return protocol.Decision{Session: "s1", QuestionAsked: protocol.QuestionAsked{ID: id, Request: req}}
}

func approvalDecision(id string) protocol.Decision {
	req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run ls?", Details: "ls -la", Options: []protocol.ApprovalOption{{Value: "allow", Label: "Allow"}, {Value: "deny", Label: "Deny"}}}
	return protocol.Decision{Session: "s1", QuestionAsked: protocol.QuestionAsked{ID: id, Request: req}}
}

// classes returns the first class of each child element of n.
func classes(n *node) []string {
	var out []string
	for _, k := range n.kids {
		if k.attrs != nil {
			out = append(out, k.attrs["class"])
		}
	}
	return out
}

// child returns n's one child element with class c.
func child(t *testing.T, n *node, c string) *node {
	t.Helper()
	var out []*node
	for _, k := range n.kids {
		if k.hasClass(c) {
			out = append(out, k)
		}
	}
	require.Len(t, out, 1, "children of class %s", c)
	return out[0]
}

func dialogs(n *node) []*node { return n.all("#composer-mode") }

// node is a parsed element of app.HTMLString's output: enough of a DOM to assert on
// structure without depending on the order go-app writes attributes in (a map's).
type node struct {
	tag   string
	attrs map[string]string
	kids  []*node
	text  string
}

var (
	tagRE    = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>]+(?:="(?:[^"\\]|\\.)*")?)*)\s*>`)
	attrRE   = regexp.MustCompile(`([^\s=]+)(="(?:[^"\\]|\\.)*")?`)
	selRE    = regexp.MustCompile(`([a-z][a-z0-9-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:=([^\]]*))?\]`)
	voidTags = map[string]bool{"input": true, "br": true, "img": true, "hr": true, "meta": true, "link": true, "source": true, "wbr": true}
)

func render(t *testing.T, ui app.UI) *node {
	t.Helper()
	return parseHTML(t, app.HTMLString(ui))
}

func parseHTML(t *testing.T, s string) *node {
	t.Helper()
	root := &node{tag: "#root"}
	stack := []*node{root}
	addText := func(txt string) {
		if txt = strings.TrimSpace(txt); txt != "" {
			top := stack[len(stack)-1]
			top.kids = append(top.kids, &node{text: html.UnescapeString(txt)})
		}
	}
	pos := 0
	for _, m := range tagRE.FindAllStringSubmatchIndex(s, -1) {
		addText(s[pos:m[0]])
		pos = m[1]
		tag := s[m[4]:m[5]]
		if m[3] > m[2] {
			if top := stack[len(stack)-1]; top.tag != tag {
				t.Fatalf("</%s> closes <%s> in:\n%s", tag, top.tag, s)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		n := &node{tag: tag, attrs: map[string]string{}}
		for _, a := range attrRE.FindAllStringSubmatch(s[m[6]:m[7]], -1) {
			v := ""
			if a[2] != "" {
				uq, err := strconv.Unquote(a[2][1:])
				require.NoError(t, err, "attribute %s", a[0])
				v = uq
			}
			n.attrs[a[1]] = v
		}
		top := stack[len(stack)-1]
		top.kids = append(top.kids, n)
		if !voidTags[tag] {
			stack = append(stack, n)
		}
	}
	addText(s[pos:])
	if len(stack) != 1 {
		t.Fatalf("<%s> is not closed in:\n%s", stack[len(stack)-1].tag, s)
	}
	return root
}

func (n *node) hasClass(c string) bool {
	return n.tag != "" && n.attrs != nil && containsWord(n.attrs["class"], c)
}

func containsWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

// matches reports whether n matches one compound selector: tag, #id, .class, [attr],
// [attr=value].
func (n *node) matches(sel string) bool {
	if n.attrs == nil {
		return false
	}
	for _, m := range selRE.FindAllStringSubmatch(sel, -1) {
		switch {
		case m[1] != "":
			if n.tag != m[1] {
				return false
			}
		case m[2] != "":
			if n.attrs["id"] != m[2] {
				return false
			}
		case m[3] != "":
			if !n.hasClass(m[3]) {
				return false
			}
		default:
			v, ok := n.attrs[m[4]]
			if !ok || strings.Contains(m[0], "=") && v != m[5] {
				return false
			}
		}
	}
	return true
}

// all returns the descendants matching sel, in document order.
func (n *node) all(sel string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(p *node) {
		for _, k := range p.kids {
			if k.matches(sel) {
				out = append(out, k)
			}
			walk(k)
		}
	}
	walk(n)
	return out
}

func (n *node) one(t *testing.T, sel string) *node {
	t.Helper()
	got := n.all(sel)
	if len(got) != 1 {
		t.Fatalf("%q matches %d elements, want 1", sel, len(got))
	}
	return got[0]
}

// textContent is the element's text, its text nodes joined by spaces.
func (n *node) textContent() string {
	if n.attrs == nil {
		return n.text
	}
	var parts []string
	for _, k := range n.kids {
		if s := k.textContent(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// flag reports whether a boolean attribute is on. go-app writes a true value bare
// (`disabled`) and a false one as the string (`disabled="false"`).
func (n *node) flag(name string) bool {
	v, ok := n.attrs[name]
	return ok && (v == "" || v == "true")
}

func texts(ns []*node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.textContent())
	}
	return out
}

// ---- the container

func TestIdleShowsTheBarAndNoMode(t *testing.T) {
	h := mount(t, &Composer{Session: "s1", Placeholder: "Message the agent"})
	d := h.dom()
	assert.Empty(t, dialogs(d))
	bar := d.one(t, ".composer-bar")
	assert.False(t, bar.hasClass("is-hidden"), "class=%q", bar.attrs["class"])
	ta := bar.one(t, "textarea#composer-input")
	assert.Equal(t, "Message the agent", ta.attrs["placeholder"])
	assert.Empty(t, d.one(t, ".composer-morph-slot").kids)
	assert.Empty(t, d.one(t, ".composer-note").kids)
	assert.Empty(t, d.all(".env-chip"))
}

func TestAPendingDecisionMorphsTheInputAreaAndKeepsTheBar(t *testing.T) {
	tests := []struct {
		name      string
		pending   protocol.Decision
		wantClass string
		wantLabel string
	}{
		{"question", decision("d1", "Your name?"), "mode-question", "Question: Your name?"},
		{"approval", approvalDecision("a1"), "mode-approval", "Approval: Run ls?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mount(t, &Composer{Session: "s1"})
			h.set(&Composer{Session: "s1", Pending: []protocol.Decision{tt.pending}})
			d := h.dom()
			dlg := d.one(t, "#composer-mode")
			assert.Equal(t, "dialog", dlg.attrs["role"])
			assert.Equal(t, tt.wantLabel, dlg.attrs["aria-label"])
			assert.Equal(t, "-1", dlg.attrs["tabindex"])
			assert.True(t, dlg.hasClass("composer-morph") && dlg.hasClass(tt.wantClass), "class=%q", dlg.attrs["class"])
			assert.Len(t, d.one(t, ".composer-morph-slot").all("#composer-mode"), 1, "the morph is drawn in its own seat")

			bar := d.one(t, ".composer-bar")
			assert.True(t, bar.hasClass("is-hidden"), "the bar is hidden, class=%q", bar.attrs["class"])
			assert.Len(t, bar.all("textarea#composer-input"), 1, "the textarea stays mounted under the mode")
			_, hidden := bar.attrs["hidden"]
			assert.False(t, hidden, "hidden by class, never by the hidden attribute")

			header := dlg.one(t, ".morph-header")
			assert.Equal(t, "Chat about this", header.one(t, "button.chat-about").textContent())
			actions := dlg.one(t, ".morph-actions")
			assert.Equal(t, []string{"Decline", "Send"}, texts(actions.all("button")))
			assert.True(t, actions.one(t, "button.send").flag("disabled"), "nothing typed, nothing picked")
			assert.False(t, actions.one(t, "button.secondary").flag("disabled"))
		})
	}
}

func TestPendingDecisionsAreShownOldestFirst(t *testing.T) {
	first, second := decision("d1", "First?"), decision("d2", "Second?")
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{first, second}})
	d := h.dom()
	assert.Len(t, dialogs(d), 1, "one decision at a time")
	assert.Equal(t, "Question: First?", d.one(t, "#composer-mode").attrs["aria-label"])
	assert.NotContains(t, d.textContent(), "Second?")
	firstTag := d.one(t, "#composer-mode").tag

	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{first, second, decision("d3", "Third?")}})
	assert.Equal(t, "Question: First?", h.dom().one(t, "#composer-mode").attrs["aria-label"], "a newer decision waits its turn")

	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{second, decision("d3", "Third?")}})
	d = h.dom()
	assert.Equal(t, "Question: Second?", d.one(t, "#composer-mode").attrs["aria-label"], "the next one shows when the first ends")
	assert.NotEqual(t, firstTag, d.one(t, "#composer-mode").tag, "the next decision is drawn into new elements")
	assert.True(t, d.one(t, ".composer-bar").hasClass("is-hidden"))

	h.set(&Composer{Session: "s1"})
	d = h.dom()
	assert.Empty(t, dialogs(d))
	assert.False(t, d.one(t, ".composer-bar").hasClass("is-hidden"), "back to typing")
	assert.Empty(t, d.one(t, ".composer-note").kids, "answered: no note")
}

func TestATimedOutDecisionLeavesANote(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	h.set(&Composer{Session: "s1", TimedOut: []string{"d1"}})
	d := h.dom()
	assert.Empty(t, dialogs(d))
	note := d.one(t, ".composer-note")
	assert.Equal(t, "status", note.attrs["role"])
	assert.Equal(t, machine.NoteTimedOut, note.textContent())
}

func TestAnotherSessionReplacesTheQueue(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "In s1?")}})
	h.set(&Composer{Session: "s2", Pending: []protocol.Decision{decision("d5", "In s2?")}})
	assert.Equal(t, "Question: In s2?", h.dom().one(t, "#composer-mode").attrs["aria-label"])
	h.set(&Composer{Session: "s3"})
	assert.Empty(t, dialogs(h.dom()))
}

func TestSeatsAreInOrderAndEmptySeatsDrawNothing(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	d := h.dom()
	root := d.one(t, ".composer")
	assert.Equal(t, []string{"seat seat-dock", "seat seat-stats", "composer-env", "composer-frame", "composer-controls-row"}, classes(root))
	card := child(t, root, "composer-frame") // the bar draws its card inside
	assert.Equal(t, []string{"composer-morph-slot", "composer-bar", "seat seat-overlay"}, classes(card))
	row := child(t, root, "composer-controls-row")
	assert.Equal(t, []string{"seat seat-left", "seat seat-plan", "seat seat-model", "seat seat-right"}, classes(row))

	for _, seat := range []string{".seat-stats", ".seat-overlay", ".seat-plan", ".seat-model", ".seat-right"} {
		assert.Empty(t, d.one(t, seat).kids, "%s has nobody registered", seat)
	}
	assert.Len(t, d.one(t, ".seat-dock").all(".queue-dock"), 1, "the dock holds the queued prompts' strip")

	fn := d.one(t, ".seat-left").one(t, "button")
	assert.Equal(t, "ƒ Functions", fn.textContent())
	assert.True(t, fn.hasClass("control-button"))
	assert.False(t, fn.flag("disabled"))

	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "Busy?")}})
	d = h.dom()
	assert.Equal(t, []string{"seat seat-left", "seat seat-plan", "seat seat-model", "seat seat-right"}, classes(d.one(t, ".composer-controls-row")), "a mode moves no seat")
	assert.True(t, d.one(t, ".seat-left").one(t, "button").flag("disabled"), "no fn-form over a decision")
}

func TestTheHeroHasTheBarButNoSessionSeats(t *testing.T) {
	h := mount(t, &Composer{Placeholder: "Ask anything"})
	d := h.dom()
	assert.Equal(t, "Ask anything", d.one(t, ".composer-bar").one(t, "textarea#composer-input").attrs["placeholder"])
	assert.Empty(t, d.one(t, ".seat-left").kids, "the functions button needs a session")
	assert.Empty(t, d.one(t, ".seat-dock").kids)
}

func TestTheQueuedPromptsAreDocked(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	assert.Empty(t, h.dom().one(t, ".seat-dock").all(".queue-item"))
	h.set(&Composer{Session: "s1", Working: true, Queued: []store.Message{{Offset: 7, Role: store.RoleUser, Text: "then <run> the tests"}}})
	item := h.dom().one(t, ".seat-dock").one(t, ".queue-item")
	assert.Equal(t, "then <run> the tests", item.one(t, ".queue-text").textContent())
	assert.Equal(t, "7", item.attrs["data-queued"])
}

func TestChatAboutSetsTheDecisionAside(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?"), decision("d2", "Second?")}})
	h.c.ChatAbout(app.Context{}) // what "Chat about this" does
	d := h.fresh()
	assert.Empty(t, dialogs(d))
	assert.False(t, d.one(t, ".composer-bar").hasClass("is-hidden"))
	assert.Equal(t, "2 decisions are waiting · Answer", d.one(t, "button.env-chip").textContent())

	h.c.run(app.Context{}, h.c.machine.Dispatch(machine.Resume{At: time.Now()})) // what the chip does
	d = h.fresh()
	assert.Equal(t, "Question: First?", d.one(t, "#composer-mode").attrs["aria-label"], "the same decision comes back")
	assert.Empty(t, d.all("button.env-chip"))

	h.c.ChatAbout(app.Context{})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d2", "Second?")}})
	d = h.dom()
	assert.Equal(t, "Question: Second?", d.one(t, "#composer-mode").attrs["aria-label"], "the aside belonged to the decision that ended; the next one has not been seen")
}

func TestAProblemIsShownInTheMorph(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	h.c.SetProblem("Not answered: the server is not reachable.")
	p := h.fresh().one(t, ".morph-problem")
	assert.Equal(t, "alert", p.attrs["role"])
	assert.Equal(t, "Not answered: the server is not reachable.", p.textContent())
}

func TestTheFnFormHasItsActionsInTheHeader(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.c.run(app.Context{}, h.c.machine.Dispatch(machine.OpenFnForm{})) // what "ƒ Functions" does
	d := h.fresh()
	dlg := d.one(t, "#composer-mode")
	assert.True(t, dlg.hasClass("mode-fn-form"))
	assert.Equal(t, "Run a function", dlg.attrs["aria-label"])
	actions := dlg.one(t, ".morph-header-actions")
	send, close := actions.one(t, "button.send"), actions.one(t, "button.close")
	assert.Equal(t, "▶", send.textContent())
	assert.Equal(t, "Run", send.attrs["aria-label"])
	assert.True(t, send.flag("disabled"))
	assert.Equal(t, "×", close.textContent())
	assert.Equal(t, "Close", close.attrs["aria-label"])
	assert.Empty(t, dlg.all(".morph-actions"), "the form's buttons are in its header")
	assert.Empty(t, dlg.all("button.chat-about"))

	// A decision displaces the user's form.
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	assert.Equal(t, "Question: First?", h.dom().one(t, "#composer-mode").attrs["aria-label"])
	h.set(&Composer{Session: "s1"})
	assert.Empty(t, dialogs(h.dom()), "the form is not restored")
}

// ---- browser-side requests (RequestUserInput) through the presenter

type outcome struct {
	res elicitation.Result
	err error
}

// ask runs the presenter in its own goroutine, as browser code calling RequestUserInput
// does, and returns once its request reached the composer.
func ask(t *testing.T, h *harness, e app.TestEngine, p elicitation.Presenter, rctx context.Context, req protocol.DecisionRequest) <-chan outcome {
	t.Helper()
	out := make(chan outcome, 1)
	before := len(h.c.machine.Queue())
	go func() {
		res, err := p(rctx, req)
		out <- outcome{res, err}
	}()
	require.Eventually(t, func() bool {
		e.ConsumeAll()
		return len(h.c.machine.Queue()) > before
	}, 5*time.Second, time.Millisecond, "the request never reached the queue")
	return out
}

func wait(t *testing.T, ch <-chan outcome) outcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(5 * time.Second):
		t.Fatal("the presenter did not return")
		return outcome{}
	}
}

func TestALocalRequestIsAnsweredInTheComposer(t *testing.T) {
	yes := &protocol.Schema{Type: "boolean", Default: json.RawMessage(`true`)}
	confirm := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Open the link?", Schema: yes}
	require.NoError(t, confirm.Validate())
	tests := []struct {
		name    string
		primary bool
		want    elicitation.Result
	}{
		{"accept", true, elicitation.Result{Action: protocol.ActionAccept, Content: json.RawMessage(`true`)}},
		{"decline", false, elicitation.Result{Action: protocol.ActionDecline}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mount(t, &Composer{Session: "s1"})
			e, ctx := testEngine(t)
			ch := ask(t, h, e, h.c.presenter(ctx), context.Background(), confirm)
			d := h.fresh()
			assert.Equal(t, "Question: Open the link?", d.one(t, "#composer-mode").attrs["aria-label"])
			assert.False(t, d.one(t, ".morph-actions").one(t, "button.send").flag("disabled"), "the default answers it")

			require.True(t, h.c.runAction(ctx, tt.primary), "the action runs")
			o := wait(t, ch)
			require.NoError(t, o.err)
			assert.Equal(t, tt.want.Action, o.res.Action)
			if tt.want.Content == nil {
				assert.Nil(t, o.res.Content)
			} else {
				assert.JSONEq(t, string(tt.want.Content), string(o.res.Content))
			}
			assert.Empty(t, dialogs(h.fresh()), "answered: back to typing")
			assert.Empty(t, h.c.waiting)
		})
	}
}

func TestALocalRequestWaitsBehindTheServersAndCanBeWithdrawn(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "Server first?")}})
	e, ctx := testEngine(t)
	rctx, cancel := context.WithCancel(context.Background())
	req := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Local second?"}
	ch := ask(t, h, e, h.c.presenter(ctx), rctx, req)
	assert.Equal(t, "Question: Server first?", h.fresh().one(t, "#composer-mode").attrs["aria-label"], "one queue, oldest first")
	q := h.c.machine.Queue()
	require.Len(t, q, 2)
	assert.True(t, q[1].Local)

	cancel()
	o := wait(t, ch)
	assert.ErrorIs(t, o.err, context.Canceled)
	e.ConsumeAll()
	assert.Len(t, h.c.machine.Queue(), 1, "a withdrawn request leaves the queue")
	assert.Empty(t, h.c.waiting)

	h.set(&Composer{Session: "s1"})
	assert.Empty(t, dialogs(h.dom()))
}

func TestTheEnterGuardFollowsAShownDecision(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	assert.True(t, h.c.machine.Guarded(time.Now()), "an Enter right after the decision appeared is the draft's")
	assert.False(t, h.c.machine.Guarded(time.Now().Add(time.Second)))
}

func TestARequestWithdrawnBeforeItIsQueuedNeverShows(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	e, ctx := testEngine(t)
	rctx, cancel := context.WithCancel(context.Background())
	cancel()
	// The engine consumes nothing yet: the presenter's dispatch waits in its queue, as it
	// does in the browser while the UI goroutine is busy.
	_, err := h.c.presenter(ctx)(rctx, protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Too late?"})
	require.ErrorIs(t, err, context.Canceled)
	e.ConsumeAll()
	assert.Empty(t, h.c.machine.Queue(), "the withdrawn request is queued")
	assert.Empty(t, dialogs(h.fresh()), "the withdrawn request is shown")
	assert.Empty(t, h.c.waiting)
}
