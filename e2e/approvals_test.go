package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/internal/testkit"
	"parley/protocol"
)

// The approvals screen and batch cards (docs/approvals.md), driven as a person would: the
// decisions come from /script prompts, which ask through the real gate and registry.

// sendTo sends a prompt to a session through the API.
func sendTo(t *testing.T, srv *server, session, text string) {
	t.Helper()
	_, err := apiClient(srv).SendPrompt(context.Background(), session, protocol.SendPromptRequest{Text: text, AttemptID: api.NewAttemptID()})
	require.NoError(t, err)
}

func newSession(t *testing.T, srv *server, title, workspace string) string {
	t.Helper()
	info, err := apiClient(srv).CreateSession(context.Background(), protocol.CreateSessionRequest{Title: title, Workspace: workspace})
	require.NoError(t, err)
	return info.ID
}

// sessionWith makes a session titled title in the default workspace and sends it text
// through the API, as a script would; it returns the session's id.
func sessionWith(t *testing.T, srv *server, title, text string) string {
	t.Helper()
	id := newSession(t, srv, title, "")
	sendTo(t, srv, id, text)
	return id
}

// answeredSession is sessionWith, once the agent has answered text.
func answeredSession(t *testing.T, srv *server, title, text string) string {
	t.Helper()
	id := sessionWith(t, srv, title, text)
	waitAgentReplies(t, srv, id, 1)
	return id
}

// waitQueue waits until the server's queue holds n decisions, and returns it.
func waitQueue(t *testing.T, srv *server, n int) []protocol.QueueEntry {
	t.Helper()
	c := apiClient(srv)
	deadline := time.Now().Add(60 * time.Second)
	for {
		q, err := c.ApprovalQueue(context.Background(), nil)
		require.NoError(t, err)
		if len(q.Entries) == n {
			return q.Entries
		}
		if time.Now().After(deadline) {
			t.Fatalf("the queue holds %d decisions, want %d", len(q.Entries), n)
		}
		// Wait for the next change, not a fixed time: the long poll answers when one comes.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = c.ApprovalQueue(ctx, &q.Version)
		cancel()
	}
}

// approvalHistory is the server's history of decisions, newest first.
func approvalHistory(t *testing.T, srv *server) protocol.ApprovalHistory {
	t.Helper()
	h, err := apiClient(srv).ApprovalHistory(context.Background(), protocol.HistoryFilter{})
	require.NoError(t, err)
	return h
}

// onlyRejection checks that the history holds one decision, rejected for reason.
func onlyRejection(t *testing.T, srv *server, reason string) {
	t.Helper()
	h := approvalHistory(t, srv)
	require.Len(t, h.Entries, 1)
	require.Equal(t, protocol.HistoryRejected, h.Entries[0].Outcome)
	require.Equal(t, reason, h.Entries[0].Reason)
}

// waitAgentReplies waits until a session's log holds n agent messages.
func waitAgentReplies(t *testing.T, srv *server, session string, n int) {
	t.Helper()
	c := apiClient(srv)
	require.Eventually(t, func() bool {
		page, err := c.Events(context.Background(), session, 0, 0)
		if err != nil {
			return false
		}
		got := 0
		for _, ev := range page.Events {
			if ev.Type == protocol.EventAgentMessage {
				got++
			}
		}
		return got >= n
	}, 60*time.Second, 100*time.Millisecond)
}

func openApprovals(t *testing.T, srv *server) context.Context {
	t.Helper()
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"), waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`))
	return ctx
}

// alphaRun is the command whose approval alphaAsks leaves waiting.
const alphaRun = `/script r = run(['echo', 'alpha ran']); send(r.stdout.strip() or r.error)`

// alphaAsks makes a session "Alpha" with one exchange in its thread, then a command's
// approval waiting: the first in the queue. It returns the session's id.
func alphaAsks(t *testing.T, srv *server) string {
	t.Helper()
	a := answeredSession(t, srv, "Alpha", "hello from alpha")
	sendTo(t, srv, a, alphaRun)
	waitQueue(t, srv, 1)
	return a
}

// TestApprovalsQueueAcrossSessions answers two sessions' decisions from the screen: one with
// its card's button, one from the keyboard with a reason. The entries show where they came
// from and what the thread was doing when they were asked; the sidebar counts them.
func TestApprovalsQueueAcrossSessions(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := alphaAsks(t, srv)
	b := sessionWith(t, srv, "Beta", `/script send('beta says ' + str(confirm('Deploy beta?')))`)
	waitQueue(t, srv, 2)
	g := sessionWith(t, srv, "Gamma", `/script send('gamma says ' + str(confirm('Deploy gamma?')))`)
	queue := waitQueue(t, srv, 3)
	require.Equal(t, a, queue[0].Session, "oldest first")
	require.Equal(t, alphaRun, queue[0].Status.User)

	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry').length === 3 && document.querySelector('.pending-count')?.textContent === '3'`))
	entries := evalString(t, ctx, `[...document.querySelectorAll('.queue-entry')].map(e => e.dataset.session + '|' + e.querySelector('.queue-thread').textContent + '|' + e.querySelector('.entry-title').textContent).join('\n')`)
	require.Equal(t, a+"|Alpha|Allow running echo?\n"+b+"|Beta|Deploy beta?\n"+g+"|Gamma|Deploy gamma?", entries)
	where := evalString(t, ctx, `document.querySelector('.queue-entry .queue-where').textContent`)
	require.Contains(t, where, "asked ")
	require.Contains(t, where, "times out in ")
	// The thread's status when it was asked: the prompt that started the script, and no reply
	// of the turn before it (the agent's answer to "hello from alpha" is not this request's
	// context: QA round 17).
	status := evalString(t, ctx, `document.querySelector('.queue-entry .thread-status').textContent`)
	require.Contains(t, status, "You: /script r = run(['echo', 'alpha ran'])")
	require.NotContains(t, status, "Agent:")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.keys-help').textContent`), "Alt+A")
	// The screen opens on its oldest entry, so the keys work without a click or 15 Tabs.
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement?.classList.contains('queue-entry') && document.activeElement.dataset.session === '`+a+`'`))
	// An approval's reason is one line, not a box as tall as the card.
	require.Less(t, get(t, ctx, chromedp.Evaluate[float64](`document.querySelector('.queue-entry .entry-reason').getBoundingClientRect().height`)), 60.0)

	// Alpha: its card's own Approve.
	do(t, ctx, 10*time.Second, clickJS(`.queue-entry[data-session="`+a+`"] .choice.tone-affirm`))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry').length === 2 && document.querySelector('.pending-count')?.textContent === '2'`))
	waitAgentReplies(t, srv, a, 2)
	// Each answer is said in the status region (QA round 23: the focus moved on in silence).
	waitShowing(t, ctx, 10*time.Second, `document.querySelector('.notice-slot[role=status]').innerText === 'Approved: Allow running echo?'`, `document.querySelector('.notice-slot[role=status]').innerText`)

	// Gamma, from the keyboard: ↓ to it, Alt+A asks to confirm, Enter confirms.
	get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('.queue-entry').focus(); true`))
	do(t, ctx, 10*time.Second, rawKey("ArrowDown", 40, 0), waitJS(`document.activeElement.dataset.session === '`+g+`'`))
	do(t, ctx, 10*time.Second, altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.confirm').textContent`), "Approve “Deploy gamma”?", "the request's own question mark is the sentence's")
	do(t, ctx, 10*time.Second, pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry').length === 1 && document.querySelector('.pending-count')?.textContent === '1'`))
	waitAgentReplies(t, srv, g, 1)
	waitShowing(t, ctx, 10*time.Second, `document.querySelector('.notice-slot[role=status]').innerText === 'Answered: Deploy gamma?'`, `document.querySelector('.notice-slot[role=status]').innerText`)

	// Beta: Alt+R asks to confirm with a reason; keys typed into the reason, Alt+A included,
	// never answer; Enter rejects with the reason.
	get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('.queue-entry').focus(); true`))
	require.Equal(t, b, evalString(t, ctx, `document.activeElement.dataset.session`))
	do(t, ctx, 10*time.Second, altKey("r", "KeyR", 82))
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement?.classList.contains('confirm-reason')`))
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`.confirm-reason`), "not on a friday"), altKey("a", "KeyA", 65))
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.queue-entry').length`))), "typing never answered")
	require.True(t, evalBool(t, ctx, `document.activeElement?.classList.contains('confirm-reason')`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry').length === 0 && !!document.querySelector('.queue-empty') && !document.querySelector('.pending-count')`))
	waitShowing(t, ctx, 10*time.Second, `document.querySelector('.notice-slot[role=status]').innerText === 'Declined: Deploy beta?'`, `document.querySelector('.notice-slot[role=status]').innerText`)

	h := approvalHistory(t, srv)
	require.Len(t, h.Entries, 3)
	require.Equal(t, b, h.Entries[0].Session)
	require.Equal(t, protocol.HistoryRejected, h.Entries[0].Outcome)
	require.Equal(t, "not on a friday", h.Entries[0].Reason)
	require.Equal(t, g, h.Entries[1].Session)
	require.Equal(t, protocol.HistoryAnswered, h.Entries[1].Outcome)
	require.Equal(t, "Yes", h.Entries[1].Answer)
	require.Equal(t, protocol.HistoryApproved, h.Entries[2].Outcome)
	require.Equal(t, "", h.Entries[2].Answer, "approved says it: no button verb after it")
}

// altKey presses a letter with Alt, as a keyboard does (no text: Alt+letter types nothing
// here).
func altKey(k, code string, vk int64) chromedp.Action[chromedp.Void] {
	return rawKeyCode(k, code, vk, modAlt)
}

func rawKeyCode(k, code string, vk, mods int64) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: k, Code: code, WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk, Modifiers: mods}),
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: k, Code: code, WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk, Modifiers: mods}),
	)
}

