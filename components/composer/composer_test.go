package composer

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/elicitation"
	"parley/app/store"
	"parley/components/composer/modes/modetest"
	"parley/components/internal/domtest"
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
func (h *harness) dom() *domtest.Node {
	h.t.Helper()
	return domtest.Parse(h.t, app.HTMLString(h.c))
}

// fresh renders the composer's state now: for changes made by a direct call, which no
// engine update follows.
func (h *harness) fresh() *domtest.Node {
	h.t.Helper()
	return domtest.Parse(h.t, app.HTMLString(h.c.Render()))
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
func classes(n *domtest.Node) []string {
	var out []string
	for _, k := range n.Kids {
		if k.Attrs != nil {
			out = append(out, k.Attrs["class"])
		}
	}
	return out
}

// child returns n's one child element with class c.
func child(t *testing.T, n *domtest.Node, c string) *domtest.Node {
	t.Helper()
	var out []*domtest.Node
	for _, k := range n.Kids {
		if k.HasClass(c) {
			out = append(out, k)
		}
	}
	require.Len(t, out, 1, "children of class %s", c)
	return out[0]
}

func dialogs(n *domtest.Node) []*domtest.Node { return n.All("#composer-mode") }

// ---- the container

func TestIdleShowsTheBarAndNoMode(t *testing.T) {
	h := mount(t, &Composer{Session: "s1", Placeholder: "Message the agent"})
	d := h.dom()
	assert.Empty(t, dialogs(d))
	bar := d.One(t, ".composer-bar")
	assert.False(t, bar.HasClass("is-hidden"), "class=%q", bar.Attrs["class"])
	ta := bar.One(t, "textarea#composer-input")
	assert.Equal(t, "Message the agent", ta.Attrs["placeholder"])
	assert.Empty(t, d.One(t, ".composer-morph-slot").Kids)
	assert.Empty(t, d.One(t, ".composer-note").Kids)
	assert.Empty(t, d.All(".env-chip"))
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
			dlg := d.One(t, "#composer-mode")
			assert.Equal(t, "dialog", dlg.Attrs["role"])
			assert.Equal(t, tt.wantLabel, dlg.Attrs["aria-label"])
			assert.Equal(t, "-1", dlg.Attrs["tabindex"])
			assert.True(t, dlg.HasClass("composer-morph") && dlg.HasClass(tt.wantClass), "class=%q", dlg.Attrs["class"])
			assert.Len(t, d.One(t, ".composer-morph-slot").All("#composer-mode"), 1, "the morph is drawn in its own seat")

			bar := d.One(t, ".composer-bar")
			assert.True(t, bar.HasClass("is-hidden"), "the bar is hidden, class=%q", bar.Attrs["class"])
			assert.Len(t, bar.All("textarea#composer-input"), 1, "the textarea stays mounted under the mode")
			_, hidden := bar.Attrs["hidden"]
			assert.False(t, hidden, "hidden by class, never by the hidden attribute")

			header := dlg.One(t, ".morph-header")
			assert.Equal(t, "Chat about this", header.One(t, "button.chat-about").TextContent())
			actions := dlg.One(t, ".morph-actions")
			want := []string{"Decline", "Send Ctrl+Enter"} // Send's chord shown: a multi-line field's only key that sends
			if tt.name == "approval" || strings.Contains(tt.name, "approval") {
				want = []string{"Reject Ctrl+Shift+Enter", "Reject with note"} // its chord shown as a hint; the words reject
			}
			assert.Equal(t, want, domtest.Texts(actions.All("button")))
			assert.True(t, actions.One(t, "button.send").Flag("disabled"), "nothing typed, nothing picked")
			assert.False(t, actions.One(t, "button.secondary").Flag("disabled"))
		})
	}
}

