package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
)

// The input bar (docs/input.md) in Chromium against the real server. Keys go in as CDP key events,
// as a keyboard sends them.

const chip = "\uFFFC"

var (
	tab       = rawKey("Tab", 9, 0)
	backspace = rawKey("Backspace", 8, 0)
	escape    = rawKey("Escape", 27, 0)
	arrowDown = rawKey("ArrowDown", 40, 0)
	undoKey   = rawKey("z", 90, modCtrl)
	redoKey   = rawKey("z", 90, modCtrl|modShift)
	redoY     = rawKey("y", 89, modCtrl)
	endKey    = rawKey("End", 35, 0)
)

// menuStatusJS is what the composer's status region says of the menu (a screen reader hears it).
const menuStatusJS = `document.querySelector('#composer-menu-status[role=status]').textContent`

// menuStatusCounts holds when the status says the open menu's options: "1 suggestion", "3 suggestions".
const menuStatusCounts = `(n => ` + menuStatusJS + ` === n + (n === 1 ? ' suggestion' : ' suggestions'))(document.querySelectorAll('#composer-menu [role=option]').length)`

// menuClosed waits until the textarea says the menu is closed.
var menuClosed = waitJS(`document.querySelector('#composer-input').getAttribute('data-expanded') === 'false' && !document.querySelector('#composer-input').hasAttribute('aria-activedescendant')`)

// menuOpen waits until the menu shows an option whose text contains label.
func menuOpen(label string) chromedp.Action[chromedp.Void] {
	b, _ := json.Marshal(label)
	return waitJS(`document.querySelector('#composer-input').getAttribute('data-expanded') === 'true' &&
		[...document.querySelectorAll('#composer-menu[role=listbox] [role=option]')].some(o => o.textContent.includes(` + string(b) + `))`)
}

// draftJS is the textarea's value as the machine counts it: each chip's glyph (one of
// ParleyChip's graded glyphs, machine/chipglyph) read as the machine's U+FFFC.
const draftJS = `document.querySelector('#composer-input').value.replace(/[\uE400-\uE465]/g, '\uFFFC')`

// waitDraft waits until the textarea holds want, chips as U+FFFC.
func waitDraft(want string) chromedp.Action[chromedp.Void] {
	b, _ := json.Marshal(want)
	return waitJS(draftJS + ` === ` + string(b))
}

// clipboardEvent fires a copy, cut or paste event with its own DataTransfer (as the browser
// does for a real one) and returns the text the page put on it.
func clipboardEvent(t *testing.T, ctx context.Context, typ, text string) string {
	t.Helper()
	b, _ := json.Marshal(text)
	return evalString(t, ctx, `(() => { const dt = new DataTransfer(); dt.setData('text/plain', `+string(b)+`);
		const ta = document.querySelector('#composer-input');
		ta.dispatchEvent(new ClipboardEvent('`+typ+`', {clipboardData: dt, bubbles: true, cancelable: true}));
		return dt.getData('text/plain') })()`)
}

func chips(t *testing.T, ctx context.Context) []string {
	t.Helper()
	raw := evalString(t, ctx, `JSON.stringify([...document.querySelectorAll('#composer-backdrop .ib-chip')].map(e => e.dataset.label))`)
	var out []string
	require.NoError(t, json.Unmarshal([]byte(raw), &out))
	return out
}

