package components

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/locale"
	"parley/components/composer"
	"parley/components/composer/modes/widget"
	"parley/i18n"
	"parley/machine/batch"
	"parley/protocol"
)

// ApprovalsPage is /approvals: the queue of every pending decision across sessions and
// workspaces, the history of those that ended, and the grants. See docs/approvals.md.
type ApprovalsPage struct {
	app.Compo

	tab string // "queue", "history" or "grants"
	// settleLater says a settle is already due when a finger's hold ends (pointerOver): the
	// list settles on every queue read and focus, and each scheduled one more.
	settleLater bool
	frame       pageFrame
	spaces      []protocol.Workspace

	// queue is what waits, as last read (less what was answered here: ended); shown is
	// what the list draws, in the order it first drew it, with the entries that ended while
	// the pointer was over the list still in their place (queue.go).
	queue     []protocol.QueueEntry
	shown     []shownEntry
	ended     map[string]bool
	answering map[string]bool // answers sent from this page, their reply not come yet
	loaded    bool
	selected  string // the decision the keyboard is on
	confirm   string
	confirmID string // the decision the confirmation answers
	reason    string // the confirmation's reason, for a rejection

	// focusByPage is the entry the page moved the keyboard to, not the person: the one just
	// answered, or the one after it, at movedAt. An Enter pressed there in the second after
	// was meant for the answer (a double press, an Enter that expected a confirmation), so
	// it opens no thread (QA round 12 #9); a later one is the person's, and opens it (QA
	// round 17: it stayed dead until they moved).
	focusByPage string
	movedAt     time.Time
	// enterMeantForConfirm holds the next Enter on focusByPage, however late: the page moved
	// there from a confirmation that ended elsewhere, and an Enter pressed after reading the
	// confirmation was meant for it, not for opening the next entry's thread (QA round 25).
	enterMeantForConfirm bool

	history     []protocol.HistoryEntry
	historyNext uint64
	filter      protocol.HistoryFilter
	historyErr  string

	grants       []protocol.GrantEntry
	grantsLoaded bool
	grantsEpoch  int // counts revokes from this page: a read begun before one is dropped
	grantErr     string

	notice string // a problem: the next read of the queue that works clears it
	// said is what the person's last act did ("Revoked: …"): it stays until the next, where
	// a read of the queue cleared it at once (QA round 22: the revoke said nothing).
	said string
	stop context.CancelFunc
}

// Tabs of the screen.
const (
	tabQueue   = "queue"
	tabHistory = "history"
	tabGrants  = "grants"
)

// Confirmations of a keyboard answer.
const (
	confirmApprove = "approve"
	confirmReject  = "reject"
)

// actionFocusAfterRender moves the keyboard to a selector's element once the page has drawn
// (its value): what held it was drawn away.
const actionFocusAfterRender = "parley.approvals.focus"

// OnMount loads the lists and follows the queue, in the browser only.
func (p *ApprovalsPage) OnMount(ctx app.Context) {
	relabel(ctx)
	if p.tab == "" {
		p.tab = tabQueue
		// The tab open when this page was left: back from a thread opened on Grants is Grants.
		if tab := ctx.Page().URL().Query().Get("tab"); slices.Contains(tabOrder, tab) {
			p.tab = tab
		}
	}
	if !app.IsClient {
		return
	}
	composer.ExposeLocale(ctx)
	ctx.Handle(actionDecide, p.onDecide)
	ctx.Handle(actionFocusAfterRender, func(ctx app.Context, a app.Action) {
		if sel, ok := a.Value.(string); ok {
			focusFirst(ctx, sel)
		}
	})
	ctx.Handle(actionRetry, func(ctx app.Context, a app.Action) {
		requestRetry(ctx, clientOf(ctx), "", a, func(text string, _ bool) { p.notice = text })
	})
	client := clientOf(ctx)
	stop, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	p.frame.mount(ctx, stop, false)
	ctx.Async(func() {
		list, err := client.ListSessions(stop)
		spaces, _ := client.ListWorkspaces(stop)
		ctx.Dispatch(func(ctx app.Context) {
			if err == nil {
				p.frame.sessions = list
				knownSessions = list
			}
			p.spaces = spaces
		})
	})
	tick(ctx, stop, p.countsSeconds)
	// The sidebar follows the queue (followServer) and hands each read here.
	ctx.Handle(actionQueueRead, func(ctx app.Context, a app.Action) {
		r, _ := a.Value.(queueRead)
		if r.err != nil {
			p.notice = tr(i18n.CouldNotReadQueue, describeError(r.err), duration(r.retry))
			return
		}
		first, wasEmpty := !p.loaded, len(p.queue) == 0
		p.queue = slices.DeleteFunc(r.queue.Entries, func(e protocol.QueueEntry) bool { return p.ended[e.ID] })
		p.loaded, p.notice = true, ""
		p.reconcile(ctx)
		if wasEmpty && len(p.queue) > 0 && p.tab == tabQueue {
			// The screen opens on its first entry, so ↑↓ and Alt+A work at once
			// (keys on the page's body reach no handler); a focus the person placed
			// elsewhere stays. So does a decision that comes once none waits: the
			// words that said so held the focus, and leave with it (QA round 12 #10).
			p.focusSelectedIfIdle(ctx, !first)
		}
		// Everything the screen shows moves with the same version.
		p.loadGrants(ctx)
		if p.filter.Before == 0 {
			p.loadHistory(ctx, false)
		}
	})
}

