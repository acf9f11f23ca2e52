package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
)

// Keys meant for a decision (docs/composer.md, "Focus and keys"): once the guard has passed,
// a decision takes the focus at its first field, so no key lands anywhere hidden.

// focusIn waits until the focus is inside the decision, on something other than the morphed
// area itself.
const focusIn = `document.activeElement && document.activeElement.id !== 'composer-mode' && !!document.activeElement.closest('#composer-mode')`

// chipTexts lists the question chips' labels.
const chipTexts = `[...document.querySelectorAll('#composer-mode .chip')].map(c => c.textContent).join('|')`

// shownTitle is the shown question's title.
const shownTitle = `(document.querySelector('#composer-mode .field:not(.is-hidden) .field-title') || {textContent: ''}).textContent`

// TestTypingOnADecisionGoesIntoIt is the trial: an approval appears, the person waits
// and types "no, use git status". The words land in the approval's field for words, where
// they can be seen, and never in the hidden draft.
func TestTypingOnADecisionGoesIntoIt(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, `/script run(["ls","-la"])`)
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.id === 'approval-instruction'`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("no, use git status"))
	require.Equal(t, "no, use git status", evalString(t, ctx, `document.querySelector('#approval-instruction').value`))
	require.Equal(t, "", draft(t, ctx), "nothing went to the hidden draft")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode .draft-strip')`), "no draft, no strip")
	// Enter sends the words as the rejection.
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(modeGone))
	require.Equal(t, "", draft(t, ctx))
}

// TestADraftUnderADecisionShowsAsAStrip types on as a decision lands: the letters go to the
// draft, which shows as a one-line strip inside the decision. The writer keeps the focus:
// after a pause (a person's, between words) the next words still go to the draft, and no
// Space presses a choice; Tab moves into the decision when they are ready.
func TestADraftUnderADecisionShowsAsAStrip(t *testing.T) {
	t.Parallel()
	ctx := draftThenConfirm(t)
	do(t, ctx, 20*time.Second, waitJS(modeShown), chromedp.KeyEvent(" more"))
	do(t, ctx, 10*time.Second, waitJS(`(document.querySelector('#composer-mode .draft-strip') || {}).textContent === 'Your draft is kept: half a thought more'`))
	time.Sleep(1500 * time.Millisecond) // a writer's pause, well past the guard
	require.False(t, evalBool(t, ctx, focusIn), "the decision did not take the focus from the writer")
	do(t, ctx, 10*time.Second, chromedp.KeyEvent(" and on"))
	do(t, ctx, 10*time.Second, waitJS(`(document.querySelector('#composer-mode .draft-strip') || {}).textContent === 'Your draft is kept: half a thought more and on'`))
	require.True(t, evalBool(t, ctx, modeShown), "no Space answered the confirm")
	do(t, ctx, 10*time.Second, tabKey(0), waitJS(focusIn))
	require.Equal(t, "BUTTON", evalString(t, ctx, `document.activeElement.tagName`), "a lone confirm's first option")
	// The strip goes back to the draft: the decision is set aside, not answered.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .draft-strip`)), waitJS(modeGone),
		waitJS(`document.activeElement.id === 'composer-input'`))
	require.Equal(t, "half a thought more and on", draft(t, ctx))
	require.Equal(t, "1 decision is waiting · Answer", evalString(t, ctx, `document.querySelector('.env-chip').textContent`))
}

// TestEscapeSetsTheQuestionAside: Escape never declines; the question waits, answers kept,
// and declining is its own button.
func TestEscapeSetsTheQuestionAside(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, threeQuestions, waitJS(focusIn))
	do(t, ctx, 10*time.Second, space(), waitJS(`document.querySelector('#composer-mode .chip').textContent === 'Engine ✓'`))
	do(t, ctx, 10*time.Second, rawKey("Escape", 27, 0), waitJS(modeGone), waitJS(`document.activeElement.id === 'composer-input'`))
	assertOnePending(t, srv, ctx, "still asked")
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`.env-chip`)), waitJS(modeShown), waitJS(focusIn))
	require.Equal(t, "Engine ✓|Theme|Name", evalString(t, ctx, chipTexts), "the answer given is kept")
	require.Equal(t, "Decline", evalString(t, ctx, `document.querySelector('#composer-mode .secondary').textContent`))
}

