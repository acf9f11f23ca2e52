package e2e

import (
	"testing"
	"time"
)

// TestTheTabSaysWhichSessionAndWhatWaits: the browser tab carries the session's title, and
// the number of decisions waiting first, so tabs can be told apart and a background one that
// needs the person says so.
func TestTheTabSaysWhichSessionAndWhatWaits(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, waitJS(`document.title === 'Parley'`))
	do(t, ctx, 30*time.Second, typeText("release checklist"), pressEnter(0),
		waitJS(`document.title === 'release checklist · Parley'`))
	do(t, ctx, 30*time.Second, waitCaughtUp(), typeText("/script confirm('Ship it?')"), pressEnter(0),
		waitJS(`document.title === '(1) release checklist · Parley'`))
}