// countsSeconds says the screen words a time to the second now: an entry asked or timing out
// within a minute, or, on its tab, a decision that ended or a grant used that recently.
func (p *ApprovalsPage) countsSeconds(now time.Time) bool {
	for _, e := range p.shown {
		if e.gone == "" && (withinAMinute(now, e.Asked) || withinAMinute(now, e.Deadline)) {
			return true
		}
	}
	switch p.tab {
	case tabHistory:
		return len(p.history) > 0 && withinAMinute(now, p.history[0].Ended) // the newest first
	case tabGrants:
		for _, g := range p.grants {
			if withinAMinute(now, g.LastUsed) || withinAMinute(now, g.Created) {
				return true
			}
		}
	}
	return false
}

// OnDismount stops following the queue.
func (p *ApprovalsPage) OnDismount() {
	if p.stop != nil {
		p.stop()
	}
}

func (p *ApprovalsPage) loadHistory(ctx app.Context, more bool) {
	client, f := clientOf(ctx), p.filter
	if !more {
		f.Before = 0
	} else {
		f.Before = p.historyNext
	}
	ctx.Async(func() {
		h, err := client.ApprovalHistory(ctx, f)
		ctx.Dispatch(func(ctx app.Context) {
			if f != p.withBefore(f.Before) {
				return // the filters changed meanwhile
			}
			if err != nil {
				p.historyErr = tr(i18n.CouldNotReadHistory, describeError(err))
				return
			}
			p.historyErr = ""
			if more {
				p.history = append(slices.Clone(p.history), h.Entries...)
			} else {
				p.history = h.Entries
			}
			p.historyNext = h.Next
			p.filter.Before = f.Before
		})
	})
}

func (p *ApprovalsPage) withBefore(b uint64) protocol.HistoryFilter {
	f := p.filter
	f.Before = b
	return f
}

func (p *ApprovalsPage) loadGrants(ctx app.Context) {
	client, epoch := clientOf(ctx), p.grantsEpoch
	ctx.Async(func() {
		g, err := client.ApprovalGrants(ctx)
		ctx.Dispatch(func(ctx app.Context) {
			if epoch != p.grantsEpoch {
				// Read before a revoke from this page: it still lists the grant revoked, and
				// drawn again for a moment, its row took the focus the revoke had given the
				// next one (a CI run under load). The next read says the server's list.
				return
			}
			if err != nil {
				p.grantErr = tr(i18n.CouldNotListGrants, describeError(err))
				return
			}
			p.grants, p.grantErr, p.grantsLoaded = g, "", true
		})
	})
}

// onDecide sends an answer given on a queue entry's card.
func (p *ApprovalsPage) onDecide(ctx app.Context, a app.Action) {
	intent, ok := a.Value.(DecideIntent)
	if !ok || intent.Session == "" {
		return
	}
	p.send(ctx, intent)
}

func (p *ApprovalsPage) send(ctx app.Context, intent DecideIntent) {
	p.said = "" // a new act: what the last one did is old news
	client := clientOf(ctx)
	// The queue's long poll may say the entry left before the reply does: an answer on its
	// way is this page's, never one given elsewhere (QA round 15 P3-2).
	if p.answering == nil {
		p.answering = map[string]bool{}
	}
	p.answering[intent.Decision] = true
	// What was asked, read now: the long poll may take the entry away before the reply is done.
	i := slices.IndexFunc(p.queue, func(e protocol.QueueEntry) bool { return e.ID == intent.Decision })
	var req protocol.DecisionRequest
	if i >= 0 {
		req = p.queue[i].Request
	}
	ctx.Async(func() {
		_, err := client.Reply(ctx, intent.Session, intent.Decision, intent.Reply)
		ctx.Dispatch(func(ctx app.Context) {
			delete(p.answering, intent.Decision)
			if err != nil {
				p.unanswered(intent.Decision)
				p.notice = tr(i18n.NotAnsweredNotice, describeError(err))
				var apiErr *api.Error
				if errors.As(err, &apiErr) && apiErr.Ended() {
					p.notice = tr(i18n.NotAnsweredUpToDate, describeError(err))
				}
				return
			}
			// Said in the status region, as a revoke is: the focus moves on to the next entry
			// in silence, and a screen reader's user heard nothing of what the keys did (QA
			// round 23 #5).
			if i >= 0 {
				what := asked(req)
				if len(what) > maxSaidAsked {
					what = headAndTail(what, maxSaidAsked)
				}
				p.said = withWords(outcomeSaid(actedOutcome(req, intent.Reply), req), what)
			}
			// The entry leaves the queue now, not with the next answer of the long poll.
			if p.ended == nil {
				p.ended = map[string]bool{}
			}
			p.ended[intent.Decision] = true
			p.queue = slices.DeleteFunc(slices.Clone(p.queue), func(e protocol.QueueEntry) bool { return e.ID == intent.Decision })
			p.reconcile(ctx)
		})
	})
}

func (p *ApprovalsPage) revoke(ctx app.Context, g protocol.GrantEntry) {
	client := clientOf(ctx)
	ctx.Async(func() {
		err := client.RevokeGrant(ctx, g.ID)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.grantErr = tr(i18n.NotRevoked, describeError(err))
				return
			}
			p.grantsEpoch++
			at := slices.IndexFunc(p.grants, func(x protocol.GrantEntry) bool { return x.ID == g.ID })
			p.grants = slices.DeleteFunc(slices.Clone(p.grants), func(x protocol.GrantEntry) bool { return x.ID == g.ID })
			p.said = tr(i18n.Revoked, scopeWords(g.Scope))
			// The Revoke pressed goes with its grant: the keyboard goes to the grant that took
			// its place, else the one before, else the Grants tab, never to the page's body
			// (QA round 22: the next Tab started again at "New session").
			next := `#tab-` + tabGrants
			if len(p.grants) > 0 {
				next = `.grant-entry[data-grant="` + p.grants[min(max(at, 0), len(p.grants)-1)].ID + `"] .grant-revoke`
			}
			// On the page's context: the button's goes with its grant, and its Defer never runs.
			ctx.NewActionWithValue(actionFocusAfterRender, next)
		})
	})
}

