// Package slash is the pure `/` and `@` pipeline of the composer: trigger detection and
// guard tiers, the per-session Controller (menu, hit, keyboard arbitration, Space and Enter
// adjudication, pick orchestration) and the plain-text reference scan (ScanTextRefs) that
// drives lexicon decoration. docs/input.md tells the whole pipeline.
//
// It knows nothing of commands: sources decide what a pick means, and the input machine
// decides whether a rewrite happens.
//
// The Controller is a pure transition: it never calls a source or the input machine. What
// it needs from them it asks in effects, and the answers come back as events:
//
//   - within the same turn (the shell answers before the browser event returns): AskSpace →
//     SpaceAnswered, AskPick → PickAnswered, Rewrite → Rewritten, ReadLexicons →
//     LexiconsRead. Space's preventDefault follows the Rewritten answer, so the shell
//     decides it after the whole turn;
//   - off the event loop: FetchCandidates → CandidatesArrived, RunEnterMatch →
//     EnterMatched, Warm → WarmDone;
//   - pushed by the shell: LexiconChanged (a Subscribe'd roster changed), SourceAdded.
//
// Effects are plain comparable data (machine/machinetest states the rule): lists travel
// by reference, as ShowMenu and Decorate name the snapshot the view then reads from
// Controller.Menu and Controller.TextRefs. The live side (the registry of sources, the
// subscriptions, answering the questions, performing the asynchronous effects) is
// app/slashhost.
//
// Positions are UTF-16 code units, the unit of a textarea's selectionStart and of
// input.Span, so the browser shell never converts offsets on a keystroke; machine/utf16x
// converts once per scan.
//
// The package imports nothing of the browser, go-app, the network or the clock; a test
// holds that line.
package slash