// TestApprovalsHistoryFilters ends decisions in every way in two workspaces and filters the
// history by outcome, workspace and session.
func TestApprovalsHistoryFilters(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	other := t.TempDir()
	srv := startServerWith(t, data, "127.0.0.1:0", other)
	spaces, err := apiClient(srv).ListWorkspaces(context.Background())
	require.NoError(t, err)
	require.Len(t, spaces, 2)
	c := apiClient(srv)

	one := sessionWith(t, srv, "One", `/script confirm('First?')`)
	q := waitQueue(t, srv, 1)
	_, err = c.Reply(context.Background(), one, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("true")})
	require.NoError(t, err)
	waitQueue(t, srv, 0)

	two := newSession(t, srv, "Two", spaces[1].ID)
	sendTo(t, srv, two, `/script run(['echo', 'two'])`)
	q = waitQueue(t, srv, 1)
	_, err = c.Reply(context.Background(), two, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "wrong folder"})
	require.NoError(t, err)
	waitQueue(t, srv, 0)

	three := sessionWith(t, srv, "Three", `/script confirm('Quick?', timeout=1)`)
	require.Eventually(t, func() bool {
		h, err := c.ApprovalHistory(context.Background(), protocol.HistoryFilter{Outcome: protocol.HistoryTimedOut})
		return err == nil && len(h.Entries) == 1
	}, 60*time.Second, 100*time.Millisecond)

	ctx := openApprovals(t, srv)
	do(t, ctx, 10*time.Second, clickJS(`.tab-history`))
	sessionsOf := `[...document.querySelectorAll('.history-entry')].map(e => e.dataset.session).join(',')`
	waitShowing(t, ctx, 30*time.Second, sessionsOf+` === '`+three+`,`+two+`,`+one+`'`, sessionsOf+` + ' ' + document.querySelector('.approvals-body').innerText`)
	require.Contains(t, evalString(t, ctx, `document.querySelector('.history-entry[data-session="`+two+`"] .history-outcome').textContent`), "Rejected: wrong folder")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.history-entry[data-session="`+three+`"] .history-outcome').textContent`), "Timed out")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.history-entry[data-session="`+one+`"] .history-outcome').textContent`), "Answered: Yes")

	setSelect := func(sel, value string) {
		b, _ := json.Marshal(value)
		evalBool(t, ctx, `(() => { const s = document.querySelector('`+sel+`'); s.value = `+string(b)+`; s.dispatchEvent(new Event('change', {bubbles: true})); return true })()`)
	}
	setSelect(".filter-outcome", protocol.HistoryTimedOut)
	do(t, ctx, 30*time.Second, waitJS(sessionsOf+` === '`+three+`'`))
	setSelect(".filter-outcome", "")
	setSelect(".filter-workspace", spaces[1].ID)
	do(t, ctx, 30*time.Second, waitJS(sessionsOf+` === '`+two+`'`))
	setSelect(".filter-workspace", "")
	setSelect(".filter-session", one)
	do(t, ctx, 30*time.Second, waitJS(sessionsOf+` === '`+one+`'`))
	setSelect(".filter-outcome", protocol.HistoryRejected)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.history-entry').length === 0 && !!document.querySelector('.history-empty')`))

	// Paging: the API's pages chain through next, newest first, without repeats.
	p1, err := c.ApprovalHistory(context.Background(), protocol.HistoryFilter{Limit: 2})
	require.NoError(t, err)
	require.Len(t, p1.Entries, 2)
	require.NotZero(t, p1.Next)
	p2, err := c.ApprovalHistory(context.Background(), protocol.HistoryFilter{Limit: 2, Before: p1.Next})
	require.NoError(t, err)
	require.Len(t, p2.Entries, 1)
	require.Zero(t, p2.Next)
	require.Equal(t, []string{three, two, one}, []string{p1.Entries[0].Session, p1.Entries[1].Session, p2.Entries[0].Session})
}

// grantedScript runs a command that asks for approval, and says what it printed.
const grantedScript = `/script r = run(['echo', 'granted']); send(r.stdout.strip() or r.error)`

// grantedInTheComposer sends grantedScript from the empty page and answers its approval
// "always" in the composer, which holds it in the thread (the card is one line); the command
// runs. One grant exists, made in the session the page shows.
func grantedInTheComposer(t *testing.T) (*server, context.Context) {
	t.Helper()
	srv, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText(grantedScript), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode .choice')`))
	do(t, ctx, 10*time.Second, clickJS(`#composer-mode .choice:nth-child(2)`)) // Always
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.entry-run.status-done').length === 1`))
	return srv, ctx
}

// TestGrantRevokedFromTheScreenAsksAgain makes an "always" grant in a thread, sees it used,
// revokes it on the Grants tab, and the next identical command asks again.
func TestGrantRevokedFromTheScreenAsksAgain(t *testing.T) {
	t.Parallel()
	srv, ctx := grantedInTheComposer(t)

	// The grant lets the same command through without asking.
	do(t, ctx, 10*time.Second, typeText(grantedScript), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.entry-run.status-done').length === 2`))
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.entry-decision').length`))), "the second run was not asked")
	url := evalString(t, ctx, `location.pathname`)

	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`),
		clickJS(`.tab-grants`),
		waitJS(`document.querySelectorAll('.grant-entry').length === 1`))
	require.Equal(t, "run: echo granted", evalString(t, ctx, `document.querySelector('.grant-words').textContent`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.grant-used').textContent`), "last used")
	origin := evalString(t, ctx, `document.querySelector('.grant-origin').getAttribute('href')`)
	require.True(t, strings.HasPrefix(origin, url+"#decision-"))
	// Back from the thread the grant's link opened, the screen is on Grants again, not on
	// Queue (QA round 26): the address keeps the tab.
	require.Equal(t, "?tab=grants", evalString(t, ctx, `location.search`))
	do(t, ctx, 30*time.Second, clickJS(`.grant-origin`), waitJS(`location.pathname === `+quote(url)+` && !!document.querySelector('.entry-linked')`),
		js(`history.back()`),
		waitJS(`!!document.querySelector('.approvals-page') && document.querySelector('#tab-grants')?.getAttribute('aria-selected') === 'true'`),
		waitJS(`document.querySelectorAll('.grant-entry').length === 1`))
	// Revoked from the keyboard: the focus stays on the page (the Grants tab, the last grant
	// gone), never the body, and the page's status says what happened (QA round 22).
	do(t, ctx, 10*time.Second, js(`document.querySelector('.grant-revoke').focus()`), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.grant-entry').length === 0 && !!document.querySelector('.grants-empty')`))
	waitShowing(t, ctx, 10*time.Second, `document.activeElement?.id === 'tab-grants'`, `document.activeElement?.outerHTML.slice(0, 120)`)
	require.Contains(t, evalString(t, ctx, `document.querySelector('.notice-slot[role=status]').innerText`), "Revoked: ")
	list, err := apiClient(srv).ListGrants(context.Background())
	require.NoError(t, err)
	require.Empty(t, list)

	// The grant's link opens the thread at the card that made it.
	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+origin), waitReady(),
		waitJS(`document.querySelectorAll('.entry-run.status-done').length === 2`),
		waitJS(`document.querySelector('.entry-linked')?.id === `+"'"+strings.TrimPrefix(origin, url+"#")+"'"))
	do(t, ctx, 10*time.Second, typeText(grantedScript), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode .choice')`))
	require.Equal(t, "Allow running echo?", evalString(t, ctx, `document.querySelector('.entry-decision.status-pending .entry-title').textContent`))
}

// TestBatchCardApproveAllRejectAllAndEach answers three batches on their cards: approve all,
// reject all with one reason, and one answer per request, which Approve all then sends as
// marked: the one button that sends them, with room above it (QA round 16 #8: a "Send these
// answers" beside it sent the same answers, and sat against the last request's command).
func TestBatchCardApproveAllRejectAllAndEach(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	batch := `/script rs = run_batch([['echo', 'one'], ['echo', 'two']]); send(' | '.join([r.stdout.strip() or r.error for r in rs]))`
	pendingCard := `.entry-decision.status-pending`

	do(t, ctx, 10*time.Second, typeText(batch), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `!!document.querySelector('`+pendingCard+` .batch-item')`, `document.querySelector('.thread').innerHTML`)
	items := evalString(t, ctx, `[...document.querySelectorAll('`+pendingCard+` .batch-item')].map(e => e.querySelector('.batch-tool').textContent + ' ' + e.querySelector('.entry-output').textContent).join('|')`)
	require.Equal(t, "run echo one|run echo two", items)
	require.Equal(t, "Approve all|Reject all", evalString(t, ctx, `[...document.querySelectorAll('`+pendingCard+` .entry-actions .choice-label')].map(e => e.textContent).join('|')`))
	do(t, ctx, 10*time.Second, clickJS(pendingCard+` .entry-actions .tone-affirm`))
	msgs := waitReply(t, ctx, "one | two")

	do(t, ctx, 10*time.Second, typeText(batch), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('`+pendingCard+` .entry-reason')`))
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(pendingCard+` .entry-reason`), "use printf instead"))
	do(t, ctx, 10*time.Second, clickJS(pendingCard+` .entry-actions .tone-deny`))
	msgs = waitMessages(t, ctx, 4)
	require.Equal(t, "rejected by the user: use printf instead | rejected by the user: use printf instead", msgs[3].Text, "every request of the batch reads the one reason")
	require.Equal(t, "Rejected: use printf instead", evalString(t, ctx, `[...document.querySelectorAll('.entry-decision')][1].querySelector('.entry-outcome').textContent`))

	do(t, ctx, 10*time.Second, typeText(batch), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('`+pendingCard+` .batch-item')`))
	answers := `[...document.querySelector('` + pendingCard + `').querySelectorAll('button.choice:not([aria-pressed]) .choice-label')].map(e => e.textContent).join('|')`
	do(t, ctx, 10*time.Second,
		clickJS(pendingCard+` .batch-item[data-item="0"] .tone-affirm`),
		clickJS(pendingCard+` .batch-item[data-item="1"] .tone-deny`))
	waitShowing(t, ctx, 10*time.Second, answers+` === 'Approve 1, reject 1|Reject all'`, answers)
	room := `(c => c.querySelector('.entry-actions').getBoundingClientRect().top - [...c.querySelectorAll('.batch-item .entry-output')].pop().getBoundingClientRect().bottom)(document.querySelector('` + pendingCard + `'))`
	require.GreaterOrEqual(t, get(t, ctx, chromedp.Evaluate[float64](room)), 6.0, "the buttons do not sit against the last command")
	do(t, ctx, 10*time.Second, clickJS(pendingCard+` .entry-actions .tone-affirm`))
	msgs = waitMessages(t, ctx, 6)
	require.Equal(t, "one | rejected by the user", msgs[5].Text)
}

