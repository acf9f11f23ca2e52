package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/internal/testkit"
	"parley/protocol"
)

// The composer's modes (docs/composer.md): every decision lands in the input area, one at a time.

const (
	modeShown  = `!!document.querySelector('#composer-mode')`
	modeGone   = `!document.querySelector('#composer-mode') && getComputedStyle(document.querySelector('.composer-bar')).display !== 'none'`
	guardPause = 450 * time.Millisecond // Enter is ignored for 400 ms after a decision appears (its field takes the focus after 1 s)
)

// pastGuard waits out the guard after a decision appeared: a click on it sooner is taken for
// one meant for what was there before it (machine/composer's Press), as an Enter is.
func pastGuard() chromedp.Action[chromedp.Void] { return chromedp.Sleep(guardPause) }

// openSession starts a server and a browser on a fresh session, and sends text from the
// composer.
func openSession(t *testing.T, text string) (*server, context.Context) {
	t.Helper()
	srv, ctx := openHome(t)
	if text != "" {
		// The first send moves the page to its session: under load it is the slowest step.
		do(t, ctx, 60*time.Second, typeText(text), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	}
	return srv, ctx
}

// openDecision is openSession on a prompt that asks the person something (a script's
// question, form or approval): it waits until the composer shows the decision, and then for
// the conditions in then (where the focus is, what the card says).
func openDecision(t *testing.T, text string, then ...chromedp.Action[chromedp.Void]) (*server, context.Context) {
	t.Helper()
	srv, ctx := openSession(t, text)
	do(t, ctx, 60*time.Second, append([]chromedp.Action[chromedp.Void]{waitJS(modeShown)}, then...)...)
	return srv, ctx
}

// TestOfflineASwitchLeavesTheLastSessionsQuestion (QA round 15): with the server away, a
// click on another session leaves the open session's question behind: the composer is the
// session's on screen, and what is typed goes to its draft, not into the other's question;
// the thread is the one this browser kept of that session (it was empty).
func TestOfflineASwitchLeavesTheLastSessionsQuestion(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script ask("Your name?", {"type":"string"})`)
	asking := sessionOf(t, ctx)
	other := answeredSession(t, srv, "Other", "hello")
	// The other session seen once, so this browser keeps its thread; then the asking one
	// again, with its question.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+other), waitReady(), waitCaughtUp(),
		waitJS(`(localStorage.getItem('parley.kept.`+other+`') || '').includes('hello')`),
		chromedp.Navigate(srv.base()+"/s/"+asking), waitReady(), waitJS(modeShown),
		waitJS(`!!document.querySelector('#sidebar .session-item[data-session="`+other+`"]')`))

	srv.kill()
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.offline')`),
		chromedp.Click(chromedp.CSS(`#sidebar .session-item[data-session="`+other+`"] .session-link`)),
		waitJS(`location.pathname === '/s/`+other+`'`), waitJS(`!(`+modeShown+`)`),
		// Its thread as this browser kept it.
		waitJS(`document.querySelector('.thread').innerText.includes('hello')`))
	do(t, ctx, 10*time.Second, chromedp.Click(composer), typeText("for the other one"),
		waitJS(`document.querySelector('#composer-input').value === 'for the other one'`))
}

func sessionOf(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalString(t, ctx, `location.pathname.slice(3)`)
}

// sendAPI sends a prompt to the session over the API, as another client would.
func sendAPI(t *testing.T, srv *server, session, text string) {
	t.Helper()
	_, err := apiClient(srv).SendPrompt(context.Background(), session, protocol.SendPromptRequest{Text: text, AttemptID: api.NewAttemptID()})
	require.NoError(t, err)
}

// js runs a JavaScript expression as a step.
func js(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](expr)(ctx, t)
		return err
	})
}

func tabKey(mods int64) chromedp.Action[chromedp.Void] { return rawKey("Tab", 9, mods) }

func space() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: " ", Code: "Space", Text: " ", UnmodifiedText: " ", WindowsVirtualKeyCode: 32, NativeVirtualKeyCode: 32}),
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: " ", Code: "Space", WindowsVirtualKeyCode: 32, NativeVirtualKeyCode: 32}),
	)
}

func activeID(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalString(t, ctx, `document.activeElement.id`)
}

func modeText(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return evalString(t, ctx, `(document.querySelector('#composer-mode `+sel+`') || {textContent: ''}).textContent`)
}

const threeQuestions = `/script r = ask('Set up the project', {'type': 'object', 'properties': {` +
	`'engine': {'type': 'string', 'header': 'Engine', 'title': 'Which engine?', 'enum': ['chromium', 'webkit']}, ` +
	`'theme': {'type': 'string', 'header': 'Theme', 'title': 'Which theme?', 'enum': ['light', 'dark']}, ` +
	`'name': {'type': 'string', 'header': 'Name', 'title': 'Project name'}}, 'required': ['engine', 'theme', 'name']}); ` +
	`send('engine=%s theme=%s name=%s' % (r['engine'], r['theme'], r['name']))`

// TestThreeQuestionsByChipsAndKeyboard answers a form of three questions with the keyboard
// only: a pick moves on to the next unanswered question, the chips go back and forth with
// ←/→ and keep the answers, Enter in the last field sends.
func TestThreeQuestionsByChipsAndKeyboard(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, threeQuestions)
	require.Equal(t, "Engine|Theme|Name", evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .chip')].map(c => c.textContent).join('|')`))
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-mode .send').disabled`), "nothing answered yet")

	// Once the guard has passed, the first question's first option has the focus; Space
	// picks it.
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.type === 'radio'`))
	require.Equal(t, "chromium", evalString(t, ctx, `document.activeElement.value`))
	do(t, ctx, 10*time.Second, space(), waitJS(`document.querySelector('#composer-mode .field:not(.is-hidden) .field-title')?.textContent.startsWith('Which theme?')`))
	require.Equal(t, "Engine ✓", modeText(t, ctx, `.chip`))
	// ↓ on the theme's radios walks to "dark" and stays; Enter takes it and moves on to the
	// name.
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.type === 'radio'`), rawKey("ArrowDown", 40, 0),
		waitJS(`document.activeElement.value === 'dark' && document.activeElement.checked`))
	time.Sleep(200 * time.Millisecond)
	require.True(t, evalBool(t, ctx, `document.activeElement.value === 'dark'`), "the arrow keys browse: the question stays")
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`document.activeElement.type === 'text'`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("parley"))
	require.Equal(t, "Engine ✓|Theme ✓|Name ✓", evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .chip')].map(c => c.textContent).join('|')`))

	// Back to the chips, ← to the theme: its answer is kept; → returns to the name.
	do(t, ctx, 10*time.Second, tabKey(modShift), tabKey(modShift))
	require.Equal(t, "tab", evalString(t, ctx, `document.activeElement.getAttribute('role')`))
	do(t, ctx, 10*time.Second, rawKey("ArrowLeft", 37, 0), waitJS(`document.querySelector('#composer-mode .field:not(.is-hidden) .field-title')?.textContent.startsWith('Which theme?')`))
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-mode input[value=dark]').checked`))
	require.Equal(t, "Theme ✓", evalString(t, ctx, `document.activeElement.textContent`), "the focus follows the chip")
	do(t, ctx, 10*time.Second, rawKey("ArrowRight", 39, 0), waitJS(`document.querySelector('#composer-mode .field:not(.is-hidden) .field-title')?.textContent.startsWith('Project name')`))
	require.Equal(t, "parley", evalString(t, ctx, `document.querySelector('#composer-mode .field:not(.is-hidden) input[type=text]').value`))

	// Into the field and Enter: the last question of a complete form sends the lot.
	do(t, ctx, 10*time.Second, tabKey(0), tabKey(0), pressEnter(0))
	waitReply(t, ctx, "engine=chromium theme=dark name=parley")
	do(t, ctx, 10*time.Second, waitJS(modeGone))
}

// TestLoneChoiceIsOneClick answers a single choice by clicking it. A script's choices are
// its own: no "Other…" unless it opens it (QA round 22).
func TestLoneChoiceIsOneClick(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('env=' + ask('Which environment?', {'type': 'string', 'enum': ['staging', 'prod']}))`)
	require.Equal(t, "Which environment?", modeText(t, ctx, `.question-message`))
	require.Equal(t, "staging|prod", evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .choice')].map(c => c.innerText).join('|')`))
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice:nth-child(2)`)))
	waitReply(t, ctx, "env=prod")
	do(t, ctx, 10*time.Second, waitJS(modeGone))
	require.Equal(t, "prod", evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`), "the thread keeps the outcome")
}

const everyKind = `/script r = ask('Tell me everything', {'type': 'object', 'properties': {` +
	`'title': {'type': 'string', 'header': 'Title'}, ` +
	`'notes': {'type': 'string', 'header': 'Notes', 'multiline': True}, ` +
	`'mail': {'type': 'string', 'header': 'Mail', 'format': 'email'}, ` +
	`'site': {'type': 'string', 'header': 'Site', 'format': 'uri'}, ` +
	`'day': {'type': 'string', 'header': 'Day', 'format': 'date'}, ` +
	`'ratio': {'type': 'number', 'header': 'Ratio', 'minimum': 0, 'maximum': 1}, ` +
	`'count': {'type': 'integer', 'header': 'Count', 'minimum': 1}, ` +
	`'agree': {'type': 'boolean', 'header': 'Agree'}, ` +
	`'color': {'type': 'string', 'header': 'Color', 'enum': ['red', 'green']}, ` +
	`'tags': {'type': 'array', 'header': 'Tags', 'items': {'type': 'string', 'enum': ['a', 'b', 'c']}}}, ` +
	`'required': ['title', 'mail']}); ` +
	`send('|'.join([str(r[k]) for k in ['title', 'notes', 'mail', 'site', 'day', 'ratio', 'count', 'agree', 'color', 'tags']]))`

