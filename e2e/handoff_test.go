package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The hand-off (docs/input.md): a person types from the moment the box appears, at their own
// pace, while the page goes from pre-rendered HTML to the wasm's disabled bar, to the live
// bar on the hero's blank session, to an ordinary session after the first prompt. Every key
// arrives, once, in order; the Enter sends once.

// handoffLoads is how many loads each path runs: PARLEY_HANDOFF_LOADS, else 6 (make test).
// The full run is PARLEY_HANDOFF_LOADS=20.
func handoffLoads(t *testing.T) int {
	if n, err := strconv.Atoi(os.Getenv("PARLEY_HANDOFF_LOADS")); err == nil && n > 0 {
		return n
	}
	return 6
}

// handoffPaces are the gaps between keys, each load jittered within [lo, hi): all at once, a
// fast typist, the typist of the report, a slow one.
var handoffPaces = [][2]time.Duration{{0, 0}, {5 * time.Millisecond, 20 * time.Millisecond}, {40 * time.Millisecond, 150 * time.Millisecond}, {20 * time.Millisecond, 60 * time.Millisecond}}

// A step of typing: a character, a Backspace or an Enter.
type stroke struct {
	ch        rune
	backspace bool
	enter     bool
}

// strokes types text, with `⌫` as a Backspace and `⏎` as an Enter.
func strokes(text string) []stroke {
	var out []stroke
	for _, r := range text {
		switch r {
		case '⌫':
			out = append(out, stroke{backspace: true})
		case '⏎':
			out = append(out, stroke{enter: true})
		default:
			out = append(out, stroke{ch: r})
		}
	}
	return out
}

// keyOf is the CDP events of a stroke as a keyboard sends them: a keyDown that carries its
// text, so a page that prevents the keydown also prevents the text.
func keyOf(s stroke) []input.DispatchKeyEventParams {
	switch {
	case s.enter:
		return []input.DispatchKeyEventParams{
			{Type: input.DispatchKeyEventTypeKeyDown, Key: "Enter", Code: "Enter", Text: "\r", UnmodifiedText: "\r", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13},
			{Type: input.DispatchKeyEventTypeKeyUp, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13},
		}
	case s.backspace:
		return []input.DispatchKeyEventParams{
			{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "Backspace", Code: "Backspace", WindowsVirtualKeyCode: 8, NativeVirtualKeyCode: 8},
			{Type: input.DispatchKeyEventTypeKeyUp, Key: "Backspace", Code: "Backspace", WindowsVirtualKeyCode: 8, NativeVirtualKeyCode: 8},
		}
	}
	ch := string(s.ch)
	code, vk := "", int64(0)
	switch {
	case s.ch == ' ':
		code, vk = "Space", 32
	case s.ch >= 'a' && s.ch <= 'z':
		code, vk = "Key"+strings.ToUpper(ch), int64(s.ch-'a'+'A')
	case s.ch >= '0' && s.ch <= '9':
		code, vk = "Digit"+ch, int64(s.ch)
	}
	return []input.DispatchKeyEventParams{
		{Type: input.DispatchKeyEventTypeKeyDown, Key: ch, Code: code, Text: ch, UnmodifiedText: ch, WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk},
		{Type: input.DispatchKeyEventTypeKeyUp, Key: ch, Code: code, WindowsVirtualKeyCode: vk, NativeVirtualKeyCode: vk},
	}
}

// holder delays the requests a load depends on: app.wasm (the take-over) and the workspace
// list (the hero's blank session connecting), each by its own random delay.
type holder struct {
	mu    sync.Mutex
	delay map[string]time.Duration // by pattern word
}

func (h *holder) set(wasm, workspaces time.Duration) {
	h.mu.Lock()
	h.delay = map[string]time.Duration{"app.wasm": wasm, "/api/workspaces": workspaces}
	h.mu.Unlock()
}

func (h *holder) of(url string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w, d := range h.delay {
		if strings.Contains(url, w) {
			return d
		}
	}
	return 0
}