// onKey triages the queue from the keyboard: ↑↓ move, Enter opens the thread, Alt+A and
// Alt+R approve and reject after a confirmation. Keys typed into a field are the field's. A
// key answers the entry it was pressed in (or the one the keyboard is on), never one that
// moved into its place.
func (p *ApprovalsPage) onKey(ctx app.Context, e app.Event) {
	target := e.Get("target")
	tag := target.Get("tagName").String()
	inField := tag == "INPUT" || tag == "TEXTAREA" || tag == "SELECT" || target.Get("isContentEditable").Bool()
	key, code := e.Get("key").String(), e.Get("code").String()
	alt := e.Get("altKey").Bool() && !e.Get("ctrlKey").Bool() && !e.Get("metaKey").Bool()
	id, onEntry := entryOf(target)
	if key == "Escape" && p.confirm != "" {
		e.PreventDefault()
		p.confirm = ""
		p.focusSelected(ctx)
		return
	}
	if key == "Enter" && id != "" && target.Get("classList").Call("contains", "entry-reason").Bool() &&
		!e.Get("isComposing").Bool() && e.Get("keyCode").Int() != 229 && p.liveIndex(id) >= 0 {
		// The card's own reason field is the confirmation's (one reason field an entry):
		// Enter there asks what Alt+R asks, the words staying in the field, and once asked
		// rejects with them (docs/qa-round7.md #6).
		e.PreventDefault()
		if p.confirm == confirmReject && id == p.confirmID {
			p.confirmed(ctx)
			return
		}
		p.selected, p.confirm, p.confirmID = id, confirmReject, id
		return
	}
	if id == "" {
		id = p.selected
	}
	i := p.liveIndex(id)
	if inField || i < 0 {
		ctx.PreventUpdate()
		return
	}
	entry := p.queue[i]
	switch {
	case key == "ArrowDown" || key == "ArrowUp":
		e.PreventDefault()
		if next := p.step(id, key == "ArrowDown"); next != "" {
			p.selected = next
		}
		p.confirm, p.focusByPage = "", ""
		p.focusSelected(ctx)
	case key == "Enter" && onEntry && id == p.focusByPage && (clock().Sub(p.movedAt) < time.Second || p.enterMeantForConfirm):
		e.PreventDefault()
		p.enterMeantForConfirm = false
	case key == "Enter" && onEntry:
		e.PreventDefault()
		ctx.Navigate("/s/" + entry.Session)
	case alt && code == "KeyA":
		e.PreventDefault()
		p.focusByPage = ""
		if _, ok := approveReply(entry.Request); ok {
			p.selected, p.confirm, p.confirmID = id, confirmApprove, id
			p.focusIn(ctx, id, ".confirm-yes")
		}
	case alt && code == "KeyR":
		e.PreventDefault()
		p.focusByPage = ""
		if p.confirm != confirmReject || p.confirmID != id {
			p.reason = ""
		}
		p.selected, p.confirm, p.confirmID = id, confirmReject, id
		field := ".confirm-reason"
		if hasOwnReason(entry) {
			field = ".entry-reason"
		}
		p.focusIn(ctx, id, field)
	default:
		ctx.PreventUpdate()
	}
}

// entryOf is the queue entry an element is in (its decision), and whether the element is
// the entry itself.
func entryOf(el app.Value) (string, bool) {
	if !el.Truthy() {
		return "", false
	}
	li := el.Call("closest", ".queue-entry")
	if !li.Truthy() {
		return "", false
	}
	return li.Get("dataset").Get("decision").String(), li.Equal(el)
}

// entryReason is what is typed in the reason field of the entry's card.
func entryReason(e protocol.QueueEntry) string {
	if in := app.Window().Get("document").Call("querySelector", `.queue-entry[data-decision="`+e.ID+`"] .entry-reason`); in.Truthy() {
		return in.Get("value").String()
	}
	return ""
}

// hasOwnReason says the entry's card has a reason field of its own (an approval's), which
// Alt+R uses instead of a second one.
func hasOwnReason(e protocol.QueueEntry) bool {
	return e.Request.Kind == protocol.KindApproval
}

// focusSelected focuses the entry the keyboard is on. Decision ids are [0-9a-z-]: safe in
// a selector.
// With none left, the words that say nothing waits take it.
func (p *ApprovalsPage) focusSelected(ctx app.Context) {
	if p.selected == "" {
		focusFirst(ctx, ".queue-empty")
		return
	}
	focusFirst(ctx, `.queue-entry[data-decision="`+p.selected+`"]`)
}

// focusSelectedIfIdle is focusSelected when nothing holds the focus (the page's body).
// arrived says the entry came while the person was here, not as the page opened: the page
// moved the keyboard to it, not they.
func (p *ApprovalsPage) focusSelectedIfIdle(ctx app.Context, arrived bool) {
	ctx.Defer(func(ctx app.Context) {
		if a := app.Window().Get("document").Get("activeElement"); !a.Truthy() || a.Get("tagName").String() == "BODY" {
			if arrived {
				p.moved()
			}
			p.focusSelected(ctx)
		}
	})
}