// TestEveryFieldKindIsSubmitted fills one field of every kind, going question to question by
// the chips, and the server takes the content. A bad e-mail address first shows the
// protocol's own words under its field, and nothing is sent.
func TestEveryFieldKindIsSubmitted(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, everyKind)
	chip := func(header string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			js(`[...document.querySelectorAll('#composer-mode [role=tab]')].find(c => c.textContent.startsWith('`+header+`')).click(), true`),
			waitJS(`document.querySelector('#composer-mode [role=tab][aria-selected=true]').textContent.startsWith('`+header+`')`),
		)
	}
	typeIn := func(sel, text string) chromedp.Action[chromedp.Void] {
		return chromedp.SendKeys(chromedp.CSS(`#composer-mode .field:not(.is-hidden) `+sel), text)
	}
	do(t, ctx, 20*time.Second, pastGuard(),
		chip("Title"), typeIn(`input[type=text]`, "Report"),
		chip("Notes"), typeIn(`textarea`, "line one"),
		chip("Mail"), typeIn(`input[type=email]`, "not-an-address"),
		chip("Site"), typeIn(`input[type=url]`, "https://example.org/x"),
		// Typed with no pause between the keys: the field's value is the browser's, so the
		// decimal point stays.
		chip("Ratio"), typeIn(`input[type=number]`, "0.5"),
		chip("Count"), typeIn(`input[type=number]`, "3"),
		chip("Agree"), chromedp.Click(chromedp.CSS(`#composer-mode input[value=true]`)),
		chip("Color"), chromedp.Click(chromedp.CSS(`#composer-mode input[value=green]`)),
		chip("Tags"), chromedp.Click(chromedp.CSS(`#composer-mode input[value=a]`)), chromedp.Click(chromedp.CSS(`#composer-mode input[value=c]`)),
		chip("Day"),
	)
	// A date input takes keys in the browser's locale format; set it as a picker would.
	evalBool(t, ctx, `(() => { const d = document.querySelector('#composer-mode input[type=date]'); d.value = '2026-12-01';
		d.dispatchEvent(new Event('input', {bubbles: true})); return true })()`)

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .send`)),
		waitJS(`!!document.querySelector('#composer-mode .field-error')`))
	require.Contains(t, modeText(t, ctx, `[role=tab][aria-selected=true]`), "Mail", "the first invalid question is shown")
	require.Equal(t, "Must be an email address like name@example.com.", modeText(t, ctx, `.field-error`))
	require.Equal(t, "true", evalString(t, ctx, `document.querySelector('#composer-mode input[type=email]').getAttribute('aria-invalid')`))
	assertOnePending(t, srv, ctx, "nothing was sent: the question is still pending")

	// Typing key by key is slow on a loaded 2-core machine: a generous deadline.
	do(t, ctx, 30*time.Second,
		// Clear it as select-all and Delete would (SendKeys focuses first, which may move the
		// caret after a select()).
		js(`(e => { e.value = ''; e.dispatchEvent(new Event('input', {bubbles: true})) })(document.querySelector('#composer-mode input[type=email]'))`),
		typeIn(`input[type=email]`, "ada@example.org"),
		waitJS(`!document.querySelector('#composer-mode .field-error')`),
		chromedp.Click(chromedp.CSS(`#composer-mode .send`)))
	waitReply(t, ctx, `Report|line one|ada@example.org|https://example.org/x|2026-12-01|0.5|3|True|green|["a", "c"]`)
}

// Its message says "got …", so it is not the run's output repeated (a repeat is folded into
// the run's card).
const echoScript = `/script r = run(['echo', 'hello']); send('got ' + (r.error or r.stdout.strip()))`

// TestApprovalIsOneClick approves a tool run from the composer: one click on the option.
func TestApprovalIsOneClick(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, echoScript)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval, #composer-mode .badge-approval')`))
	require.Equal(t, "Allow running echo?", modeText(t, ctx, `.approval-message`))
	require.Contains(t, modeText(t, ctx, `.approval-details`), "echo hello")
	require.Equal(t, "Approve|Approve, and always for this command|Reject",
		evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .choice-label')].map(e => e.textContent).join('|')`))
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)))
	waitReply(t, ctx, "got hello")
	do(t, ctx, 10*time.Second, waitJS(modeGone))
}

// TestRejectionWithAReasonReachesTheTool types what to do instead: it goes through the send
// button as a rejection, and the tool's error is those words.
func TestRejectionWithAReasonReachesTheTool(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, echoScript)
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-mode .send').disabled`), "nothing typed, nothing to send")
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), "use printf instead"),
		waitJS(`!document.querySelector('#composer-mode .send').disabled`),
		pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .send`)))
	waitReply(t, ctx, "got rejected by the user: use printf instead")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.entry-run .entry-output').textContent`), "was not done: rejected by the user: use printf instead")
	require.Equal(t, "Rejected: use printf instead", evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`), "the outcome in words")
}

// TestAlwaysCreatesAGrant picks "always": the same command later runs without asking.
func TestAlwaysCreatesAGrant(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, echoScript)
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice:nth-child(2)`)))
	waitMessages(t, ctx, 2)
	grants, err := apiClient(srv).ListGrants(context.Background())
	require.NoError(t, err)
	require.Len(t, grants, 1)

	do(t, ctx, 10*time.Second, waitJS(modeGone), typeText(echoScript), pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "got hello", msgs[3].Text)
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.entry-decision').length`))), "the second run did not ask")
	require.False(t, evalBool(t, ctx, modeShown))
}

// TestDecisionsQueueFirstInFirstOut asks from the server and then from browser code: the
// second waits until the first is answered, and then takes the input area.
func TestDecisionsQueueFirstInFirstOut(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('first=' + str(confirm('First?')))`)
	evalBool(t, ctx, `(window.__second = parley.requestUserInput({kind: 'ask', message: 'Second?', schema: {type: 'string', enum: ['a', 'b']}})
		.then(r => window.__answer = JSON.stringify(r)), true)`)
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, "First?", modeText(t, ctx, `.question-message`), "the second waits: nothing stacks")
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('#composer-mode').length`))))

	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)),
		waitJS(`document.querySelector('#composer-mode .question-message')?.textContent === 'Second?'`))
	waitReply(t, ctx, "first=True")
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice:nth-child(2)`)),
		waitJS(`!!window.__answer`), waitJS(modeGone))
	require.Equal(t, `{"action":"accept","content":"b"}`, evalString(t, ctx, `window.__answer`))
}

// TestRequestUserInputEndings: a decline is an answer; a cancelled request rejects with an
// AbortError and leaves the input area.
func TestRequestUserInputEndings(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "")
	// A question's Decline (a confirm has none: its No is the answer).
	evalBool(t, ctx, `(parley.requestUserInput({kind: 'ask', message: 'Your name?', schema: {type: 'string'}}).then(r => window.__first = JSON.stringify(r)), true)`)
	do(t, ctx, 10*time.Second, waitJS(modeShown), js(`document.querySelector('#composer-mode .secondary').click()`), waitJS(`!!window.__first`))
	require.Equal(t, `{"action":"decline"}`, evalString(t, ctx, `window.__first`))

	evalBool(t, ctx, `(window.__ac = new AbortController(), parley.requestUserInput({kind: 'confirm', message: 'Again?'}, window.__ac.signal)
		.catch(e => window.__second = e.name + ':' + e.reason), true)`)
	do(t, ctx, 10*time.Second, waitJS(modeShown), js(`window.__ac.abort()`), waitJS(`!!window.__second`), waitJS(modeGone))
	require.Equal(t, "AbortError:aborted", evalString(t, ctx, `window.__second`))
}

// TestFnFormIsCancelledByADecision opens the fn-form, then a decision arrives: the form goes
// (no stash, no restore) and the decision takes the input area.
func TestFnFormIsCancelledByADecision(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.control-button`)), waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
		js(`(s => { s.value = 'greet'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#fn-pick'))`),
		waitJS(`!!document.querySelector('#composer-mode .fn-form input[type=text]')`),
		chromedp.SendKeys(chromedp.CSS(`#composer-mode .fn-form input[type=text]`), "Ada"))
	sendAPI(t, srv, sessionOf(t, ctx), `/script send('ok=' + str(confirm('Interrupting?')))`)
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-question')`))
	require.Equal(t, "Interrupting?", modeText(t, ctx, `.question-message`))
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))
	require.False(t, evalBool(t, ctx, modeShown), "the fn-form is not restored")
}

// TestFnFormRunsAFunction fills and runs a function from the hero: the run starts a session,
// the view goes there, and the run's events stream in.
func TestFnFormRunsAFunction(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "")
	// The bar has taken over (live) and the hero's starters are in, so its layout has
	// settled: a click at a button's place while the starters arrived landed on whatever
	// moved there (a starter that asked a question). The click is the element's own, so no
	// layout can move it; the page moves the focus only when nothing else holds it
	// (docs/composer.md), so the picker keeps it.
	openFns := js(`document.querySelector('.control-button:not(.model-button)').click()`)
	do(t, ctx, 20*time.Second, waitJS(`document.documentElement.hasAttribute('data-composer-live') && !!document.querySelector('.starter')`))
	do(t, ctx, 10*time.Second, openFns, waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`))
	// Opened, the form has the focus at its picker, so Escape closes it; opened again, the
	// same.
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement?.id === 'fn-pick'`), rawKey("Escape", 27, 0), waitJS(modeGone))
	do(t, ctx, 10*time.Second, openFns, waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`), waitJS(`document.activeElement?.id === 'fn-pick'`))
	do(t, ctx, 10*time.Second, js(`(s => { s.value = 'greet'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#fn-pick'))`),
		waitJS(`!!document.querySelector('#composer-mode .fn-form input[type=text]')`))
	// Run cannot run yet and says why: aria-disabled (it keeps the focus it can take) and
	// described by the line under the fields.
	require.True(t, evalBool(t, ctx, `(b => b.getAttribute('aria-disabled') === 'true' && b.textContent === 'Run' &&
		document.getElementById(b.getAttribute('aria-describedby')).textContent.startsWith('Fill in every required field'))(document.querySelector('#composer-mode .send.run'))`), "the name is required")
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#composer-mode .fn-form input[type=text]`), "Ada"),
		chromedp.Click(chromedp.CSS(`#composer-mode .fn-form input[value=true]`)),
		waitJS(`document.querySelector('#composer-mode .send.run').getAttribute('aria-disabled') === null`),
		chromedp.Click(chromedp.CSS(`#composer-mode .send.run`)),
		waitJS(`location.pathname.startsWith('/s/')`))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-run.status-done')`), waitJS(modeGone))
	// The greeting it sent is its result: shown once, in the run's card.
	require.Equal(t, "Hello, Ada!", evalString(t, ctx, `document.querySelector('.entry-run .entry-result').textContent`))
	require.Equal(t, 1, strings.Count(evalString(t, ctx, `document.querySelector('.thread-inner').innerText`), "Hello, Ada!"))
}