// ratedForm is the out-of-range trial: a 1–5 integer, a choice, a name; chips from
// the titles, as the schema has no headers.
const ratedForm = `/script r = ask('Rate it', {'type': 'object', 'properties': {` +
	`'stars': {'type': 'integer', 'title': 'How many stars would you give it overall?', 'minimum': 1, 'maximum': 5}, ` +
	`'ratio': {'type': 'number', 'title': 'Ratio'}, ` +
	`'pick': {'type': 'string', 'title': 'Which one?', 'enum': ['a', 'b']}}, 'required': ['stars', 'ratio', 'pick']}); ` +
	`send('stars=%s ratio=%s pick=%s' % (r['stars'], r['ratio'], r['pick']))`

// TestOutOfRangeStaysWithItsError types 9 into a 1–5 field: its hint said so before, Enter
// shows the error and stays, the chip stays unanswered. Then the whole form goes by keyboard
// alone: the first field has the focus, a number typed with no pause keeps its decimal point,
// Space and Enter on the radios agree, and Enter on the last question sends.
func TestOutOfRangeStaysWithItsError(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, ratedForm)
	require.Equal(t, "How many stars would…|Ratio|Which one?", evalString(t, ctx, chipTexts), "chips hold the titles, cut short")
	require.Equal(t, "1–5 · a whole number", modeText(t, ctx, `.field:not(.is-hidden) .field-hint`), "the range shows before typing")
	require.Contains(t, evalString(t, ctx, `document.querySelector('#composer-mode .field:not(.is-hidden) input').getAttribute('aria-describedby')`), "-hint")
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.type === 'number'`))
	require.True(t, evalBool(t, ctx, `(s => s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2)(getComputedStyle(document.activeElement))`),
		"the focused field shows a focus ring")
	keys := 0
	press := func(a chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] { keys++; return a }

	do(t, ctx, 10*time.Second, press(chromedp.KeyEvent("9")), press(pressEnter(0)),
		waitJS(`!!document.querySelector('#composer-mode .field-error')`))
	require.Equal(t, "Must be at most 5.", modeText(t, ctx, `.field-error`))
	require.True(t, strings.HasPrefix(evalString(t, ctx, shownTitle), "How many stars"), "it stays")
	require.Equal(t, "How many stars would…|Ratio|Which one?", evalString(t, ctx, chipTexts), "unanswered")
	require.Equal(t, "number", evalString(t, ctx, `document.activeElement.type`))

	do(t, ctx, 10*time.Second, press(rawKey("Backspace", 8, 0)), press(chromedp.KeyEvent("4")), press(pressEnter(0)),
		waitJS(shownTitle+` === 'Ratio *'`), waitJS(`document.activeElement.type === 'number'`))
	// Typed with no pause between the keys.
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("0.5"))
	keys += 3
	require.Equal(t, "0.5", evalString(t, ctx, `document.activeElement.value`))
	do(t, ctx, 10*time.Second, press(pressEnter(0)), waitJS(`document.activeElement.type === 'radio'`))
	// ArrowLeft on the first option does not wrap into "Other…".
	do(t, ctx, 10*time.Second, rawKey("ArrowLeft", 37, 0))
	require.Equal(t, "a", evalString(t, ctx, `document.activeElement.value`))
	require.False(t, evalBool(t, ctx, `!!document.querySelector('#composer-mode .other-input')`))
	// Space on the checked option answers, as Enter does; the form is complete and this is
	// its last question: it sends.
	do(t, ctx, 10*time.Second, press(rawKey("ArrowRight", 39, 0)), waitJS(`document.activeElement.value === 'b'`), press(space()))
	waitReply(t, ctx, "stars=4 ratio=0.5 pick=b")
	t.Logf("a three-question form by keyboard alone: %d keys (9 and its correction included)", keys)
}

// TestApprovalChords: mod+Enter approves, shown as a hint on the option; a letter never does.
func TestApprovalChords(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, echoScript, waitJS(focusIn))
	require.Equal(t, "Ctrl+Enter", modeText(t, ctx, `.choice .key-hint`))
	require.Equal(t, "Control+Enter Meta+Enter", evalString(t, ctx, `document.querySelector('#composer-mode .choice').getAttribute('aria-keyshortcuts')`))
	require.Equal(t, "Ctrl+Shift+Enter", modeText(t, ctx, `.choice.tone-deny .key-hint`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("y"))
	require.True(t, evalBool(t, ctx, modeShown), "a letter approves nothing")
	do(t, ctx, 10*time.Second, rawKey("Backspace", 8, 0), pressEnter(modCtrl))
	waitReply(t, ctx, "got hello")
}

// TestRejectChord: mod+Shift+Enter rejects.
func TestRejectChord(t *testing.T) {
	t.Parallel()
	_, ctx := openDecision(t, echoScript, waitJS(focusIn))
	do(t, ctx, 10*time.Second, pressEnter(modCtrl|modShift))
	msgs := waitMessages(t, ctx, 2)
	require.Contains(t, msgs[1].Text, "rejected")
}

// TestIMENeverAnswers composes with an input method in the question and approval modes: the
// Enter that commits a candidate neither moves on, sends, nor rejects.
func TestIMENeverAnswers(t *testing.T) {
	t.Parallel()
	imeEnter := chromedp.Steps(
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "Process", Code: "Enter", WindowsVirtualKeyCode: 229, NativeVirtualKeyCode: 229}),
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}),
	)
	// Composing "ni", the Enter that picks a candidate (keyCode 229, as Chromium sends it
	// while composing), then the commit.
	compose := func(text string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(imeCompose("ni"), imeEnter, imeCompose(text), imeEnter, imeCommit(text))
	}
	t.Run("question", func(t *testing.T) {
		_, ctx := openDecision(t, threeQuestions, waitJS(focusIn))
		do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode [role=tab]')][2].click()`),
			waitJS(`document.activeElement.type === 'text'`), compose("你好"))
		require.Equal(t, "你好", evalString(t, ctx, `document.activeElement.value`))
		require.True(t, strings.HasPrefix(evalString(t, ctx, shownTitle), "Project name"), "the composing Enter did not move on")
		require.True(t, evalBool(t, ctx, modeShown))
	})
	t.Run("approval", func(t *testing.T) {
		_, ctx := openDecision(t, echoScript, waitJS(`document.activeElement.id === 'approval-instruction'`))
		do(t, ctx, 10*time.Second, compose("不要"))
		require.Equal(t, "不要", evalString(t, ctx, `document.activeElement.value`))
		time.Sleep(300 * time.Millisecond) // a reply would be on its way by now: prove it is not
		require.True(t, evalBool(t, ctx, modeShown), "the composing Enter did not reject")
	})
}