func TestPendingDecisionsAreShownOldestFirst(t *testing.T) {
	first, second := decision("d1", "First?"), decision("d2", "Second?")
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{first, second}})
	d := h.dom()
	assert.Len(t, dialogs(d), 1, "one decision at a time")
	assert.Equal(t, "Question: First?", d.One(t, "#composer-mode").Attrs["aria-label"])
	assert.NotContains(t, d.TextContent(), "Second?")
	firstTag := d.One(t, "#composer-mode").Tag

	assert.Equal(t, "1 more after this", d.One(t, ".morph-queue").TextContent(), "the queue behind it is said")

	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{first, second, decision("d3", "Third?")}})
	assert.Equal(t, "Question: First?", h.dom().One(t, "#composer-mode").Attrs["aria-label"], "a newer decision waits its turn")
	assert.Equal(t, "2 more after this", h.dom().One(t, ".morph-queue").TextContent())

	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{second, decision("d3", "Third?")}})
	d = h.dom()
	assert.Equal(t, "Question: Second?", d.One(t, "#composer-mode").Attrs["aria-label"], "the next one shows when the first ends")
	assert.NotEqual(t, firstTag, d.One(t, "#composer-mode").Tag, "the next decision is drawn into new elements")
	assert.True(t, d.One(t, ".composer-bar").HasClass("is-hidden"))
	assert.Equal(t, "1 more after this", d.One(t, ".morph-queue").TextContent())
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d3", "Third?")}})
	assert.Empty(t, h.dom().All(".morph-queue"), "the last one says nothing of a queue")

	h.set(&Composer{Session: "s1"})
	d = h.dom()
	assert.Empty(t, dialogs(d))
	assert.False(t, d.One(t, ".composer-bar").HasClass("is-hidden"), "back to typing")
	assert.Empty(t, d.One(t, ".composer-note").Kids, "answered: no note")
}

func TestATimedOutDecisionLeavesANote(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	h.set(&Composer{Session: "s1", TimedOut: []string{"d1"}})
	d := h.dom()
	assert.Empty(t, dialogs(d))
	note := d.One(t, ".composer-note")
	assert.Equal(t, "status", note.Attrs["role"])
	assert.Equal(t, machine.NoteTimedOut, note.TextContent())
}

func TestAnotherSessionReplacesTheQueue(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "In s1?")}})
	h.set(&Composer{Session: "s2", Pending: []protocol.Decision{decision("d5", "In s2?")}})
	assert.Equal(t, "Question: In s2?", h.dom().One(t, "#composer-mode").Attrs["aria-label"])
	h.set(&Composer{Session: "s3"})
	assert.Empty(t, dialogs(h.dom()))
}

func TestSeatsAreInOrderAndEmptySeatsDrawNothing(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	d := h.dom()
	root := d.One(t, ".composer")
	assert.Equal(t, []string{"seat seat-dock", "seat seat-stats", "composer-env", "composer-frame", "composer-controls-row"}, classes(root))
	card := child(t, root, "composer-frame") // the bar draws its card inside
	assert.Equal(t, []string{"composer-morph-slot", "composer-bar", "seat seat-overlay"}, classes(card))
	row := child(t, root, "composer-controls-row")
	assert.Equal(t, []string{"seat seat-left", "seat seat-plan", "seat seat-model", "seat seat-right"}, classes(row))

	for _, seat := range []string{".seat-stats", ".seat-overlay", ".seat-plan", ".seat-model"} {
		assert.Empty(t, d.One(t, seat).Kids, "%s has nobody registered", seat)
	}
	pick := d.One(t, ".seat-right").One(t, "select#locale-pick")
	assert.Equal(t, "Language", pick.Attrs["aria-label"], "the right region holds the language switch")
	assert.Equal(t, []string{"English", "简体中文"}, domtest.Texts(pick.All("option")))
	assert.Len(t, d.One(t, ".seat-dock").All(".queue-dock"), 1, "the dock holds the queued prompts' strip")

	fn := d.One(t, ".seat-left").One(t, "button")
	assert.Equal(t, "ƒ Functions", fn.TextContent())
	assert.True(t, fn.One(t, "span").Flag("aria-hidden"), "the ƒ is not read as part of its name")
	assert.True(t, fn.HasClass("control-button"))
	assert.False(t, fn.Flag("disabled"))
	assert.False(t, fn.Flag("aria-disabled"))

	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "Busy?")}})
	d = h.dom()
	assert.Equal(t, []string{"seat seat-left", "seat seat-plan", "seat seat-model", "seat seat-right"}, classes(d.One(t, ".composer-controls-row")), "a mode moves no seat")
	// aria-disabled, not disabled: a click on a disabled button sends the focus to the body.
	busy := d.One(t, ".seat-left").One(t, "button")
	assert.True(t, busy.Flag("aria-disabled") && !busy.Flag("disabled"), "no fn-form over a decision")
	assert.Equal(t, "-1", busy.Attrs["tabindex"], "Tab passes it by, as a disabled button (QA round 22)")
	assert.Empty(t, fn.Attrs["tabindex"], "enabled, it is in the Tab order")
}

