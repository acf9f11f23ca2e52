package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Enter in a form asked one question at a time (docs/elicitation.md, "One question at a
// time"), typed at the keys as a person would.

const gotReply = `[...document.querySelectorAll('.thread .msg-text')].find(m => m.textContent.startsWith('got '))`

// TestEnterSendsAFormWithAnOptionalQuestionLeftEmpty (QA round 19, P2-2): Enter on an empty
// optional question moves on; on the last, it sends, the question left empty unanswered.
// Before, each Enter went back to the first question, as unanswered, and back again:
// nothing was sent and nothing said why.
func TestEnterSendsAFormWithAnOptionalQuestionLeftEmpty(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	sendAPI(t, srv, sessionOf(t, ctx), `/script r = ask("Two", {"type":"object","properties":{"a":{"type":"string","title":"A"},"b":{"type":"string","title":"B"}}}); send("got " + str(r))`)
	do(t, ctx, 20*time.Second, waitJS(modeShown), waitJS(`document.activeElement?.type === 'text' && `+shownTitle+` === 'A'`))
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`document.activeElement?.type === 'text' && `+shownTitle+` === 'B'`),
		chromedp.KeyEvent("x"), pressEnter(0))
	waitShowing(t, ctx, 10*time.Second, modeGone+` && !!`+gotReply, shownTitle+` + ' | ' + document.activeElement?.outerHTML.slice(0, 120)`)
	require.Equal(t, `got {"b": "x"}`, evalString(t, ctx, gotReply+`.textContent`))
}