func selectRange(t *testing.T, ctx context.Context, s, e int) {
	t.Helper()
	evalBool(t, ctx, `(() => { const ta = document.querySelector('#composer-input'); ta.focus(); ta.setSelectionRange(`+itoa(s)+`, `+itoa(e)+`); return true })()`)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// openAmong starts a server holding a session per title and a "home" session, each prompted
// once so the sidebar and the @ menu list them, and opens the browser on home (so @ lists
// the others), focused. ids maps each title, and "home", to its session.
func openAmong(t *testing.T, titles ...string) (srv *server, ctx context.Context, ids map[string]string) {
	t.Helper()
	srv = startServer(t, t.TempDir(), "127.0.0.1:0")
	ids = map[string]string{}
	for _, title := range titles {
		ids[title] = seedSession(t, srv, title, 1)
	}
	ids["home"] = seedSession(t, srv, "home", 1)
	ctx = openPage(t, srv, "/s/"+ids["home"])
	waitMessages(t, ctx, 2)
	do(t, ctx, 5*time.Second, chromedp.Focus(composer))
	return srv, ctx, ids
}

// TestInputBarChipFromSessions: `@` opens the combobox's listbox, Tab inserts the other
// session as a chip; one Backspace deletes it whole; undo and redo go through the machine.
func TestInputBarChipFromSessions(t *testing.T) {
	t.Parallel()
	_, ctx, ids := openAmong(t, "alpha notes")
	alpha := ids["alpha notes"]

	do(t, ctx, 10*time.Second, typeText("see @alp"), menuOpen("@alpha notes"))
	// Focus stays in the textarea (a textbox that controls the listbox), which names the
	// active option.
	require.Equal(t, "composer-input", evalString(t, ctx, `document.activeElement.id`))
	require.Equal(t, "list", evalString(t, ctx, `document.activeElement.getAttribute('aria-autocomplete')`))
	require.Equal(t, "composer-menu", evalString(t, ctx, `document.activeElement.getAttribute('aria-controls')`))
	require.True(t, evalBool(t, ctx, `(() => { const id = document.activeElement.getAttribute('aria-activedescendant');
		const o = id && document.getElementById(id); return !!o && o.getAttribute('role') === 'option' && o.getAttribute('aria-selected') === 'true' && o.closest('[role=listbox]') !== null })()`),
		"aria-activedescendant names the selected option of the listbox")
	require.NotContains(t, evalString(t, ctx, `document.querySelector('#composer-menu').textContent`), "home", "the current session is not offered")

	do(t, ctx, 10*time.Second, tab, waitDraft("see "+chip), menuClosed) // a pick closes the menu
	require.Equal(t, []string{"@alpha notes"}, chips(t, ctx))
	// A screen reader hears what the chip is, not "object replacement character".
	require.Equal(t, "References in the message: @alpha notes", evalString(t, ctx,
		`document.getElementById(document.querySelector('#composer-input').getAttribute('aria-describedby')).textContent`))

	// One Backspace takes the whole chip.
	do(t, ctx, 10*time.Second, backspace, waitDraft("see "))
	require.Empty(t, chips(t, ctx))
	require.Empty(t, evalString(t, ctx, `document.querySelector('#composer-refs').textContent`))
	// Undo brings the same chip back; redo removes it again; Ctrl+Y redoes too.
	do(t, ctx, 10*time.Second, undoKey, waitDraft("see "+chip))
	require.Equal(t, []string{"@alpha notes"}, chips(t, ctx))
	do(t, ctx, 10*time.Second, redoKey, waitDraft("see "))
	do(t, ctx, 10*time.Second, undoKey, waitDraft("see "+chip), redoY, waitDraft("see "))
	// The browser's own undo (historyUndo) goes to the machine as well.
	evalBool(t, ctx, `(() => { const ta = document.querySelector('#composer-input');
		return ta.dispatchEvent(new InputEvent('beforeinput', {inputType: 'historyUndo', bubbles: true, cancelable: true})) === false })()`)
	do(t, ctx, 10*time.Second, waitDraft("see "+chip))

	// Sent, the chip becomes its model projection. (Undo selected the restored chip: End
	// puts the caret after it.)
	do(t, ctx, 10*time.Second, endKey, typeText(" now"), pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	// Shown by its title and linked; sent as its model projection (QA round 26: the bubble
	// showed the projection's id).
	require.Equal(t, "see @alpha notes now", msgs[2].Text)
	require.Equal(t, "/s/"+alpha, evalString(t, ctx, `document.querySelectorAll('.thread .msg-user')[1].querySelector('a.msg-ref').getAttribute('href')`))
	// A reload draws the thread before the session list comes: the link takes its title
	// when it does (QA round 27: it stayed the id).
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(),
		waitJS(`(document.querySelectorAll('.thread .msg-user')[1]?.querySelector('a.msg-ref')?.textContent || '') === '@alpha notes'`))
	require.Empty(t, draft(t, ctx))
}

// TestInputBarClipboard: copying a selection across a chip gives the chip's clipboard text;
// a paste whose reference the hot snapshot knows becomes a chip, and one undo returns to
// before the paste.
func TestInputBarClipboard(t *testing.T) {
	t.Parallel()
	_, ctx, ids := openAmong(t, "alpha")
	alpha := ids["alpha"]

	do(t, ctx, 10*time.Second, typeText("a @alp"), menuOpen("@alpha"), tab, waitDraft("a "+chip), typeText(" b"))
	selectRange(t, ctx, 0, 5)
	require.Equal(t, "a @session:"+alpha+" b", clipboardEvent(t, ctx, "copy", ""))
	selectRange(t, ctx, 1, 3)
	require.Equal(t, " @session:"+alpha, clipboardEvent(t, ctx, "copy", ""))
	// Cut takes the chip out through the machine.
	clipboardEvent(t, ctx, "cut", "")
	do(t, ctx, 10*time.Second, waitDraft("a b"))
	require.Empty(t, chips(t, ctx))

	// Paste: the session is in the hot snapshot (the menu listed it), so the match is
	// synchronous, in the paste's own transaction.
	selectRange(t, ctx, 3, 3)
	clipboardEvent(t, ctx, "paste", " ref @session:"+alpha+" here")
	do(t, ctx, 10*time.Second, waitDraft("a b ref "+chip+" here"))
	require.Equal(t, []string{"@alpha"}, chips(t, ctx))
	do(t, ctx, 10*time.Second, undoKey, waitDraft("a b"))
	require.Empty(t, chips(t, ctx))
}

// TestInputBarCommandClaim: "/exa", the menu, Tab claims /example with its usage as ghost
// text; past the examples' menu, Enter runs it: the server answers with the usage. After
// leading white space, the menu offers the command too.
func TestInputBarCommandClaim(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Focus(composer))

	do(t, ctx, 10*time.Second, typeText("/exa"), menuOpen("/example"), tab, waitDraft("/example "))
	require.Equal(t, "<slug> [json-vars]", evalString(t, ctx, `document.querySelector('#composer-backdrop .ib-ghost').textContent`))
	require.Equal(t, "/example", evalString(t, ctx, `document.querySelector('#composer-backdrop .ib-ref').textContent`), "the command name is decorated")
	// The argument's menu lists the examples (argument completion); Escape closes it, so
	// Enter sends the bare command.
	do(t, ctx, 10*time.Second, menuOpen("hello"), escape,
		waitJS(`document.querySelector('#composer-input').getAttribute('aria-expanded') !== 'true'`), pressEnter(0))
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "/example", strings.TrimSpace(msgs[0].Text))
	require.Contains(t, msgs[1].Text, "Usage: /example <slug>")
	require.Empty(t, evalString(t, ctx, `document.querySelector('#composer-backdrop .ib-ghost').textContent`), "the ghost goes with the claim")

	// After white space only, the server still reads a command, so the menu offers it; the
	// pick starts the draft.
	do(t, ctx, 10*time.Second, typeText("  /exa"), menuOpen("/example"), tab, waitDraft("/example "))
}