// draftThenConfirm opens a session that has answered its first prompt, types "half a
// thought" in the composer, and has a confirm asked in the session.
func draftThenConfirm(t *testing.T) context.Context {
	t.Helper()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, typeText("half a thought"))
	sendAPI(t, srv, sessionOf(t, ctx), `/script confirm('Quick question?')`)
	return ctx
}

// TestDraftIsKeptUnderADecision types a draft, a decision takes the input area, and the draft
// is back, focused, when it ends.
func TestDraftIsKeptUnderADecision(t *testing.T) {
	t.Parallel()
	ctx := draftThenConfirm(t)
	do(t, ctx, 20*time.Second, waitJS(modeShown))
	// Typing on: the letters go to the draft, and Enter answers nothing.
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("xy"), pressEnter(0))
	require.True(t, evalBool(t, ctx, modeShown), "Enter right after the decision appeared answered nothing")
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone),
		waitJS(`document.activeElement.id === 'composer-input'`))
	require.Equal(t, "half a thoughtxy", draft(t, ctx), "the keys typed as it appeared went to the draft they were meant for")
}

// TestAnsweredInAnotherTab: the question shows in two tabs; answered in one, the other exits.
func TestAnsweredInAnotherTab(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script confirm('Two tabs?')`)
	url := evalString(t, ctx, `location.href`)
	other, cancel := chromedp.NewContext(ctx)
	defer cancel()
	// The tab is created here, outside a deadline: it closes when the context that created
	// it ends.
	require.NoError(t, chromedp.Do(other))
	do(t, other, 30*time.Second, chromedp.Navigate(url), waitReady(), waitJS(modeShown))
	do(t, other, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))
	do(t, ctx, 10*time.Second, waitJS(modeGone))
	require.Equal(t, "Yes", evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`))
}

// TestTimeoutLeavesANote: nobody answers; the mode exits with a one-line note, which goes
// once the person types (QA round 20 #1: it stayed through typing, a send and the reply).
func TestTimeoutLeavesANote(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script confirm('Anyone?', timeout=1)`)
	do(t, ctx, 20*time.Second, waitJS(modeGone))
	const note = `document.querySelector('.composer-note[role=status]').textContent`
	require.Equal(t, "No response, timed out.", evalString(t, ctx, note))
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("s"), waitJS(note+` === ""`))
}

// TestReloadBringsTheQuestionBack reloads mid-question: the question is back, with the
// answers given so far.
func TestReloadBringsTheQuestionBack(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, threeQuestions)
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode input[value=webkit]`)),
		waitJS(`document.querySelector('#composer-mode .chip').textContent === 'Engine ✓'`))
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitJS(modeShown))
	require.Equal(t, "Set up the project", modeText(t, ctx, `.question-message`))
	require.Equal(t, "Engine ✓|Theme|Name", evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .chip')].map(c => c.textContent).join('|')`))
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-mode input[value=webkit]').checked`), "the answer given is back")
	require.Contains(t, modeText(t, ctx, `[role=tab][aria-selected=true]`), "Theme", "on the first question still unanswered")
}

// TestStopAbortsTheShownDecision: Stop ends the turn, and its question leaves the input area.
func TestStopAbortsTheShownDecision(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script confirm('Deploy?')`)
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.thread .stop`)), waitJS(modeGone))
	require.Equal(t, "Stopped by you", evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`))
}

// TestADecisionOpenedFromTheApprovalsScreenIsShown: a decision set aside, then chosen on the
// approvals screen: its thread opens with it in the composer and the focus in it, not set
// aside a step away (QA round 20 #9).
func TestADecisionOpenedFromTheApprovalsScreenIsShown(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('ok=' + str(confirm('Go ahead?')))`)
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .chat-about`)), waitJS(modeGone),
		waitJS(`!!document.querySelector('.env-chip')`))
	do(t, ctx, 20*time.Second, chromedp.Click(chromedp.CSS(`#sidebar a[href="/approvals"]`)), waitJS(`!!document.querySelector('.queue-entry .queue-thread')`),
		chromedp.Click(chromedp.CSS(`.queue-entry .queue-thread`)), waitJS(`location.pathname.startsWith('/s/')`), waitJS(modeShown), waitJS(focusIn))
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.env-chip')`), "not set aside any more")
}

// TestSetAsideSurvivesAReload: a decision the person set aside stays set aside after a
// reload (it does not take the input area and the focus again) until they return to it with
// "Answer"; once returned to, a reload shows it as before.
func TestSetAsideSurvivesAReload(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('ok=' + str(confirm('Go ahead?')))`)
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .chat-about`)), waitJS(modeGone))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitCaughtUp(), waitJS(`!!document.querySelector('.env-chip')`))
	require.False(t, evalBool(t, ctx, modeShown), "still set aside after the reload")
	require.NotEqual(t, "composer-mode", activeID(t, ctx))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.env-chip`)), waitJS(modeShown))
	// Returned to: a reload shows it again, as a decision not set aside.
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitCaughtUp(), waitJS(modeShown))
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.env-chip')`))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))
	waitReply(t, ctx, "ok=True")
}

// TestChatAboutThisKeepsTheQuestion sets the question aside, sends a message, and comes back
// to answer it.
func TestChatAboutThisKeepsTheQuestion(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('ok=' + str(confirm('Go ahead?')))`)
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .chat-about`)), waitJS(modeGone))
	require.Equal(t, "1 decision is waiting · Answer", evalString(t, ctx, `document.querySelector('.env-chip').textContent`))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.env-chip`)), waitJS(modeShown),
		pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)))
	waitReply(t, ctx, "ok=True")
}

// waitingCard is the thread's one-line card of an open decision; cardWords what it says.
const (
	waitingCard = `document.querySelector('.entry-waiting')`
	cardWords   = `(` + waitingCard + `?.querySelector('.when-wide')?.textContent || '')`
)

// TestASetAsideDecisionSaysSoInItsCard: a question set aside ("Chat about this", or Escape;
// the idle input shows below) is not "Waiting for your answer below" in its thread card: the card says it
// is set aside, and Enter on it brings the question back into the composer (QA round 6).
func TestASetAsideDecisionSaysSoInItsCard(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, threeQuestions, waitJS(cardWords+` === 'Waiting for your answer below'`))
	// "Chat about this", which Escape does too (the same machine event), by its own click:
	// no wait for the decision to take the focus, which a loaded machine makes slow.
	do(t, ctx, 10*time.Second, clickJS(`#composer-mode .chat-about`), waitJS(modeGone))
	waitShowing(t, ctx, 20*time.Second, cardWords+` === 'Set aside: click or press Enter to answer'`, cardWords)
	require.Contains(t, evalString(t, ctx, waitingCard+`.getAttribute('aria-label')`), "Set aside")
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
// Send, which Enter presses (QA round 6).
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

// TestApproveClickedWithWordsKeepsThem: a person types words in an approval's field, then
// clicks Approve. It approves (the button they clicked says so), and the words are not
// dropped: they wait in the box below for the next message, with a notice that says so. The
// Ctrl+Enter hint is on what Ctrl+Enter does with words typed (Send: reject with them), not on
// Approve (QA round 7).
func TestApproveClickedWithWordsKeepsThem(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, echoScript, waitJS(`document.activeElement.id === 'approval-instruction'`))
	const approveButton = `#composer-mode .choices .choice.tone-affirm`
	require.True(t, evalBool(t, ctx, `!!document.querySelector('`+approveButton+` .key-hint')`), "with nothing typed, Approve is Ctrl+Enter")
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), "then say bye"),
		waitJS(`document.querySelector('#approval-instruction').value === 'then say bye'`),
		// The hint moves to Send: with words typed, Ctrl+Enter sends them (the rejection).
		waitJS(`!document.querySelector('`+approveButton+` .key-hint') && !!document.querySelector('#composer-mode .morph-actions .send .key-hint')`))
	do(t, ctx, 30*time.Second, chromedp.Click(chromedp.CSS(approveButton)), waitJS(modeGone),
		waitJS(`document.querySelector('#composer-input').value === 'then say bye'`))
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "got hello", msgs[len(msgs)-1].Text, "approved: the command ran")
	require.Contains(t, noticeText(t, ctx), "Approved. Your words are back in the box", "the person is told where the words went")
	require.Equal(t, "notice said", evalString(t, ctx, `document.querySelector('.notice-slot .notice').className`), "news, not drawn as a problem")
}

