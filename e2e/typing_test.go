package e2e

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// Typing as a person does (docs/input.md, "Keys at a person's pace"): key by key, at a
// typist's pace and as fast as the browser takes them, with keys that overlap.

// typingPaces are the gaps between keys: none, and a typist's 60–150 ms.
var typingPaces = [][2]time.Duration{{0, 0}, {60 * time.Millisecond, 150 * time.Millisecond}}

// typistsPace is a person typing: 40 to 150 ms between keys.
var typistsPace = [2]time.Duration{40 * time.Millisecond, 150 * time.Millisecond}

// typeAt types text key by key (strokes, keyOf: a keyDown that carries its text, as a
// keyboard sends it), each key after a gap drawn from pace.
func typeAt(t *testing.T, ctx context.Context, rng *rand.Rand, text string, pace [2]time.Duration) {
	t.Helper()
	typeStrokes(t, ctx, rng, strokes(text), pace)
}

// typeStrokes types keys (keyOf each), each key after a gap drawn from pace.
func typeStrokes(t *testing.T, ctx context.Context, rng *rand.Rand, keys []stroke, pace [2]time.Duration) {
	t.Helper()
	for _, k := range keys {
		for _, p := range keyOf(k) {
			do(t, ctx, 10*time.Second, key(p))
		}
		if gap := pace[0] + time.Duration(rng.Int64N(int64(pace[1]-pace[0])+1)); gap > 0 {
			time.Sleep(gap)
		}
	}
}

// typeRolling types as a quick typist does: each key held 60–120 ms, the next pressed
// 60–150 ms after the last, so a key often goes down before the one before it is up.
func typeRolling(t *testing.T, ctx context.Context, rng *rand.Rand, text string) {
	t.Helper()
	type ev struct {
		at time.Duration
		p  input.DispatchKeyEventParams
	}
	var evs []ev
	at := time.Duration(0)
	for _, k := range strokes(text) {
		ps := keyOf(k)
		hold := 60*time.Millisecond + time.Duration(rng.Int64N(int64(60*time.Millisecond)))
		evs = append(evs, ev{at, ps[0]}, ev{at + hold, ps[1]})
		at += 60*time.Millisecond + time.Duration(rng.Int64N(int64(90*time.Millisecond)))
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return int(a.at - b.at) })
	start := time.Now()
	for _, e := range evs {
		if d := e.at - time.Since(start); d > 0 {
			time.Sleep(d)
		}
		do(t, ctx, 10*time.Second, key(e.p))
	}
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7)) }

// clearDraft empties the composer as a person's select-all and Backspace would.
func clearDraft(t *testing.T, ctx context.Context) {
	t.Helper()
	setDraftJS(t, ctx, "")
	do(t, ctx, 10*time.Second, waitDraft(""), menuClosed)
}