// focusIn focuses the element sel names in one entry.
func (p *ApprovalsPage) focusIn(ctx app.Context, id, sel string) {
	focusFirst(ctx, `.queue-entry[data-decision="`+id+`"] `+sel)
}

// approveReply is the answer "approve" gives a request: an approval's first plain allow
// (never an "always"), a confirm's yes. A question has no such answer.
func approveReply(req protocol.DecisionRequest) (protocol.ReplyRequest, bool) {
	accept := func(content string) protocol.ReplyRequest {
		return protocol.ReplyRequest{Action: protocol.ActionAccept, Content: []byte(content)}
	}
	switch req.Kind {
	case protocol.KindApproval:
		for i, o := range req.Options {
			if o.Value == protocol.OptionAllow && o.Grant == nil {
				return accept(`{"option":` + strconv.Itoa(i) + `}`), true
			}
		}
	case protocol.KindConfirm:
		return accept("true"), true
	}
	return protocol.ReplyRequest{}, false
}

// maxSaidAsked bounds the request's words in what an answer is said to have done: a long
// command is read out by its head and tail.
const maxSaidAsked = 200

// actedOutcome is the history outcome of an answer given on the screen: an approval's allow
// is approved, its deny or a refusal in words rejected, a batch approved when every request
// was allowed; a question's answer answered, its decline rejected (said "Declined",
// outcomeSaid).
func actedOutcome(req protocol.DecisionRequest, reply protocol.ReplyRequest) string {
	switch {
	case reply.Action != protocol.ActionAccept:
		return protocol.HistoryRejected
	case !isApproval(req):
		return protocol.HistoryAnswered
	}
	var a protocol.ApprovalAnswer
	if json.Unmarshal(reply.Content, &a) != nil {
		return protocol.HistoryAnswered
	}
	switch {
	case a.Option != nil && *a.Option >= 0 && *a.Option < len(req.Options):
		if req.Options[*a.Option].Value == protocol.OptionAllow {
			return protocol.HistoryApproved
		}
		return protocol.HistoryRejected
	case len(a.Items) > 0 && !slices.Contains(a.Items, protocol.OptionDeny):
		return protocol.HistoryApproved
	case len(a.Items) > 0 && slices.Contains(a.Items, protocol.OptionAllow):
		return protocol.HistoryAnswered // some allowed, some not: the thread's card says which
	}
	return protocol.HistoryRejected // every request denied, or words instead of an option
}

// marked plans approving a batch whose requests are marked on its card (machine/batch): ok
// when a request is marked Reject, which approve then rejects, the others approved.
func marked(e protocol.QueueEntry) (batch.Plan, bool) {
	n := len(e.Request.Items)
	return batch.Of(widget.KeptPicks(e.ID, n), n)
}

func (p *ApprovalsPage) confirmed(ctx app.Context) {
	i := p.liveIndex(p.confirmID)
	if i < 0 {
		p.confirm = ""
		return
	}
	e := p.queue[i]
	intent := DecideIntent{Session: e.Session, Decision: e.ID}
	switch p.confirm {
	case confirmApprove:
		reply, ok := approveReply(e.Request)
		if !ok {
			return
		}
		if p, ok := marked(e); ok {
			// What is marked Reject stays so, with the reason typed in the entry's card.
			reply.Content, _ = json.Marshal(protocol.ApprovalAnswer{Items: p.Items, Instruction: strings.TrimSpace(entryReason(e))})
		}
		intent.Reply = reply
	case confirmReject:
		reason := p.reason
		if hasOwnReason(e) {
			reason = entryReason(e)
		}
		intent.Reply = protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: reason}
	default:
		return
	}
	p.confirm, p.confirmID, p.reason = "", "", ""
	// The question and its buttons go: the keyboard stays on the entry answered, and moves
	// on from it once it ended (settle), never to the page's body. At once, not deferred:
	// go-app runs no Defer of the button's context, which the render unmounts.
	p.selected = e.ID
	p.moved()
	if li := app.Window().Get("document").Call("querySelector", `.queue-entry[data-decision="`+e.ID+`"]`); li.Truthy() {
		li.Call("focus")
	}
	// Sent from the page's context (onDecide), not the button's: the render unmounts the
	// button, and go-app drops what an unmounted context dispatches, so the reply's outcome
	// (the entry leaving at once, what it did said) was lost.
	ctx.NewActionWithValue(actionDecide, intent)
}

// Render lays out the sidebar and the screen.
func (p *ApprovalsPage) Render() app.UI {
	return p.frame.render(&Sidebar{Sessions: p.frame.visible(), Approvals: true, Queue: p.queue},
		app.Elem("main").Class("main approvals-page").Body(
			pageHeader(tr(i18n.ApprovalsTitle)),
			app.Div().Class("approvals-tabs").Role("tablist").Aria("label", tr(i18n.ApprovalsTitle)).OnKeyDown(p.onTabKey).Body(
				p.tabButton(tabQueue, counted(i18n.TabQueue, i18n.TabQueueN, len(p.queue), p.loaded)),
				p.tabButton(tabHistory, tr(i18n.TabHistory)),
				p.tabButton(tabGrants, counted(i18n.TabGrants, i18n.TabGrantsN, len(p.grants), p.grantsLoaded)),
			),
			// The live region is always there and its words change: one that appears with its
			// words is not read out (QA round 22: a revoke said nothing).
			app.Div().Class("notice-slot").Role("status").Body(
				app.If(p.notice != "" || p.said != "", func() app.UI {
					if p.notice == "" {
						// What an answer did is no problem: it is not drawn as one (QA round 24).
						return app.Div().Class("notice said").Text(p.said)
					}
					return app.Div().Class("notice").Text(p.notice)
				}),
			),
			app.Div().Class("approvals-body").ID("approvals-panel").Role("tabpanel").Aria("labelledby", "tab-"+p.tab).Body(p.renderTab()),
		))
}

