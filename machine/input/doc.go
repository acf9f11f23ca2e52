// Package input is the input bar's state machine: the draft, its reference chips, the
// command claim, the undo log, paste matching and the submit transaction, as a pure,
// synchronous value. The browser shell translates DOM events into Events, calls
// Machine.Dispatch, and runs the Effects it returns; nothing here touches the DOM, the
// network or the clock (time and ids arrive inside events).
//
// # Phases
//
// Plain, Adjudicating, Claimed, Submitting. Command mode is never derived from the
// draft: only BeginCommand (a pick path) sets a Claim, and the claim is released by any
// transaction after which the draft no longer starts with the claim's token (a
// backspace into the token). Enter on a plain draft asks the slash controller to
// adjudicate it; Enter on a claimed draft submits through the claim's owner.
//
// # The draft and its chips
//
// Positions are UTF-16 code units, the textarea's unit. Every chip is exactly one U+FFFC
// in the draft and one row of the occurrence table; the machine keeps "count of U+FFFC
// == rows, each row's offset holds a U+FFFC" as an invariant:
//
//   - An edit whose range covers a U+FFFC removes that chip, reported as ChipRemoved.
//   - A U+FFFC arriving in user text (typed, pasted, inserted as text) is not a chip: it
//     is replaced by U+FFFD, same width in UTF-16 and UTF-8, in the same transaction,
//     and SetView brings the textarea in line.
//   - An edit that would split a surrogate pair is widened to the whole pair, again
//     followed by SetView.
//
// Chip-edge bias: a chip is an ordinary, atomic character. Text inserted at the chip's
// offset goes before it and pushes it right; text inserted at offset+1 goes after it.
// An insertion at either edge never removes or absorbs the chip; only a non-empty range
// that contains its U+FFFC does. (In CodeMirror terms, the chip maps with assoc = +1 on
// its left edge and -1 on its right edge.)
//
// # Transactions
//
// Dispatch is the only write. Each event is one transaction: the draft, the occurrence
// table, the claim and draftRev (Rev) change together, and one undo record is pushed
// (or single-character typing, and a run of single-character Backspaces or Deletes,
// merges into the previous one within Config.MergeWindow of the event's At). The bail events BeginCommand, InsertRef, InsertText and ConsumeToken
// are compare-and-swap on Rev; Rewrote tells whether one actually rewrote the draft.
//
// # Submit
//
// Enter snapshots the draft (text, chips, claim, undo log) and clears it optimistically;
// the attempt is named by AttemptID and results for any other attempt are ignored. Chips
// are serialized by the shell (Serialize / Serialized), then the text goes out through
// DefaultSink or BeginSubmit. Success clears the undo log. Any failure sends nothing;
// the snapshot comes back only while the live draft is still the empty one Enter left;
// if the user has typed since (drift), only a Notice carrying the unsent text is
// emitted.
package input