// TestInputBarNoMenuInsideWords: an address and a URL open no menu; a trigger at a word
// boundary does (the control that makes the test able to fail).
func TestInputBarNoMenuInsideWords(t *testing.T) {
	t.Parallel()
	_, ctx, _ := openAmong(t, "other")

	for _, text := range []string{"mail user@host", " and https://x/y"} {
		do(t, ctx, 10*time.Second, typeText(text))
		time.Sleep(400 * time.Millisecond) // a menu would have opened by now
		require.Equal(t, "false", evalString(t, ctx, `document.querySelector('#composer-input').getAttribute('data-expanded')`), text)
		require.Equal(t, 0, len(evalString(t, ctx, `document.querySelector('#composer-menu').textContent`)), text)
	}
	do(t, ctx, 10*time.Second, typeText(" @"), menuOpen("@other"))
}

// TestEnterSendsACommandTypedWhole: `/help` typed whole, with the menu highlighting /help,
// is accepted and sent by one Enter; `/example` needs an argument, and its Enter only
// completes it.
func TestEnterSendsACommandTypedWhole(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Focus(composer))
	do(t, ctx, 10*time.Second, typeText("/help"), menuOpen("/help"), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`location.pathname.startsWith('/s/')`), waitDraft(""))
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "/help", strings.TrimSpace(msgs[0].Text))

	do(t, ctx, 10*time.Second, waitJS(`document.activeElement?.id === 'composer-input'`), typeText("/example"), menuOpen("/example"), pressEnter(0), waitDraft("/example "))
	require.Equal(t, len(msgs), len(thread(t, ctx)), "a command that needs an argument is only completed")
}

// TestInputBarIMEEnterNeitherPicksNorSends: with the menu open, an Enter that belongs to an
// IME composition neither picks the option nor sends the draft.
func TestInputBarIMEEnterNeitherPicksNorSends(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Focus(composer))
	do(t, ctx, 10*time.Second, typeText("/he"), menuOpen("/help"))

	do(t, ctx, 10*time.Second, imeCompose("lp"), composingEnter())
	time.Sleep(500 * time.Millisecond)
	require.Equal(t, "/help", draft(t, ctx), "the composing Enter picked nothing")
	require.Equal(t, "/", evalString(t, ctx, `location.pathname`), "and sent nothing")
	do(t, ctx, 10*time.Second, imeCommit("lp"))
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, "/help", draft(t, ctx))
	require.Equal(t, "/", evalString(t, ctx, `location.pathname`))
	require.Empty(t, thread(t, ctx))
}