// TestFnFormTabOrderAndKeptFields: Tab from the function picker goes to the first field (the
// visual order: the run and close buttons come after the fields), and closing the form keeps
// what was typed: reopened on the same function, the field still holds it.
func TestFnFormTabOrderAndKeptFields(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	openFns := js(`document.querySelector('.control-button:not(.model-button)').click()`)
	pick := js(`(s => { s.value = 'greet'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#fn-pick'))`)
	field := `#composer-mode .fn-form input[type=text]`
	do(t, ctx, 10*time.Second, openFns, waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`), pick,
		waitJS(`!!document.querySelector('`+field+`')`),
		js(`document.querySelector('#fn-pick').focus()`), tabKey(0),
		waitJS(`document.activeElement === document.querySelector('`+field+`')`))
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(field), "Ada"),
		js(`document.querySelector('#composer-mode .square.close').click()`), waitJS(modeGone))
	do(t, ctx, 10*time.Second, openFns, waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`))
	// Reopened on the function it was closed on, with its field as typed.
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('`+field+`')`))
	require.Equal(t, "greet", evalString(t, ctx, `document.querySelector('#fn-pick').value`))
	require.Equal(t, "Ada", evalString(t, ctx, `document.querySelector('`+field+`').value`))
	// Picked again, the same.
	do(t, ctx, 10*time.Second, pick, waitJS(`!!document.querySelector('`+field+`')`))
	require.Equal(t, "Ada", evalString(t, ctx, `document.querySelector('`+field+`').value`))
}

// TestANextConfirmTakesTheFocusAtNo: a confirm that follows an answer takes the focus at its
// safe answer, No, not at Yes: a second Enter meant for the first must not say Yes to it.
func TestANextConfirmTakesTheFocusAtNo(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, "/script a = confirm('Ship it?'); b = confirm('Really?'); send(str(a) + str(b))", waitJS(`document.querySelector('#composer-mode .question-message')?.textContent === 'Ship it?'`))
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice.tone-neutral`)),
		waitJS(`document.querySelector('#composer-mode .question-message')?.textContent === 'Really?' && `+focusIn))
	require.Equal(t, "No", evalString(t, ctx, `document.activeElement.textContent`))
	// After a click, :focus-visible does not match; the focus is drawn all the same, since
	// Enter answers with it (QA round 20 #3).
	require.NotEqual(t, "none", evalString(t, ctx, `getComputedStyle(document.activeElement).outlineStyle`), "the focus on No shows")
}

// TestLettersOnAChoiceGoToTheDraft: letters typed on a confirm's focused No answer nothing
// and are not lost: they are the draft's, shown in its strip. So are the ones typed while the
// page comes back onto that confirm, every one of them (QA round 21: the first went to the
// hidden draft, the rest nowhere, and the strip was missing or wrong).
func TestLettersOnAChoiceGoToTheDraft(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('ok=' + str(confirm('Go ahead?')))`, waitJS(focusIn))
	require.Equal(t, "No", evalString(t, ctx, `document.activeElement.textContent`))
	// The Space between two words and an Enter press nothing: the first letter took the
	// focus off the choice (the re-test of QA round 21: "ok then" answered No).
	typeAt(t, ctx, newRand(), "ok then", typistsPace)
	do(t, ctx, 10*time.Second, pressEnter(0))
	const strip = `(document.querySelector('#composer-mode .draft-strip')?.textContent || '')`
	waitShowing(t, ctx, 10*time.Second, strip+`.includes('ok then')`, strip+` + ' | draft: ' + document.querySelector('#composer-input').value`)
	require.Equal(t, "ok then", draft(t, ctx))
	require.True(t, evalBool(t, ctx, modeShown), "nothing answered")

	do(t, ctx, 10*time.Second, chromedp.Sleep(1500*time.Millisecond)) // the draft is kept
	url := evalString(t, ctx, `location.href`)
	release := holdWasm(t, ctx)
	navigateNoWait(t, ctx, url)
	typeAt(t, ctx, newRand(), " a b", typistsPace)
	release()
	waitShowing(t, ctx, 30*time.Second, strip+`.includes('ok then a b')`, strip+` + ' | draft: ' + document.querySelector('#composer-input').value`)
	require.Equal(t, "ok then a b", draft(t, ctx))
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-mode .question-message')?.textContent === 'Go ahead?'`), "still asked")
}

// TestAConfirmsArrowsStopAtItsEnds (QA round 17): a confirm takes the focus at No, the
// right-hand button; → stays there (it went round to Yes, and Enter said yes by accident).
// In a right-to-left page No is drawn on the left: ← stays on it, → goes to Yes.
func TestAConfirmsArrowsStopAtItsEnds(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, "/script a = confirm('Deploy now?'); b = confirm('Deploy again?'); send('a=' + str(a) + ' b=' + str(b))")
	on := func(label string) string {
		return `document.activeElement?.closest('#composer-mode .choices') && document.activeElement.textContent === '` + label + `'`
	}
	right, left := rawKey("ArrowRight", 39, 0), rawKey("ArrowLeft", 37, 0)
	do(t, ctx, 10*time.Second, shownAsking("Deploy now?"), waitJS(on("No")), pastGuard(), right)
	require.True(t, evalBool(t, ctx, on("No")), "→ stays on No")
	do(t, ctx, 10*time.Second, left, waitJS(on("Yes")), left)
	require.True(t, evalBool(t, ctx, on("Yes")), "← stays on Yes")
	do(t, ctx, 10*time.Second, right, waitJS(on("No")), pressEnter(0), shownAsking("Deploy again?"))

	do(t, ctx, 10*time.Second, js(`document.documentElement.dir = 'rtl'`), waitJS(on("No")), pastGuard())
	require.True(t, evalBool(t, ctx, `(b => b[0].getBoundingClientRect().left > b[1].getBoundingClientRect().left)(document.querySelectorAll('#composer-mode .choice'))`),
		"right to left, Yes is drawn on the right")
	do(t, ctx, 10*time.Second, left)
	require.True(t, evalBool(t, ctx, on("No")), "← stays on No, drawn leftmost")
	do(t, ctx, 10*time.Second, right, waitJS(on("Yes")), right)
	require.True(t, evalBool(t, ctx, on("Yes")), "→ stays on Yes, drawn rightmost")
	do(t, ctx, 10*time.Second, left, waitJS(on("No")), pressEnter(0))
	waitReply(t, ctx, "a=False b=False")
}

// TestKeptAnswersGoWhenTheDecisionEndsElsewhere: what a form's fields kept in sessionStorage
// (so a reload keeps it) is removed once the decision ends, answered here or anywhere else.
func TestKeptAnswersGoWhenTheDecisionEndsElsewhere(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script ask('Two?', {'type': 'object', 'properties': {'x': {'type': 'string', 'title': 'X'}, 'y': {'type': 'string', 'title': 'Y'}}})`, waitJS(focusIn))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("abc"))
	id := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending')?.dataset.decision || ''`)
	require.NotEmpty(t, id)
	key := `sessionStorage.getItem('parley.answers.` + id + `')`
	do(t, ctx, 10*time.Second, waitJS(key+` !== null`))
	_, err := apiClient(srv).Reply(context.Background(), sessionOf(t, ctx), id,
		protocol.ReplyRequest{Action: protocol.ActionAccept, Content: []byte(`{"x":"from","y":"elsewhere"}`)})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(modeGone), waitJS(key+` === null`))
}

// greetField is the text field of the "greet" function's form.
const greetField = `document.querySelector('#composer-mode .fn-form input[type=text]')`

// openGreet opens the fn-form ("ƒ Functions") on the "greet" function, or goes back to it.
var openGreet = []chromedp.Action[chromedp.Void]{
	js(`document.querySelector('.control-button:not(.model-button)').click()`),
	waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`),
	waitJS(`document.querySelectorAll('#fn-pick option').length > 1`),
	js(`(s => { if (s.value !== 'greet') { s.value = 'greet'; s.dispatchEvent(new Event('change', {bubbles: true})) } })(document.querySelector('#fn-pick'))`),
	waitJS(`!!` + greetField),
}

// TestEnterInAnIncompleteFnFormSaysWhy: Enter in a required field left empty says it is
// required, as a question does; then, filled, Enter runs the function (QA round 21: Enter did
// nothing visible, the disabled Run its only answer).
func TestEnterInAnIncompleteFnFormSaysWhy(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, append(openGreet, js(greetField+`.focus()`), pressEnter(0))...)
	waitShowing(t, ctx, 10*time.Second, `(document.querySelector('#composer-mode .fn-form')?.textContent || '').includes('required')`,
		`document.querySelector('#composer-mode')?.innerText`)
	require.True(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode.mode-fn-form')`), "the form stays")
	typeAt(t, ctx, newRand(), "Ada", typistsPace)
	do(t, ctx, 10*time.Second, pressEnter(0),
		waitJS(`(document.querySelector('.entry-run')?.textContent || '').includes('Hello, Ada')`))
}

// typeInGreet opens a session, its fn-form on "greet", and types text into its field.
func typeInGreet(t *testing.T, text string) context.Context {
	t.Helper()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, openGreet...)
	do(t, ctx, 10*time.Second, js(greetField+`.focus()`), waitJS(`document.activeElement === `+greetField), chromedp.KeyEvent(text))
	return ctx
}