func TestTheHeroHasTheBarButNoSessionSeats(t *testing.T) {
	h := mount(t, &Composer{Placeholder: "Ask anything"})
	d := h.dom()
	assert.Equal(t, "Ask anything", d.One(t, ".composer-bar").One(t, "textarea#composer-input").Attrs["placeholder"])
	assert.Empty(t, d.One(t, ".seat-left").Kids, "the functions button needs a session")
	assert.Empty(t, d.One(t, ".seat-dock").Kids)
}

func TestTheQueuedPromptsAreDocked(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	assert.Empty(t, h.dom().One(t, ".seat-dock").All(".queue-item"))
	h.set(&Composer{Session: "s1", Working: true, Queued: []store.Message{{Offset: 7, Role: store.RoleUser, Text: "then <run> the tests"}}})
	item := h.dom().One(t, ".seat-dock").One(t, ".queue-item")
	assert.Equal(t, "then <run> the tests", item.One(t, ".queue-text").TextContent())
	assert.Equal(t, "7", item.Attrs["data-queued"])
}

func TestChatAboutSetsTheDecisionAside(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?"), decision("d2", "Second?")}})
	h.c.ChatAbout(app.Context{}) // what "Chat about this" does
	d := h.fresh()
	assert.Empty(t, dialogs(d))
	assert.False(t, d.One(t, ".composer-bar").HasClass("is-hidden"))
	assert.Equal(t, "2 decisions are waiting · Answer", d.One(t, "button.env-chip").TextContent())

	h.c.run(app.Context{}, h.c.machine.Dispatch(machine.Resume{At: time.Now()})) // what the chip does
	d = h.fresh()
	assert.Equal(t, "Question: First?", d.One(t, "#composer-mode").Attrs["aria-label"], "the same decision comes back")
	assert.Empty(t, d.All("button.env-chip"))

	h.c.ChatAbout(app.Context{})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d2", "Second?")}})
	d = h.dom()
	assert.Equal(t, "Question: Second?", d.One(t, "#composer-mode").Attrs["aria-label"], "the aside belonged to the decision that ended; the next one has not been seen")
}

// TestTheSetAsideModeComesBack: Resume brings back the very mode that was set aside, with the
// answers given so far, even when the person opened the fn-form meanwhile.
func TestTheSetAsideModeComesBack(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	shown := h.c.mode
	h.c.ChatAbout(app.Context{})
	h.c.run(app.Context{}, h.c.machine.Dispatch(machine.OpenFnForm{}))
	assert.True(t, h.fresh().One(t, "#composer-mode").HasClass("mode-fn-form"))
	h.c.run(app.Context{}, h.c.machine.Dispatch(machine.Resume{At: time.Now()}))
	assert.Same(t, shown, h.c.mode, "the kept mode, not a new one")
	assert.True(t, h.fresh().One(t, "#composer-mode").HasClass("mode-question"))
}