// TestInputBarQueueDock: while a turn runs the bar says Enter queues; the queued prompt shows
// in the dock, then joins the thread when its turn comes.
func TestInputBarQueueDock(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText(`/script ok = confirm('Go on?'); send('first done' if ok else 'first stopped')`), pressEnter(0))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending')`))
	// The confirm takes the input area; "Chat about this" gives the bar back, the question
	// still open.
	do(t, ctx, 10*time.Second, pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .chat-about`)), waitJS(`!document.querySelector('#composer-mode')`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.inputbar .composer-hint').textContent`), "Enter queues")
	require.Equal(t, "Queue", evalString(t, ctx, `document.querySelector('.inputbar .send').textContent`))
	require.True(t, evalBool(t, ctx, `!!document.querySelector('.inputbar .steer')`), "a steer control while the turn runs")

	do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("second prompt"), pressEnter(0),
		waitJS(`!!document.querySelector('.queue-dock[role=list] [role=listitem][data-queued]')`))
	require.Equal(t, "Queued prompts", evalString(t, ctx, `document.querySelector('.queue-dock').getAttribute('aria-label')`))
	require.Equal(t, "second prompt", evalString(t, ctx, `document.querySelector('.queue-dock .queue-text').textContent`))
	require.Equal(t, "Waiting for the current turn", evalString(t, ctx, `document.querySelector('.queue-dock .queue-when').textContent`))

	// The card says the answer is below; the chip brings the question back.
	do(t, ctx, 10*time.Second, js(`document.querySelector('.composer-env .env-chip').click()`),
		waitJS(`!!document.querySelector('#composer-mode .choice')`), pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .choice`)))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "second prompt", msgs[2].Text)
	do(t, ctx, 10*time.Second, waitJS(`!document.querySelector('.queue-dock [data-queued]') && !document.querySelector('.inputbar .steer')`))
	require.Equal(t, "Send", evalString(t, ctx, `document.querySelector('.inputbar .send').textContent`))
}

// TestInputBarDraftSurvivesReload: the draft is mirrored in localStorage as its clipboard
// projection; after a reload it is back, the chip as its text.
func TestInputBarDraftSurvivesReload(t *testing.T) {
	t.Parallel()
	_, ctx, ids := openAmong(t, "alpha")
	alpha, home := ids["alpha"], ids["home"]
	do(t, ctx, 10*time.Second, typeText("keep @alp"), menuOpen("@alpha"), tab, typeText(" please"))
	want := "keep @session:" + alpha + " please"
	do(t, ctx, 10*time.Second, waitJS(`localStorage.getItem('parley.draft.s.`+home+`') === `+quote(want)))
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitDraft(want))
	// Another session has its own draft, and the first one's is still there after a visit.
	evalBool(t, ctx, `(() => { history.pushState({}, '', '/s/`+alpha+`'); dispatchEvent(new PopStateEvent('popstate')); return true })()`)
	do(t, ctx, 10*time.Second, waitDraft(""))
	evalBool(t, ctx, `(() => { history.pushState({}, '', '/s/`+home+`'); dispatchEvent(new PopStateEvent('popstate')); return true })()`)
	do(t, ctx, 10*time.Second, waitDraft(want))
	// Sent, the mirror is cleared.
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), pressEnter(0), waitJS(`localStorage.getItem('parley.draft.s.`+home+`') === null`))
}

// readmeSession opens a session of one exchange in a workspace that holds README.md, for a
// test that picks it as a chip.
func readmeSession(t *testing.T) (*server, context.Context, string) {
	t.Helper()
	return sessionAmong(t, map[string]string{"README.md": "# readme"})
}

// sessionAmong opens a session of one exchange in a workspace that holds files (path → text).
func sessionAmong(t *testing.T, files map[string]string) (*server, context.Context, string) {
	t.Helper()
	data := t.TempDir()
	testkit.WriteTree(t, data+"-workspace", files)
	srv := startServer(t, data, "127.0.0.1:0")
	id := seedSession(t, srv, "home", 1)
	ctx := openPage(t, srv, "/s/"+id)
	waitMessages(t, ctx, 2)
	return srv, ctx, id
}

// TestTheKeptDraftStripReadsAChip (QA round 15 P3-4): a question covers a draft that holds a
// chip; the strip that says the draft is kept reads the chip as the send does, "@README.md",
// not as a bare "▪", as it does after a letter typed on the question goes to the draft.
func TestTheKeptDraftStripReadsAChip(t *testing.T) {
	t.Parallel()
	srv, ctx, id := readmeSession(t)
	do(t, ctx, 10*time.Second, waitCaughtUp(), chromedp.Focus(composer), typeText("see @REA"), menuOpen("@README.md"), pressEnter(0),
		waitDraft("see "+chip), menuClosed, typeText("ab"), waitDraft("see "+chip+"ab"))

	sendAPI(t, srv, id, nameForm)
	waitShowing(t, ctx, 30*time.Second, modeShown+` && `+stripText+` === 'Your draft is kept: see @README.md ab'`, stripText)
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.id === 'composer-mode'`), chromedp.KeyEvent("c"))
	waitShowing(t, ctx, 10*time.Second, stripText+` === 'Your draft is kept: see @README.md abc'`, stripText)
}

