// Package slash is the pure `/` and `@` pipeline of the composer: trigger detection and
// guard tiers, the source registry (Service), the per-session Controller (menu, hit,
// keyboard arbitration, Space and Enter adjudication, pick orchestration) and the
// plain-text reference scan (ScanTextRefs) that drives lexicon decoration.
//
// It knows nothing of commands: sources decide what a pick means, and the input machine
// decides whether a rewrite happens, through the Bail contract.
//
// Positions are UTF-16 code units, the unit of a textarea's selectionStart and of
// input.Span, so the browser shell never converts offsets on a keystroke. Go strings hold
// the draft as UTF-8; the conversion happens here, once per scan.
//
// The package imports nothing of the browser, go-app, the network or the clock; a test
// holds that line.
//
// # How the shell drives a Controller
//
//	c, effs := slash.NewController(svc, slash.Config{Session: p, Bail: b, Post: post})
//	run(effs)
//	// keydown: the controller goes first; if it prevents, the input machine never sees the
//	// key, and neither does it while an IME composes (Shift+Enter excepted: see Key.IME).
//	k := slash.Key{Key: e.key, Shift: e.shiftKey, Composing: e.isComposing, KeyCode: e.keyCode}
//	effs = c.Dispatch(k)
//	if slash.Prevented(effs) { e.PreventDefault() } else if !k.IME() { /* the input machine's */ }
//	// input and selectionchange, after the machine took the draft:
//	run(c.Dispatch(slash.DraftObserved{Draft: d, SelStart: s, SelEnd: e, Rev: m.Rev(), Tier: tier}))
//	// the machine's input.Adjudicate effect a, and the verdict back:
//	run(c.Dispatch(slash.Adjudicate{Attempt: a.Attempt, Draft: a.Draft}))
//	m.Dispatch(adjudicated.Answer())
//
// run hands asynchronous effects (FetchCandidates, RunEnterMatch, Warm) to a goroutine that
// calls c.Perform and dispatches the event it returns; everything else is applied to the
// view (ShowMenu, HideMenu, Decorate) or to the input machine (Adjudicated).
package slash