// TestSpaceAfterACommandAtEveryPace: "/example a" typed key by key keeps its space at every
// pace (none, a typist's, overlapping keys), in the hero and in a session, and "/example "
// then shows the argument completion. The space is the command claim's (the ghost hint says
// so), and the words after it are the argument.
func TestSpaceAfterACommandAtEveryPace(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "")
	rng := newRand()
	check := func(where string) {
		for _, pace := range typingPaces {
			typeAt(t, ctx, rng, "/example ", pace)
			do(t, ctx, 10*time.Second, waitDraft("/example "), menuOpen("hello"))
			require.Equal(t, "<slug> [json-vars]", evalString(t, ctx, `document.querySelector('#composer-backdrop .ib-ghost').textContent`), "%s %v: claimed", where, pace)
			typeAt(t, ctx, rng, "a", pace)
			do(t, ctx, 10*time.Second, waitDraft("/example a"))
			clearDraft(t, ctx)
		}
		for range 3 {
			typeRolling(t, ctx, rng, "/example a")
			do(t, ctx, 10*time.Second, waitDraft("/example a"))
			clearDraft(t, ctx)
		}
	}
	check("hero")
	// In a session: the first prompt moves the bar there.
	do(t, ctx, 20*time.Second, typeText("hi"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	waitMessages(t, ctx, 2)
	check("session")
}

// TestNewSessionTakesTheFirstKeys: after a click on New session, what is typed at once goes to
// the composer of the new session, the first key too, fast or at a typist's pace; the
// composer has the focus. The first key used to go to the link, or into the bar of the page
// that was going (whose draft the hero then replaced), so "/help" was sent as "help": one
// round in two or four lost it, so each pace has two rounds.
func TestNewSessionTakesTheFirstKeys(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hi")
	waitMessages(t, ctx, 2)
	rng := newRand()
	for _, pace := range append(typingPaces, typingPaces...) {
		do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#sidebar .new-session`)))
		typeAt(t, ctx, rng, "/help", pace)
		do(t, ctx, 20*time.Second, waitJS(`location.pathname === '/'`), waitDraft("/help"),
			waitJS(`document.activeElement && document.activeElement.id === 'composer-input'`))
		do(t, ctx, 10*time.Second, escape, menuClosed, pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
		msgs := waitMessages(t, ctx, 2)
		require.Equal(t, "/help", msgs[0].Text, pace)
		require.Contains(t, msgs[1].Text, "Commands", "the command ran")
	}
}

// TestNewSessionKeepsWhatIsTypedAtOnce: the spaces and the Enter typed right after New
// session are the typist's too, once a character was held for the hero (they are the link's
// own before that), whether New session was clicked on the hero itself or in a session; and
// a character typed on a session's row just clicked is never held for later (it went out
// in the next session opened).
func TestNewSessionKeepsWhatIsTypedAtOnce(t *testing.T) {
	t.Parallel()
	srv, ctx := openHome(t)
	rng := newRand()
	newSessionThenType := func(text string) {
		do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#sidebar .new-session`)))
		typeAt(t, ctx, rng, text, typingPaces[0])
	}
	newSessionThenType("on the hero")
	do(t, ctx, 20*time.Second, waitDraft("on the hero"), waitJS(`document.activeElement.id === 'composer-input'`))
	clearDraft(t, ctx)
	do(t, ctx, 20*time.Second, typeText("hi"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	waitMessages(t, ctx, 2)
	first := evalString(t, ctx, `location.pathname`)
	newSessionThenType("from a session⏎")
	do(t, ctx, 20*time.Second, waitJS(`location.pathname.startsWith('/s/') && location.pathname !== '`+first+`'`))
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "from a session", msgs[0].Text)

	// A session's row clicked, then typed on: the keys are that session's draft, and nothing
	// is held for later (held, they went out in the next session opened).
	second := evalString(t, ctx, `location.pathname`)
	row := func(path string) string {
		return `#sidebar .session-item[data-session="` + strings.TrimPrefix(path, "/s/") + `"] .session-link`
	}
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(row(first))))
	typeAt(t, ctx, rng, "xy z", typingPaces[0])
	do(t, ctx, 10*time.Second, waitJS(`location.pathname === '`+first+`'`))
	do(t, ctx, 10*time.Second, waitDraft("xy z"), waitJS(`document.activeElement.id === 'composer-input'`))
	require.Empty(t, evalString(t, ctx, `window.parleyEarly.text + window.parleyEarly.sends.join('')`), "nothing held")

	// Reached by Tab (the focus on the row of the session shown), a letter goes to its draft;
	// on another session's row it does nothing.
	do(t, ctx, 10*time.Second, js(`document.querySelector('`+row(first)+`').focus()`))
	typeAt(t, ctx, rng, "!", typingPaces[0])
	do(t, ctx, 10*time.Second, waitDraft("xy z!"))
	do(t, ctx, 10*time.Second, js(`document.querySelector('`+row(second)+`').focus()`))
	typeAt(t, ctx, rng, "q", typingPaces[0])
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, "xy z!", draft(t, ctx), "a letter on another session's row is not this draft's")
	require.Equal(t, first, evalString(t, ctx, `location.pathname`))
	_ = srv
}

// TestHeroFocusesTheComposer: on a first load the composer of the empty page has the focus,
// so a person types at once without a click.
func TestHeroFocusesTheComposer(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 20*time.Second, waitJS(`document.documentElement.hasAttribute('data-composer-live')`),
		waitJS(`document.activeElement && document.activeElement.id === 'composer-input'`))
	typeAt(t, ctx, newRand(), "straight in⏎", typingPaces[1])
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "straight in", msgs[0].Text)
}