// TestRequestRetryAsksTheAgentAgain lets the agent's request time out, then Request retry
// sends the agent a message asking for it again; no grant is made. (A script's request is
// run again instead: TestRequestRetryOnARequestCutOffByARestart.)
func TestRequestRetryAsksTheAgentAgain(t *testing.T) {
	t.Parallel()
	fake := testkit.NewModel(t, testkit.Calls(runCommand("call_0", "echo", "late")), testkit.Text("It timed out."), testkit.Text("Asking again."))
	srv := startServerFlags(t, t.TempDir(), "-model-url", fake.Base(), "-model", "test", "-decision-timeout", "2s")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	prompt(t, ctx, "echo late")
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-timed-out .retry')`))
	require.Equal(t, "Request retry", evalString(t, ctx, `document.querySelector('.entry-decision.status-timed-out .retry').textContent`))
	do(t, ctx, 10*time.Second, clickJS(`.entry-decision.status-timed-out .retry`))
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('.entry-decision .retry-note')`))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.thread').textContent.includes('Asking again.')`))
	reqs := fake.Requests()
	require.Len(t, reqs, 3)
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	require.Equal(t, "user", last.Role)
	require.Contains(t, last.Content, "please make the same request again", "the agent got it as a message")
	require.Contains(t, last.Content, "echo late")
	list, err := apiClient(srv).ListGrants(context.Background())
	require.NoError(t, err)
	require.Empty(t, list, "a retry creates no trust")
	q, err := apiClient(srv).ApprovalQueue(context.Background(), nil)
	require.NoError(t, err)
	require.Empty(t, q.Entries, "and answers nothing by itself")
}

// waitShowing waits for cond, and on failure says what show evaluates to.
func waitShowing(t *testing.T, ctx context.Context, timeout time.Duration, cond, show string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := chromedp.Do(tctx, waitJS(cond)); err != nil {
		t.Fatalf("waiting for %s: %v; the page shows %s", cond, err, evalString(t, ctx, show))
	}
}

// TestModelBatchAnsweredRequestByRequestInTheComposer: the model's two tool calls of one
// message are one batch; the composer's approval mode answers each, its Approve all sends them
// as marked, and the model reads one result and one refusal. The thread's card lists both
// requests.
func TestModelBatchAnsweredRequestByRequestInTheComposer(t *testing.T) {
	t.Parallel()
	fake, ctx := promptModel(t, "run both", testkit.Calls(runCommand("call_0", "echo", "first"), runCommand("call_1", "echo", "second")), testkit.Text("One ran."))
	mode := `#composer-mode.mode-approval`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('`+mode+` .batch-item').length === 2`))
	require.Equal(t, 2, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread .entry-decision.status-pending .batch-item').length`))), "the thread's card lists them too")
	do(t, ctx, 10*time.Second,
		clickJS(mode+` .batch-item[data-item="0"] .tone-affirm`),
		clickJS(mode+` .batch-item[data-item="1"] .tone-deny`),
		waitJS(`document.querySelector('`+mode+` .choice-primary .choice-label').textContent === 'Approve 1, reject 1'`),
		clickJS(mode+` .choice-primary`))
	waitFinal(t, ctx, "One ran.")
	texts := toolResults(t, fake)
	require.Len(t, texts, 2)
	require.Contains(t, texts[0], "first")
	require.Equal(t, "call_1: error: rejected by the user", texts[1])
}

// clickJS clicks the element sel names once it is there. The screen re-renders its lists as
// the queue changes, so a node looked up first and clicked after can be gone.
func clickJS(sel string) chromedp.Action[chromedp.Void] {
	b, _ := json.Marshal(sel)
	return waitJS(`(el => !!el && (el.click(), true))(document.querySelector(` + string(b) + `))`)
}

// TestAReasonStaysWithItsEntry: on /approvals, a reason typed for one entry and sent with its
// Reject leaves no words in the entry that takes its place, another session's (QA round 12
// #2: the field kept them on screen, while that entry's Reject sent none).
func TestAReasonStaysWithItsEntry(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	alphaAsks(t, srv)
	beta := sessionWith(t, srv, "Beta", `/script r = run(['echo', 'beta ran']); send(r.stdout.strip() or r.error)`)
	waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	const first = `.queue-entry:first-child`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry .entry-reason').length === 2`),
		chromedp.Click(chromedp.CSS(first+` .entry-reason`)))
	typeAt(t, ctx, newRand(), "only alpha's reason", typistsPace)
	// A person's click: the answered entry holds its place while the pointer is over the
	// list, and goes when the pointer leaves it.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(first+` .choice.tone-deny`)), waitJS(`!!document.querySelector('.queue-gone')`),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1190, 890))
	do(t, ctx, 10*time.Second, waitJS(`document.querySelectorAll('.queue-entry').length === 1`),
		waitJS(`document.querySelector('.queue-entry').dataset.session === '`+beta+`'`))
	require.Equal(t, "", evalString(t, ctx, `document.querySelector('.queue-entry .entry-reason').value`), "the next entry's field is empty")
	h := approvalHistory(t, srv)
	require.Len(t, h.Entries, 1)
	require.Equal(t, "only alpha's reason", h.Entries[0].Reason)
}

// TestPendingCountFollowsAnswers: the sidebar's count is every open decision, in every
// session (what the approvals queue lists); each session's row says how many wait in it.
// Answered in the composer, both drop at once, without a reload.
func TestPendingCountFollowsAnswers(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, `/script a = confirm('Ship it?'); b = ask('Which colour?', {'type': 'object', 'properties': {'c': {'type': 'string', 'title': 'Colour'}}})`)
	id := sessionOf(t, ctx)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.pending-count')?.textContent === '1'`),
		waitJS(`document.querySelector('.session-item[data-session="`+id+`"] .session-waiting')?.textContent === '1'`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.approvals-link').getAttribute('aria-label')`), "1 ")
	// The row's number is for the eye: its words follow for a screen reader, once ("1 , 1
	// decision waits for you" was read).
	require.Equal(t, "true", evalString(t, ctx, `document.querySelector('.session-item[data-session="`+id+`"] .session-waiting').getAttribute('aria-hidden')`))
	require.Equal(t, ", 1 decision waits for you", evalString(t, ctx, `document.querySelector('.session-item[data-session="`+id+`"] .sr-only').textContent`))
	// Yes in the composer: the confirm ends, the form is asked; still one waits.
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)),
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

// TestApprovalsScreenOnFirstLoad: opened straight from the address bar, the screen lists the
// sessions in its sidebar, counts the grants on their tab before it is opened, and says who
// spoke in a thread's status: a script's words are the script's, not the agent's.
func TestApprovalsScreenOnFirstLoad(t *testing.T) {
	t.Parallel()
	srv, ctx := grantedInTheComposer(t)
	// The script's send() is the last thing said before this confirm, in its turn; the run
	// before's "granted" is not its context (QA round 17).
	do(t, ctx, 10*time.Second, typeText(`/script send('checking the tag'); confirm('Tag the release?')`), pressEnter(0),
		waitJS(`!!document.querySelector('#composer-mode .choice')`))
	id := sessionOf(t, ctx)

	fresh := browser(t)
	do(t, fresh, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry').length === 1`),
		waitJS(`document.querySelector('.tab-grants').textContent === 'Grants (1)'`),
		waitJS(`!!document.querySelector('.sessions .session-item[data-session="`+id+`"]')`))
	status := evalString(t, fresh, `document.querySelector('.queue-entry .thread-status').innerText`)
	require.Contains(t, status, "Script: checking the tag")
	require.NotContains(t, status, "granted")
	require.NotContains(t, status, "Agent:")
	require.Contains(t, status, "You: /script send('checking the tag'); confirm('Tag the release?')")
	// Nothing the page does later empties the list.
	do(t, fresh, 10*time.Second, clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 1`))
	require.True(t, evalBool(t, fresh, `!!document.querySelector('.sessions .session-item[data-session="`+id+`"]')`))
	require.Contains(t, evalString(t, fresh, `document.querySelector('.history-entry .thread-status').innerText`), "You: /script r = run")
}

// TestMovingToApprovalsKeepsTheList: going from a thread to the approvals screen by its
// link, the sidebar never shows an empty list, and the Grants tab never says "(0)" while one
// grant exists: it has no count until it has read it.
func TestMovingToApprovalsKeepsTheList(t *testing.T) {
	t.Parallel()
	_, ctx := grantedInTheComposer(t)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.sessions .session-item').length === 1`))
	// Watch every change of the page from before the click.
	do(t, ctx, 10*time.Second, js(`window.__seen = {empty: false, zero: false};
		new MutationObserver(() => {
			if (!document.querySelector('.approvals-page')) return;
			if (document.querySelectorAll('.sessions .session-item').length === 0) window.__seen.empty = true;
			const g = document.querySelector('.tab-grants');
			if (g && g.textContent === 'Grants (0)') window.__seen.zero = true;
		}).observe(document.body, {childList: true, subtree: true, characterData: true})`))
	do(t, ctx, 20*time.Second, clickJS(`.approvals-link`),
		waitJS(`!!document.querySelector('.approvals-page') && !!document.querySelector('.queue-empty')`),
		waitJS(`document.querySelector('.tab-grants').textContent === 'Grants (1)'`))
	require.False(t, evalBool(t, ctx, `window.__seen.empty`), "the session list emptied")
	require.False(t, evalBool(t, ctx, `window.__seen.zero`), "the Grants tab said (0)")
	require.True(t, evalBool(t, ctx, `document.querySelectorAll('.sessions .session-item').length === 1`))
}

// TestHistorySaysAFormsAnswersInWords: a form of several questions, answered, is in the
// approvals history in the words its thread card uses ("Mood: Bad · Score: 7 · Tags: …"),
// never as the JSON the browser sent (QA round 6).
func TestHistorySaysAFormsAnswersInWords(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := newSession(t, srv, "Poll", "")
	sendTo(t, srv, id, `/script ask('How was your day?', {'type': 'object', 'properties': {`+
		`'mood': {'type': 'string', 'title': 'Mood', 'oneOf': [{'const': 'good', 'title': 'Good'}, {'const': 'bad', 'title': 'Bad'}]}, `+
		`'score': {'type': 'integer', 'title': 'Score', 'minimum': 1, 'maximum': 10}, `+
		`'tags': {'type': 'array', 'title': 'Tags', 'items': {'type': 'string', 'enum': ['work', 'home']}}, `+
		`'ok': {'type': 'boolean', 'title': 'Slept well'}, `+
		`'note': {'type': 'string', 'title': 'Note'}}})`)
	q := waitQueue(t, srv, 1)
	_, err := apiClient(srv).Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept,
		Content: json.RawMessage(`{"mood":"bad","score":7,"tags":["work","home"],"ok":false}`)})
	require.NoError(t, err)
	waitQueue(t, srv, 0)

	ctx := openApprovals(t, srv)
	do(t, ctx, 10*time.Second, clickJS(`.tab-history`))
	outcome := `(document.querySelector('.history-entry[data-session="` + id + `"] .history-outcome')?.textContent || '')`
	waitShowing(t, ctx, 30*time.Second, outcome+` !== ''`, `document.querySelector('.approvals-body').innerText`)
	require.Equal(t, "Answered: Mood: Bad · Score: 7 · Tags: work, home · Slept well: No", evalString(t, ctx, outcome))
}

