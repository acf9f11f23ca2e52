// Package composer is the composer's mode container as a pure, synchronous machine: which
// shape the input area has (idle, the fn-form, a question, an approval) and the FIFO queue
// of decisions waiting for the user (docs/composer.md).
//
// One mode occupies the input area at a time. The head of the decision queue occupies it
// unless the user set it aside ("Chat about this"); a decision that arrives while another
// is shown waits its turn; a decision that arrives while the user's own fn-form is open
// cancels the fn-form outright (no stash, no restore: the user opened it, the system needs
// an answer). When the shown decision ends, wherever it was answered, the next one shows.
//
// The idle draft is not held here: the view keeps the textarea mounted under every mode, and
// the effects say when to give it focus back. Time arrives inside events, which is what the
// Enter guard needs: an Enter pressed within Config.EnterGuard of a decision appearing was
// meant for the draft, not for the question that just took its place.
//
// Keys pressed in a morphed mode are decided here too (Key): the guard, a letter typed on the
// morphed area that belongs to the draft, Enter that advances, Escape that dismisses. The view
// only reads the DOM event into a Key and runs what comes back. So are clicks (Press): one a
// pointer made on a decision that has just appeared, or that ends a double-click begun
// before it did, was meant for the decision it replaced, and is ignored.
package composer
