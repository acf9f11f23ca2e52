package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/protocol"
)

// The composer's modes (issue 6): every decision lands in the input area, one at a time.

const (
	modeShown  = `!!document.querySelector('#composer-mode')`
	modeGone   = `!document.querySelector('#composer-mode') && getComputedStyle(document.querySelector('.composer-bar')).display !== 'none'`
	guardPause = 450 * time.Millisecond // Enter is ignored for 400 ms after a decision appears
)

// openSession starts a server and a browser on a fresh session, and sends text from the
// composer.
func openSession(t *testing.T, text string) (*server, context.Context) {
	t.Helper()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	if text != "" {
		do(t, ctx, 20*time.Second, typeText(text), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	}
	return srv, ctx
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

func tab(mods int64) chromedp.Action[chromedp.Void] { return rawKey("Tab", 9, mods) }

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
	_, ctx := openSession(t, threeQuestions)
	do(t, ctx, 20*time.Second, waitJS(modeShown))
	assert.Equal(t, "composer-mode", activeID(t, ctx), "the morphed area takes the focus, not a button an Enter would press")
	assert.Equal(t, "Engine|Theme|Name", evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .chip')].map(c => c.textContent).join('|')`))
	assert.True(t, evalBool(t, ctx, `document.querySelector('#composer-mode .send').disabled`), "nothing answered yet")
	time.Sleep(guardPause)

	// Tab: the current chip, "Chat about this", then the first choice; Space picks it.
	do(t, ctx, 10*time.Second, tab(0), tab(0), tab(0))
	assert.Equal(t, "radio", evalString(t, ctx, `document.activeElement.type`))
	do(t, ctx, 10*time.Second, space(), waitJS(`document.querySelector('#composer-mode .field:not(.is-hidden) .field-title')?.textContent.startsWith('Which theme?')`))
	assert.Equal(t, "Engine ✓", modeText(t, ctx, `.chip`))
	// ↓ on the theme's radios picks "dark" and moves on to the name.
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.type === 'radio'`), rawKey("ArrowDown", 40, 0),
		waitJS(`document.activeElement.type === 'text'`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("parley"))
	assert.Equal(t, "Engine ✓|Theme ✓|Name ✓", evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .chip')].map(c => c.textContent).join('|')`))

	// Back to the chips, ← to the theme: its answer is kept; → returns to the name.
	do(t, ctx, 10*time.Second, tab(modShift), tab(modShift))
	assert.Equal(t, "tab", evalString(t, ctx, `document.activeElement.getAttribute('role')`))
	do(t, ctx, 10*time.Second, rawKey("ArrowLeft", 37, 0), waitJS(`document.querySelector('#composer-mode .field:not(.is-hidden) .field-title')?.textContent.startsWith('Which theme?')`))
	assert.True(t, evalBool(t, ctx, `document.querySelector('#composer-mode input[value=dark]').checked`))
	assert.Equal(t, "Theme ✓", evalString(t, ctx, `document.activeElement.textContent`), "the focus follows the chip")
	do(t, ctx, 10*time.Second, rawKey("ArrowRight", 39, 0), waitJS(`document.querySelector('#composer-mode .field:not(.is-hidden) .field-title')?.textContent.startsWith('Project name')`))
	assert.Equal(t, "parley", evalString(t, ctx, `document.querySelector('#composer-mode .field:not(.is-hidden) input[type=text]').value`))

	// Into the field and Enter: the send button submits the lot.
	do(t, ctx, 10*time.Second, tab(0), tab(0), pressEnter(0))
	msgs := waitMessages(t, ctx, 2)
	assert.Equal(t, "engine=chromium theme=dark name=parley", msgs[1].Text)
	do(t, ctx, 10*time.Second, waitJS(modeGone))
}

// TestLoneChoiceIsOneClick answers a single choice by clicking it.
func TestLoneChoiceIsOneClick(t *testing.T) {
	_, ctx := openSession(t, `/script send('env=' + ask('Which environment?', {'type': 'string', 'enum': ['staging', 'prod']}))`)
	do(t, ctx, 20*time.Second, waitJS(modeShown))
	assert.Equal(t, "Which environment?", modeText(t, ctx, `.question-message`))
	assert.Equal(t, "staging|prod|Other…", evalString(t, ctx, `[...document.querySelectorAll('#composer-mode .choice')].map(c => c.innerText).join('|')`))
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .choice:nth-child(2)`)))
	msgs := waitMessages(t, ctx, 2)
	assert.Equal(t, "env=prod", msgs[1].Text)
	do(t, ctx, 10*time.Second, waitJS(modeGone))
	assert.Equal(t, "prod", evalString(t, ctx, `document.querySelector('.entry-decision .entry-status').textContent`), "the thread keeps the outcome")
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
	srv, ctx := openSession(t, everyKind)
	do(t, ctx, 20*time.Second, waitJS(modeShown))
	chip := func(header string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			js(`[...document.querySelectorAll('#composer-mode [role=tab]')].find(c => c.textContent.startsWith('`+header+`')).click(), true`),
			waitJS(`document.querySelector('#composer-mode [role=tab][aria-selected=true]').textContent.startsWith('`+header+`')`),
		)
	}
	typeIn := func(sel, text string) chromedp.Action[chromedp.Void] {
		return chromedp.SendKeys(chromedp.CSS(`#composer-mode .field:not(.is-hidden) `+sel), text)
	}
	do(t, ctx, 20*time.Second,
		chip("Title"), typeIn(`input[type=text]`, "Report"),
		chip("Notes"), typeIn(`textarea`, "line one"),
		chip("Mail"), typeIn(`input[type=email]`, "not-an-address"),
		chip("Site"), typeIn(`input[type=url]`, "https://example.org/x"),
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
	assert.Contains(t, modeText(t, ctx, `[role=tab][aria-selected=true]`), "Mail", "the first invalid question is shown")
	assert.Equal(t, "Must be an email address like name@example.com.", modeText(t, ctx, `.field-error`))
	assert.Equal(t, "true", evalString(t, ctx, `document.querySelector('#composer-mode input[type=email]').getAttribute('aria-invalid')`))
	pending, err := apiClient(srv).PendingDecisions(context.Background(), sessionOf(t, ctx))
	require.NoError(t, err)
	assert.Len(t, pending, 1, "nothing was sent: the question is still pending")

	do(t, ctx, 10*time.Second,
		js(`document.querySelector('#composer-mode input[type=email]').select(), true`),
		typeIn(`input[type=email]`, "ada@example.org"),
		waitJS(`!document.querySelector('#composer-mode .field-error')`),
		chromedp.Click(chromedp.CSS(`#composer-mode .send`)))
	msgs := waitMessages(t, ctx, 2)
	assert.Equal(t, `Report|line one|ada@example.org|https://example.org/x|2026-12-01|0.5|3|True|green|["a", "c"]`, msgs[1].Text)
}