// counted is a tab's label with its count once the count is known: never a "(0)" that only
// means "not read yet".
func counted(label, withCount i18n.Msg, n int, known bool) string {
	if !known {
		return tr(label)
	}
	return tr(withCount, n)
}

// tabName is a tab's name in the page's locale.
func tabName(tab string) string {
	switch tab {
	case tabHistory:
		return tr(i18n.TabHistory)
	case tabGrants:
		return tr(i18n.TabGrants)
	}
	return tr(i18n.TabQueue)
}

func (p *ApprovalsPage) visibleSessions() []protocol.SessionInfo { return p.frame.visible() }

// tabOrder is the tabs as drawn, left to right.
var tabOrder = []string{tabQueue, tabHistory, tabGrants}

// tabButton draws a tab of the ARIA tabs pattern: the open one is the tablist's one tab stop,
// and ← → (Home, End) move between tabs and open the one reached (onTabKey).
func (p *ApprovalsPage) tabButton(tab, label string) app.UI {
	tabIndex := -1
	if p.tab == tab {
		tabIndex = 0
	}
	return app.Button().Type("button").ID("tab-"+tab).Class("approvals-tab tab-"+tab).Role("tab").
		Aria("selected", strconv.FormatBool(p.tab == tab)).Aria("controls", "approvals-panel").
		TabIndex(tabIndex).Text(label).
		OnClick(func(ctx app.Context, e app.Event) { p.openTab(ctx, tab) })
}

// openTab opens tab and reads what it shows. The address keeps it (?tab=, replacing this
// history entry), so going back to the screen opens the same tab (QA round 26).
func (p *ApprovalsPage) openTab(ctx app.Context, tab string) {
	p.tab, p.said = tab, ""
	if app.IsClient {
		url := "/approvals"
		if tab != tabQueue {
			url += "?tab=" + tab
		}
		history := app.Window().Get("history")
		history.Call("replaceState", history.Get("state"), "", url)
	}
	switch tab {
	case tabHistory:
		p.loadHistory(ctx, false)
	case tabGrants:
		p.loadGrants(ctx)
	}
}

// onTabKey moves between the tabs with the arrows, Home and End, and opens the one reached
// (automatic activation: each tab's content is at hand).
func (p *ApprovalsPage) onTabKey(ctx app.Context, e app.Event) {
	at := slices.Index(tabOrder, p.tab)
	next := at
	switch e.Get("key").String() {
	case "ArrowRight":
		next = (at + 1) % len(tabOrder)
	case "ArrowLeft":
		next = (at + len(tabOrder) - 1) % len(tabOrder)
	case "Home":
		next = 0
	case "End":
		next = len(tabOrder) - 1
	default:
		// No PreventUpdate: go-app counts updates, and a -1 here would cancel the +1 of
		// the click an Enter or Space on the tab makes in the same frame.
		return
	}
	e.PreventDefault()
	tab := tabOrder[next]
	p.openTab(ctx, tab)
	focusFirst(ctx, "#tab-"+tab)
}

func (p *ApprovalsPage) renderTab() app.UI {
	switch p.tab {
	case tabHistory:
		return p.renderHistory()
	case tabGrants:
		return p.renderGrants()
	}
	return p.renderQueue()
}

func (p *ApprovalsPage) renderQueue() app.UI {
	return app.Div().Class("queue").OnKeyDown(p.onKey).Body(
		app.Elem("p").Class("keys-help").Text(tr(i18n.KeysHelp)),
		// While the pointer is over the list (:hover), what is under it stays in place; once
		// it leaves, the entries that ended go.
		app.Elem("ol").Class("queue-list").Aria("label", tr(i18n.PendingList)).
			On("mouseleave", func(ctx app.Context, e app.Event) { p.settle(ctx) }).
			Body(app.Range(p.shown).Slice(func(i int) app.UI { return p.renderEntry(i) })),
		// After the list, so it never pushes the entries down as it comes and goes.
		app.If(p.loaded && len(p.queue) == 0, func() app.UI {
			return app.Elem("p").Class("queue-empty").TabIndex(-1).Text(tr(i18n.NothingWaiting))
		}),
	)
}