// TestAFunctionAddedWhileThePageIsOpenOpensItsForm: a function written into the workspace
// after the page read its list is offered by the `/` menu, and picking it opens its form, not
// an empty picker (QA round 20 #8).
func TestAFunctionAddedWhileThePageIsOpenOpensItsForm(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	_, ctx := openHomeOn(t, data)
	do(t, ctx, 30*time.Second, chromedp.Focus(composer), typeText("hello"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	waitMessages(t, ctx, 2)
	testkit.WriteTree(t, data+"-workspace", map[string]string{".parley/functions/shout.star": `TITLE = "Shout a word"
PARAMS = {"type": "object", "properties": {"word": {"type": "string", "title": "Word"}}, "required": ["word"]}

def main(args):
    send(args["word"].upper())
`})
	do(t, ctx, 20*time.Second, chromedp.Focus(composer), typeText("/sho"), menuOpen("ƒ shout"), pressEnter(0),
		waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`))
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('#fn-pick')?.value === 'shout' && !!`+greetField))
}

// TestTheFnFormIsReadyOnlyWhenItsAnswersAre: a required number field with a bound holds a
// number out of it. The hint under Run says some answers are not right yet, not "Ready"
// (QA round 25); a number in bounds makes it ready.
func TestTheFnFormIsReadyOnlyWhenItsAnswersAre(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	testkit.WriteTree(t, data+"-workspace", map[string]string{".parley/functions/repeat.star": `TITLE = "Repeat a word"
PARAMS = {"type": "object", "properties": {"times": {"type": "integer", "title": "Times", "minimum": 1, "maximum": 5}}, "required": ["times"]}

def main(args):
    send("ok " * args["times"])
`})
	_, ctx := openHomeOn(t, data)
	do(t, ctx, 20*time.Second, chromedp.Focus(composer), typeText("/repe"), menuOpen("ƒ repeat"), pressEnter(0),
		waitJS(`!!document.querySelector('#composer-mode.mode-fn-form')`))
	// The form shows the function picked once the page has read the list that holds it.
	waitShowing(t, ctx, 20*time.Second, `document.querySelector('#fn-pick')?.value === 'repeat' && !!document.querySelector('#composer-mode .fn-form input[type=number]')`,
		`document.querySelector('#fn-pick')?.value + ' | ' + document.querySelector('#composer-mode')?.outerHTML.slice(0, 1500)`)
	field := `document.querySelector('#composer-mode .fn-form input[type=number]')`
	hint := `(document.querySelector('.morph-hint')?.textContent || '')`
	do(t, ctx, 10*time.Second, js(field+`.focus()`), chromedp.KeyEvent("9"))
	waitShowing(t, ctx, 10*time.Second, hint+`.includes('not right yet')`, hint+` + ' | ' + `+field+`.value`)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent(kb.Backspace), chromedp.KeyEvent("3"),
		waitJS(hint+`.startsWith('Ready')`))
}

// TestASpaceOnARadioNeverRuns: a person types a name, Tabs on and types the surname's
// space: the Space lands on the next question's radio. It chooses it, as a click does, and
// never runs the function (QA round 20 #13, P1: it ran "Hello, Ann.").
func TestASpaceOnARadioNeverRuns(t *testing.T) {
	t.Parallel()
	ctx := typeInGreet(t, "Ann")
	do(t, ctx, 10*time.Second, tabKey(0), waitJS(`document.activeElement.type === 'radio'`), chromedp.KeyEvent(" "), chromedp.Sleep(time.Second))
	require.True(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode.mode-fn-form')`), "the form is still open")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-run')`), "nothing ran")
	require.True(t, evalBool(t, ctx, `document.activeElement.type === 'radio' && document.activeElement.checked`), "the Space chose the radio")
}

// TestAClickOnFunctionsInTheFnFormKeepsTheFocus: with the fn-form open, "ƒ Functions" does
// nothing; a click on it sent the focus to the page's body (a disabled button's), and the
// keys typed next into the draft the form hides (QA round 15 P3-1). The focus stays in the
// form's field, and the keys go there.
func TestAClickOnFunctionsInTheFnFormKeepsTheFocus(t *testing.T) {
	t.Parallel()
	ctx := typeInGreet(t, "Ada")
	fns := `.composer-controls-row .control-button:not(.model-button)`
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(fns)), chromedp.KeyEvent("xyz"))
	require.Equal(t, "Adaxyz", evalString(t, ctx, greetField+`.value`), "the keys went to the form")
	require.True(t, evalBool(t, ctx, `document.activeElement === `+greetField), "the focus stayed in the field")
	require.Equal(t, "", evalString(t, ctx, `document.querySelector('#composer-input').value`), "nothing went to the hidden draft")
	require.True(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode.mode-fn-form')`), "the form is still open")
	require.Equal(t, "true", evalString(t, ctx, `document.querySelector('`+fns+`').getAttribute('aria-disabled') || ''`), "ƒ Functions says it does nothing now")

	// A click on the form's words puts the focus on its body; the keys typed next are the
	// form's too (QA round 20 #7: they went into the hidden draft).
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .fn-description`)),
		waitJS(`document.activeElement.id === 'composer-mode'`), chromedp.KeyEvent(" B"))
	require.Equal(t, "Adaxyz B", evalString(t, ctx, greetField+`.value`), "the keys went to the form")
	require.Equal(t, "", evalString(t, ctx, `document.querySelector('#composer-input').value`), "nothing went to the hidden draft")
}

// TestADecisionWaitsForThePauseInTheFnForm: a decision that lands while the person types in
// their fn-form waits until they pause, and only then takes the form's place (QA round 12
// #17). Before, it took the place mid-word: the word's start stayed in the form's kept
// fields and its end went to the draft.
func TestADecisionWaitsForThePauseInTheFnForm(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, append(openGreet, js(greetField+`.focus()`))...)
	// The note that says a decision waits, caught whenever it shows.
	evalBool(t, ctx, `(window.__held = false, new MutationObserver(() => {
		if (document.querySelector('.composer-note')?.textContent.includes('A decision is waiting')) window.__held = true
	}).observe(document.body, {subtree: true, childList: true, characterData: true}), true)`)

	sendAPI(t, srv, sessionOf(t, ctx), `/script send('ok=' + str(confirm('Interrupting?')))`)
	const name = "Ada Lovelace of London"
	typeAt(t, ctx, rand.New(rand.NewPCG(17, 17)), name, [2]time.Duration{60 * time.Millisecond, 150 * time.Millisecond})
	require.True(t, evalBool(t, ctx, `window.__held`), "the confirm landed while the person typed, and waited")
	require.Equal(t, name, evalString(t, ctx, greetField+`?.value ?? ''`), "every key went to the form")

	// Paused, the person sees the decision take the form's place.
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-question')`))
	require.Equal(t, "Interrupting?", modeText(t, ctx, `.question-message`))
	require.Equal(t, "", draft(t, ctx), "no key went to the draft")
	// A pause to think, then the person types on: the decision that took their form's place
	// never took the focus, so the keys answer nothing (QA round 21 P1: " Johnson" and Enter
	// answered it, a Space pressed No). They are the draft's, as over a draft.
	time.Sleep(2500 * time.Millisecond)
	require.False(t, evalBool(t, ctx, focusIn), "the focus stays the writer's")
	typeAt(t, ctx, rand.New(rand.NewPCG(18, 18)), " Jo", [2]time.Duration{60 * time.Millisecond, 150 * time.Millisecond})
	do(t, ctx, 10*time.Second, pressEnter(0), chromedp.Sleep(500*time.Millisecond))
	require.True(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode.mode-question')`), "still asked")
	require.Equal(t, " Jo", draft(t, ctx))
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))
	require.Equal(t, "ok=True", waitMessages(t, ctx, 4)[3].Text)

	// The form kept the words whole.
	do(t, ctx, 10*time.Second, openGreet...)
	require.Equal(t, name, evalString(t, ctx, greetField+`.value`))
}

// TestADecisionWaitsForAnOpenCompositionInTheFnForm: an input method's composition left open
// in the fn-form (a candidate being chosen, no key for seconds) holds a decision that is due;
// once it is committed and the person pauses, the decision takes the form's place, and the
// form kept the committed text (QA round 13 #6: the decision took the place mid-composition
// and the form kept the unconverted reading).
func TestADecisionWaitsForAnOpenCompositionInTheFnForm(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, append(openGreet, js(greetField+`.focus()`), chromedp.KeyEvent("Ada "), imeCompose("か"), imeCompose("かんじ"))...)
	sendAPI(t, srv, sessionOf(t, ctx), `/script send('ok=' + str(confirm('Interrupting?')))`)
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('.composer-note')?.textContent.includes('A decision is waiting')`))
	time.Sleep(2500 * time.Millisecond) // choosing a candidate: no key
	require.True(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode.mode-fn-form')`), "the form stays while the composition is open")
	do(t, ctx, 10*time.Second, imeCommit("漢字"))
	do(t, ctx, 10*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-question')`))
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)), waitJS(modeGone))
	do(t, ctx, 10*time.Second, openGreet...)
	require.Equal(t, "Ada 漢字", evalString(t, ctx, greetField+`.value`), "the form kept the committed text")
}

// TestAReloadMidQuestionGivesTheFocusBack: the person was typing in a question's field and
// reloaded. The question is back with the focus in its field at once, so the keys they go
// on typing are its. Before, it waited the focus delay as a decision that lands on its own
// does: the first second's letters went to the draft, and the draft's writer then kept the
// focus (the re-test of QA round 12).
func TestAReloadMidQuestionGivesTheFocusBack(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('name=' + ask('Your name?', {'type': 'string'}))`, waitJS(focusIn))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("Ad"))
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitJS(modeShown))
	typeAt(t, ctx, rand.New(rand.NewPCG(7, 7)), "a Lovelace", [2]time.Duration{60 * time.Millisecond, 150 * time.Millisecond})
	require.Equal(t, "", draft(t, ctx), "no key went to the draft")
	require.True(t, evalBool(t, ctx, focusIn), "the focus is in the question")
	require.True(t, strings.HasSuffix(evalString(t, ctx, `document.querySelector('#composer-mode input[type=text], #composer-mode textarea')?.value ?? ''`), "a Lovelace"))
}

// TestKeysTypedAsThePageComesBackGoToTheQuestion: the person was typing in a question's
// field, reloaded, and went on typing while the page came back, before the question showed
// again. web/early.js holds those keys, and the composer gives them to the question's field
// once it is back (QA round 13 #1: the first letters went to the hidden draft).
func TestKeysTypedAsThePageComesBackGoToTheQuestion(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script send('name=' + ask('Your name?', {'type': 'string'}))`, waitJS(focusIn))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("Ad"))
	do(t, ctx, 30*time.Second, chromedp.Reload())
	typeAt(t, ctx, rand.New(rand.NewPCG(9, 9)), "a Lovelace", [2]time.Duration{40 * time.Millisecond, 100 * time.Millisecond})
	const value = `(document.querySelector('#composer-mode input[type=text], #composer-mode textarea')?.value ?? '')`
	waitShowing(t, ctx, 20*time.Second, value+`.endsWith('a Lovelace')`, value+` + ' | draft: ' + document.querySelector('#composer-input')?.value`)
	require.Equal(t, "", draft(t, ctx), "no key went to the draft")
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitReply(t, ctx, "name=Ada Lovelace")
}