// TestAChipReadsTheSameSentSavedAndCopied (QA round 14 #2): a word typed straight after a
// picked chip is drawn a gap apart from it. The copy, the draft saved and restored after a
// reload, and the send all read "see @README.md now". Before, only the send had the space:
// the copy and the restored draft read "@README.mdnow", a file that does not exist.
func TestAChipReadsTheSameSentSavedAndCopied(t *testing.T) {
	t.Parallel()
	_, ctx, id := readmeSession(t)
	const want = "see @README.md now"
	typeChipDraft := func() {
		do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("see @REA"), menuOpen("@README.md"), pressEnter(0),
			waitDraft("see "+chip), menuClosed, typeText("now"), waitDraft("see "+chip+"now"))
	}
	typeChipDraft()
	selectRange(t, ctx, 0, utf16Len("see "+chip+"now"))
	require.Equal(t, want, clipboardEvent(t, ctx, "copy", ""), "the copy")
	do(t, ctx, 10*time.Second, waitJS(`localStorage.getItem('parley.draft.s.`+id+`') === `+quote(want)))
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitDraft(want))

	// The draft restored is sent as it reads; so is the chip draft typed again.
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), pressEnter(0), waitDraft(""))
	require.Equal(t, want, waitMessages(t, ctx, 4)[2].Text, "the restored draft, sent")
	typeChipDraft()
	do(t, ctx, 10*time.Second, pressEnter(0), waitDraft(""))
	require.Equal(t, want, waitMessages(t, ctx, 6)[4].Text, "the chip draft, sent")
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// optionLabels is the menu's options as their labels read, joined by commas.
const optionLabels = `[...document.querySelectorAll('#composer-menu [role=option] .ib-option-label')].map(o => o.textContent).join()`

// TestAnAtPathNarrowsTheMenu (QA: a `/` typed after `@src` closed the menu, and Enter then
// sent the half-typed path as text): typed at a person's pace, `see @src/main` keeps the
// menu open through the `/`, with an option active at every step, narrows it to
// src/main.go, and Enter makes the chip. A name with a space is still picked from its first
// word, as before.
func TestAnAtPathNarrowsTheMenu(t *testing.T) {
	t.Parallel()
	_, ctx, _ := sessionAmong(t, map[string]string{"src/main.go": "package main", "notes file.txt": "notes", "README.md": "# readme"})
	rng := newRand()
	do(t, ctx, 10*time.Second, waitCaughtUp(), chromedp.Focus(composer))
	typeAt(t, ctx, rng, "see @src", typistsPace)
	do(t, ctx, 10*time.Second, menuOpen("@src/main.go"))
	// Every state the textarea takes from here on is logged: the menu must never close.
	evalBool(t, ctx, `(() => { const ta = document.querySelector('#composer-input'); window.menuStates = [];
		new MutationObserver(() => window.menuStates.push(ta.getAttribute('data-expanded') + ' ' + !!ta.getAttribute('aria-activedescendant'))).
			observe(ta, {attributes: true, attributeFilter: ['data-expanded', 'aria-activedescendant']}); return true })()`)
	typeAt(t, ctx, rng, "/main", typistsPace)
	waitShowing(t, ctx, 10*time.Second, draftJS+` === 'see @src/main' && `+optionLabels+` === '@src/main.go'`, optionLabels)
	require.Equal(t, "", evalString(t, ctx, `window.menuStates.filter(s => s !== 'true true').join('; ')`),
		"the menu stayed open, an option active, while the path was typed")

	do(t, ctx, 10*time.Second, pressEnter(0), waitDraft("see "+chip), menuClosed)
	require.Equal(t, []string{"@src/main.go"}, chips(t, ctx), "Enter picks the file")

	typeAt(t, ctx, rng, " @notes", typistsPace)
	do(t, ctx, 10*time.Second, menuOpen("@notes file.txt"), pressEnter(0), waitDraft("see "+chip+" "+chip))
	require.Equal(t, []string{"@src/main.go", "@notes file.txt"}, chips(t, ctx))
	do(t, ctx, 10*time.Second, pressEnter(0), waitDraft(""))
	require.Equal(t, "see @src/main.go @notes file.txt", waitMessages(t, ctx, 4)[2].Text)
}

