package inputbar

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/machine/debounce"
)

// This file mirrors the drafts in localStorage, as their clipboard projection.

// Drafts are written once typing pauses for saveIdle, and at the latest maxSaveDelay after
// the first unsaved change (and on pagehide), so a keystroke never serializes the draft.
const (
	saveIdle     = 700 * time.Millisecond
	maxSaveDelay = 5 * time.Second
)

// scheduleSave records a change; the debounce says when to write it.
func (sh *shell) scheduleSave() { sh.runSave(sh.saves.Dispatch(debounce.Changed{At: time.Now()})) }

func (sh *shell) runSave(effs []debounce.Effect) {
	for _, e := range effs {
		switch x := e.(type) {
		case debounce.Arm:
			sh.ctx.After(x.After, func(ctx app.Context) {
				ctx.PreventUpdate()
				sh.runSave(sh.saves.Dispatch(debounce.Fired{At: time.Now()}))
			})
		case debounce.Save:
			sh.saveAll()
		}
	}
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