// TestKeysTypedAsThePageComesBackGoToTheQuestionTheyWereOn: in a form of several
// questions, the keys typed while the page comes back go to the question the person was on,
// never into another (QA round 20 #6: they went into the first question's hidden field, and
// were sent as its answer).
func TestKeysTypedAsThePageComesBackGoToTheQuestionTheyWereOn(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script r = ask('Address', {'type': 'object', 'properties': {'city': {'type': 'string', 'title': 'City'}, 'street': {'type': 'string', 'title': 'Street'}, 'zip': {'type': 'string', 'title': 'Zip'}}, 'required': ['city', 'street', 'zip']}); send(r['city'] + '|' + r['street'] + '|' + r['zip'])`, waitJS(focusIn))
	const field = `document.querySelectorAll('#composer-mode .field-input:not(.other-input)')`
	do(t, ctx, 20*time.Second, pastGuard(), chromedp.KeyEvent("Paris"), pressEnter(0), waitJS(field+`[1] === document.activeElement`),
		chromedp.KeyEvent("Rue"), pressEnter(0), waitJS(field+`[2] === document.activeElement`), chromedp.KeyEvent("750"),
		chromedp.Sleep(1500*time.Millisecond)) // the answers are kept
	do(t, ctx, 30*time.Second, chromedp.Reload())
	typeAt(t, ctx, rand.New(rand.NewPCG(5, 5)), "08", [2]time.Duration{40 * time.Millisecond, 100 * time.Millisecond})
	const values = `[...` + field + `].map(f => f.value).join('|')`
	waitShowing(t, ctx, 20*time.Second, values+` === 'Paris|Rue|75008'`, values+` + ' | draft: ' + document.querySelector('#composer-input')?.value`)
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitReply(t, ctx, "Paris|Rue|75008")
}

// TestKeysTypedAsThePageComesBackGoToTheFnForm: an open fn-form comes back after a reload,
// and the keys typed meanwhile go into its field (QA round 20 #10: into the hidden draft).
func TestKeysTypedAsThePageComesBackGoToTheFnForm(t *testing.T) {
	t.Parallel()
	ctx := typeInGreet(t, "Ali")
	do(t, ctx, 10*time.Second, chromedp.Sleep(1500*time.Millisecond)) // the form's answers are kept
	do(t, ctx, 30*time.Second, chromedp.Reload())
	typeAt(t, ctx, rand.New(rand.NewPCG(3, 3)), "ce", [2]time.Duration{40 * time.Millisecond, 100 * time.Millisecond})
	const value = `(` + greetField + `?.value ?? '')`
	waitShowing(t, ctx, 20*time.Second, value+` === 'Alice'`, value+` + ' | draft: ' + document.querySelector('#composer-input')?.value`)
	require.Equal(t, "", draft(t, ctx), "no key went to the draft")
}

// TestTheComposersBatchPicksSurviveAReload: a batch of approvals answered request by request
// in the composer keeps its picks across a reload, under the key its thread card and
// /approvals keep them under, so all three show the same (QA round 12 #18, the composer's
// half).
func TestTheComposersBatchPicksSurviveAReload(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	s := sessionWith(t, srv, "Batch", batchRun)
	waitQueue(t, srv, 1)
	ctx := openPage(t, srv, "/s/"+s)
	const items = `document.querySelectorAll('#composer-mode .batch-item').length === 3`
	pressed := func(in string) string {
		return `[...document.querySelectorAll('` + in + ` .batch-item [aria-pressed="true"]')].map(b => b.closest('.batch-item').dataset.item + b.textContent).join()`
	}
	do(t, ctx, 20*time.Second, waitJS(items),
		clickJS(`#composer-mode .batch-item[data-item="0"] .tone-affirm`), clickJS(`#composer-mode .batch-item[data-item="1"] .tone-deny`),
		waitJS(pressed(`#composer-mode`)+` === '0Allow,1Reject'`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitJS(items))
	waitShowing(t, ctx, 10*time.Second, pressed(`#composer-mode`)+` === '0Allow,1Reject'`, pressed(`#composer-mode`))

	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry .batch-item').length === 3`))
	require.Equal(t, "0Allow,1Reject", evalString(t, ctx, pressed(`.queue-entry`)), "/approvals shows the composer's picks")
}

// TestApprovalWordsSurviveAReload: the words typed into an approval's "Or say what to do
// instead" come back after a reload, as the composer's draft and a question's answers do
// (a QA pass lost them); Enter then rejects with them, and they are forgotten.
func TestApprovalWordsSurviveAReload(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, `/script send(run(['echo', 'hi']).stdout or 'not run')`)
	const words = "use printf instead"
	const keptJS = `Object.keys(sessionStorage).some(k => k.startsWith('parley.instead.') && sessionStorage.getItem(k) === '` + words + `')`
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#approval-instruction')`),
		chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), words),
		waitJS(keptJS))
	do(t, ctx, 60*time.Second, chromedp.Reload(),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelector('#approval-instruction')?.value === '`+words+`'`))
	// The kept words can be sent.
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('#composer-mode button.send')?.disabled === false`))
	do(t, ctx, 30*time.Second, js(`document.querySelector('#approval-instruction').focus()`), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('#approval-instruction') && document.querySelector('.thread').innerText.includes('`+words+`')`))
	do(t, ctx, 30*time.Second, waitJS(`Object.keys(sessionStorage).every(k => !k.startsWith('parley.instead.'))`))
}

// TestApprovalWordsOutliveItsTimeout: words typed into an approval that then times out go
// back into the composer's box, and a notice says so (QA round 12 #3: they vanished).
func TestApprovalWordsOutliveItsTimeout(t *testing.T) {
	t.Parallel()
	srv := startServerFlags(t, t.TempDir(), "-decision-timeout", "3s")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	prompt(t, ctx, `/script send(run(['echo', 'hi']).stdout or 'not run')`)
	const words = "only if the tests pass"
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#approval-instruction')`),
		chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), words))
	do(t, ctx, 30*time.Second, waitJS(modeGone), waitDraft(words))
	require.Contains(t, noticeText(t, ctx), "They are back in the box below")
	require.Equal(t, "notice said", evalString(t, ctx, `document.querySelector('.notice-slot .notice').className`), "news, not drawn as a problem")
}

// TestApprovalWordsOutliveAFailedSendAndARestart: words typed into an approval's "Or say what
// to do instead", sent with Ctrl+Enter while the server is down ("Not answered: the server is
// not reachable"), come back into the box when the restart ends the approval (QA round 17 #1:
// the failed send had marked them sent, and they were lost).
func TestApprovalWordsOutliveAFailedSendAndARestart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx := openHomeOn(t, data)
	prompt(t, ctx, `/script run(["touch","qa-file2"])`)
	const words = "try another name instead"
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#approval-instruction')`),
		chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), words))
	srv.kill()
	// Pressed once the page has seen the server go, as a person would, past the key guard.
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.link-reconnecting')`), pastGuard(),
		js(`document.querySelector('#approval-instruction').focus()`), pressEnter(modCtrl),
		waitJS(`(document.querySelector('.morph-problem')?.textContent || '').includes('Not answered')`))
	require.Equal(t, words, evalString(t, ctx, `document.querySelector('#approval-instruction')?.value`), "the words stay in the field")
	srv = startServer(t, data, srv.addr)
	do(t, ctx, 60*time.Second, waitJS(modeGone), waitDraft(words))
	waitShowing(t, ctx, 10*time.Second, `document.querySelector('.notice-slot').innerText.includes('They are back in the box below')`,
		`'notice: ' + document.querySelector('.notice-slot').innerText + ' | ' + document.querySelector('.thread').innerText.slice(-300)`)
}