// TestAltAKeepsTheFocusInTheQueue: on /approvals, Alt+A then Enter answers the entry; the
// focus goes to the next entry, and after the last to the words that say nothing waits,
// never to the page's body (QA round 6).
func TestAltAKeepsTheFocusInTheQueue(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := sessionWith(t, srv, "First", `/script send(str(confirm('Deploy a?')))`)
	waitQueue(t, srv, 1)
	b := sessionWith(t, srv, "Second", `/script send(str(confirm('Deploy b?')))`)
	waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.activeElement?.dataset.session === '`+a+`'`))
	do(t, ctx, 10*time.Second, altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `document.activeElement?.classList.contains('queue-entry') && document.activeElement.dataset.session === '`+b+`'`,
		`document.activeElement?.outerHTML.slice(0, 200)`)
	do(t, ctx, 10*time.Second, altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `document.activeElement?.classList.contains('queue-empty')`, `document.activeElement?.outerHTML.slice(0, 200)`)
	waitQueue(t, srv, 0)
}

// TestAnsweringARunMovesTheFocusToTheNextEntry (QA round 26): three entries, the middle one
// a script's run() approval. Alt+A and Enter on it: the focus goes to the next entry, not to
// the first of the queue.
func TestAnsweringARunMovesTheFocusToTheNextEntry(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := sessionWith(t, srv, "First", `/script send(str(confirm('Deploy a?')))`)
	waitQueue(t, srv, 1)
	b := sessionWith(t, srv, "Second", `/script r = run(['echo', 'b']); send(r.stdout)`)
	waitQueue(t, srv, 2)
	c := sessionWith(t, srv, "Third", `/script send(str(confirm('Deploy c?')))`)
	waitQueue(t, srv, 3)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.activeElement?.dataset.session === '`+a+`'`),
		rawKey("ArrowDown", 40, 0), waitJS(`document.activeElement?.dataset.session === '`+b+`'`),
		altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`), pressEnter(0))
	waitQueue(t, srv, 2)
	waitShowing(t, ctx, 30*time.Second, `document.activeElement?.classList.contains('queue-entry') && document.activeElement.dataset.session === '`+c+`'`, focusNow)
	do(t, ctx, 10*time.Second, chromedp.Sleep(1500*time.Millisecond))
	require.Equal(t, c, evalString(t, ctx, `document.activeElement?.dataset.session || ''`), "it stays on the next entry")
}

// TestAnAnswerOnTheScreenIsNotEndedElsewhere: Alt+A, then Enter, on the only entry. The
// queue's long poll may tell the page the entry left before the reply to its own answer
// does; the page said "Ended elsewhere" of what the person had just answered (QA round 15
// P3-2). Every note the entry shows on its way out is recorded.
func TestAnAnswerOnTheScreenIsNotEndedElsewhere(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := sessionWith(t, srv, "First", `/script send(str(confirm('Deploy a?')))`)
	waitQueue(t, srv, 1)
	ctx := openApprovals(t, srv)
	// The pointer rests on the entry, as after a click: the entry stays under its note.
	do(t, ctx, 30*time.Second, waitJS(`document.activeElement?.dataset.session === '`+a+`'`))
	point := get(t, ctx, chromedp.Evaluate[[]float64](`(r => [r.x + r.width / 2, r.y + 8])(document.querySelector('`+entrySel(a)+` .entry-title').getBoundingClientRect())`))
	do(t, ctx, 10*time.Second, mouseTo(point[0], point[1]), waitJS(`document.querySelector('.queue-list').matches(':hover')`))
	// The reply's answer comes a second late, after the long poll's: the order a busy
	// server or network gives.
	get(t, ctx, chromedp.Evaluate[bool](`(f => window.fetch = (url, opts) => f(url, opts).then(r => /\/decisions\//.test(url) && opts?.method === 'POST' ? new Promise(ok => setTimeout(() => { window.__replied = true; ok(r) }, 1000)) : r))(window.fetch); true`))
	get(t, ctx, chromedp.Evaluate[bool](`window.__notes = []; new MutationObserver(() => document.querySelectorAll('.queue-gone').forEach(g => window.__notes.push(g.textContent))).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true}); true`))
	do(t, ctx, 10*time.Second, altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`), pressEnter(0))
	waitQueue(t, srv, 0)
	waitShowing(t, ctx, 30*time.Second, `window.__replied && !!document.querySelector('.queue-gone')`, `document.querySelector('.approvals-page')?.textContent.slice(0, 300)`)
	notes := evalString(t, ctx, `window.__notes.join(' | ') + ' | ' + document.querySelector('.queue-gone').textContent`)
	require.Contains(t, notes, "Answered", "the notes the entry showed")
	require.NotContains(t, notes, "elsewhere", "the notes the entry showed")
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`!document.querySelector('.queue-gone') && !!document.querySelector('.queue-empty')`))
}

// TestAnApprovalQuotesThePromptItAnswers: a session's turn asks while another prompt waits
// behind it. Its entry on /approvals quotes the prompt being worked on ("You: /script …"),
// not the one only queued: a person approves knowing which message it is for (QA round 7).
func TestAnApprovalQuotesThePromptItAnswers(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := newSession(t, srv, "Alpha", "")
	const running = `/script confirm('First?'); confirm('Ship it?')`
	sendTo(t, srv, a, running)
	first := waitQueue(t, srv, 1)
	sendTo(t, srv, a, "a prompt queued behind it")
	answerAPI(t, srv, first[0])
	// The second question is asked after the queued prompt is in the log.
	var ship string
	waitFor(t, func() bool {
		q := waitQueue(t, srv, 1)
		ship = q[0].ID
		return q[0].Request.Message == "Ship it?"
	})
	ctx := openApprovals(t, srv)
	quote := `(document.querySelector('.queue-entry[data-decision="` + ship + `"] .status-user') || {textContent: ''}).textContent`
	waitShowing(t, ctx, 30*time.Second, quote+` !== ''`, `document.querySelector('.approvals-body').innerText`)
	require.Equal(t, "You: "+running, evalString(t, ctx, quote), "the prompt the question belongs to")
}

// waitFor polls cond (each call may itself wait on the server) for up to a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("the condition never held")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestEnterInAnApprovalsReasonRejects: on /approvals, Enter in an approval card's "Reason,
// if you reject" asks the confirmation Alt+R asks, the words still in the field; Enter again
// rejects with them. The Enter of an IME composition does neither (QA round 7).
func TestEnterInAnApprovalsReasonRejects(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	alphaAsks(t, srv)
	ctx := openApprovals(t, srv)
	const reason = `.queue-entry .entry-reason`
	const confirmShown = `!!document.querySelector('.queue-entry .confirm[role=alertdialog]')`
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('`+reason+`')`),
		chromedp.SendKeys(chromedp.CSS(reason), "use printf "),
		waitJS(`document.querySelector('`+reason+`').value === 'use printf '`),
		imeEnter("日本"), waitJS(`document.querySelector('`+reason+`').value === 'use printf 日本'`))
	// The composing Enter asked nothing: the next, real, Enter is the one that asks.
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(confirmShown))
	require.True(t, evalBool(t, ctx, `document.activeElement === document.querySelector('`+reason+`')`), "the words stay where they were typed")
	require.Len(t, waitQueue(t, srv, 1), 1, "asked, not answered yet")
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`!document.querySelector('.queue-entry')`))
	waitQueue(t, srv, 0)
	h := approvalHistory(t, srv)
	require.NotEmpty(t, h.Entries)
	require.Equal(t, protocol.HistoryRejected, h.Entries[0].Outcome)
	require.Equal(t, "use printf 日本", h.Entries[0].Reason, "the reason typed went with the rejection")
}

// TestAnsweringOnItsCardKeepsTheFocus: on /approvals, an entry's own button (Yes, Approve),
// clicked or pressed with Enter, answers it; the keyboard moves on to the next entry, then to
// the words that say nothing waits, never to the page's body (QA round 7).
func TestAnsweringOnItsCardKeepsTheFocus(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a, b := newSession(t, srv, "Alpha", ""), newSession(t, srv, "Beta", "")
	sendTo(t, srv, a, `/script confirm('Ship it?')`)
	q := waitQueue(t, srv, 1)
	sendTo(t, srv, b, `/script run(['echo', 'beta ran'])`)
	waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	// By the keyboard: Enter on the card's button (the first entry's), the pointer away.
	first := `document.querySelector('.queue-entry[data-decision="` + q[0].ID + `"] .entry-actions .choice.tone-affirm')`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry .entry-actions .choice').length >= 4`),
		// The screen opens on its first entry; then the person moves to its button.
		waitJS(`document.activeElement === document.querySelector('.queue-entry')`),
		js(first+`.focus()`), waitJS(`document.activeElement === `+first), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `document.querySelectorAll('.queue-entry').length === 1 && document.activeElement === document.querySelector('.queue-entry')`, focusNow)
	// By the mouse, on the last one: the pointer over the list holds it in place, hidden.
	do(t, ctx, 30*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`.queue-entry .entry-actions .choice.tone-affirm`)))
	waitShowing(t, ctx, 30*time.Second, `!document.querySelector('.queue-entry') && document.activeElement === document.querySelector('.queue-empty')`, focusNow)
	waitQueue(t, srv, 0)
}

// focusNow says what the approvals list holds and where the focus is.
const focusNow = `document.querySelectorAll('.queue-entry').length + ' waiting, ' + document.querySelectorAll('.queue-gone').length + ' gone; focus on ' + document.activeElement.tagName + '.' + document.activeElement.className`

