package components

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/store"
	"parley/components/composer"
	"parley/components/composer/modes/widget"
	"parley/i18n"
	"parley/machine/batch"
	"parley/protocol"
)

// A batch (run_batch, or the model's several tool calls in one message) is one card: every
// request with its details, Approve all, Reject all with one reason, and an answer per
// request. A card that timed out offers Request retry. See docs/approvals.md.

// actionRetry carries a RetryIntent from a card to whoever sends it.
const actionRetry = "parley.retry"

// RetryIntent asks the agent to make an expired request again.
type RetryIntent struct {
	Session  string
	Decision string
}

// decide sends a reply from the card.
func (d *DecisionCard) decide(ctx app.Context, reply protocol.ReplyRequest) {
	ctx.NewActionWithValue(actionDecide, DecideIntent{Session: d.Session, Decision: d.Message.ID, Reply: reply})
}

// scope ties a handler to the decision the card shows. go-app reuses a card by its place
// (the approvals screen's queue moves up as entries leave) and keeps an element's handler
// while its function is the same: without the decision in its scope, a button kept the
// answer of the card drawn there before, and sent it to the card's new decision (a click
// on "staging" answered "prod": TestACardMovedUpAnswersItsOwnDecision).
func (d *DecisionCard) scope() app.EventOption { return app.EventScope(d.Message.ID) }

func (d *DecisionCard) isBatch() bool {
	return d.Message.Request != nil && len(d.Message.Request.Items) > 1
}

// renderBatch lists the batch's requests; while it is pending, each has its own Allow and
// Reject, which the card's Approve all then sends as marked ("Approve 1, reject 1": asMarked).
// One button sends them: a "Send these answers" beside it sent the same answers (QA round 16
// #8).
func (d *DecisionCard) renderBatch() app.UI {
	req := d.Message.Request
	pending := d.Message.Status == store.StatusPending
	// Kept in the page: the composer shows the same picks, and a pick there shows here.
	d.items = widget.KeptPicks(d.Message.ID, len(req.Items))
	return app.Div().Class("batch").Body(
		app.Elem("ol").Class("batch-items").Aria("label", tr(i18n.BatchRequests, len(req.Items))).Body(
			app.Range(req.Items).Slice(func(i int) app.UI {
				it := req.Items[i]
				return app.Elem("li").Class("batch-item").DataSet("item", strconv.Itoa(i)).Body(
					app.Div().Class("batch-item-head").Body(
						app.Span().Class("batch-tool").Text(it.Tool),
						app.If(pending, func() app.UI {
							return app.Div().Class("batch-item-answer").Role("group").Aria("label", tr(i18n.AnswerRequest, i+1, widget.RequestWords(it.Details))).Body(
								d.itemButton(i, protocol.OptionAllow, tr(i18n.Allow)),
								d.itemButton(i, protocol.OptionDeny, tr(i18n.RejectWord)),
							)
						}),
					),
					app.Elem("pre").Class("entry-output").Text(clipDetail(it.Details)),
				)
			}),
		),
	)
}

// asMarked is a batch's Approve all (its affirming option) as the picks are at the click, the
// composer's included: it approves only the requests not marked Reject (machine/batch).
func (d *DecisionCard) asMarked(r protocol.ReplyRequest, tone protocol.Tone) protocol.ReplyRequest {
	if d.isBatch() && tone == protocol.ToneAffirm {
		n := len(d.Message.Request.Items)
		if p, ok := batch.Of(widget.KeptPicks(d.Message.ID, n), n); ok {
			// The reason typed goes with the requests marked Reject (QA round 26: it was
			// dropped, and the asker read only "rejected by the user").
			r.Content, _ = json.Marshal(protocol.ApprovalAnswer{Items: p.Items, Instruction: strings.TrimSpace(d.reason)})
		}
	}
	return r
}

func (d *DecisionCard) itemButton(i int, value, label string) app.UI {
	tone := protocol.ToneAffirm
	if value == protocol.OptionDeny {
		tone = protocol.ToneDeny
	}
	return app.Button().Type("button").Class("choice choice-small tone-"+string(tone)).
		Aria("pressed", strconv.FormatBool(d.items[i] == value)).
		Body(app.Span().Class("choice-label").Text(label)).
		OnClick(func(ctx app.Context, e app.Event) {
			if composer.Stray(e.Value, d.drawnAt) {
				return // a pick is no answer, but the Approve all beside it reads the picks
			}
			items := append([]string(nil), d.items...)
			items[i] = value
			d.items = items
			widget.KeepPicks(d.Message.ID, items)
		}, d.scope())
}