// TestTheMenuStatusSpeaksWhenTypingPauses: as a query is typed into an `@` menu, its count
// changes with each key; the status region (a screen reader speaks each of its changes) says
// the menu opening and then, once the typing pauses, the last count: not every count between
// (QA round 16). A leading "./" in the path is the workspace: `@./src/m` offers src's files.
func TestTheMenuStatusSpeaksWhenTypingPauses(t *testing.T) {
	t.Parallel()
	_, ctx, _ := sessionAmong(t, map[string]string{"src/main.go": "package main", "src/menu.go": "package main",
		"scripts/run.sh": "echo", "README.md": "# readme", "notes.txt": "notes"})
	do(t, ctx, 10*time.Second, waitCaughtUp(), chromedp.Focus(composer))
	// Every change of the region's words, in order.
	evalBool(t, ctx, `(() => { const st = document.querySelector('#composer-menu-status'); window.spoken = [];
		new MutationObserver(() => { const w = st.textContent; if (w && window.spoken[window.spoken.length - 1] !== w) window.spoken.push(w) }).
			observe(st, {childList: true, characterData: true, subtree: true}); return true })()`)
	typeAt(t, ctx, newRand(), "see @./src/m", typistsPace)
	waitShowing(t, ctx, 10*time.Second, draftJS+` === 'see @./src/m' && `+optionLabels+` === '@src/main.go,@src/menu.go'`, optionLabels)
	do(t, ctx, 10*time.Second, waitJS(menuStatusJS+` === '2 suggestions'`))
	spoken := evalString(t, ctx, `window.spoken.join(' | ')`)
	require.LessOrEqual(t, int(get(t, ctx, chromedp.Evaluate[float64](`window.spoken.length`))), 2,
		"the opening, then the count once the typing paused: %s", spoken)
	require.True(t, strings.HasSuffix(spoken, "2 suggestions"), spoken)
	// While the menu is open, Enter picks: the hint says so, not "Enter to send" (QA round 22).
	hint := `document.querySelector('.composer-hint').textContent`
	require.Equal(t, "↑↓ to choose · Enter to pick · Esc to close", evalString(t, ctx, hint))
	do(t, ctx, 10*time.Second, escape, menuClosed, waitJS(menuStatusJS+` === 'Suggestions closed'`))
	require.Equal(t, "Enter to send · Shift+Enter for a new line", evalString(t, ctx, hint))
}

// TestInputBarKeyboardOnly: the whole path with the keyboard alone: the menu opened by
// typing, moved with ↓, closed with Escape, reopened, picked with Enter; Shift+Enter breaks
// the line even with the menu open; Enter sends.
func TestInputBarKeyboardOnly(t *testing.T) {
	t.Parallel()
	_, ctx, _ := openAmong(t, "beta", "alpha")

	require.Equal(t, "", evalString(t, ctx, menuStatusJS), "no menu has opened: the status says nothing")
	do(t, ctx, 10*time.Second, typeText("@"), menuOpen("@beta"), menuOpen("@alpha"))
	first := evalString(t, ctx, `document.activeElement.getAttribute('aria-activedescendant')`)
	require.NotEmpty(t, first)
	// A screen reader hears the menu open, with its options: the status says what
	// aria-expanded would (a textarea can be no combobox, nor carry aria-expanded).
	do(t, ctx, 5*time.Second, waitJS(menuStatusCounts))
	require.False(t, evalBool(t, ctx, `document.activeElement.hasAttribute('aria-expanded') || document.activeElement.hasAttribute('role')`),
		"the textarea keeps its own role, which takes no aria-expanded")
	// With a mouse, the rows stay compact (a touch screen's are 44 px: TestPhoneTargets).
	require.True(t, evalBool(t, ctx, `[...document.querySelectorAll('#composer-menu [role=option]')].every(o => o.getBoundingClientRect().height < 40)`),
		"desktop rows are as they were")
	// ↓ moves the active option.
	do(t, ctx, 5*time.Second, arrowDown, waitJS(`(document.activeElement.getAttribute('aria-activedescendant') || '') !== `+quote(first)))
	do(t, ctx, 5*time.Second, escape, menuClosed, waitJS(menuStatusJS+` === 'Suggestions closed'`))
	require.Equal(t, "@", draft(t, ctx), "Escape closes the menu and keeps the text")

	// A new trigger opens a fresh menu, and the status says so again; Enter picks from it
	// instead of sending, which closes it.
	do(t, ctx, 10*time.Second, backspace, waitDraft(""), typeText("@al"), menuOpen("@alpha"), waitJS(menuStatusCounts),
		pressEnter(0), waitDraft(chip), waitJS(menuStatusJS+` === 'Suggestions closed'`))
	require.Equal(t, []string{"@alpha"}, chips(t, ctx), "Enter picks from the menu instead of sending")
	do(t, ctx, 10*time.Second, typeText(" @be"), menuOpen("@beta"), pressEnter(modShift))
	require.Equal(t, chip+" @be\n", draft(t, ctx), "Shift+Enter always breaks the line")
	do(t, ctx, 10*time.Second, typeText("done"), pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	require.True(t, strings.HasPrefix(msgs[2].Text, "@alpha "), msgs[2].Text) // the session by its title (QA round 26)
	require.True(t, strings.HasSuffix(msgs[2].Text, " @be\ndone"), msgs[2].Text)
}

// TestTypingBeforeWasmIsKept: the pre-rendered page shows an autofocused composer, so a
// person starts typing at once. On a cold load the wasm takes about a second to take over
// and replaces the pre-rendered textarea; what was typed there is kept (web/early.js), and
// so is the focus.
func TestTypingBeforeWasmIsKept(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	// Hold app.wasm until the person has typed, so the race is decided, not hoped for.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	do(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/web/app.wasm*"}}})
		return err
	}))
	held := make(chan fetch.RequestID, 1)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			held <- ev.RequestID
			return
		}
	}()
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitJS(`!!document.querySelector('#composer-input')`))
	var id fetch.RequestID
	select {
	case id = <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the page never asked for app.wasm")
	}
	require.False(t, evalBool(t, ctx, `document.documentElement.hasAttribute('data-ready')`), "the wasm is held")
	do(t, ctx, 10*time.Second, chromedp.SendKeys(composer, "early bird"))
	do(t, ctx, 10*time.Second, continueRequest(id))
	do(t, ctx, 30*time.Second, waitReady())
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, "early bird", draft(t, ctx), "text typed into the pre-rendered composer is kept")
	require.Equal(t, "composer-input", evalString(t, ctx, `document.activeElement.id`), "the composer keeps the focus")
}

