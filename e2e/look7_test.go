package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The open findings of the sixth QA pass (docs/qa-round6.md, "Open"), each as a person meets
// it in the page.

// waitingCard is the thread's one-line card of an open decision; cardWords what it says.
const (
	waitingCard = `document.querySelector('.entry-waiting')`
	cardWords   = `(` + waitingCard + `?.querySelector('.when-wide')?.textContent || '')`
)

// TestASetAsideDecisionSaysSoInItsCard: a question set aside ("Chat about this", or Escape;
// the idle input shows below) is not "Waiting for your answer below" in its thread card: the card says it
// is set aside, and Enter on it brings the question back into the composer.
func TestASetAsideDecisionSaysSoInItsCard(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, threeQuestions, waitJS(cardWords+` === 'Waiting for your answer below'`))
	// "Chat about this", which Escape does too (the same machine event), by its own click:
	// no wait for the decision to take the focus, which a loaded machine makes slow.
	do(t, ctx, 10*time.Second, clickJS(`#composer-mode .chat-about`), waitJS(modeGone))
	waitShowing(t, ctx, 20*time.Second, cardWords+` === 'Set aside: click or press Enter to answer'`, cardWords)
	assert.Contains(t, evalString(t, ctx, waitingCard+`.getAttribute('aria-label')`), "Set aside")
	do(t, ctx, 10*time.Second, js(waitingCard+`.focus()`), pressEnter(0), waitJS(modeShown))
	do(t, ctx, 20*time.Second, waitJS(cardWords+` === 'Waiting for your answer below'`))
}

// noteAndName is a stepped form whose first question is a multi-line field (Enter breaks its
// line) and whose last is a line.
const noteAndName = `/script r = ask('About you', {'type': 'object', 'properties': {` +
	`'note': {'type': 'string', 'title': 'Note', 'multiline': True}, ` +
	`'name': {'type': 'string', 'title': 'Name'}}, 'required': ['note', 'name']}); ` +
	`send('note=%s name=%s' % (r['note'].replace('\n', '/'), r['name']))`

// TestTabFromAMultiLineFieldGoesOn: in a form asked one question at a time, Enter in a
// multi-line field breaks the line, and Tab goes on to the next question's field (it went to
// Decline, past the questions still to answer); from the last question's field Tab goes to
// Send, which Enter presses.
func TestTabFromAMultiLineFieldGoesOn(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, noteAndName, waitJS(`document.activeElement?.tagName === 'TEXTAREA' && !!document.activeElement.closest('#composer-mode')`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("line one"), pressEnter(0), chromedp.KeyEvent("two"),
		waitJS(`document.activeElement.value === 'line one\ntwo'`))
	do(t, ctx, 10*time.Second, tabKey(0))
	waitShowing(t, ctx, 10*time.Second, `document.activeElement?.tagName === 'INPUT' && `+shownTitle+`.startsWith('Name')`,
		`document.activeElement?.outerHTML.slice(0, 200)`)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("Ada"), tabKey(0))
	waitShowing(t, ctx, 10*time.Second, `document.activeElement?.matches('#composer-mode .morph-actions .send')`,
		`document.activeElement?.outerHTML.slice(0, 200)`)
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(modeGone))
	waitQueue(t, srv, 0)
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('.thread').textContent.includes('note=line one/two name=Ada')`))
}

// TestTheFocusStaysWhenTheLastQueuedPromptGoes: the focus is on a queued prompt's Edit when
// the prompt leaves the dock (here withdrawn by another client): it goes to the composer's
// input, never to the page's body. (The turn is held by a confirm, set aside: the input
// shows.)
func TestTheFocusStaysWhenTheLastQueuedPromptGoes(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, `/script confirm('Go on?')`)
	id := sessionOf(t, ctx)
	waitQueue(t, srv, 1)
	do(t, ctx, 60*time.Second, waitJS(modeShown), clickJS(`#composer-mode .chat-about`), waitJS(modeGone))
	sendAPI(t, srv, id, "queued, then withdrawn")
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.queue-item .queue-edit')`),
		js(`document.querySelector('.queue-item .queue-edit').focus()`),
		waitJS(`document.activeElement?.classList.contains('queue-edit')`))
	offset, err := strconv.ParseUint(evalString(t, ctx, `document.querySelector('.queue-item').dataset.queued`), 10, 64)
	require.NoError(t, err)
	_, err = apiClient(srv).WithdrawPrompt(context.Background(), id, offset)
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('.queue-item')`))
	waitShowing(t, ctx, 10*time.Second, `document.activeElement?.id === 'composer-input'`, `document.activeElement?.outerHTML.slice(0, 200)`)
}

// TestAltAKeepsTheFocusInTheQueue: on /approvals, Alt+A then Enter answers the entry; the
// focus goes to the next entry, and after the last to the words that say nothing waits,
// never to the page's body.
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

// TestOneFocusRingAndOneLanguagePick: the fn-form's function picker shows its whole focus
// ring (its scrolling header clipped it to two brackets), and the language pick on /approvals
// and /mcp is the styled one of the other pages, not the browser's own.
func TestOneFocusRingAndOneLanguagePick(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "")
	do(t, ctx, 20*time.Second, waitJS(`document.documentElement.hasAttribute('data-composer-live') && !!document.querySelector('.starter')`))
	do(t, ctx, 10*time.Second, js(`document.querySelector('.control-button:not(.model-button)').click()`),
		waitJS(`document.activeElement?.id === 'fn-pick'`))
	// The ring is 2 px wide, 2 px out: all of it lies inside the box that clips the header.
	ring := `(p => { const r = p.getBoundingClientRect(), c = p.closest('.morph-header-main').getBoundingClientRect();
		return [r.top - 4 - c.top, c.bottom - r.bottom - 4, r.left - 4 - c.left].every(d => d >= -0.5) })(document.querySelector('#fn-pick'))`
	assert.True(t, evalBool(t, ctx, ring), "the picker's ring is not clipped: %s",
		evalString(t, ctx, `JSON.stringify([document.querySelector('#fn-pick').getBoundingClientRect(), document.querySelector('.morph-header-main').getBoundingClientRect()])`))
	styled := `(s => s.appearance + ' ' + s.backgroundColor)(getComputedStyle(document.querySelector('.locale-pick')))`
	want := evalString(t, ctx, styled)
	require.Contains(t, want, "none", "the chat's language pick is the styled one")
	for _, page := range []string{"/approvals", "/mcp"} {
		do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+page),
			waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.locale-pick')`))
		assert.Equal(t, want, evalString(t, ctx, styled), page)
	}
}

