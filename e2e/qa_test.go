package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The findings of a QA pass driving `make run` (docs/look.md): each test is what a person
// saw go wrong, seen in the page.

// TestPendingCountFollowsAnswers: the sidebar's count is every open decision, in every
// session (what the approvals queue lists); each session's row says how many wait in it.
// Answered in the composer, both drop at once, without a reload.
func TestPendingCountFollowsAnswers(t *testing.T) {
	srv, ctx := openSession(t, `/script a = confirm('Ship it?'); b = ask('Which colour?', {'type': 'object', 'properties': {'c': {'type': 'string', 'title': 'Colour'}}})`)
	id := sessionOf(t, ctx)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.pending-count')?.textContent === '1'`),
		waitJS(`document.querySelector('.session-item[data-session="`+id+`"] .session-waiting')?.textContent === '1'`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.approvals-link').getAttribute('aria-label')`), "1 ")
	// Yes in the composer: the confirm ends, the form is asked; still one waits.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice`)),
		waitJS(`document.querySelectorAll('.thread .entry-decision').length === 2`))
	// The form answered from another client: nothing waits, and the page says so.
	dec := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending')?.dataset.decision || ''`)
	if dec == "" {
		q := waitQueue(t, srv, 1)
		dec = q[0].ID
	}
	_, err := apiClient(srv).Reply(context.Background(), id, dec, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: []byte(`{"c":"red"}`)})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('.pending-count') && !document.querySelector('.session-waiting')`))
}

// TestNewSessionIsListedUnderTodayAtOnce: the hero's first prompt lists its session under
// Today with its time, before the server's list is read again.
func TestNewSessionIsListedUnderTodayAtOnce(t *testing.T) {
	_, ctx := openHome(t)
	do(t, ctx, 20*time.Second, typeText("hello there"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`),
		waitJS(`document.querySelectorAll('.sessions .session-item').length === 1`))
	assert.Equal(t, "Today", evalString(t, ctx, `document.querySelector('.session-group-name').textContent`))
	assert.Equal(t, "just now", evalString(t, ctx, `document.querySelector('.session-when')?.textContent || ''`))
}

// TestApprovalsScreenOnFirstLoad: opened straight from the address bar, the screen lists the
// sessions in its sidebar, counts the grants on their tab before it is opened, and says who
// spoke in a thread's status: a script's words are the script's, not the agent's.
func TestApprovalsScreenOnFirstLoad(t *testing.T) {
	srv, ctx := openHome(t)
	script := `/script r = run(['echo', 'granted']); send(r.stdout.strip() or r.error)`
	do(t, ctx, 10*time.Second, typeText(script), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode .choice')`))
	do(t, ctx, 10*time.Second, clickJS(`#composer-mode .choice:nth-child(2)`)) // Always
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.entry-run.status-done').length === 1`))
	// The script's send() is the last thing said before this confirm.
	do(t, ctx, 10*time.Second, typeText(`/script confirm('Tag the release?')`), pressEnter(0),
		waitJS(`!!document.querySelector('#composer-mode .choice')`))
	id := sessionOf(t, ctx)

	fresh := browser(t)
	do(t, fresh, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry').length === 1`),
		waitJS(`document.querySelector('.tab-grants').textContent === 'Grants (1)'`),
		waitJS(`!!document.querySelector('.sessions .session-item[data-session="`+id+`"]')`))
	status := evalString(t, fresh, `document.querySelector('.queue-entry .thread-status').innerText`)
	assert.Contains(t, status, "Script: granted")
	assert.NotContains(t, status, "Agent:")
	assert.Contains(t, status, "You: /script confirm('Tag the release?')")
	// Nothing the page does later empties the list.
	do(t, fresh, 10*time.Second, clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 1`))
	assert.True(t, evalBool(t, fresh, `!!document.querySelector('.sessions .session-item[data-session="`+id+`"]')`))
	assert.Contains(t, evalString(t, fresh, `document.querySelector('.history-entry .thread-status').innerText`), "You: /script r = run")
}