// TestDraftStaysWithItsSession: a draft belongs to its session. Text typed in one is not in
// the composer after switching to another from the sidebar (where Enter would send it), and
// is back on return.
func TestDraftStaysWithItsSession(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := seedSession(t, srv, "alpha", 1)
	b := seedSession(t, srv, "beta", 1)
	ctx := openPage(t, srv, "/s/"+a)
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, typeText("half a thought for alpha"))

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.sessions a[href="/s/`+b+`"]`)),
		waitJS(`location.pathname == '/s/`+b+`' && document.querySelector('.thread .msg-user') && document.querySelector('.thread .msg-user .msg-text').innerText.startsWith('beta')`))
	require.Empty(t, draft(t, ctx), "beta's composer does not carry alpha's draft")

	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.sessions a[href="/s/`+a+`"]`)),
		waitJS(`location.pathname == '/s/`+a+`' && document.querySelector('.thread .msg-user') && document.querySelector('.thread .msg-user .msg-text').innerText.startsWith('alpha')`))
	require.Equal(t, "half a thought for alpha", draft(t, ctx), "alpha's draft is back")
}

// TestKeysThatMoveTheCaretMoveTheMenu: the caret moved by a key with no edit (Home, End, the
// arrows) is read at the key's keyup, which web/early.js lets into the wasm for such keys only
// (a typed character's caret is read at its input event): Home leaves the `/he` trigger and the
// menu closes, End comes back to it and the menu opens again. (A command is offered only at
// the draft's start: "hi /he" opens no menu, TestACommandMidDraftOpensNoMenu.)
func TestKeysThatMoveTheCaretMoveTheMenu(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("/he"), menuOpen("/help"))
	do(t, ctx, 10*time.Second, rawKey("Home", 36, 0), menuClosed)
	do(t, ctx, 10*time.Second, endKey, menuOpen("/help"))
	do(t, ctx, 10*time.Second, rawKey("ArrowLeft", 37, 0), rawKey("ArrowLeft", 37, 0), rawKey("ArrowLeft", 37, 0), menuClosed)
	do(t, ctx, 10*time.Second, typeText("x"), waitDraft("x/he"))
}

// TestExampleEnterEnterListsTheExamples: on the empty page a newcomer types `/example` and
// presses Enter twice. The first Enter completes the command and opens the list of examples
// with none highlighted; the second sends `/example`, whose answer lists them. No example
// runs unasked. An arrow then Enter still picks one (round 8 #3, round 9 #5).
func TestExampleEnterEnterListsTheExamples(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	menuOpen := `document.querySelector('#composer-menu').classList.contains('open')`
	typeAt(t, ctx, newRand(), "/example", typingPaces[1])
	do(t, ctx, 10*time.Second, waitJS(menuOpen), pressEnter(0),
		waitJS(`document.querySelector('#composer-input').value === '/example '`),
		// The examples, not the command list the first Enter closed (on a loaded machine its
		// options, "example" highlighted, are still drawn the moment the draft changes).
		waitJS(menuOpen+` && [...document.querySelectorAll('#composer-menu .ib-option-label')].some(e => e.textContent === 'ask-deploy')`))
	require.False(t, evalBool(t, ctx, `!!document.querySelector('#composer-menu [aria-selected=true]')`), "nothing highlighted")
	require.Empty(t, evalString(t, ctx, `document.querySelector('#composer-input').getAttribute('aria-activedescendant') || ''`))
	do(t, ctx, 60*time.Second, pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "/example", strings.TrimSpace(msgs[0].Text))
	require.Contains(t, msgs[1].Text, "ask-deploy", "the answer lists the examples")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-run')`), "no example ran")

	// The arrows still pick: ↓ highlights the first, Enter puts it in place.
	do(t, ctx, 10*time.Second, chromedp.Focus(composer))
	typeAt(t, ctx, newRand(), "/example ", typingPaces[1])
	do(t, ctx, 10*time.Second, waitJS(menuOpen+` && !!document.querySelector('#composer-menu .ib-option')`),
		rawKey("ArrowDown", 40, 0), waitJS(`!!document.querySelector('#composer-menu [aria-selected=true]')`))
	first := evalString(t, ctx, `document.querySelector('#composer-menu [aria-selected=true] .ib-option-label').textContent`)
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`document.querySelector('#composer-input').value === '/example `+first+` '`))
}

