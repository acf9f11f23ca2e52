package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"parley/i18n"
	"parley/protocol"
	"parley/runtime/agent"
	"parley/runtime/decision"
)

// MCP's elicitation results.
const (
	actionAccept  = "accept"
	actionDecline = "decline"
	actionCancel  = "cancel"
)

// Option values of a URL elicitation's consent.
const (
	OptionOpen    = protocol.OptionOpenURL
	OptionDecline = "decline"
)

// errAskerGone is the cause of an elicitation's decision ending because the server that
// asked withdrew the request (it cancelled it, or its connection ended).
var errAskerGone = errors.New("the MCP server that asked is gone")

// asker is the call an elicitation belongs to: the newest running call on the connection.
// A request that arrives while no call runs has nobody to ask.
func (c *conn) asker() *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.calls) == 0 {
		return nil
	}
	return c.calls[len(c.calls)-1]
}

// elicit answers elicitation/create: a form (or an empty mode) becomes a question in the
// composer, a URL a consent. The answer maps onto MCP's: accept with content, decline (the
// user said no), cancel (Parley's abort: Stop, the turn ended, no answer in time, the asker
// gone).
func (c *conn) elicit(ctx context.Context, live context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	cl := c.asker()
	if cl == nil {
		slog.Warn("an MCP server asked a question while none of its tools was running; cancelled", "server", c.e.name)
		return &sdk.ElicitResult{Action: actionCancel}, nil
	}
	// The answer is the user's time, not the server's: the call's idle clock waits.
	defer cl.userHolds()()
	// The question lives as long as the turn, the request and the connection.
	actx, cancel := context.WithCancelCause(cl.ctx)
	defer cancel(nil)
	stopReq := context.AfterFunc(ctx, func() { cancel(errAskerGone) })
	defer stopReq()
	stopLive := context.AfterFunc(live, func() { cancel(errAskerGone) })
	defer stopLive()

	p := req.Params
	if p.Mode == "url" || p.Mode == "" && (p.URL != "" || p.ElicitationID != "") {
		res, err := c.askURL(actx, cl, p)
		if err == nil && res.Action == actionAccept && p.ElicitationID != "" {
			// Consent is the answer the server waits for; the step itself happens in the
			// browser, and the call waits for it (see follow).
			c.follow(cl, p)
		}
		return res, err
	}
	dreq, err := formRequest(c.e.name, p, c.orders)
	if err != nil {
		c.note(cl, "mcp_cannot_draw", c.e.name, err.Error())
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	ans, err := cl.tools.Ask(actx, dreq)
	if err != nil {
		return c.aborted(cl, actx, err)
	}
	return formResult(dreq, ans), nil
}

// formRequest turns a form elicitation into a question. MCP's schema is the vocabulary of
// protocol.Schema; the server checks every answer against its own enum, so "Other…" is
// closed. A form with no questions is a yes-or-no.
func formRequest(server string, p *sdk.ElicitParams, o *orders) (protocol.DecisionRequest, error) {
	msg := p.Message
	if msg == "" {
		msg = "The MCP server " + server + " asks:"
	}
	var schema *protocol.Schema
	if p.RequestedSchema != nil {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return protocol.DecisionRequest{}, fmt.Errorf("its schema: %w", err)
		}
		if string(raw) != "null" {
			schema = new(protocol.Schema)
			if err := json.Unmarshal(raw, schema); err != nil {
				return protocol.DecisionRequest{}, fmt.Errorf("its schema: %w", err)
			}
		}
	}
	if schema == nil || len(schema.Properties) == 0 {
		return protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: msg, TimeoutMs: 0}, nil
	}
	o.sort(schema)
	closed := false
	for _, prop := range schema.Properties {
		if prop.Schema != nil && (len(prop.Schema.Enum) > 0 || len(prop.Schema.OneOf) > 0) {
			prop.Schema.AllowOther = &closed
		}
	}
	req := protocol.DecisionRequest{Kind: protocol.KindAsk, Message: msg, Schema: schema}
	if err := req.Validate(); err != nil {
		return req, err
	}
	return req, nil
}

// formResult is the MCP result of an answered question. A timeout declined nobody's
// question: it is a cancel.
func formResult(req protocol.DecisionRequest, ans decision.Answer) *sdk.ElicitResult {
	if ans.Action != protocol.ActionAccept {
		if ans.Reason == protocol.ReasonTimeout {
			return &sdk.ElicitResult{Action: actionCancel}
		}
		return &sdk.ElicitResult{Action: actionDecline}
	}
	if req.Kind == protocol.KindConfirm {
		var yes bool
		if len(ans.Content) > 0 && json.Unmarshal(ans.Content, &yes) == nil && !yes {
			return &sdk.ElicitResult{Action: actionDecline}
		}
		return &sdk.ElicitResult{Action: actionAccept, Content: map[string]any{}}
	}
	content := map[string]any{}
	if len(ans.Content) > 0 {
		_ = json.Unmarshal(ans.Content, &content) // validated against the schema on reply
	}
	return &sdk.ElicitResult{Action: actionAccept, Content: content}
}