// TestRenameFocusEscapeEnter: Rename puts the focus in its field with the title; Escape keeps
// the old title and gives the focus back to Rename; Enter saves.
func TestRenameFocusEscapeEnter(t *testing.T) {
	t.Parallel()
	srv, ctx := openSession(t, "hi")
	waitMessages(t, ctx, 2)
	id := sessionOf(t, ctx)
	do(t, ctx, 10*time.Second, waitJS(`document.querySelectorAll('.sessions .session-item').length == 1`))
	rename := chromedp.CSS(`.session-op[data-op=rename]`)
	inField := waitJS(`document.activeElement && document.activeElement.classList.contains('session-rename')`)
	onRename := waitJS(`document.activeElement && document.activeElement.dataset.op === 'rename'`)

	do(t, ctx, 10*time.Second, hoverOver(`.session-item`), chromedp.Click(rename), inField)
	require.Equal(t, "hi", evalString(t, ctx, `document.activeElement.value`))
	typeAt(t, ctx, newRand(), " and more", typingPaces[1])
	do(t, ctx, 10*time.Second, escape, waitJS(`!document.querySelector('.session-rename')`), onRename)
	require.Equal(t, "hi", evalString(t, ctx, `document.querySelector('.session-title').textContent`), "Escape keeps the old title")
	require.Equal(t, "/s/"+id, evalString(t, ctx, `location.pathname`), "and closes nothing else")

	// From the keyboard this time: Enter on Rename, a new title, Enter.
	do(t, ctx, 10*time.Second, pressEnter(0), inField)
	require.Equal(t, "hi", evalString(t, ctx, `document.activeElement.value`), "the old title, not the words typed before Escape")
	typeAt(t, ctx, newRand(), "⌫⌫Release notes⏎", typingPaces[0])
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('.session-title')?.textContent === 'Release notes'`), onRename)
	info, err := apiClient(srv).GetSession(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, "Release notes", info.Title)
}

// TestARowClickedBelowTheTopTakesTheKeys: the row of a session that is not first in the list,
// clicked, then "/help" typed at once and Enter: the command runs in that session. (The
// re-test of QA round 12 #1 saw the clicked row move up as its session opened, the focus left
// in its old slot on another session's link, and Enter open that session. This test does
// not make the row move: here the session opens from its window, which dates nothing. The
// two guards against it, a replay that moves no row and early.js reading a key in the slot
// as the clicked row's, are not proved by it.)
func TestARowClickedBelowTheTopTakesTheKeys(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := answeredSession(t, srv, "Alpha", "a first")
	b := answeredSession(t, srv, "Beta", "b first")
	sendTo(t, srv, a, "a again, later in the same minute") // the index keeps Alpha's first time
	waitAgentReplies(t, srv, a, 2)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(), chromedp.Navigate(srv.base()+"/s/"+b), waitReady(), waitCaughtUp())
	const order = `[...document.querySelectorAll('#sidebar .session-item')].map(e => e.dataset.session).join()`
	waitShowing(t, ctx, 20*time.Second, order+` === '`+b+","+a+`'`, order)
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#sidebar .session-item[data-session="`+a+`"] .session-link`)))
	typeAt(t, ctx, newRand(), "/help⏎", typingPaces[0])
	do(t, ctx, 20*time.Second, waitJS(`location.pathname === '/s/`+a+`'`))
	waitAgentReplies(t, srv, a, 3)
	page, err := apiClient(srv).Events(context.Background(), a, 0, 0)
	require.NoError(t, err)
	var prompts []string
	for _, ev := range page.Events {
		if ev.Type == protocol.EventUserMessage {
			m, _ := ev.DecodeMessage()
			prompts = append(prompts, m.Text)
		}
	}
	// Enter with the command's menu already open picks it (the name and its space) and sends
	// "/help "; typed before the menu opened, "/help" goes as typed. Both run the command.
	require.Equal(t, "/help", strings.TrimSpace(prompts[len(prompts)-1]), "the command ran in the session clicked")
}