func (p *ApprovalsPage) renderEntry(i int) app.UI {
	e := p.shown[i].QueueEntry
	gone := p.shown[i].gone
	now := clock()
	selected := e.ID == p.selected
	li := app.Elem("li").Class("queue-entry").TabIndex(tabIndex(selected))
	if gone != "" {
		// In its place, as it was, for as long as the pointer is over the list: what is under
		// the pointer never moves. Hidden under its note (the stylesheet), nothing in it can be
		// clicked or focused.
		li = app.Elem("li").Class("queue-gone")
	}
	return li.DataSet("decision", e.ID).DataSet("session", e.Session).
		Aria("current", strconv.FormatBool(selected && gone == "")).
		Aria("label", tr(i18n.AskedIn, titleWords(e.SessionTitle), asked(e.Request))).
		OnFocus(func(ctx app.Context, ev app.Event) {
			if p.selected != e.ID {
				p.selected, p.confirm = e.ID, ""
			}
			if p.focusByPage != e.ID {
				p.focusByPage = "" // the person moved: their Enter opens the thread again
			}
			p.settle(ctx)
			// The entry's own: go-app reuses the list's items by place, and kept the handler
			// of the entry drawn there before. Focused by the page on the next entry, drawn
			// where an ended one had been, it took the keyboard back to the ended one and
			// called the move the person's (QA round 25: the Enter held for an answer opened
			// the next thread).
		}, app.EventScope(e.ID)).
		Body(
			app.Div().Class("queue-where").Body(
				app.A().Class("queue-thread").Attr("dir", "auto").Href("/s/"+e.Session+"#decision-"+e.ID).Text(cmpOr(titleWords(e.SessionTitle), e.Session)),
				app.Span().Class("queue-workspace").Text(tr(i18n.InWorkspace, cmpOr(e.WorkspaceName, e.WorkspaceID))),
				app.Span().Class("queue-time").Text(tr(i18n.AskedAgo, ago(now, e.Asked), timesOut(now, e.Deadline))),
			),
			renderStatus(e.Status),
			&DecisionCard{Message: pendingMessage(e.Decision), Session: e.Session},
			app.If(gone == "" && p.confirm != "" && p.confirmID == e.ID, func() app.UI { return p.renderConfirm(e) }),
			app.If(gone != "", func() app.UI { return app.Elem("p").Class("gone-note").Text(gone) }),
		)
}

func tabIndex(selected bool) int {
	if selected {
		return 0
	}
	return -1
}

// renderStatus is what the thread was doing when the decision was asked: its last two
// messages in the order they were said, each under the name of who wrote it.
func renderStatus(s protocol.ThreadStatus) app.UI {
	if s.User == "" && s.Agent == "" {
		return app.Div().Class("thread-status").Text(tr(i18n.NothingBefore))
	}
	user := app.If(s.User != "", func() app.UI {
		return app.Div().Class("status-user").Body(app.Span().Class("status-who").Text(tr(i18n.YouColon)), app.Span().Text(s.User))
	})
	agent := app.If(s.Agent != "", func() app.UI {
		return app.Div().Class("status-agent status-from-"+cmpOr(s.AgentFrom, "agent")).Body(
			app.Span().Class("status-who").Text(speaker(s.AgentFrom)+": "), app.Span().Text(s.Agent))
	})
	lines := []app.UI{user, agent}
	if s.Agent != "" && s.User != "" && s.AgentOffset < s.UserOffset {
		lines = []app.UI{agent, user}
	}
	return app.Div().Class("thread-status").Aria("label", tr(i18n.ThreadWhenAsked)).Body(lines...)
}

// speaker names who wrote an assistant-side message (store.Message.From).
func speaker(from string) string {
	switch from {
	case protocol.FromScript:
		return tr(i18n.WhoScript)
	case protocol.FromParley:
		return tr(i18n.WhoParley)
	}
	return tr(i18n.WhoAgent)
}

func (p *ApprovalsPage) renderConfirm(e protocol.QueueEntry) app.UI {
	// "Reject “Allow writing a.txt?”?": the request's own question mark is the sentence's.
	what := strings.TrimRight(asked(e.Request), "?？")
	if p.confirm == confirmApprove {
		question := tr(i18n.ApproveQuestion, what)
		if b, ok := marked(e); ok {
			question = tr(i18n.BatchApproveQuestion, what, b.Approve, b.Reject)
		}
		return app.Div().Class("confirm").Role("alertdialog").Aria("label", tr(i18n.ConfirmApproval)).Body(
			app.Span().Text(question),
			app.Button().Type("button").Class("choice tone-affirm confirm-yes").Body(app.Span().Class("choice-label").Text(tr(i18n.Approve))).
				OnClick(func(ctx app.Context, ev app.Event) { p.confirmed(ctx) }),
			app.Button().Type("button").Class("choice confirm-no").Body(app.Span().Class("choice-label").Text(tr(i18n.Cancel))).
				OnClick(func(ctx app.Context, ev app.Event) { p.confirm = ""; p.focusSelected(ctx) }),
		)
	}
	return app.Div().Class("confirm").Role("alertdialog").Aria("label", tr(i18n.ConfirmRejection)).Body(
		app.Span().Text(tr(i18n.RejectQuestion, what)),
		app.If(!hasOwnReason(e), func() app.UI { return p.renderReasonField() }),
		app.Button().Type("button").Class("choice tone-deny confirm-yes").Body(app.Span().Class("choice-label").Text(tr(i18n.RejectWord))).
			OnClick(func(ctx app.Context, ev app.Event) { p.confirmed(ctx) }),
		app.Button().Type("button").Class("choice confirm-no").Body(app.Span().Class("choice-label").Text(tr(i18n.Cancel))).
			OnClick(func(ctx app.Context, ev app.Event) { p.confirm = ""; p.focusSelected(ctx) }),
	)
}

// renderReasonField is the confirmation's reason, for an entry whose card has none.
func (p *ApprovalsPage) renderReasonField() app.UI {
	return app.Input().Type("text").Class("entry-input confirm-reason").Aria("label", tr(i18n.ReasonForRejecting)).
		Placeholder(tr(i18n.ReasonPlaceholder)).MaxLength(protocol.MaxReasonBytes).Value(p.reason).
		OnInput(func(ctx app.Context, ev app.Event) { p.reason = ctx.JSSrc().Get("value").String() }).
		OnKeyDown(func(ctx app.Context, ev app.Event) {
			if ev.Get("key").String() == "Enter" && !ev.Get("isComposing").Bool() && ev.Get("keyCode").Int() != 229 {
				ev.PreventDefault()
				p.confirmed(ctx)
			}
		})
}