// aborted maps an abort onto MCP's cancel, with a note in the thread when the server that
// asked went away.
func (c *conn) aborted(cl *call, actx context.Context, err error) (*sdk.ElicitResult, error) {
	if !errors.Is(err, decision.ErrAborted) && actx.Err() == nil {
		return nil, err // could not ask (the log failed): the server gets the error
	}
	if errors.Is(context.Cause(actx), errAskerGone) && cl.ctx.Err() == nil {
		c.note(cl, "mcp_withdrew", c.e.name)
	}
	return &sdk.ElicitResult{Action: actionCancel}, nil
}

// note posts a notice in the call's session, in Parley's fixed words by their phrase
// (i18n/more_words.go): English in the text, the phrase beside where the tools keep it.
func (c *conn) note(cl *call, code string, args ...string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(cl.ctx), 5*time.Second)
	defer cancel()
	p, text := i18n.EnglishPhrase(code, args...)
	err := error(nil)
	if np, ok := cl.tools.(agent.NoticePhraser); ok {
		err = np.NoticePhrase(ctx, text, p)
	} else {
		err = cl.tools.Notice(ctx, text)
	}
	if err != nil {
		slog.Warn("could not post a notice", "server", c.e.name, "err", err)
	}
}

// urlRequest is the consent a URL elicitation asks: the whole URL and the server's message,
// opened in a new tab only when the user says so.
func urlRequest(server string, p *sdk.ElicitParams) protocol.DecisionRequest {
	req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: p.Message, Details: p.URL, URL: p.URL}
	if req.Message == "" {
		ph, text := i18n.EnglishPhrase("mcp_open_ask", server)
		req.Message, req.Phrase = text, &ph
	}
	open, openText := i18n.EnglishPhrase("mcp_open_link")
	desc, descText := i18n.EnglishPhrase("mcp_open_desc", server)
	decline, declineText := i18n.EnglishPhrase("mcp_decline")
	req.Options = []protocol.ApprovalOption{
		{Value: OptionOpen, Label: openText, Tone: protocol.ToneAffirm, Phrase: &open, Description: descText, DescPhrase: &desc},
		{Value: OptionDecline, Label: declineText, Tone: protocol.ToneDeny, Phrase: &decline},
	}
	return req
}

// askURL asks consent for a URL elicitation. Consent is MCP's accept; the browser opens the
// link; the server's notifications/elicitation/complete later tells that the flow there is
// done.
func (c *conn) askURL(ctx context.Context, cl *call, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	if lower := strings.ToLower(p.URL); !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") {
		c.note(cl, "mcp_bad_link", c.e.name, p.URL)
		return &sdk.ElicitResult{Action: actionDecline}, nil
	}
	ans, err := cl.tools.Ask(ctx, urlRequest(c.e.name, p))
	if err != nil {
		return c.aborted(cl, ctx, err)
	}
	if ans.Action != protocol.ActionAccept {
		if ans.Reason == protocol.ReasonTimeout {
			return &sdk.ElicitResult{Action: actionCancel}, nil
		}
		return &sdk.ElicitResult{Action: actionDecline}, nil
	}
	var picked protocol.ApprovalAnswer
	if json.Unmarshal(ans.Content, &picked) != nil {
		return &sdk.ElicitResult{Action: actionDecline}, nil
	}
	req := urlRequest(c.e.name, p)
	opt, ok := picked.Picked(req)
	if !ok || opt.Value != OptionOpen {
		return &sdk.ElicitResult{Action: actionDecline}, nil
	}
	return &sdk.ElicitResult{Action: actionAccept}, nil
}

// urlRequired handles -32042 (URLElicitationRequired) from a call: each URL it names is
// asked for consent, then the call waits for each flow's completion. An error is what the
// model reads.
func (c *conn) urlRequired(ctx context.Context, live context.Context, cl *call, rpcErr *jsonrpc.Error) error {
	var data struct {
		Elicitations []*sdk.ElicitParams `json:"elicitations"`
	}
	if len(rpcErr.Data) > 0 {
		if err := json.Unmarshal(rpcErr.Data, &data); err != nil {
			return fmt.Errorf("the MCP server %s asked for a URL elicitation that Parley could not read: %v", c.e.name, err)
		}
	}
	if len(data.Elicitations) == 0 {
		return fmt.Errorf("the MCP server %s asked to open a URL but named none: %s", c.e.name, rpcErr.Message)
	}
	for _, p := range data.Elicitations {
		if p.URL == "" {
			return fmt.Errorf("the MCP server %s asked for a URL elicitation without a URL", c.e.name)
		}
		res, err := c.askURL(ctx, cl, p)
		if err != nil {
			return err
		}
		if res.Action != actionAccept {
			return fmt.Errorf("the user did not open the link the MCP server %s needed (%s), so the call was not made", c.e.name, p.URL)
		}
	}
	for _, p := range data.Elicitations {
		if err := c.awaitFlow(ctx, cl, p, true); err != nil {
			return err
		}
	}
	return nil
}