// TestALimitedFieldCountsAsYouType: a field with a maxLength shows a count from 80% of its
// limit, in the error's colour past it, and a polite status says it in steps (QA round 17
// #3: it said "up to 200 characters", and 215 were taken silently until Send refused them).
func TestALimitedFieldCountsAsYouType(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script ask("What changed?", {"type":"string","maxLength":200,"multiline":True})`, waitJS(focusIn))
	const count = `(document.querySelector('#composer-mode .field-count [aria-hidden]')?.textContent ?? 'no counter')`
	const said = `document.querySelector('#composer-mode .field-count [role=status]')?.textContent ?? 'no status'`
	// Most of the text goes in as a paste would (a key each is slow in a test); the last keys are typed.
	fill := func(n int) chromedp.Action[chromedp.Void] {
		return js(`(el => { el.value += '` + strings.Repeat("a", n) + `'; el.dispatchEvent(new Event('input', {bubbles: true})) })(document.activeElement)`)
	}
	do(t, ctx, 20*time.Second, fill(150), chromedp.KeyEvent("bb"), waitJS(`document.activeElement.value.length === 152`))
	require.Equal(t, "", evalString(t, ctx, count), "below 80% of the limit it counts nothing")
	require.Equal(t, "", evalString(t, ctx, said))
	do(t, ctx, 20*time.Second, fill(30), chromedp.KeyEvent("ccc"), waitJS(count+` === '185 / 200'`))
	require.Equal(t, "180 / 200", evalString(t, ctx, said), "the status says it in tenths of the limit")
	require.False(t, evalBool(t, ctx, `document.querySelector('#composer-mode .field-count').classList.contains('field-count-over')`))
	do(t, ctx, 20*time.Second, fill(27), chromedp.KeyEvent("ddd"), waitJS(count+` === '215 / 200'`))
	require.Equal(t, "215 / 200", evalString(t, ctx, said))
	require.True(t, evalBool(t, ctx, `document.querySelector('#composer-mode .field-count').classList.contains('field-count-over')`), "past the limit it takes the error's colour")
}

// TestAnOpenFnFormSurvivesAReload: a function's form open with fields typed comes back after
// a reload, on the same function, with what was typed, and the focus in the field the person
// was typing in, its caret at the end (QA round 14 #3: the composer came back idle, and
// "ƒ Functions" opened on "Choose a function…").
func TestAnOpenFnFormSurvivesAReload(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	const title, body = `document.querySelector('#composer-mode .fn-form input[type=text]')`, `document.querySelector('#composer-mode .fn-form textarea')`
	do(t, ctx, 20*time.Second,
		js(`document.querySelector('.control-button:not(.model-button)').click()`),
		waitJS(`document.querySelectorAll('#fn-pick option').length > 1`),
		js(`(s => { s.value = 'make-note'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#fn-pick'))`),
		waitJS(`!!`+title+` && !!`+body),
		js(title+`.focus()`), chromedp.KeyEvent("QA round"),
		js(body+`.focus()`), chromedp.KeyEvent("two lines"),
		waitJS(`Object.keys(sessionStorage).some(k => k.startsWith('parley.fnform.') && (sessionStorage.getItem(k) || '').includes('two lines'))`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady())
	waitShowing(t, ctx, 30*time.Second,
		`document.querySelector('#fn-pick')?.value === 'make-note' && `+title+`?.value === 'QA round' && `+body+`?.value === 'two lines' && document.activeElement === `+body,
		`(document.querySelector('#fn-pick')?.value ?? 'no form') + ' | ' + (`+title+`?.value ?? '') + ' | ' + (`+body+`?.value ?? '') + ' | focus: ' + document.activeElement?.tagName`)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent(" kept"))
	require.Equal(t, "two lines kept", evalString(t, ctx, body+`.value`), "the caret was at the end of what was typed")
	require.Equal(t, "", draft(t, ctx), "no key went to the draft")
}

// TestQuestionWordsComeBackWhenItEndsElsewhere: words typed into a question that another
// client declines come back into the composer's box, with the notice an approval's words get
// (QA round 14 #4: they vanished, and the composer went back to an empty box).
func TestQuestionWordsComeBackWhenItEndsElsewhere(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script x = ask("Your name?", {"type":"object","properties":{"n":{"type":"string","title":"Name"}},"required":["n"]})`, waitJS(focusIn))
	id := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending')?.dataset.decision || ''`)
	require.NotEmpty(t, id)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("Grace Hopper"),
		waitJS(`(sessionStorage.getItem('parley.answers.`+id+`') || '').includes('Grace Hopper')`))
	_, err := apiClient(srv).Reply(context.Background(), sessionOf(t, ctx), id, protocol.ReplyRequest{Action: protocol.ActionDecline})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(modeGone), waitDraft("Grace Hopper"))
	require.Contains(t, noticeText(t, ctx), "They are back in the box below")
	// A switch of language words it again, there and back (QA round 25: it stayed Chinese).
	const notice = `document.querySelector('.notice-slot').innerText`
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(`!`+notice+`.includes('They are back in the box below')`),
		js(`parley.setLocale('en')`), waitJS(notice+`.includes('They are back in the box below')`))
	// Deleted rather than sent: the notice goes with them (QA round 24: it stayed on, over
	// later decisions).
	do(t, ctx, 10*time.Second, js(`document.querySelector('#composer-input').select()`), chromedp.KeyEvent(kb.Backspace),
		waitDraft(""), waitJS(`!document.querySelector('.notice-slot').innerText.includes('They are back in the box below')`))
}

// TestAReadingNotYetConvertedIsNotHandedBack: the person composes their answer with an input
// method ("我叫", then the reading "wang" open) when the question is answered elsewhere. The
// words back in the box are the converted ones, and what the input method then commits
// follows them: "我叫王", never "我叫wang王" (QA round 26).
func TestAReadingNotYetConvertedIsNotHandedBack(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script send(ask("Your name in Chinese?", {"type":"string"}))`, waitJS(focusIn))
	id := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending')?.dataset.decision || ''`)
	require.NotEmpty(t, id)
	do(t, ctx, 10*time.Second, imeCompose("我叫"), imeCommit("我叫"), imeCompose("w"), imeCompose("wang"),
		waitJS(`!!window.parleyComposition`))
	_, err := apiClient(srv).Reply(context.Background(), sessionOf(t, ctx), id, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`"Other tab"`)})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(modeGone), waitJS(`document.activeElement?.id === 'composer-input'`))
	require.Equal(t, "我叫", draft(t, ctx), "the converted words only")
	do(t, ctx, 10*time.Second, imeCommit("王"), waitDraft("我叫王"))
}

// TestTheEnterMeantForAnAnswerDoesNotSendItsWords: a question answered in another tab while
// the person types their answer. Their words come back to the box, and they type on, at a
// typist's pace, the rest of the word and the Enter they meant for the question: that Enter
// sends nothing (QA round 24 P1: "London" went to the agent as a prompt 1.3 s after the
// question ended). After a pause, Enter sends the box as always.
func TestTheEnterMeantForAnAnswerDoesNotSendItsWords(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script send("hi " + ask("Your city?", {"type":"string"}))`, waitJS(focusIn))
	session := sessionOf(t, ctx)
	id := evalString(t, ctx, `document.querySelector('.entry-decision.status-pending')?.dataset.decision || ''`)
	require.NotEmpty(t, id)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("Lond"))
	_, err := apiClient(srv).Reply(context.Background(), session, id, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`"Paris"`)})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(modeGone), waitDraft("Lond"))
	for _, key := range []string{"o", "n"} {
		time.Sleep(150 * time.Millisecond)
		do(t, ctx, 5*time.Second, chromedp.KeyEvent(key))
	}
	time.Sleep(300 * time.Millisecond)
	do(t, ctx, 5*time.Second, pressEnter(0))
	time.Sleep(time.Second) // a send would have emptied the box by now
	require.Equal(t, "London", draft(t, ctx), "the Enter meant for the question sent nothing")
	prompts := func() (n int) {
		page, err := apiClient(srv).Events(context.Background(), session, 0, 0)
		require.NoError(t, err)
		return testkit.Count(page.Events, protocol.EventUserMessage)
	}
	require.Equal(t, 1, prompts(), "only the /script was sent")

	do(t, ctx, 5*time.Second, pressEnter(0), waitDraft(""))
	require.Eventually(t, func() bool { return prompts() == 2 }, 10*time.Second, 50*time.Millisecond, "after the pause, Enter sends")
}

// TestWordsForAnApprovalAnsweredElsewhereNeverAnswerTheNextQuestion: words typed into an
// approval that is approved in another tab meanwhile come back to the box; the script's next
// question, landing at once, does not take the rest of them (they were not an answer), and
// the Enter that ends them answers nothing (QA round 25 P1: "o not run that" answered "Your
// name?").
func TestWordsForAnApprovalAnsweredElsewhereNeverAnswerTheNextQuestion(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script run(["echo", "chain"]); send("hi " + ask("Your name?", {"type":"string"}))`)
	session := sessionOf(t, ctx)
	approval := onlyDecision(t, srv, session)
	do(t, ctx, 10*time.Second, chromedp.Focus(chromedp.CSS(`#approval-instruction`)), chromedp.KeyEvent("please d"))
	_, err := apiClient(srv).Reply(context.Background(), session, approval.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`{"option":0}`)})
	require.NoError(t, err)
	do(t, ctx, 20*time.Second, waitJS(`document.querySelector('#composer-mode')?.innerText.includes('Your name?')`))
	for _, key := range "o not run that" {
		do(t, ctx, 5*time.Second, chromedp.KeyEvent(string(key)))
		time.Sleep(120 * time.Millisecond)
	}
	do(t, ctx, 5*time.Second, pressEnter(0))
	time.Sleep(time.Second)
	assertOnePending(t, srv, ctx, "the question was not answered")
	require.Equal(t, "please do not run that", draft(t, ctx), "every word is the draft's, in order")
}

// TestADateAndTimeIsAnswered: a date-and-time question answered with the browser's picker
// (its input holds wall-clock text with no zone) is sent as RFC 3339 at the browser's offset,
// and the check takes it (QA round 25 P1: "Must be a date and time like …" for every value).
func TestADateAndTimeIsAnswered(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, `/script send("at " + ask("When?", {"type":"string","format":"date-time"}))`, waitJS(focusIn))
	session := sessionOf(t, ctx)
	do(t, ctx, 10*time.Second,
		js(`(i => { i.value = '2026-12-25T10:30'; i.dispatchEvent(new Event('input', {bubbles: true})) })(document.querySelector('#composer-mode input[type=datetime-local]'))`),
		waitJS(`document.activeElement?.type === 'datetime-local'`))
	time.Sleep(500 * time.Millisecond) // past the Enter guard
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(modeGone))
	var answer string
	require.Eventually(t, func() bool {
		page, err := apiClient(srv).Events(context.Background(), session, 0, 0)
		require.NoError(t, err)
		for _, ev := range page.Events {
			if r, err := ev.DecodeQuestionReplied(); err == nil && ev.Type == protocol.EventQuestionReplied {
				return json.Unmarshal(r.Content, &answer) == nil
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond, "answered")
	at, err := time.Parse(time.RFC3339, answer)
	require.NoError(t, err, "RFC 3339: %q", answer)
	offset := -get(t, ctx, chromedp.Evaluate[int](`new Date(2026, 11, 25, 10, 30).getTimezoneOffset()`))
	require.Equal(t, "2026-12-25T10:30", at.In(time.FixedZone("", offset*60)).Format("2006-01-02T15:04"), "the wall clock typed, at the browser's offset")
}

// twoRuns asks for two commands in turn: the second's approval takes the first's place in the
// composer as soon as the first is approved, at the same place on the screen.
const twoRuns = `/script run(['echo', 'harmless']); r = run(['touch', 'DANGER-second-command.txt']); send('second ran: ' + str(r.ok))`

// centreOf is the middle of the first element sel matches, in the viewport's CSS pixels.
func centreOf(t *testing.T, ctx context.Context, sel string) (float64, float64) {
	t.Helper()
	r := get(t, ctx, chromedp.Evaluate[[]float64](`(r => [r.x + r.width / 2, r.y + r.height / 2])(document.querySelector(`+strconv.Quote(sel)+`).getBoundingClientRect())`))
	return r[0], r[1]
}

// shownAsking waits, looking at every change of the page, until the composer shows the
// decision asking msg: a click sent then lands on it at once.
func shownAsking(msg string) chromedp.Action[chromedp.Void] {
	return onChange(`document.querySelector('#composer-mode .question-message')?.textContent === ` + strconv.Quote(msg))
}

// onChange waits until a JavaScript condition holds, looking again at every change of the
// page rather than every 50 ms: a step after it comes as soon as the page shows it.
func onChange(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](cond, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(0))(ctx, t) // the context's wait, as waitJS
		return err
	})
}