// TestGrantsRevokedOneAfterAnother: two grants; Revoke on the first, then Enter on the
// Revoke the focus moved to revokes the second. go-app reuses a list's items by place, and the
// button in the first place kept the first grant's handler: the second Revoke revoked the
// first again ("no such grant"), and the second grant stayed.
func TestGrantsRevokedOneAfterAnother(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	c := apiClient(srv)
	id := newSession(t, srv, "Grants", "")
	for _, word := range []string{"alpha", "beta"} {
		sendTo(t, srv, id, `/script run(['echo', '`+word+`'])`)
		q := waitQueue(t, srv, 1)
		always := slices.IndexFunc(q[0].Request.Options, func(o protocol.ApprovalOption) bool { return o.Grant != nil })
		require.GreaterOrEqual(t, always, 0, "an approval offers an always")
		content, _ := json.Marshal(protocol.ApprovalAnswer{Option: &always})
		_, err := c.Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: content})
		require.NoError(t, err)
		waitQueue(t, srv, 0)
	}
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, clickJS(`.tab-grants`), waitJS(`document.querySelectorAll('.grant-entry').length === 2`),
		js(`document.querySelector('.grant-revoke').focus()`),
		waitJS(`document.activeElement === document.querySelector('.grant-revoke')`), pressEnter(0))
	state := `[...document.querySelectorAll('.grant-entry')].map(g => g.dataset.grant).join() + ' focus ' + document.activeElement?.className + ' ' + (document.querySelector('.notice-slot')?.innerText || '')`
	waitShowing(t, ctx, 20*time.Second, `document.querySelectorAll('.grant-entry').length === 1 && document.activeElement?.classList.contains('grant-revoke')`, state)
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitShowing(t, ctx, 20*time.Second, `document.querySelectorAll('.grant-entry').length === 0`, state)
	require.NotContains(t, evalString(t, ctx, `document.querySelector('.approvals-page').innerText`), "Not revoked")
	list, err := c.ListGrants(context.Background())
	require.NoError(t, err)
	require.Empty(t, list, "both grants revoked on the server")
}

// TestHistorySaysAnOutcomeAsTheThreadDoes: an approval approved with "always" and another
// rejected with a reason read the same in their thread and in /approvals' history:
// "Approved, always for this command", "Rejected: skip beta please" (round 9 #3).
func TestHistorySaysAnOutcomeAsTheThreadDoes(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	c := apiClient(srv)
	id := newSession(t, srv, "Outcomes", "")
	sendTo(t, srv, id, `/script run(['echo', 'alpha'])`)
	q := waitQueue(t, srv, 1)
	always := -1
	for i, o := range q[0].Request.Options {
		if o.Grant != nil {
			always = i
		}
	}
	require.GreaterOrEqual(t, always, 0, "an approval offers an always")
	content, _ := json.Marshal(protocol.ApprovalAnswer{Option: &always})
	_, err := c.Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: content})
	require.NoError(t, err)
	waitQueue(t, srv, 0)
	sendTo(t, srv, id, `/script run(['echo', 'beta'])`)
	q = waitQueue(t, srv, 1)
	_, err = c.Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "skip beta please"})
	require.NoError(t, err)
	waitQueue(t, srv, 0)

	ctx := openPage(t, srv, "/s/"+id)
	const inThread = `[...document.querySelectorAll('.thread .entry-decision .entry-outcome')].map(e => e.textContent).join('|')`
	want := "Approved, always for this command|Rejected: skip beta please"
	waitShowing(t, ctx, 30*time.Second, inThread+` === '`+want+`'`, inThread)

	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`),
		clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 2`))
	// The history lists the newest first.
	const inHistory = `[...document.querySelectorAll('.history-entry .history-outcome')].reverse().map(e => e.textContent).join('|')`
	require.Equal(t, want, evalString(t, ctx, inHistory))
}

// TestApprovalsTabsMoveWithTheArrows: the approvals screen's tabs are the ARIA tabs pattern:
// one tab stop (the open tab), and ← → (Home, End) move to the next tab and open it.
func TestApprovalsTabsMoveWithTheArrows(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.tab-queue')`))
	open := func(tab string) string {
		return `document.activeElement === document.querySelector('.tab-` + tab + `') && document.querySelector('.tab-` + tab + `').getAttribute('aria-selected') === 'true'`
	}
	do(t, ctx, 10*time.Second, js(`document.querySelector('.tab-queue').focus()`), waitJS(open("queue")))
	require.Equal(t, "0,-1,-1", evalString(t, ctx, `[...document.querySelectorAll('[role=tab]')].map(e => e.tabIndex).join(',')`), "one tab stop")
	do(t, ctx, 10*time.Second, rawKey("ArrowRight", 39, 0), waitJS(open("history")), waitJS(`!!document.querySelector('.filter-outcome')`))
	do(t, ctx, 10*time.Second, rawKey("ArrowRight", 39, 0), waitJS(open("grants")))
	do(t, ctx, 10*time.Second, rawKey("ArrowRight", 39, 0), waitJS(open("queue")))
	do(t, ctx, 10*time.Second, rawKey("ArrowLeft", 37, 0), waitJS(open("grants")))
	do(t, ctx, 10*time.Second, rawKey("Home", 36, 0), waitJS(open("queue")))
	require.Equal(t, "tab-queue", evalString(t, ctx, `document.querySelector('[role=tabpanel]').getAttribute('aria-labelledby')`))
}

// TestEnterAfterAnAnswerOpensNoThread: Enter pressed again after Alt+R and Enter rejected an
// entry is meant for the entry answered: it opens no thread, neither the answered entry's
// (still waiting on the server's answer) nor the next one's, which the page moved the focus
// to (QA round 12 #9). The person's own move (↓) makes Enter open the thread again.
func TestEnterAfterAnAnswerOpensNoThread(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	alpha := alphaAsks(t, srv)
	beta := sessionWith(t, srv, "Beta", `/script r = run(['echo', 'beta ran']); send(r.stdout.strip() or r.error)`)
	waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.activeElement?.dataset.session === '`+alpha+`'`))

	do(t, ctx, 10*time.Second, altKey("r", "KeyR", 82), waitJS(`document.activeElement?.classList.contains('entry-reason')`),
		chromedp.KeyEvent("not now"))
	// Enter rejects; the second, at once, is the person's double press.
	do(t, ctx, 10*time.Second, pressEnter(0), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `location.pathname === '/approvals' && document.querySelectorAll('.queue-entry').length === 1 &&
		document.activeElement === document.querySelector('.queue-entry[data-session="`+beta+`"]')`, `location.pathname + ' ' + `+focusNow)
	// Another Enter, once the page moved the focus to Beta, then Alt+A: the confirmation shows
	// on Beta, so the Enter before it was taken, and it opened nothing.
	do(t, ctx, 10*time.Second, pressEnter(0), altKey("a", "KeyA", 65))
	waitShowing(t, ctx, 10*time.Second, `!!document.querySelector('.queue-entry[data-session="`+beta+`"] .confirm')`, `location.pathname + ' ' + `+focusNow)
	require.Equal(t, "/approvals", evalString(t, ctx, `location.pathname`))
	onlyRejection(t, srv, "not now")

	// Escape, and the person moves (↓: Beta is the last, the keyboard stays on it): now Enter
	// is theirs, and opens Beta's thread.
	do(t, ctx, 10*time.Second, rawKey("Escape", 27, 0), waitJS(`!document.querySelector('.confirm')`),
		rawKey("ArrowDown", 40, 0), pressEnter(0), waitJS(`location.pathname === '/s/`+beta+`'`))
	waitQueue(t, srv, 1)
}

// TestAConfirmationEndedElsewhereHoldsItsEnter (QA round 25): the approve confirmation shows
// on an entry, and another tab answers it. The status region says so, the focus moves to the
// next entry, and the Enter the person then presses, however late, was meant for the
// confirmation: it opens nothing. The next one opens the thread.
func TestAConfirmationEndedElsewhereHoldsItsEnter(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := sessionWith(t, srv, "First", `/script send(str(confirm('Deploy a?')))`)
	waitQueue(t, srv, 1)
	b := sessionWith(t, srv, "Second", `/script send(str(confirm('Deploy b?')))`)
	q := waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.activeElement?.dataset.session === '`+a+`'`),
		altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`))
	_, err := apiClient(srv).Reply(context.Background(), a, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("true")})
	require.NoError(t, err)
	waitShowing(t, ctx, 30*time.Second, `document.activeElement?.classList.contains('queue-entry') && document.activeElement.dataset.session === '`+b+`'`, focusNow)
	said := evalString(t, ctx, `document.querySelector('.notice-slot[role=status]').textContent`)
	require.Contains(t, said, "Answered elsewhere while you were confirming, so nothing was sent from here")
	require.Contains(t, said, "Deploy a?")
	// Read, then Enter: it was meant for the confirmation.
	do(t, ctx, 10*time.Second, chromedp.Sleep(1500*time.Millisecond), pressEnter(0), chromedp.Sleep(500*time.Millisecond))
	require.Equal(t, "/approvals", evalString(t, ctx, `location.pathname`))
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`location.pathname === '/s/`+b+`'`))
	waitQueue(t, srv, 1)
}

// TestACardMovedUpAnswersItsOwnDecision: two questions with the same choices in another
// order wait; the first is answered elsewhere and leaves the list, and the second's card is
// drawn where the first's was. A click on its "staging" answers "staging". go-app reuses a
// list's items by place and keeps an element's handler when its function is the same: the
// button kept the first card's answer, and sent "prod" to the second question.
func TestACardMovedUpAnswersItsOwnDecision(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := sessionWith(t, srv, "First", `/script send(ask('Where to?', {'type': 'string', 'enum': ['prod', 'staging']}))`)
	q := waitQueue(t, srv, 1)
	b := sessionWith(t, srv, "Second", `/script send(ask('Where now?', {'type': 'string', 'enum': ['staging', 'prod']}))`)
	waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.querySelectorAll('.queue-entry .choice').length >= 4`))
	_, err := apiClient(srv).Reply(context.Background(), a, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`"prod"`)})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-list > li').length === 1 && document.querySelector('.queue-list > li').dataset.session === '`+b+`'`))
	require.Equal(t, "staging", evalString(t, ctx, `document.querySelector('.queue-entry .choice .choice-label').textContent`))
	do(t, ctx, 10*time.Second, clickJS(`.queue-entry .choice`))
	waitAgentReplies(t, srv, b, 1)
	page, err := apiClient(srv).Events(context.Background(), b, 0, 0)
	require.NoError(t, err)
	var said []string
	for _, ev := range page.Events {
		if ev.Type == protocol.EventAgentMessage {
			m, _ := protocol.DecodeEventData[protocol.Message](ev)
			said = append(said, m.Text)
		}
	}
	require.Equal(t, []string{"staging"}, said, "the second question's answer")
}