// hold starts intercepting the page's requests for app.wasm and the workspace list.
func hold(t *testing.T, ctx context.Context) *holder {
	h := &holder{}
	intercept(t, ctx, func(url string) bool { time.Sleep(h.of(url)); return true }, "*/web/app.wasm*", "*/api/workspaces*")
	return h
}

// intercept pauses the page's requests whose URL matches one of patterns, each until wait
// says it may go on (false: never, the test is over). The service worker is bypassed: it
// would answer app.wasm itself, out of the page's sight, so every load goes to the network,
// as the first one does.
func intercept(t *testing.T, ctx context.Context, wait func(url string) bool, patterns ...string) {
	t.Helper()
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			go func() {
				if !wait(ev.Request.URL) {
					return
				}
				_ = chromedp.Do(ctx, continueRequest(ev.RequestID))
			}()
		}
	}()
	do(t, ctx, 10*time.Second, pauseRequests(patterns...))
}

// pauseRequests has the page's requests whose URL matches one of patterns paused (a
// fetch.EventRequestPaused each, until continueRequest), past the service worker: it would
// answer them itself, out of the page's sight.
func pauseRequests(patterns ...string) chromedp.Action[chromedp.Void] {
	var match []*fetch.RequestPattern
	for _, p := range patterns {
		match = append(match, &fetch.RequestPattern{URLPattern: p})
	}
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, tg, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: match})
		return err
	})
}

// continueRequest lets a request paused by pauseRequests (or fetch.Enable) go on.
func continueRequest(id fetch.RequestID) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
		return err
	})
}

// loadAndType opens url without waiting for it to load, types keys from the moment the new
// page's composer shows, each after a gap drawn from pace, and returns when the last is sent.
func loadAndType(t *testing.T, ctx context.Context, rng *rand.Rand, url string, keys []stroke, pace [2]time.Duration) {
	t.Helper()
	startLoading(t, ctx, url)
	// The box is there: polled, since a page between documents answers with errors.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!window.parleyOldPage && !!document.querySelector('#composer-input')`))
		if err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the composer never showed")
		}
		time.Sleep(2 * time.Millisecond)
	}
	typeStrokes(t, ctx, rng, keys, pace)
}

// TestTypingThroughTheHandOff types a prompt, an Enter and a few more words through the whole
// load, with app.wasm and the workspace list released at random points, on the printed token
// link (which redirects), on the plain address with the cookie set, and with the hero's blank
// session slow to connect (the keys meet the disabled bar). The prompt must arrive
// character for character, exactly once, and the words after the Enter must be the draft.
func TestTypingThroughTheHandOff(t *testing.T) {
	t.Parallel()
	loads := handoffLoads(t)
	for _, path := range []string{"token", "cookie", "hero"} {
		t.Run(path, func(t *testing.T) {
			srv := startServer(t, t.TempDir(), "127.0.0.1:0")
			ctx := browser(t)
			do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
			h := hold(t, ctx)
			url := srv.link
			if path != "token" {
				url = srv.base() + "/"
			}
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 1))
			lost := 0
			for i := range loads {
				pace := handoffPaces[i%len(handoffPaces)]
				wasm := time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))
				ws := time.Duration(rng.Int64N(int64(800 * time.Millisecond)))
				if path == "hero" {
					// The wasm early, the blank session late: the keys meet the disabled bar.
					wasm = time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
					ws = 300*time.Millisecond + time.Duration(rng.Int64N(int64(1700*time.Millisecond)))
				}
				h.set(wasm, ws)
				prompt := fmt.Sprintf("hello frpm a newcomer %d", i)
				typed := "hello frpm⌫⌫om a newcomer " + strconv.Itoa(i)
				want := strings.Replace(prompt, "frpm", "from", 1)
				tail := "and more"
				before := sessionTitles(t, srv)
				evalBool(t, ctx, `(localStorage.clear(), true)`)
				loadAndType(t, ctx, rng, url, strokes(typed+"⏎"+tail), pace)

				got, sent, draftLeft := settle(t, ctx, srv, before, want)
				if len(sent) != 1 || sent[0] != want || len(got) != 1 || got[0] != want || draftLeft != tail {
					lost++
					t.Errorf("load %d (pace %v, app.wasm after %v, workspaces after %v): sent %q, draft %q; want [%q] then draft %q (thread: %q)",
						i, pace, wasm.Round(time.Millisecond), ws.Round(time.Millisecond), sent, draftLeft, want, tail, got)
				}
			}
			t.Logf("%s: %d of %d loads lost or changed keys", path, lost, loads)
		})
	}
}

