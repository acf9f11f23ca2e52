package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The findings of the sixth QA pass (docs/qa-round6.md): each test is what a person saw go
// wrong in `make run`, seen in the page.

// TestHistorySaysAFormsAnswersInWords: a form of several questions, answered, is in the
// approvals history in the words its thread card uses ("Mood: Bad · Score: 7 · Tags: …"),
// never as the JSON the browser sent.
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
	assert.Equal(t, "Answered: Mood: Bad · Score: 7 · Tags: work, home · Slept well: No", evalString(t, ctx, outcome))
}

// TestAFunctionRunFromTheHeroNamesItsSession: "Run Greet someone" on the empty page, run,
// and the session it ran in is listed first, under Today, as "Greet someone" (its header
// too), not as "New session" dated from when the empty page opened.
func TestAFunctionRunFromTheHeroNamesItsSession(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	older := seedSession(t, srv, "Older", 1)
	do(t, ctx, 30*time.Second, waitJS(`document.documentElement.hasAttribute('data-composer-live') && !!document.querySelector('.starter[data-starter="fn:greet"]')`))
	do(t, ctx, 10*time.Second, clickJS(`.starter[data-starter="fn:greet"]`),
		waitJS(`!!document.querySelector('#composer-mode .fn-form input[type=text]')`))
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#composer-mode .fn-form input[type=text]`), "Ada"),
		pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	id := sessionOf(t, ctx)
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.entry-run.status-done')`))
	// The list is read again on the next visit; go there as a person would, by the link of
	// the other session and back.
	waitShowing(t, ctx, 30*time.Second, `!!document.querySelector('.session-item[data-session="`+older+`"] .session-link')`,
		`document.querySelector('.sessions')?.innerText`)
	do(t, ctx, 30*time.Second, clickJS(`.session-item[data-session="`+older+`"] .session-link`),
		waitJS(`location.pathname === '/s/`+older+`'`), waitCaughtUp())
	row := `document.querySelector('.sessions .session-item[data-session="` + id + `"]')`
	waitShowing(t, ctx, 30*time.Second, `!!`+row+` && `+row+`.querySelector('.session-title').textContent === 'Greet someone'`,
		`document.querySelector('.sessions').innerText`)
	assert.Equal(t, id, evalString(t, ctx, `document.querySelector('.sessions .session-item').dataset.session`), "the session just used is first")
	do(t, ctx, 30*time.Second, clickJS(`.session-item[data-session="`+id+`"] .session-link`),
		waitJS(`location.pathname === '/s/`+id+`'`), waitCaughtUp())
	waitShowing(t, ctx, 30*time.Second, `document.querySelector('h1')?.textContent === 'Greet someone'`, `document.querySelector('h1')?.textContent`)
}

// editAQueuedPrompt: the page's session has a decision open; once the decision has taken
// the focus (it does once shown, when nobody typed: it cannot move it later, out of the field
// of the edit), a prompt is queued behind it through the API, "queued to edit", and the
// person opens its edit and types " with a change", not saved yet. It returns the session
// and the decision waiting.
func editAQueuedPrompt(t *testing.T, srv *server, ctx context.Context) (string, []protocol.QueueEntry) {
	t.Helper()
	id := sessionOf(t, ctx)
	q := waitQueue(t, srv, 1)
	do(t, ctx, 60*time.Second, waitJS(`!!document.activeElement?.closest('#composer-mode')`))
	sendAPI(t, srv, id, "queued to edit")
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.queue-item .queue-edit')`),
		clickJS(`.queue-item .queue-edit`), waitJS(`document.activeElement?.classList.contains('queue-field')`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent(" with a change"),
		waitJS(`document.activeElement.value === 'queued to edit with a change'`))
	return id, q
}

// TestAnEditOfAQueuedPromptThatBeganIsKept: a person edits a queued prompt and its turn
// begins before they save. The prompt runs as it was; their change is not thrown away with
// the field (the keys after it went to the page): it is in the box, focused, and a notice
// says why.
func TestAnEditOfAQueuedPromptThatBeganIsKept(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, `/script confirm('Go on?')`)
	id, q := editAQueuedPrompt(t, srv, ctx)
	// Another client answers the confirm: the turn ends, and the queued prompt's begins.
	_, err := apiClient(srv).Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("true")})
	require.NoError(t, err)
	waitShowing(t, ctx, 30*time.Second, `!document.querySelector('.queue-item') && document.querySelector('#composer-input').value === 'queued to edit with a change'`,
		`document.querySelector('#composer-input').value + ' | ' + (document.querySelector('.queue-dock')?.innerText || '')`)
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement?.id === 'composer-input'`))
	assert.Contains(t, noticeText(t, ctx), "began before your change was saved")
}

// TestAPromptMovesItsSessionToTheTop: the sidebar lists sessions by last use; a prompt sent in
// an older session moves it to the top at once (it stayed where it was until a navigation).
func TestAPromptMovesItsSessionToTheTop(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	older := answeredSession(t, srv, "Older", "the older one")
	newer := answeredSession(t, srv, "Newer", "the newer one")

	const first = `document.querySelector('#sidebar .session-item')?.dataset.session`
	ctx := openPage(t, srv, "/s/"+older)
	do(t, ctx, 60*time.Second, waitCaughtUp(), waitJS(first+` === '`+newer+`'`))
	do(t, ctx, 20*time.Second, chromedp.Click(composer), typeText("back to this one"), pressEnter(0),
		waitJS(first+` === '`+older+`'`))
}

// TestPhoneStartersAndApprovalsHeader: on a 390 px touch phone, a starter's label wraps
// between its words, never inside a slug at its hyphen ("/example ask-" over "deploy"); the
// approvals screen shows its whole title beside the language pick ("Appro…") and no keyboard
// help a touch screen cannot use.
func TestPhoneStartersAndApprovalsHeader(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.EmulateViewport(390, 844), touchScreen(true), chromedp.Navigate(srv.link), waitReady(),
		waitJS(`[...document.querySelectorAll('.starter-word')].some(w => w.textContent.includes('-'))`))
	assert.Equal(t, "", evalString(t, ctx, `[...document.querySelectorAll('.starter-word')].filter(w => w.getClientRects().length > 1).map(w => w.textContent).join('|')`),
		"no word of a starter is broken over two lines")

	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page h1')`))
	assert.True(t, evalBool(t, ctx, `(h => h.scrollWidth <= h.clientWidth)(document.querySelector('.approvals-page h1'))`), "the title is whole")
	assert.True(t, evalBool(t, ctx, `[...document.querySelectorAll('.keys-help')].every(p => !p.checkVisibility())`), "no keyboard help on a touch screen")
}

// TestMCPIsReachableAndBackLeadsToTheChat: the sidebar links to the MCP servers screen, and
// its "Back to the chat" returns to the session the person came from (it opened a new blank
// session).
func TestMCPIsReachableAndBackLeadsToTheChat(t *testing.T) {
	t.Parallel()
	_, ctx, id := openSeeded(t, t.TempDir(), "Came from here")
	do(t, ctx, 60*time.Second, waitCaughtUp())
	do(t, ctx, 30*time.Second, chromedp.Click(chromedp.CSS(`#sidebar .mcp-link`)),
		waitJS(`location.pathname === '/mcp' && !!document.querySelector('.mcp-page')`),
		waitJS(`document.querySelector('#sidebar .mcp-link')?.getAttribute('aria-current') === 'page'`))
	do(t, ctx, 30*time.Second, chromedp.Click(chromedp.CSS(`.mcp-page .back-link`)),
		waitJS(`location.pathname === '/s/`+id+`'`), waitReady())
}