// TestEnterOpensTheNextEntryOnceThePersonLooks (QA round 17): a run asks several
// approvals; the first is approved with Alt+A and Enter, and the page moves the focus to the
// next. An Enter at once is the answer's double press and opens nothing (round 12 #9), but
// one pressed after a pause is the person's: it opens the thread, as the keys line says. It
// did nothing until the person pressed an arrow or Escape.
func TestEnterOpensTheNextEntryOnceThePersonLooks(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Burst", `/example echo-burst`)
	first := waitQueue(t, srv, 1)[0].ID
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.activeElement?.dataset.decision === '`+first+`'`),
		altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`), pressEnter(0))
	next := `document.activeElement?.classList.contains('queue-entry') && document.activeElement.dataset.decision !== '` + first + `'`
	waitShowing(t, ctx, 30*time.Second, next+` && document.activeElement.textContent.includes('echo two')`, focusNow)
	do(t, ctx, 10*time.Second, chromedp.Sleep(2*time.Second), pressEnter(0))
	waitShowing(t, ctx, 10*time.Second, `location.pathname === '/s/`+s+`'`, `location.pathname + ' ' + `+focusNow)
}

// TestTheNextDecisionOfARunTakesTheFocus: the only entry is approved, the focus goes to the
// words that say nothing waits; then the model's next call of the same run asks again. The
// focus goes to the new entry, never to the page's body, which the words' leaving would give
// it (QA round 12 #10). The page moved it there: Enter opens nothing, and Alt+A answers it.
func TestTheNextDecisionOfARunTakesTheFocus(t *testing.T) {
	t.Parallel()
	next := make(chan struct{})
	var closeOnce sync.Once
	release := func() { closeOnce.Do(func() { close(next) }) }
	defer release()
	fake := testkit.NewModel(t, testkit.Calls(runCommand("call_0", "echo", "first")),
		testkit.Reply{Steps: append([]testkit.Step{{Hold: next}}, testkit.Calls(runCommand("call_1", "echo", "second")).Steps...)},
		testkit.Text("Both ran."))
	srv := startServerModel(t, t.TempDir(), fake.Base())
	s := sessionWith(t, srv, "Twice", "run echo twice")
	waitQueue(t, srv, 1)
	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, mouseTo(2, 2), waitJS(`document.activeElement?.dataset.session === '`+s+`'`),
		altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`), pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `!document.querySelector('.queue-entry') && document.activeElement === document.querySelector('.queue-empty')`, focusNow)

	release()
	waitShowing(t, ctx, 30*time.Second, `document.querySelector('.queue-entry .entry-output')?.textContent === 'echo second'`, focusNow)
	waitShowing(t, ctx, 10*time.Second, `document.activeElement === document.querySelector('.queue-entry')`, focusNow)
	do(t, ctx, 10*time.Second, pressEnter(0), altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`))
	require.Equal(t, "/approvals", evalString(t, ctx, `location.pathname`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitShowing(t, ctx, 30*time.Second, `!document.querySelector('.queue-entry') && document.activeElement === document.querySelector('.queue-empty')`, focusNow)
	waitQueue(t, srv, 0)
}

// batchRun asks for three commands as one batch.
const batchRun = `/script rs = run_batch([['echo', 'one'], ['echo', 'two'], ['echo', 'three']]); send(' | '.join([r.stdout.strip() or r.error for r in rs]))`

// batchOnApprovals starts a server whose session "Batch" waits on batchRun's approval, and
// opens /approvals on it.
func batchOnApprovals(t *testing.T) (*server, string, context.Context) {
	t.Helper()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Batch", batchRun)
	waitQueue(t, srv, 1)
	return srv, s, openApprovals(t, srv)
}

// TestBatchPicksSurviveAReload: a batch's answers picked request by request on /approvals are
// still picked after a reload, and in the thread's card, until the batch is answered; then
// they are forgotten (QA round 12 #18). Approve all sends them as marked, and says so.
func TestBatchPicksSurviveAReload(t *testing.T) {
	t.Parallel()
	srv, s, ctx := batchOnApprovals(t)
	item := func(i, tone string) string { return `.queue-entry .batch-item[data-item="` + i + `"] .tone-` + tone }
	pressed := `[...document.querySelectorAll('.queue-entry .batch-item [aria-pressed="true"]')].map(b => b.closest('.batch-item').dataset.item + b.textContent).join()`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry .batch-item').length === 3`))

	approve := `document.querySelector('.queue-entry .entry-actions .tone-affirm .choice-label')`
	require.Equal(t, "Approve all", evalString(t, ctx, approve+`.textContent`))

	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(item("0", "affirm"))), chromedp.Click(chromedp.CSS(item("1", "deny"))),
		waitJS(pressed+` === '0Allow,1Reject'`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry .batch-item').length === 3`))
	waitShowing(t, ctx, 10*time.Second, pressed+` === '0Allow,1Reject'`, pressed)
	require.Equal(t, "Approve 2, reject 1", evalString(t, ctx, approve+`.textContent`), "what Approve all sends now")

	// The thread's card shows the same picks.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+s), waitReady(),
		waitJS(`document.querySelectorAll('.thread .entry-decision.status-pending .batch-item').length === 3`))
	require.Equal(t, "0Allow,1Reject", evalString(t, ctx, `[...document.querySelectorAll('.thread .entry-decision.status-pending .batch-item [aria-pressed="true"]')].map(b => b.closest('.batch-item').dataset.item + b.textContent).join()`))

	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry .batch-item').length === 3`),
		waitJS(pressed+` === '0Allow,1Reject'`), mouseTo(2, 2),
		pastGuard(), chromedp.Click(chromedp.CSS(item("2", "affirm"))), waitJS(pressed+` === '0Allow,1Reject,2Allow'`), mouseTo(2, 2))
	require.Equal(t, "Approve 2, reject 1", evalString(t, ctx, approve+`.textContent`))

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.queue-entry .entry-actions .tone-affirm`)))
	waitQueue(t, srv, 0)
	waitAgentReplies(t, srv, s, 1)
	h := approvalHistory(t, srv)
	require.Len(t, h.Entries, 1)
	require.Equal(t, "Approved 2 of 3", h.Entries[0].Answer)
	do(t, ctx, 10*time.Second, waitJS(`!Object.keys(sessionStorage).some(k => k.startsWith('parley.picks.'))`))
}

// TestApprovalsSessionTitlesTakeTheirOwnDirection: a session's title on /approvals (the
// queue's and the history's links, the Session filter's options, a grant's link) is laid out
// by its own first strong letter: a Hebrew title right to left in the left-to-right page
// (QA round 12 #13).
func TestApprovalsSessionTitlesTakeTheirOwnDirection(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	const hebrew = "שלום עולם"
	s := sessionWith(t, srv, hebrew, `/script r = run(['echo', 'hi']); send(r.stdout.strip() or r.error)`)
	q := waitQueue(t, srv, 1)
	// An "always" answer makes a grant, whose link names the session.
	always := -1
	for i, o := range q[0].Request.Options {
		if o.Grant != nil {
			always = i
			break
		}
	}
	require.GreaterOrEqual(t, always, 0, "an always option: %+v", q[0].Request.Options)
	_, err := apiClient(srv).Reply(context.Background(), s, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: []byte(`{"option":` + strconv.Itoa(always) + `}`)})
	require.NoError(t, err)
	waitQueue(t, srv, 0)
	waitAgentReplies(t, srv, s, 1)
	sendTo(t, srv, s, `/script confirm('Again?')`)
	waitQueue(t, srv, 1)

	ctx := openApprovals(t, srv)
	direction := func(sel string) string {
		return evalString(t, ctx, `(e => e ? e.getAttribute('dir') + ' ' + getComputedStyle(e).direction : 'none')(document.querySelector('`+sel+`'))`)
	}
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.queue-entry .queue-thread')`))
	require.Equal(t, "auto rtl", direction(`.queue-entry .queue-thread`), "the queue's link")
	do(t, ctx, 10*time.Second, clickJS(`.tab-history`), waitJS(`!!document.querySelector('.history-entry .queue-thread') && !!document.querySelector('.filter-session option[value="`+s+`"]')`))
	require.Equal(t, "auto rtl", direction(`.history-entry .queue-thread`), "the history's link")
	require.Equal(t, "auto", evalString(t, ctx, `document.querySelector('.filter-session option[value="`+s+`"]').getAttribute('dir')`), "the Session filter's option")
	do(t, ctx, 10*time.Second, clickJS(`.tab-grants`), waitJS(`!!document.querySelector('.grant-origin')`))
	require.Equal(t, hebrew, evalString(t, ctx, `document.querySelector('.grant-origin').textContent`))
	require.Equal(t, "auto rtl", direction(`.grant-origin`), "the grant's link")
}

// The approvals list holds still under a person's pointer and keyboard (docs/approvals.md,
// "A list that holds still"), and Alt+R keeps one reason field an entry.

// answerAPI answers a confirm through the API, as another tab or device would.
func answerAPI(t *testing.T, srv *server, e protocol.QueueEntry) {
	t.Helper()
	_, err := apiClient(srv).Reply(context.Background(), e.Session, e.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("true")})
	require.NoError(t, err)
}

// mouseTo moves the mouse to a point of the page.
func mouseTo(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y)(ctx, t)
		return err
	})
}

func entrySel(session string) string { return `.queue-entry[data-session="` + session + `"]` }