// renderReason is the reason a rejection carries: typed here, it goes with Reject (Reject
// all on a batch), and the asker reads it.
func (d *DecisionCard) renderReason() app.UI {
	return app.Input().Type("text").Class("entry-input entry-reason").
		Aria("label", tr(i18n.ReasonIfReject)).
		Placeholder(tr(i18n.ReasonIfRejectOptional)).
		MaxLength(protocol.MaxReasonBytes).
		Value(d.reason).
		OnInput(func(ctx app.Context, e app.Event) { d.reason = ctx.JSSrc().Get("value").String() })
}

// renderRetry offers Request retry on a request that expired unanswered (it timed out, or a
// restart cut it off): a message to the agent asking for the same request again; or Run
// again when a slash command's run asked it, which sends the command again. It grants
// nothing.
func (d *DecisionCard) renderRetry() app.UI {
	if d.retried != "" {
		return app.Div().Class("entry-note retry-note").Role("status").Text(d.retried)
	}
	label, title, sent := retryWords(d.Message.RetryRuns)
	return app.Button().Type("button").Class("choice retry").
		Title(title).
		Text(label).
		OnClick(func(ctx app.Context, e app.Event) {
			d.retried = sent
			ctx.NewActionWithValue(actionRetry, RetryIntent{Session: d.Session, Decision: d.Message.ID})
		}, d.scope())
}

// retryWords are a retry button's label, title and the note once sent: Run again when it
// sends a slash command again (runs), Request retry when it asks the agent.
func retryWords(runs bool) (label, title, sent string) {
	if runs {
		return tr(i18n.RunAgain), tr(i18n.RunAgainTitle), tr(i18n.RanAgain)
	}
	return tr(i18n.RequestRetry), tr(i18n.RequestRetryTitle), tr(i18n.RetryRequested)
}

// decisionMessage is a pending decision as a card shows it.
func pendingMessage(d protocol.Decision) store.Message {
	req := d.Request
	title := req.Message
	if title == "" && req.Schema != nil {
		if qs := req.Schema.Questions(); len(qs) > 0 {
			title = qs[0].Schema.Title
		}
	}
	return store.Message{Offset: d.Offset, Role: store.RoleDecision, ID: d.ID, Title: title,
		Detail: strings.TrimSpace(req.Details), Status: store.StatusPending, Request: &req}
}

// requestRetry sends a card's Request retry; a failure is told with notice.
func requestRetry(ctx app.Context, client *api.Client, session string, a app.Action, notice func(string, bool)) {
	intent, ok := a.Value.(RetryIntent)
	if !ok {
		return
	}
	session = cmpOr(intent.Session, session)
	if session == "" {
		return
	}
	ctx.Async(func() {
		if _, err := client.RequestRetry(ctx, session, intent.Decision); err != nil {
			ctx.Dispatch(func(ctx app.Context) {
				notice(tr(i18n.RetryNotRequested, describeError(err)), errors.Is(err, api.ErrUnreachable))
			})
		}
	})
}

// clipDetail keeps a long detail's head and tail.
func clipDetail(s string) string {
	if len(s) > maxDetailShown {
		return headAndTail(s, maxDetailShown)
	}
	return s
}

// OnMount brings the card into view when the address names it (#decision-<id>): the
// approvals screen links a grant or an entry to the card where it was decided.
func (d *DecisionCard) OnMount(ctx app.Context) {
	relabel(ctx)
	if !app.IsClient || app.Window().Get("location").Get("hash").String() != "#decision-"+d.Message.ID {
		return
	}
	id := "decision-" + d.Message.ID
	ctx.Defer(func(ctx app.Context) {
		if el := app.Window().GetElementByID(id); el.Truthy() {
			el.Get("classList").Call("add", "entry-linked")
			el.Call("scrollIntoView", map[string]any{"block": "center"})
		}
	})
}

// OnUpdate empties the card's fields when the card now shows another decision. go-app reuses
// a card by its place (the approvals screen's queue moves up), and Render's Value("") never
// empties a field: go-app v10.1 drops an empty value from an element's attributes, so the
// field kept the last decision's words on screen while the card sent none (QA round 12 #2:
// a reason typed for one entry showed in the next one's, of another session).
func (d *DecisionCard) OnUpdate(ctx app.Context) {
	if d.shown == "" || d.Message.ID == d.shown {
		return
	}
	ctx.Defer(func(ctx app.Context) {
		root := d.JSValue()
		if !root.Truthy() || root.Get("querySelectorAll").IsUndefined() {
			return
		}
		fields := root.Call("querySelectorAll", ".entry-input")
		for i := range fields.Length() {
			fields.Index(i).Set("value", "")
		}
	})
}