// sessionTitles are the titles of the server's non-blank sessions, by id.
func sessionTitles(t *testing.T, srv *server) map[string]string {
	t.Helper()
	list, err := apiClient(srv).ListSessions(context.Background())
	require.NoError(t, err)
	out := map[string]string{}
	for _, s := range list {
		if !s.Blank {
			out[s.ID] = s.Title
		}
	}
	return out
}

// settle waits until the prompt has arrived (or clearly will not), then returns the user
// messages the page shows, the titles of the sessions the load created (one per send that
// started a session) and the draft left in the composer.
func settle(t *testing.T, ctx context.Context, srv *server, before map[string]string, want string) (thread []string, sent []string, draftLeft string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 8*time.Second)
	_ = chromedp.Do(tctx, waitJS(`document.documentElement.hasAttribute('data-ready') && location.pathname.startsWith('/s/') &&
		[...document.querySelectorAll('.thread .msg-user .msg-text')].length > 0`))
	cancel()
	time.Sleep(700 * time.Millisecond) // a second send, if one were coming, would be out by now
	for id, title := range sessionTitles(t, srv) {
		if _, ok := before[id]; !ok {
			sent = append(sent, title)
		}
	}
	raw := evalString(t, ctx, `JSON.stringify([...document.querySelectorAll('.thread .msg-user .msg-text')].map(e => e.innerText))`)
	require.NoError(t, json.Unmarshal([]byte(raw), &thread))
	draftLeft = evalString(t, ctx, `(document.querySelector('#composer-input') || {}).value || ''`)
	return thread, sent, draftLeft
}

// TestKeysOnTheBodyGoToTheComposer: once the bar is live, a key that lands on the page body
// (a re-render took the focus) is the composer's: characters and Backspace land in the
// textarea, and Enter sends.
func TestKeysOnTheBodyGoToTheComposer(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 10*time.Second, typeText("keep "))
	evalBool(t, ctx, `(document.activeElement.blur(), document.activeElement === document.body)`)
	for _, k := range strokes("typinx⌫g") {
		for _, p := range keyOf(k) {
			do(t, ctx, 5*time.Second, key(p))
		}
	}
	do(t, ctx, 5*time.Second, waitDraft("keep typing"))
	require.Equal(t, "composer-input", evalString(t, ctx, `document.activeElement.id`))
	evalBool(t, ctx, `(document.activeElement.blur(), true)`)
	do(t, ctx, 5*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "keep typing", msgs[0].Text)
	require.Equal(t, "", draft(t, ctx), "Enter sent the draft rather than breaking the line")
}

// TestTypingThroughTheFirstPrompt: the last hand-off. The hero's first prompt turns its blank
// session into an ordinary one (a new address, the thread, the list); a person who goes on
// typing at a typist's pace right after the Enter loses nothing to it.
func TestTypingThroughTheFirstPrompt(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	next := "and then the second thought, typed on"
	for _, k := range strokes("first words⏎" + next) {
		for _, p := range keyOf(k) {
			do(t, ctx, 5*time.Second, key(p))
		}
		time.Sleep(40*time.Millisecond + time.Duration(rng.Int64N(int64(110*time.Millisecond))))
	}
	do(t, ctx, 10*time.Second, waitJS(`location.pathname.startsWith('/s/')`))
	msgs := waitMessages(t, ctx, 2)
	require.Equal(t, "first words", msgs[0].Text)
	require.Equal(t, next, draft(t, ctx))
	require.Equal(t, "composer-input", evalString(t, ctx, `document.activeElement.id`))
}