// nameForm asks for an age, a name and a yes or no: every question answered, a reload must
// still come back to the one the person was at.
const nameForm = `/script r = ask('About you', {'type': 'object', 'properties': {` +
	`'age': {'type': 'integer', 'title': 'Age', 'minimum': 1, 'maximum': 120}, ` +
	`'name': {'type': 'string', 'title': 'Your name'}, ` +
	`'ok': {'type': 'boolean', 'title': 'Proceed?', 'default': True}}, 'required': ['age', 'name']}); ` +
	`send('%s is %s' % (r['name'], r['age']))`

// TestAReloadMidAnswerComesBackToIt: a reload while a name is half typed comes back to that
// question, the caret after what was typed; the rest of the name joins it, and Enter moves on
// rather than sending (QA round 12 #6: the focus came back on the last question, the keys
// went nowhere, and one Enter sent "Barba").
func TestAReloadMidAnswerComesBackToIt(t *testing.T) {
	t.Parallel()
	srv, ctx := openDecision(t, nameForm)
	do(t, ctx, 10*time.Second, waitJS(`document.activeElement.type === 'number'`))
	rng := newRand()
	typeAt(t, ctx, rng, "33", typistsPace)
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(shownTitle+` === 'Your name *'`), waitJS(`document.activeElement.type === 'text'`))
	typeAt(t, ctx, rng, "Barba", typistsPace)
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitJS(modeShown))
	// The field takes the focus back, the caret after what was typed.
	do(t, ctx, 20*time.Second, waitJS(shownTitle+` === 'Your name *'`),
		waitJS(`document.activeElement.value === 'Barba' && document.activeElement.selectionStart === 5`))
	typeAt(t, ctx, rng, "ra", typistsPace)
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(shownTitle+` === 'Proceed?'`))
	assertOnePending(t, srv, ctx, "Enter moved on, it did not send")
	do(t, ctx, 10*time.Second, pressEnter(0))
	waitReply(t, ctx, "Barbara is 33")
}