// TestTheAtMenuLaysOutATitleByItsOwnDirection: a session's title in the `@` menu is laid out
// by its own first strong letter, a Hebrew one right to left in the left-to-right page, an
// English one left to right (QA round 12 #13, the menu's part).
func TestTheAtMenuLaysOutATitleByItsOwnDirection(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	seedSession(t, srv, "שלום עולם", 1)
	seedSession(t, srv, "other", 1)
	home := seedSession(t, srv, "home", 1)
	ctx := openPage(t, srv, "/s/"+home)
	waitMessages(t, ctx, 2)
	labels := `[...document.querySelectorAll('#composer-menu [role=option] .ib-option-label')]`
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("@"),
		waitJS(labels+`.some(l => l.textContent.includes('שלום')) && `+labels+`.some(l => l.textContent.includes('other'))`))
	require.True(t, evalBool(t, ctx, labels+`.find(l => l.textContent.includes('שלום')).matches(':dir(rtl)')`), "the Hebrew title")
	require.True(t, evalBool(t, ctx, labels+`.find(l => l.textContent.includes('other')).matches(':dir(ltr)')`), "the English one")
}

// TestACommandMidDraftOpensNoMenu (QA round 13, P2): "/exa" typed after words is text, as in
// Claude Code and Codex, where a command is one only at the prompt's start (and the server's
// door runs one only there). Before, the Commands menu opened with /example highlighted, and
// Enter and Tab were both swallowed: a command's pick claims the draft from its start, which
// the input machine refused mid-draft, and the menu stayed open. At the start, the menu still
// opens and Tab picks.
func TestACommandMidDraftOpensNoMenu(t *testing.T) {
	t.Parallel()
	_, ctx, rng := writing(t)
	// The command list is warm: at the start "/exa" offers /example.
	typeAt(t, ctx, rng, "/exa", typistsPace)
	do(t, ctx, 10*time.Second, menuOpen("/example"))
	clearDraft(t, ctx)

	typeAt(t, ctx, rng, "hello /exa", typistsPace)
	// The candidates come back in a few ms; the menu would be open well within the second.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		require.Equal(t, "false", evalString(t, ctx, `document.querySelector('#composer-input').getAttribute('data-expanded')`),
			"no command menu mid-draft")
		time.Sleep(50 * time.Millisecond)
	}
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 3)
	require.Equal(t, "hello /exa", msgs[2].Text, "Enter sends the draft as typed")

	// At the start of the draft the menu opens, and Tab picks.
	do(t, ctx, 10*time.Second, waitDraft(""))
	typeAt(t, ctx, rng, "/exa", typistsPace)
	// (The example names' menu may open after it: /example takes an argument.)
	do(t, ctx, 10*time.Second, menuOpen("/example"), tabKey(0), waitDraft("/example "))
}

// TestSameNamedSessionsDifferInTheMenu (QA round 12 #19): two sessions both titled "hello"
// each say, in the `@` menu, something that tells them apart.
func TestSameNamedSessionsDifferInTheMenu(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	first := seedSession(t, srv, "hello", 1)
	second := seedSession(t, srv, "hello", 1)
	home := seedSession(t, srv, "home", 1)
	ctx := openPage(t, srv, "/s/"+home)
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, chromedp.Focus(composer), typeText("@hel"),
		waitJS(`[...document.querySelectorAll('#composer-menu [role=option]')].filter(o => o.textContent.includes('@hello')).length === 2`))
	var details []string
	require.NoError(t, json.Unmarshal([]byte(evalString(t, ctx, `JSON.stringify([...document.querySelectorAll('#composer-menu [role=option]')].
		filter(o => o.textContent.includes('@hello')).map(o => o.querySelector('.ib-option-detail').textContent))`)), &details))
	require.Len(t, details, 2)
	require.NotEqual(t, details[0], details[1], "each says what tells it apart")
	for _, d := range details {
		require.Contains(t, d, "just now", "when it was last used, as the sidebar says it")
	}
	// The one detail that differs here is the session's id, which typing after @ finds too.
	require.True(t, strings.Contains(details[0], second[:6]) || strings.Contains(details[0], first[:6]), details[0])
}