// errCompleted ends the wait for a URL flow: the server said it is complete.
var errCompleted = errors.New("the MCP server says the step is complete")

// errGaveUp is why a call ends when the user gave up on a step in the browser it needed.
var errGaveUp = errors.New("the user gave up on the step in the browser")

// Option values of the wait for a URL flow.
const (
	optionDone   = "done"
	optionGiveUp = "give-up"
)

// awaitFlow waits until the flow at a consented URL is done: the server's
// notifications/elicitation/complete ends the wait (and its decision, as withdrawn), and the
// user can say they are done (a server need not send the notification, and its delivery is
// not guaranteed) or give up (an error wrapping errGaveUp). retry says what follows: the call
// is made again (after a -32042), or the running call goes on (after elicitation/create).
// Both paths wait here, so both show the same decision.
func (c *conn) awaitFlow(ctx context.Context, cl *call, p *sdk.ElicitParams, retry bool) error {
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if p.ElicitationID != "" {
		go func() {
			if c.set.m.awaitURL(wctx, p.ElicitationID) == nil {
				cancel(errCompleted)
			}
		}()
	}
	then, done, after := "its call goes on after", "I am done there", "so the call was cancelled"
	if retry {
		then, done, after = "the call is made again after", "I am done there: make the call again", "so the call was not made"
	}
	ans, err := cl.tools.Ask(wctx, protocol.DecisionRequest{
		Kind: protocol.KindApproval,
		Message: "Waiting for you to finish in the browser, at the link the MCP server " + c.e.name +
			" asked you to open; " + then + ".",
		Details: p.URL,
		Options: []protocol.ApprovalOption{
			{Value: optionDone, Label: done, Tone: protocol.ToneAffirm},
			{Value: optionGiveUp, Label: "Give up", Tone: protocol.ToneDeny},
		},
	})
	switch {
	case errors.Is(context.Cause(wctx), errCompleted):
		return nil
	case err != nil:
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	var picked protocol.ApprovalAnswer
	if ans.Action == protocol.ActionAccept && json.Unmarshal(ans.Content, &picked) == nil && picked.Option != nil && *picked.Option == 0 {
		return nil
	}
	return fmt.Errorf("%w at %s that the MCP server %s needed, %s", errGaveUp, p.URL, c.e.name, after)
}

// flow is a consented URL elicitation of a running call, waiting for its step in the
// browser.
type flow struct {
	cancel context.CancelCauseFunc // withdraws its decision
	done   chan struct{}
	err    error // set before done closes: nil when finished, else why not
}

// follow waits, beside the running call, for the step in the browser that a consented
// elicitation/create asked for. The user giving up cancels the call (the SDK sends
// notifications/cancelled); the call's result waits for every flow (awaitFlows).
func (c *conn) follow(cl *call, p *sdk.ElicitParams) {
	ctx, cancel := context.WithCancelCause(cl.ctx)
	f := &flow{cancel: cancel, done: make(chan struct{})}
	cl.mu.Lock()
	cl.flows = append(cl.flows, f)
	cl.mu.Unlock()
	release := cl.userHolds() // the step in the browser is the user's time
	go func() {
		defer release()
		defer close(f.done)
		defer cancel(nil)
		f.err = c.awaitFlow(ctx, cl, p, false)
		if errors.Is(f.err, errGaveUp) {
			cl.mu.Lock()
			stop := cl.stop
			cl.mu.Unlock()
			if stop != nil {
				stop(f.err)
			}
		}
	}()
}

// awaitFlows waits for the call's flows once the server answered the call, and returns why
// one did not finish (the user gave up, the turn was stopped). When the call failed
// (wait false), there is nothing to wait for: their decisions are withdrawn.
func (cl *call) awaitFlows(wait bool) error {
	cl.mu.Lock()
	flows := cl.flows
	cl.flows = nil
	cl.mu.Unlock()
	var first error
	for _, f := range flows {
		if !wait {
			f.cancel(errors.New("the call ended"))
		}
		<-f.done
		if first == nil && wait {
			first = f.err
		}
	}
	return first
}