func (p *ApprovalsPage) renderHistory() app.UI {
	onFilter := func(set func(v string)) app.EventHandler {
		return func(ctx app.Context, e app.Event) {
			set(ctx.JSSrc().Get("value").String())
			p.filter.Before = 0
			p.loadHistory(ctx, false)
		}
	}
	return app.Div().Class("history").Body(
		app.Div().Class("history-filters").Body(
			app.Elem("label").Body(
				app.Span().Text(tr(i18n.SessionFilter)),
				app.Select().Class("filter-session").OnChange(onFilter(func(v string) { p.filter.Session = v })).Body(
					app.Option().Value("").Text(tr(i18n.AllSessions)),
					app.Range(p.visibleSessions()).Slice(func(i int) app.UI {
						s := p.visibleSessions()[i]
						return app.Option().Value(s.ID).Attr("dir", "auto").Text(s.Title).Selected(p.filter.Session == s.ID)
					}),
				),
			),
			app.Elem("label").Body(
				app.Span().Text(tr(i18n.WorkspaceFilter)),
				app.Select().Class("filter-workspace").OnChange(onFilter(func(v string) { p.filter.Workspace = v })).Body(
					app.Option().Value("").Text(tr(i18n.AllWorkspaces)),
					app.Range(p.spaces).Slice(func(i int) app.UI {
						return app.Option().Value(p.spaces[i].ID).Text(p.spaces[i].Name).Selected(p.filter.Workspace == p.spaces[i].ID)
					}),
				),
			),
			app.Elem("label").Body(
				app.Span().Text(tr(i18n.OutcomeFilter)),
				app.Select().Class("filter-outcome").OnChange(onFilter(func(v string) { p.filter.Outcome = v })).Body(
					app.Option().Value("").Text(tr(i18n.AnyOutcome)),
					app.Range(protocol.HistoryOutcomes).Slice(func(i int) app.UI {
						o := protocol.HistoryOutcomes[i]
						return app.Option().Value(o).Text(outcomeWord(o)).Selected(p.filter.Outcome == o)
					}),
				),
			),
		),
		app.If(p.historyErr != "", func() app.UI { return app.Div().Class("notice").Role("alert").Text(p.historyErr) }),
		app.If(len(p.history) == 0 && p.historyErr == "", func() app.UI {
			return app.Elem("p").Class("history-empty").Text(tr(i18n.NoHistory))
		}),
		app.Elem("ol").Class("history-list").Body(
			app.Range(p.history).Slice(func(i int) app.UI { return p.renderEnded(p.history[i]) }),
		),
		app.If(p.historyNext != 0, func() app.UI {
			return app.Button().Type("button").Class("link-button history-more").Text(tr(i18n.ShowOlder)).
				OnClick(func(ctx app.Context, e app.Event) { p.loadHistory(ctx, true) })
		}),
	)
}

var outcomeWords = map[string]i18n.Msg{
	protocol.HistoryApproved: i18n.HistApproved,
	protocol.HistoryRejected: i18n.HistRejected,
	protocol.HistoryAnswered: i18n.HistAnswered,
	protocol.HistoryTimedOut: i18n.HistTimedOut,
	protocol.HistoryAborted:  i18n.HistAborted,
}

// outcomeWord words a history outcome in the page's locale.
func outcomeWord(o string) string {
	if m, ok := outcomeWords[o]; ok {
		return tr(m)
	}
	return o
}

// isApproval says the request is an approval; history entries from before kinds were stored
// have none, and were all approvals.
func isApproval(req protocol.DecisionRequest) bool {
	return req.Kind == "" || req.Kind == protocol.KindApproval
}

// outcomeSaid words a history outcome of req: a question or a form said no to is declined;
// only an approval is rejected. (The filter's "rejected" holds both.)
func outcomeSaid(o string, req protocol.DecisionRequest) string {
	if o == protocol.HistoryRejected && !isApproval(req) {
		return tr(i18n.OutcomeDeclined)
	}
	return outcomeWord(o)
}

// withWords is an outcome and the words of its answer as the page's language writes them:
// "Answered: Yes", "已回答：是".
func withWords(outcome, words string) string {
	if locale.Current() == i18n.Chinese {
		return outcome + "：" + words
	}
	return outcome + ": " + words
}