// TestSeveralWorkspacesNameTheSessions: with two workspaces, a session's header and its
// sidebar row name the one it works in, quietly; with one, nothing does.
func TestSeveralWorkspacesNameTheSessions(t *testing.T) {
	t.Parallel()
	notes := filepath.Join(t.TempDir(), "notes")
	require.NoError(t, os.MkdirAll(notes, 0o755))
	srv := startServerWith(t, t.TempDir(), "127.0.0.1:0", notes)
	id := newSession(t, srv, "In notes", "notes")
	sendTo(t, srv, id, "hello")
	other := sessionWith(t, srv, "In the default", "hello")
	ctx := openPage(t, srv, "/s/"+id)
	do(t, ctx, 60*time.Second, waitCaughtUp())
	tag := func(sel string) string {
		return `(document.querySelector('` + sel + ` .session-workspace')?.textContent || '')`
	}
	row := `#sidebar .session-item[data-session="`
	waitShowing(t, ctx, 30*time.Second, tag(`.session-header`)+`.endsWith('notes') && `+tag(row+id+`"]`)+`.endsWith('notes')`,
		`document.querySelector('.session-header').innerText + ' | ' + document.querySelector('#sidebar .sessions').innerText`)
	assert.Equal(t, "Workspace: notes", evalString(t, ctx, tag(`.session-header`)), "read as a workspace's name")
	assert.NotEqual(t, "", evalString(t, ctx, tag(row+other+`"]`)), "the other row names its workspace")
	assert.NotContains(t, evalString(t, ctx, tag(row+other+`"]`)), "notes")

	single, sctx, sid := openSeeded(t, t.TempDir(), "Alone")
	do(t, sctx, 30*time.Second, waitCaughtUp(), waitJS(`!!document.querySelector('#sidebar .session-item[data-session="`+sid+`"]')`))
	assert.False(t, evalBool(t, sctx, `!!document.querySelector('.session-workspace')`), "one workspace: none is named (%s)", single.addr)
}

// TestASaveAsItsTurnBeginsPutsTheChangeInTheBox: a Save of a queued prompt's edit reaches the
// server just after the prompt's turn began (the request is held until the page has seen the
// turn start, so the race is decided, not hoped for). The server refuses it; the change is
// not lost in a "Not edited" notice: it is in the box, with the notice the dock gives when
// the turn begins before the Save.
func TestASaveAsItsTurnBeginsPutsTheChangeInTheBox(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	// From the start, before any page: the page's requests skip the service worker, and a
	// Save's request is held (Listen sees every event after it returns), so the page's own
	// Fetch sees it and the race is decided, not hoped for.
	held := make(chan fetch.RequestID, 1)
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		if p, ok := ev.(*fetch.EventRequestPaused); ok {
			select {
			case held <- p.RequestID:
			default:
			}
		}
	}))
	do(t, ctx, 10*time.Second, pauseRequests("*/prompts/*/edit*"))
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 20*time.Second, typeText(`/script confirm('Go on?')`), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	id, q := editAQueuedPrompt(t, srv, ctx)

	do(t, ctx, 10*time.Second, pressEnter(0))
	var req fetch.RequestID
	select {
	case req = <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the Save never asked the server: ", evalString(t, ctx, `(document.querySelector('.queue-dock')?.innerText || 'no dock') + ' | ' + document.activeElement?.outerHTML.slice(0, 200) + ' | ' + document.querySelector('.notice-slot').innerText`))
	}
	// The turn ends (another client answers the confirm) and the queued prompt's begins; the
	// page sees it leave the dock. Only then does the Save reach the server.
	_, err := apiClient(srv).Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("true")})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('.queue-item')`))
	do(t, ctx, 10*time.Second, continueRequest(req))
	waitShowing(t, ctx, 30*time.Second, `document.querySelector('#composer-input').value === 'queued to edit with a change'`,
		`document.querySelector('#composer-input').value + ' | ' + document.querySelector('.notice-slot').innerText`)
	assert.Contains(t, noticeText(t, ctx), "began before your change was saved")
	assert.NotContains(t, noticeText(t, ctx), "Not edited")
}