// underPointer says what the element at (x, y) is: the decision's message and the label of
// the choice there, so a test knows its second click landed on the next decision's button.
func underPointer(t *testing.T, ctx context.Context, x, y float64) string {
	t.Helper()
	return evalString(t, ctx, fmt.Sprintf(`(() => { const c = document.elementFromPoint(%g, %g)?.closest('.choice');
		return document.querySelector('#composer-mode .question-message')?.textContent + ' / ' + (c ? c.querySelector('.choice-label').textContent : 'no choice') })()`, x, y))
}

// doubleClickAcross double-clicks at (x, y) as a person's hand does, the first click on the
// decision shown and the second, with a click count of 2, on the next decision that took its
// place: at least gap after the first, and as soon as next (the page showing it) holds.
func doubleClickAcross(t *testing.T, ctx context.Context, x, y float64, gap time.Duration, next chromedp.Action[chromedp.Void]) {
	t.Helper()
	start := time.Now()
	do(t, ctx, 30*time.Second, chromedp.MouseClickXY(x, y), next)
	if rest := gap - time.Since(start); rest > 0 {
		time.Sleep(rest)
	}
	do(t, ctx, 10*time.Second, chromedp.MouseClickXY(x, y, chromedp.ClickCount(2)))
	t.Logf("the second click %v after the first", time.Since(start).Round(time.Millisecond))
}

// stillAsking checks, once the page had the time to send an answer, that the session's one
// decision waiting is the one asking msg, and the composer shows it.
func stillAsking(t *testing.T, srv *server, ctx context.Context, msg string) {
	t.Helper()
	time.Sleep(time.Second) // a check that nothing is sent: an answer takes a few ms
	d := onlyDecision(t, srv, sessionOf(t, ctx))
	require.Equal(t, msg, d.Request.Message, "the next decision is still waiting")
	require.Equal(t, msg, modeText(t, ctx, `.question-message`))
}

// TestADoubleClickAnswersOnlyTheDecisionItHit (QA round 16's P1): the second click of a
// double-click on Approve lands on the next run's approval, which took the first's place; it
// is ignored, as an Enter is on a new decision, and the second command does not run. So with
// two confirms and Yes, the clicks 240 ms apart.
func TestADoubleClickAnswersOnlyTheDecisionItHit(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, twoRuns, shownAsking("Allow running echo?"))
	time.Sleep(guardPause) // the first click is the person's, after reading
	x, y := centreOf(t, ctx, `#composer-mode .choice-primary`)
	doubleClickAcross(t, ctx, x, y, 120*time.Millisecond, shownAsking("Allow running touch?"))
	require.Equal(t, "Allow running touch? / Approve", underPointer(t, ctx, x, y), "the second click landed on the next approval's Approve")
	stillAsking(t, srv, ctx, "Allow running touch?")
	h := approvalHistory(t, srv)
	require.Len(t, h.Entries, 1, "only the first was answered")
	require.Equal(t, protocol.HistoryApproved, h.Entries[0].Outcome)
	require.Contains(t, h.Entries[0].Request.Details, "echo harmless")
	require.NoFileExists(t, srv.data+"-workspace/DANGER-second-command.txt")

	// A click of the person's own, after the guard, answers it.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice.tone-deny`)))
	waitReply(t, ctx, "second ran: False")
	require.NoFileExists(t, srv.data+"-workspace/DANGER-second-command.txt")

	sendAPI(t, srv, sessionOf(t, ctx), `/script a = confirm('Ship it?'); b = confirm('Really ship it?'); send('shipped=%s really=%s' % (a, b))`)
	do(t, ctx, 30*time.Second, shownAsking("Ship it?"))
	time.Sleep(guardPause)
	x, y = centreOf(t, ctx, `#composer-mode .choice.tone-affirm`)
	doubleClickAcross(t, ctx, x, y, 240*time.Millisecond, shownAsking("Really ship it?"))
	require.Equal(t, "Really ship it? / Yes", underPointer(t, ctx, x, y), "the second click landed on the next confirm's Yes")
	stillAsking(t, srv, ctx, "Really ship it?")
}

// TestASecondTapAnswersOnlyTheDecisionItHit (QA round 16's P1) is the double-click's test on
// a 390×844 touch screen: two taps on Approve, the second on the next run's approval.
func TestASecondTapAnswersOnlyTheDecisionItHit(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	prompt(t, ctx, "hello") // a phone's Enter breaks the line: sent first, then the phone
	waitMessages(t, ctx, 2)
	phone(t, ctx, 844)
	sendAPI(t, srv, sessionOf(t, ctx), twoRuns)
	do(t, ctx, 30*time.Second, shownAsking("Allow running echo?"))
	time.Sleep(guardPause)
	x, y := centreOf(t, ctx, `#composer-mode .choice-primary`)
	start := time.Now()
	do(t, ctx, 30*time.Second, tapAt(x, y), shownAsking("Allow running touch?"), tapAt(x, y))
	t.Logf("the second tap %v after the first", time.Since(start).Round(time.Millisecond))
	require.Equal(t, "Allow running touch? / Approve", underPointer(t, ctx, x, y), "the second tap landed on the next approval's Approve")
	stillAsking(t, srv, ctx, "Allow running touch?")
	require.Len(t, approvalHistory(t, srv).Entries, 1, "only the first was answered")
	require.NoFileExists(t, srv.data+"-workspace/DANGER-second-command.txt")
}

// tapAt touches the screen at (x, y) and lifts the finger: a tap.
func tapAt(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		start := input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}}
		if _, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, start); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}})
		return err
	})
}

// TestAnApprovalOpensAtItsTop (QA round 16's P3): at 200 % zoom (600×450 CSS pixels) an
// approval's body is taller than its card; once its field for words takes the focus, the body
// is still at its top, the question, the command and Approve in view, not scrolled down to
// the field. The field with the focus is in view too, at the body's foot, below Approve (QA
// round 17: it sat below the fold until the person typed).
func TestAnApprovalOpensAtItsTop(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 600, Height: 450, DeviceScaleFactor: 2})
	require.NoError(t, err)
	do(t, ctx, 60*time.Second, typeText(echoScript), pressEnter(0), shownAsking("Allow running echo?"),
		waitJS(`document.activeElement?.id === 'approval-instruction'`))
	time.Sleep(200 * time.Millisecond) // a check that nothing scrolls it after the focus
	body := `document.querySelector('#composer-mode .morph-body')`
	require.True(t, evalBool(t, ctx, body+`.scrollHeight > `+body+`.clientHeight`), "the body scrolls at this size")
	require.Equal(t, 0.0, get(t, ctx, chromedp.Evaluate[float64](body+`.scrollTop`)))
	inView := evalString(t, ctx, `(() => { const b = `+body+`.getBoundingClientRect();
		return ['.approval-message', '.approval-details', '.choice-primary'].filter(s => {
			const r = document.querySelector('#composer-mode ' + s).getBoundingClientRect(); return r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5 }).join(' ') })()`)
	require.Equal(t, ".approval-message .approval-details .choice-primary", inView)
	field := evalString(t, ctx, `(() => { const b = `+body+`.getBoundingClientRect(), f = document.activeElement.getBoundingClientRect(),
		p = document.querySelector('#composer-mode .choice-primary').getBoundingClientRect();
		return [f.top >= b.top - 0.5 && f.bottom <= b.bottom + 0.5 && f.bottom <= innerHeight ? 'in view' : 'out of view ' + f.top + '-' + f.bottom,
			f.top >= p.bottom ? 'below Approve' : 'over Approve'].join(', ') })()`)
	require.Equal(t, "in view, below Approve", field)
}

// TestEnterOnAnOptionNobodyChoseMovesOn (QA round 18): a form's optional yes/no question
// takes the focus on its first option, Yes; an Enter there moves on without choosing it, and
// the form goes without an answer to it. The Enter chose the focused option, and the form
// sent "Yes" for a question the person had left alone.
func TestEnterOnAnOptionNobodyChoseMovesOn(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	sendAPI(t, srv, sessionOf(t, ctx), `/script r = ask("Setup", {"type":"object","properties":{"replicas":{"type":"integer","minimum":1,"maximum":5},"notify":{"type":"boolean"}},"required":["replicas"]}); send("got " + str(r))`)
	do(t, ctx, 20*time.Second, waitJS(modeShown), waitJS(focusIn))
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("3"), pressEnter(0),
		waitJS(`document.activeElement?.type === 'radio' && !document.querySelector('#composer-mode input[type=radio]:checked')`))
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(modeGone),
		waitJS(`[...document.querySelectorAll('.thread .msg-text')].some(m => m.textContent.startsWith('got '))`))
	got := evalString(t, ctx, `[...document.querySelectorAll('.thread .msg-text')].find(m => m.textContent.startsWith('got ')).textContent`)
	require.Equal(t, `got {"replicas": 3}`, got, "the question left alone is not answered")
}