func (p *ApprovalsPage) renderEnded(h protocol.HistoryEntry) app.UI {
	now := clock()
	// The outcome in the thread's words (app/store, outcomeText): "Approved, always for this
	// command", "Rejected: use staging", "Declined: not now".
	approval := isApproval(h.Request)
	rejected := h.Outcome == protocol.HistoryRejected
	outcome := outcomeSaid(h.Outcome, h.Request)
	switch a := answerWords(h); {
	case a == "" || a == outcome:
	case h.AnswerPhrase != nil && (h.AnswerPhrase.Code == "hist_approved_n_of_m" || h.AnswerPhrase.Code == "hist_rejected_each"):
		outcome = a // a batch's count says the outcome whole: "Approved 2 of 3", not "Approved: Approved 2 of 3"
	case h.Outcome == protocol.HistoryApproved && approval && reachOf(&h.Request, h.Answer) != "":
		outcome = tr(i18n.OutcomeApprovedWith, a)
	default:
		outcome = withWords(outcome, outcomeText(a)) // a confirm's "Yes" in the page's words
	}
	if h.Reason != "" {
		reason := locale.Current().Say(h.ReasonPhrase, h.Reason)
		switch {
		case rejected && approval && outcome == tr(i18n.HistRejected):
			outcome = tr(i18n.OutcomeRejectedWith, reason)
		case rejected && !approval && outcome == tr(i18n.OutcomeDeclined):
			outcome = tr(i18n.OutcomeDeclinedWith, reason)
		default:
			outcome += " — " + reason
		}
	}
	li := app.Elem("li").Class("history-entry outcome-" + h.Outcome)
	if rejected && !approval {
		li = li.Class("outcome-declined") // its badge is not a failure's
	}
	return li.DataSet("decision", h.ID).DataSet("session", h.Session).Body(
		app.Div().Class("entry-head").Body(
			app.Span().Class("entry-title").Text(cmpOr(asked(h.Request), tr(i18n.KindQuestion))),
			app.Span().Class("history-outcome").Text(outcome),
		),
		app.Div().Class("queue-where").Body(
			app.A().Class("queue-thread").Attr("dir", "auto").Href("/s/"+h.Session+"#decision-"+h.ID).Text(cmpOr(titleWords(h.SessionTitle), h.Session)),
			app.Span().Class("queue-workspace").Text(tr(i18n.InWorkspace, cmpOr(h.WorkspaceName, h.WorkspaceID))),
			app.Span().Class("queue-time").Text(tr(i18n.EndedAgo, ago(now, h.Ended))),
		),
		renderStatus(h.Status),
		app.If(h.Request.Details != "", func() app.UI {
			return app.Elem("pre").Class("entry-output").Text(clipDetail(h.Request.Details))
		}),
		app.If(h.Grant != nil, func() app.UI {
			state := tr(i18n.RevokedSince)
			if h.GrantLive {
				state = tr(i18n.StillInForce)
			}
			return app.Div().Class("history-grant").Text(tr(i18n.GrantCreated, scopeWords(*h.Grant), state))
		}),
		app.If(h.Retryable, func() app.UI {
			return &retryButton{Session: h.Session, Decision: h.ID, Runs: h.RetryRuns}
		}),
	)
}

// retryButton is Request retry (or Run again, Runs) on a history entry.
type retryButton struct {
	app.Compo
	Session, Decision string
	Runs              bool
	sent              bool
}

// OnMount relabels the button when the locale switches.
func (r *retryButton) OnMount(ctx app.Context) { relabel(ctx) }

func (r *retryButton) Render() app.UI {
	label, title, sent := retryWords(r.Runs)
	if r.sent {
		return app.Div().Class("entry-note retry-note").Role("status").Text(sent)
	}
	return app.Button().Type("button").Class("choice retry").Title(title).Body(app.Span().Class("choice-label").Text(label)).
		OnClick(func(ctx app.Context, e app.Event) {
			r.sent = true
			ctx.NewActionWithValue(actionRetry, RetryIntent{Session: r.Session, Decision: r.Decision})
		})
}

func (p *ApprovalsPage) renderGrants() app.UI {
	now := clock()
	return app.Div().Class("grants").Body(
		app.If(p.grantErr != "", func() app.UI { return app.Div().Class("notice").Role("alert").Text(p.grantErr) }),
		app.If(p.grantsLoaded && len(p.grants) == 0, func() app.UI {
			return app.Elem("p").Class("grants-empty").Text(tr(i18n.NoGrants))
		}),
		app.Elem("ul").Class("grant-list").Body(
			app.Range(p.grants).Slice(func(i int) app.UI {
				g := p.grants[i]
				used := tr(i18n.NeverUsed)
				if g.LastUsed != 0 {
					used = tr(i18n.LastUsed, ago(now, g.LastUsed))
				}
				return app.Elem("li").Class("grant-entry").DataSet("grant", g.ID).Body(
					app.Div().Class("entry-head").Body(
						app.Span().Class("entry-title grant-words").Text(g.Scope.Tool+": "+scopeWords(g.Scope)),
						app.Button().Type("button").Class("choice tone-deny grant-revoke").
							Aria("label", tr(i18n.RevokeNamed, scopeWords(g.Scope))).Text(tr(i18n.Revoke)).
							// The grant's own handler: go-app reuses the list's items by place.
							OnClick(func(ctx app.Context, e app.Event) { p.revoke(ctx, g) }, app.EventScope(g.ID)),
					),
					app.Div().Class("queue-where").Body(
						app.Span().Text(tr(i18n.GrantIn, cmpOr(g.WorkspaceName, g.WorkspaceID), ago(now, g.Created))),
						app.A().Class("grant-origin").Attr("dir", "auto").Href("/s/"+g.Session+"#decision-"+g.Decision).Text(cmpOr(titleWords(g.SessionTitle), tr(i18n.ItsSession))),
						app.Span().Class("grant-used").Text(" · "+used),
					),
				)
			}),
		),
	)
}

// pageHeader is the bar a page of the app opens with, as a session's thread does: its title in
// the title size at the start, the language at the end, over one line (docs/look.md, "One
// page header"). /approvals and /mcp use it; the thread's adds its workspace.
func pageHeader(title string) app.UI {
	return app.Elem("header").Class("session-header page-header").Body(app.Elem("h1").Text(title), composer.LocaleSwitch())
}