// TestApprovalsListHoldsStillUnderThePointer: while the pointer rests on an entry and the
// focus is on another, an entry answered elsewhere keeps its place (hidden under a note), a new one goes at
// the end, and the focused entry that ends hands the focus to the next one; once the pointer
// leaves, the ended ones go; a key then answers the entry it was pressed on.
func TestApprovalsListHoldsStillUnderThePointer(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	names := []string{"a", "b", "c"}
	for i, n := range names {
		sessionWith(t, srv, "Session "+n, `/script send(str(confirm('Deploy `+n+`?')))`)
		waitQueue(t, srv, i+1)
	}
	q := waitQueue(t, srv, 3)
	a, b, c := q[0], q[1], q[2]

	ctx := openApprovals(t, srv)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry').length === 3`))
	top := func(session string) float64 {
		// The queue's entry: the sidebar's row of the session carries its id too (and moves
		// as the live list takes a new session in).
		return get(t, ctx, chromedp.Evaluate[float64](`document.querySelector('.queue-list [data-session="`+session+`"]').getBoundingClientRect().top`))
	}
	// The person has the keyboard on B and points at C's title line.
	get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('`+entrySel(b.Session)+`').focus(); true`))
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.dataset.session === '`+b.Session+`'`))
	point := get(t, ctx, chromedp.Evaluate[[]float64](`(r => [r.x + r.width / 2, r.y + 8])(document.querySelector('`+entrySel(c.Session)+` .entry-title').getBoundingClientRect())`))
	do(t, ctx, 10*time.Second, mouseTo(point[0], point[1]), waitJS(`document.querySelector('.queue-list').matches(':hover')`))
	cTop := top(c.Session)
	underPointer := `document.elementFromPoint(` + strconv.FormatFloat(point[0], 'f', 1, 64) + `, ` + strconv.FormatFloat(point[1], 'f', 1, 64) + `)?.closest('.queue-entry')?.dataset.session`

	// A ends in another tab: it stays in its place, hidden under a note, and nothing moves.
	answerAPI(t, srv, a)
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.queue-gone[data-session="`+a.Session+`"]')`))
	require.Equal(t, c.Session, evalString(t, ctx, underPointer), "the entry under the pointer")
	require.InDelta(t, cTop, top(c.Session), 0.5, "C did not move")
	require.Equal(t, b.Session, evalString(t, ctx, `document.activeElement.dataset.session`), "the focus stayed on B")
	require.True(t, evalBool(t, ctx, `(g => getComputedStyle(g.querySelector('.entry-decision')).visibility === 'hidden' && !g.hasAttribute('tabindex'))(document.querySelector('.queue-gone'))`), "nothing in it answers")

	// A new decision goes at the end.
	d := sessionWith(t, srv, "Session d", `/script send(str(confirm('Deploy d?')))`)
	order := `[...document.querySelectorAll('.queue-entry')].map(e => e.dataset.session).join()`
	do(t, ctx, 30*time.Second, waitJS(order+` === '`+b.Session+`,`+c.Session+`,`+d+`'`))
	require.Equal(t, c.Session, evalString(t, ctx, underPointer))
	require.InDelta(t, cTop, top(c.Session), 0.5)

	// B, which has the focus, ends elsewhere: the focus goes to the next entry, C.
	answerAPI(t, srv, b)
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.queue-gone[data-session="`+b.Session+`"]')`),
		waitJS(`document.activeElement?.classList.contains('queue-entry') && document.activeElement.dataset.session === '`+c.Session+`'`))
	require.Equal(t, c.Session, evalString(t, ctx, underPointer))
	require.InDelta(t, cTop, top(c.Session), 0.5)

	// The pointer leaves the list: the ended entries go; the focus stays on C.
	do(t, ctx, 30*time.Second, mouseTo(2, 2),
		waitJS(`!document.querySelector('.queue-gone') && `+order+` === '`+c.Session+`,`+d+`'`),
		waitJS(`document.activeElement?.dataset.session === '`+c.Session+`'`))

	// Alt+A on C confirms C, and answers C only.
	do(t, ctx, 10*time.Second, altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.confirm').textContent`), "Deploy c”?")
	do(t, ctx, 10*time.Second, pressEnter(0))
	left := waitQueue(t, srv, 1)
	require.Equal(t, d, left[0].Session, "D still waits")
	do(t, ctx, 30*time.Second, waitJS(order+` === '`+d+`'`))
}

// TestApprovalsRejectKeepsOneReasonField: Alt+R on an approval, whose card has a reason
// field, uses that field (focused), and pressing it again adds none; Enter rejects with it.
func TestApprovalsRejectKeepsOneReasonField(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Runs", `/script r = run(['echo', 'hi']); send(r.stdout.strip() or r.error)`)
	waitQueue(t, srv, 1)
	ctx := openApprovals(t, srv)
	entry := entrySel(s)
	fields := `document.querySelectorAll('` + entry + ` .entry-reason, ` + entry + ` .confirm-reason').length`
	do(t, ctx, 30*time.Second, waitJS(`document.activeElement?.dataset.session === '`+s+`'`))
	do(t, ctx, 10*time.Second, altKey("r", "KeyR", 82))
	waitShowing(t, ctx, 20*time.Second, `!!document.querySelector('`+entry+` .confirm') && document.activeElement?.classList.contains('entry-reason')`,
		`document.activeElement?.outerHTML.slice(0, 200) + ' | ' + document.querySelector('.queue-list').innerHTML.slice(0, 3000)`)
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](fields))), "one reason field")
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("not now"))
	// Again, from the entry: the same field takes the focus, with what was typed.
	get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('`+entry+`').focus(); true`))
	do(t, ctx, 10*time.Second, altKey("r", "KeyR", 82), waitJS(`document.activeElement?.classList.contains('entry-reason')`))
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](fields))), "still one reason field")
	require.Equal(t, "not now", evalString(t, ctx, `document.activeElement.value`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitQueue(t, srv, 0)
	onlyRejection(t, srv, "not now")
}

// QA round 14's approval findings: a batch's "approve all" never approves a request marked
// Reject (#1), a batch's long command wraps in the composer (#6), an argument's newline shows
// as \n (#9), and on a touch screen an approval focuses its dialog, not its field (#10).

// markedBatch asks for two commands as one batch; the second must never run once marked Reject.
const markedBatch = `/script rs = run_batch([['echo', 'keep'], ['echo', 'DO-NOT-RUN']]); send(' | '.join([r.stdout.strip() or r.error for r in rs]))`

// TestADoubleClickOnABatchCardAnswersOnlyIt (QA round 16's P1, on the thread's cards): a
// script asks two batches in turn. Its first is approved with a double-click on its card's
// Approve all; the second's card lands in the thread where the first's was, and takes the
// second click. That click is ignored, as in the composer, and the second batch waits.
func TestADoubleClickOnABatchCardAnswersOnlyIt(t *testing.T) {
	t.Parallel()
	const twoBatches = `/script run_batch([['echo', 'a'], ['echo', 'b']]); run_batch([['touch', 'DANGER-second-command.txt'], ['echo', 'c']]); send('done')`
	card := `.thread .entry-decision.status-pending`
	srv, ctx := openSession(t, twoBatches)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('`+card+` .entry-actions .choice.tone-affirm')`), pastGuard())
	x, y := centreOf(t, ctx, card+` .entry-actions .choice.tone-affirm`)
	doubleClickAcross(t, ctx, x, y, 120*time.Millisecond, onChange(`document.querySelector('`+card+`')?.textContent.includes('touch DANGER')`))
	require.Equal(t, "Approve all", evalString(t, ctx, fmt.Sprintf(`(e => e.closest('.entry-decision').textContent.includes('touch DANGER') ? e.closest('.choice').textContent : e.outerHTML)(document.elementFromPoint(%g, %g))`, x, y)),
		"the second click landed on the next batch's Approve all")
	time.Sleep(time.Second) // a check that nothing is sent: an answer takes a few ms
	d := onlyDecision(t, srv, sessionOf(t, ctx))
	require.Contains(t, d.Request.Items[0].Details, "touch", "the second batch is still waiting")
	require.Len(t, approvalHistory(t, srv).Entries, 1, "only the first was answered")
	require.NoFileExists(t, srv.data+"-workspace/DANGER-second-command.txt")
}

// batchMode is the composer showing an approval, and batchApprove the label of its approving
// option ("Approve all", or "Approve 1, reject 1" once a request is marked Reject).
const (
	batchMode    = `#composer-mode.mode-approval`
	batchApprove = `document.querySelector('` + batchMode + ` .choice-primary .choice-label')?.textContent`
)

// openMarkedBatch sends markedBatch from a new session's composer and waits for its two
// requests there, the focus in the words' field.
func openMarkedBatch(t *testing.T) context.Context {
	t.Helper()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText(markedBatch), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('`+batchMode+` .batch-item').length === 2`),
		waitJS(`document.activeElement.id === 'approval-instruction'`))
	return ctx
}

// TestWordsAndEnterKeepAnAllowMark (QA round 26 P1): a request marked Allow, words typed in
// the field, and Enter (the field's own key, "reject with these words"): the marked request
// runs, and the words reject the other one. Enter rejected both, the one marked Allow too.
func TestWordsAndEnterKeepAnAllowMark(t *testing.T) {
	t.Parallel()
	ctx := openMarkedBatch(t)
	do(t, ctx, 10*time.Second, clickJS(batchMode+` .batch-item[data-item="0"] .tone-affirm`),
		waitJS(`document.querySelector('`+batchMode+` .batch-item[data-item="0"] .tone-affirm').getAttribute('aria-pressed') === 'true'`),
		js(`document.querySelector('#approval-instruction').focus()`), chromedp.KeyEvent("not that one"), pressEnter(0))
	waitReply(t, ctx, "keep | rejected by the user: not that one")
}

// TestACardsReasonGoesWithTheRequestsMarkedReject (QA round 26 P1): on the thread's card, a
// request marked Reject and a reason typed in the card's field: "Approve 1, reject 1" sends
// the reason with the rejected request. It was dropped.
func TestACardsReasonGoesWithTheRequestsMarkedReject(t *testing.T) {
	t.Parallel()
	ctx := openMarkedBatch(t)
	card := `.thread .entry-decision.status-pending`
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('`+card+` .batch-item')`),
		clickJS(card+` .batch-item[data-item="1"] .tone-deny`),
		waitJS(`(document.querySelector('`+card+` .entry-actions .tone-affirm')?.textContent || '').startsWith('Approve 1, reject 1')`),
		js(`document.querySelector('`+card+` .entry-reason').focus()`), chromedp.KeyEvent("too risky"),
		clickJS(card+` .entry-actions .tone-affirm`))
	waitReply(t, ctx, "keep | rejected by the user: too risky")
}