func TestAProblemIsShownInTheMorph(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	h.c.SetProblem("Not answered: the server is not reachable.")
	p := h.fresh().One(t, ".morph-problem")
	assert.Equal(t, "alert", p.Attrs["role"])
	assert.Equal(t, "Not answered: the server is not reachable.", p.TextContent())
}

// A problem that said the server could not be reached goes when the server is back; another
// stays (QA round 27).
func TestAnUnreachableProblemGoesWhenTheServerIsBack(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	h.c.SetProblem("Not answered: the server is not reachable.")
	h.c.reconnected()
	assert.Empty(t, h.fresh().All(".morph-problem"))
	h.c.SetProblem("Not answered: Name: too long.")
	h.c.reconnected()
	assert.Equal(t, "Not answered: Name: too long.", h.fresh().One(t, ".morph-problem").TextContent())
}

func TestTheFnFormHasItsActionsInTheHeader(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.c.run(app.Context{}, h.c.machine.Dispatch(machine.OpenFnForm{})) // what "ƒ Functions" does
	d := h.fresh()
	dlg := d.One(t, "#composer-mode")
	assert.True(t, dlg.HasClass("mode-fn-form"))
	assert.Equal(t, "Run a function", dlg.Attrs["aria-label"])
	actions := dlg.One(t, ".morph-header-actions")
	send, close := actions.One(t, "button.send"), actions.One(t, "button.close")
	assert.Equal(t, "Run", send.TextContent(), "a word, not an icon only")
	assert.Equal(t, "Run", send.Attrs["aria-label"])
	assert.True(t, send.Flag("disabled"))
	assert.Equal(t, "×", close.TextContent())
	assert.Equal(t, "Close", close.Attrs["aria-label"])
	assert.Empty(t, dlg.All(".morph-actions"), "the form's buttons are in its header")
	assert.Empty(t, dlg.All("button.chat-about"))

	// A decision displaces the user's form.
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "First?")}})
	assert.Equal(t, "Question: First?", h.dom().One(t, "#composer-mode").Attrs["aria-label"])
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
	}, 10*time.Second, time.Millisecond, "the request never reached the queue")
	return out
}

func wait(t *testing.T, ch <-chan outcome) outcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(10 * time.Second):
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mount(t, &Composer{Session: "s1"})
			e, ctx := modetest.Context(t)
			ch := ask(t, h, e, h.c.presenter(ctx), context.Background(), confirm)
			d := h.fresh()
			assert.Equal(t, "Question: Open the link?", d.One(t, "#composer-mode").Attrs["aria-label"])
			assert.False(t, d.One(t, ".morph-actions").One(t, "button.send").Flag("disabled"), "the default answers it")

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

// A confirm is Yes or No: no Decline beside them (issue: one way to say no for each kind).
func TestAConfirmHasNoDecline(t *testing.T) {
	confirm := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Deploy?"}
	require.NoError(t, confirm.Validate())
	h := mount(t, &Composer{Session: "s1"})
	e, ctx := modetest.Context(t)
	ask(t, h, e, h.c.presenter(ctx), context.Background(), confirm)
	d := h.fresh()
	assert.Empty(t, d.One(t, ".morph-actions").All("button"), "Yes and No are the answers: no Decline, no Send that could never be enabled")
	assert.False(t, h.c.runAction(ctx, false), "no secondary action")
}

func TestALocalRequestWaitsBehindTheServersAndCanBeWithdrawn(t *testing.T) {
	h := mount(t, &Composer{Session: "s1"})
	h.set(&Composer{Session: "s1", Pending: []protocol.Decision{decision("d1", "Server first?")}})
	e, ctx := modetest.Context(t)
	rctx, cancel := context.WithCancel(context.Background())
	req := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Local second?"}
	ch := ask(t, h, e, h.c.presenter(ctx), rctx, req)
	assert.Equal(t, "Question: Server first?", h.fresh().One(t, "#composer-mode").Attrs["aria-label"], "one queue, oldest first")
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
	e, ctx := modetest.Context(t)
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