// TestCtrlEnterWithWordsTypedRejects: a person types what to do instead into an approval's
// field and presses Ctrl+Enter, the chord that sends in most chat boxes. The words go to the
// model as the rejection; the command does not run (it used to be approved, the file
// deleted and the words dropped) (QA round 7).
func TestCtrlEnterWithWordsTypedRejects(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	notes := filepath.Join(dataWorkspace(t, data), "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("keep me\n"), 0o644))
	fake, _, ctx := openModelOn(t, data,
		testkit.Calls(runCommand("call_0", "rm", "notes.txt")),
		testkit.Text("Kept it."))
	prompt(t, ctx, "clean up")
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval') && document.activeElement.id === 'approval-instruction'`))
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), "no, keep it"),
		waitJS(`document.querySelector('#approval-instruction').value === 'no, keep it'`),
		pressEnter(modCtrl))
	waitFinal(t, ctx, "Kept it.")
	require.Equal(t, []string{"call_0: error: rejected by the user: no, keep it"}, toolResults(t, fake))
	_, err := os.Stat(notes)
	require.NoError(t, err, "the file the words said to keep is still there")
	require.True(t, strings.HasPrefix(evalString(t, ctx, `document.querySelector('.thread .entry-decision .entry-outcome').textContent`), "Rejected"),
		"the card says it was rejected")
}

// arrowLeft presses ← n times, as a person moving the caret back.
func arrowLeft(n int) chromedp.Action[chromedp.Void] {
	var steps []chromedp.Action[chromedp.Void]
	for range n {
		steps = append(steps, rawKey("ArrowLeft", 37, 0))
	}
	return chromedp.Steps(steps...)
}

// stripText is the "Your draft is kept: …" strip of the decision shown, "" when none.
const stripText = `(document.querySelector('#composer-mode .draft-strip') || {textContent: ''}).textContent`

// TestKeysOnADecisionGoWhereTheCaretWas (QA round 13, P1): the person edits in the middle of
// their draft ("AAA xxx| BBB"); an approval takes the input area; after a pause they type on.
// Their letters go to the draft where the caret was, in order ("AAA xxx yyy BBB"), and the
// strip shows the draft as it is. Before, each letter was appended at the draft's end ("AAA
// xxx BBB yyy").
func TestKeysOnADecisionGoWhereTheCaretWas(t *testing.T) {
	t.Parallel()
	srv, ctx, rng := writing(t)
	typeAt(t, ctx, rng, "AAA BBB", typistsPace)
	do(t, ctx, 10*time.Second, arrowLeft(4), waitJS(`document.querySelector('#composer-input').selectionStart === 3`))
	typeAt(t, ctx, rng, " xxx", typistsPace)
	do(t, ctx, 10*time.Second, waitDraft("AAA xxx BBB"))

	sendAPI(t, srv, sessionOf(t, ctx), `/script r = run(['echo','hi'])`)
	do(t, ctx, 30*time.Second, waitJS(modeShown), waitJS(stripText+` === 'Your draft is kept: AAA xxx BBB'`))
	time.Sleep(2 * time.Second) // the person reads it
	typeAt(t, ctx, rng, " yyy", typistsPace)
	waitShowing(t, ctx, 10*time.Second, stripText+` === 'Your draft is kept: AAA xxx yyy BBB'`, stripText)
	require.True(t, evalBool(t, ctx, modeShown), "the approval is still there, unanswered")
	require.Equal(t, "", evalString(t, ctx, `(document.querySelector('#approval-instruction') || {value: ''}).value`), "no letter went into the approval")

	// Back in the draft, the caret is after the letters, so the next ones follow them.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#composer-mode .draft-strip`)), waitJS(modeGone),
		waitJS(`document.activeElement.id === 'composer-input'`))
	require.Equal(t, "AAA xxx yyy BBB", draft(t, ctx))
	typeAt(t, ctx, rng, " zz", typistsPace)
	do(t, ctx, 10*time.Second, waitDraft("AAA xxx yyy zz BBB"))
}
