package composer

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/components/composer/modes/widget"
)

// keptPrefixes are the sessionStorage keys a decision's mode keeps its work under, by the
// decision's id: the question's answers so far (widget.FormView.Keep), an approval's
// words (modes/approval) and a batch card's picks.
var keptPrefixes = []string{"parley.answers.", "parley.instead.", widget.PicksPrefix}

// forgetEnded drops what was kept for the decisions that left the pending list since the
// last look, however they ended (here, in another tab, over the API, by a timeout): a mode
// forgets its own on the answer it sends, and nothing else would. fresh says the list is a
// new session's: nothing left it.
func (c *Composer) forgetEnded(fresh bool) {
	now := make(map[string]bool, len(c.Pending))
	for _, d := range c.Pending {
		now[d.ID] = true
	}
	was := c.pendingIDs
	c.pendingIDs = now
	if fresh || !app.IsClient {
		return
	}
	st := app.Window().Get("sessionStorage")
	if !st.Truthy() {
		return
	}
	for id := range was {
		if now[id] {
			continue
		}
		for _, p := range keptPrefixes {
			st.Call("removeItem", p+id)
		}
	}
}
