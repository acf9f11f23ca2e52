package inputbar

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/api"
	"parley/app/hub"
	"parley/app/outbox"
	"parley/machine/input"
	"parley/protocol"
)

// This file is the submit path: the hub sends, and the attempt settles with its result.

func (sh *shell) submit(sc *scope, mode input.Mode) {
	if sc.stale {
		sh.observe(sc)
	}
	sh.machine(sc, input.Submit{Mode: mode})
}

// send hands a submit to the hub and settles the attempt with its result.
func (sh *shell) send(sc *scope, attempt input.AttemptID, text string, mode input.Mode) {
	sh.ctx.NewActionWithValue(ActionNotice, hub.Notice{}) // a new send clears the last notice
	sh.ctx.NewActionWithValue(ActionSent, sc.key)
	sc.noticed = false
	if box := outbox.Current(); box != nil && sc.key != "" {
		// A session's prompts go through the page's outbox (docs/pwa.md, "Sending while the
		// server is away"): the draft goes once the outbox holds the prompt, which the thread
		// shows until the log has it; only a refusal brings the draft back.
		settled := false
		box.Send(sc.key, text, hub.ModeOf(mode), func(err error) {
			if settled {
				return
			}
			settled = true
			delete(sc.cancels, attempt)
			sc.lastErr = err
			sh.apply(sc, sc.m.Dispatch(input.SubmitSettled{Attempt: attempt, Err: err}))
			sc.lastErr = nil
			sh.observe(sc)
			sh.flush()
		})
		return
	}
	cctx, cancel := context.WithCancel(context.Background())
	sc.cancels[attempt] = cancel
	client, session, id := sh.client, sc.key, api.NewAttemptID()
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

// matchPaste runs the asynchronous matcher; its upgrades are one transaction.
func (sh *shell) matchPaste(sc *scope, x input.MatchPaste) {
	known := sh.known
	sh.ctx.Async(func() {
		ups := known.MatchAsync(context.Background(), sh.cat, x.Paste, x.Text)
		if len(ups.Upgrades) == 0 {
			return
		}
		sh.ctx.Dispatch(func(ctx app.Context) {
			ctx.PreventUpdate()
			sh.apply(sc, sc.m.Dispatch(ups))
			sh.observe(sc)
			sh.flush()
		})
	})
}