// TestApproveAllNeverRunsARequestMarkedReject (#1): in the composer, a request marked Reject
// turns "Approve all" into "Approve 1, reject 1", and Ctrl+Enter sends exactly that; so does
// the thread card's Approve all with the mark made in the composer.
func TestApproveAllNeverRunsARequestMarkedReject(t *testing.T) {
	t.Parallel()
	ctx := openMarkedBatch(t)
	require.Equal(t, "Approve all", evalString(t, ctx, batchApprove))
	do(t, ctx, 10*time.Second, clickJS(batchMode+` .batch-item[data-item="1"] .tone-deny`))
	waitShowing(t, ctx, 10*time.Second, batchApprove+` === 'Approve 1, reject 1'`, batchApprove)
	do(t, ctx, 10*time.Second, js(`document.querySelector('#approval-instruction').focus()`), pressEnter(modCtrl))
	waitReply(t, ctx, "keep | rejected by the user")

	// Marked in the composer, approved on the thread's card.
	do(t, ctx, 10*time.Second, js(`document.querySelector('#composer-input').focus()`), typeText(markedBatch), pressEnter(0))
	card := `.thread .entry-decision.status-pending`
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('`+batchMode+` .batch-item').length === 2 && !!document.querySelector('`+card+` .batch-item')`),
		clickJS(batchMode+` .batch-item[data-item="1"] .tone-deny`), waitJS(batchApprove+` === 'Approve 1, reject 1'`),
		clickJS(card+` .entry-actions .tone-affirm`))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "keep | rejected by the user", msgs[3].Text)
}

// TestTheWordsTypedGoWithTheRequestsMarkedReject: a batch with a request marked Reject and
// words typed, approved with its button: the words are the rejected request's reason, and
// the card says so; they do not go back to the box under "Approved." (QA round 20 #5).
func TestTheWordsTypedGoWithTheRequestsMarkedReject(t *testing.T) {
	t.Parallel()
	ctx := openMarkedBatch(t)
	do(t, ctx, 10*time.Second, clickJS(batchMode+` .batch-item[data-item="1"] .tone-deny`))
	waitShowing(t, ctx, 10*time.Second, batchApprove+` === 'Approve 1, reject 1'`, batchApprove)
	do(t, ctx, 10*time.Second, js(`document.querySelector('#approval-instruction').focus()`), chromedp.KeyEvent("not that one"),
		chromedp.Click(chromedp.CSS(batchMode+` .choice-primary`), chromedp.NodeVisible))
	waitReply(t, ctx, "keep | rejected by the user: not that one")
	require.Equal(t, "Approved 1 of 2; the others rejected: not that one", evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`))
	require.Equal(t, "", draft(t, ctx), "the words went with the answer, not back to the box")
}

// TestAltANeverApprovesARequestMarkedReject (#1): on /approvals, Alt+A on a batch with a
// request marked Reject asks "Approve 2 and reject 1 of …, as marked?", and Enter sends that.
func TestAltANeverApprovesARequestMarkedReject(t *testing.T) {
	t.Parallel()
	srv, s, ctx := batchOnApprovals(t)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.queue-entry .batch-item').length === 3`),
		pastGuard(), chromedp.Click(chromedp.CSS(`.queue-entry .batch-item[data-item="1"] .tone-deny`)),
		waitJS(`document.querySelector('.queue-entry .batch-item[data-item="1"] .tone-deny').getAttribute('aria-pressed') === 'true'`),
		waitJS(`document.querySelector('.queue-entry .entry-actions .tone-affirm .choice-label').textContent === 'Approve 2, reject 1'`),
		altKey("a", "KeyA", 65), waitJS(`document.activeElement?.classList.contains('confirm-yes')`))
	require.Equal(t, "Approve 2 and reject 1 of “Allow these 3 requests”, as marked?", evalString(t, ctx, `document.querySelector('.confirm span').textContent`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitQueue(t, srv, 0)
	waitAgentReplies(t, srv, s, 1)
	h := approvalHistory(t, srv)
	require.Len(t, h.Entries, 1)
	require.Equal(t, "Approved 2 of 3", h.Entries[0].Answer)
}

// longBatch holds a command longer than any screen is wide, with a newline in an argument.
const longBatch = `/script run_batch([["echo", "a"], ["echo", "b"], ["printf", "%s\n", "a very long argument that goes on and on and on, well past the right edge of the composer on a desktop and far past it on a small phone screen"]])`

// TestABatchsLongCommandWrapsInTheComposer (#6): the composer's batch wraps a long command as
// the thread's card does: nothing scrolls sideways, at 1200×900 and on a 390×844 phone.
func TestABatchsLongCommandWrapsInTheComposer(t *testing.T) {
	t.Parallel()
	for _, size := range []string{"desktop", "phone"} {
		t.Run(size, func(t *testing.T) {
			_, ctx := openHome(t)
			do(t, ctx, 10*time.Second, typeText(longBatch), pressEnter(0))
			do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('#composer-mode .batch-item').length === 3`))
			if size == "phone" { // a phone's Enter breaks the line: sent first, then the phone
				do(t, ctx, 10*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), waitJS(`innerWidth === 390`))
			}
			wide := `[...document.querySelectorAll('#composer-mode .morph-body, #composer-mode .batch-details')].filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.className + ' ' + e.clientWidth + '/' + e.scrollWidth).join('|')`
			require.Empty(t, evalString(t, ctx, wide), "scrolls sideways")
			h := `(i => document.querySelector('#composer-mode .batch-item[data-item="' + i + '"] .batch-details').getBoundingClientRect().height)`
			require.True(t, evalBool(t, ctx, h+`(2) > 1.5 * `+h+`(0)`), "the long command wraps onto more lines than a short one")
		})
	}
}

// TestAnArgumentsNewlineShowsEscaped (#9): an argument holding a newline reads as one word,
// $'%s\n', in the composer, in the thread's card and on /approvals, never as a line break.
func TestAnArgumentsNewlineShowsEscaped(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	want := `printf $'%s\n' 'a very long argument`
	do(t, ctx, 10*time.Second, typeText(longBatch), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('#composer-mode .batch-item').length === 3 && document.querySelectorAll('.thread .entry-decision.status-pending .batch-item').length === 3`))
	for _, sel := range []string{`#composer-mode .batch-item[data-item="2"] .batch-details`, `.thread .entry-decision.status-pending .batch-item[data-item="2"] .entry-output`} {
		text := evalString(t, ctx, `document.querySelector('`+sel+`').textContent`)
		require.True(t, strings.HasPrefix(text, want), "%s shows %q", sel, text)
		require.NotContains(t, text, "\n", "%s: one line", sel)
	}
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry .batch-item').length === 3`))
	text := evalString(t, ctx, `document.querySelector('.queue-entry .batch-item[data-item="2"] .entry-output').textContent`)
	require.True(t, strings.HasPrefix(text, want), "/approvals shows %q", text)
}

// TestOnATouchScreenAnApprovalFocusesItsDialog (#10): on a phone, an approval that arrives
// takes the focus at its dialog, not at its field for words (whose on-screen keyboard would
// cover the buttons); a tap in the field still brings it up, and the chords still answer.
// On a desktop the field takes it, as before (TestCtrlEnterWithWordsTypedRejects and others).
func TestOnATouchScreenAnApprovalFocusesItsDialog(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	prompt(t, ctx, "hello") // a phone's Enter breaks the line: sent first, then the phone
	waitMessages(t, ctx, 2)
	id := sessionOf(t, ctx)
	do(t, ctx, 10*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), waitJS(`matchMedia('(pointer: coarse)').matches`))
	sendAPI(t, srv, id, echoScript)
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval')`),
		waitJS(`document.activeElement?.id === 'composer-mode'`))
	// It stays there: nothing moves it into the field later.
	do(t, ctx, 10*time.Second, chromedp.Sleep(1500*time.Millisecond))
	require.Equal(t, "composer-mode", evalString(t, ctx, `document.activeElement?.id`))

	// After a reload, too.
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitJS(`!!document.querySelector('#composer-mode.mode-approval')`))
	do(t, ctx, 10*time.Second, chromedp.Sleep(1500*time.Millisecond))
	require.NotEqual(t, "approval-instruction", evalString(t, ctx, `document.activeElement?.id`))

	// The keys stay the composer's: Ctrl+Enter on the dialog approves.
	do(t, ctx, 10*time.Second, js(`document.querySelector('#composer-mode').focus()`), pressEnter(modCtrl))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "got hello", msgs[3].Text)
}

// TestATappedAnswerOnAPhoneLeavesTheList: a finger lifted is over nothing. On a phone the
// entry a tap answered goes a moment later, as it goes on a computer once the pointer
// leaves the list; it stayed under its "Answered" note until the person tapped elsewhere
// (QA round 26: a tap leaves :hover on what it touched).
func TestATappedAnswerOnAPhoneLeavesTheList(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := sessionWith(t, srv, "First", `/script send(str(confirm('Deploy a?')))`)
	sessionWith(t, srv, "Second", `/script send(str(confirm('Deploy b?')))`)
	waitQueue(t, srv, 2)
	ctx := openApprovals(t, srv)
	phone(t, ctx, 844)
	deny := entrySel(a) + ` .choice.tone-affirm` // Yes
	waitShowing(t, ctx, 30*time.Second, `document.querySelectorAll('.queue-entry').length === 2 && !!document.querySelector('`+deny+`')`, `document.querySelector('.queue-list')?.outerHTML.slice(0, 1500)`)
	at := get(t, ctx, chromedp.Evaluate[[]float64](`(el => (el.scrollIntoView({block: 'center'}), (r => [r.x + r.width / 2, r.y + r.height / 2])(el.getBoundingClientRect())))(document.querySelector('`+deny+`'))`))
	time.Sleep(guardPause) // a tap as soon as a button is drawn is taken for a stray one
	do(t, ctx, 10*time.Second, tapAt(at[0], at[1]))
	waitShowing(t, ctx, 30*time.Second, `!!document.querySelector('.queue-gone')`, `document.querySelector('.queue-list')?.outerHTML.slice(0, 1500)`)
	waitQueue(t, srv, 1)
	waitShowing(t, ctx, 30*time.Second, `!document.querySelector('.queue-gone') && document.querySelectorAll('.queue-entry').length === 1`,
		`[...document.querySelectorAll('.queue-list > li')].map(li => li.className + ': ' + li.textContent.slice(0, 60)).join(' | ') + ' hover=' + document.querySelector('.queue-list').matches(':hover')`)
}

// TestACountdownOnTheScreenCountsSeconds: a decision that times out within a minute says so
// to the second as the seconds pass, not every 15 s (QA round 27: "times out in 18 s" stayed
// while 3 s were left).
func TestACountdownOnTheScreenCountsSeconds(t *testing.T) {
	t.Parallel()
	srv := startServerFlags(t, t.TempDir(), "-decision-timeout", "55s")
	sessionWith(t, srv, "First", `/script send(str(confirm('Deploy a?')))`)
	waitQueue(t, srv, 1)
	ctx := openApprovals(t, srv)
	const left = `(+(/times out in (\d+) s/.exec(document.querySelector('.queue-entry .queue-time')?.textContent || '') || [])[1] || 0)`
	do(t, ctx, 30*time.Second, waitJS(left+` > 0`))
	first := get(t, ctx, chromedp.Evaluate[float64](left))
	// Seconds on, without anything else happening on the page, the words have followed.
	waitShowing(t, ctx, 6*time.Second, left+` > 0 && `+left+` <= `+strconv.Itoa(int(first)-3), `document.querySelector('.queue-entry .queue-time')?.textContent`)
}
