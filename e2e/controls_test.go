package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// scriptedModel is an OpenAI-compatible endpoint on 127.0.0.1: it lists two models and
// answers every chat request with one short streamed reply whose usage says 1000 tokens. It
// records the model each request named.
type scriptedModel struct {
	*httptest.Server
	mu     sync.Mutex
	models []string
}

func newScriptedModel(t *testing.T) *scriptedModel {
	m := &scriptedModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"test","object":"model"},{"id":"other","object":"model","context_length":8192}]}`))
		case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
			var req struct {
				Model string `json:"model"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			m.mu.Lock()
			m.models = append(m.models, req.Model)
			m.mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			for _, c := range []string{
				`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello from "}}]}`,
				`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + req.Model + `"}}]}`,
				`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
				`{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":100,"total_tokens":1000}}`,
				`[DONE]`,
			} {
				_, _ = w.Write([]byte("data: " + c + "\n\n"))
				w.(http.Flusher).Flush()
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *scriptedModel) asked() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.models...)
}

// launchWithModel runs the binary with a model endpoint, as `parley -model-url … -model …`.
// openModelSession starts a server on a scripted model, makes a session titled title and
// opens its page: the start of every test of the controls row.
func openModelSession(t *testing.T, title string) (*scriptedModel, context.Context) {
	t.Helper()
	fake := newScriptedModel(t)
	srv := launchWithModel(t, fake.URL)
	info, err := apiClient(srv).CreateSession(context.Background(), protocol.CreateSessionRequest{Title: title})
	require.NoError(t, err)
	return fake, openPage(t, srv, "/s/"+info.ID)
}

func launchWithModel(t *testing.T, endpoint string) *server {
	t.Helper()
	data := t.TempDir()
	workspace := t.TempDir()
	cmd := exec.Command(binary, "-addr", "127.0.0.1:0", "-data", data, "-workspace", workspace,
		"-model-url", endpoint+"/v1", "-model", "test")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "PARLEY_TOKEN=", "PARLEY_MODEL_KEY=", "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = &testLogWriter{t: t, prefix: "server: "}
	require.NoError(t, cmd.Start())
	s := &server{t: t, cmd: cmd, data: data}
	t.Cleanup(s.kill)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := linkPattern.FindString(sc.Text()); m != "" {
				select {
				case found <- m:
				default:
				}
			}
		}
	}()
	select {
	case s.link = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("server printed no address within 30s")
	}
	u, err := url.Parse(s.link)
	require.NoError(t, err)
	s.addr, s.token = u.Host, u.Query().Get("token")
	return s
}

// The model picker, by keyboard: the pick is recorded, and the next request to the endpoint
// names it. Then the context ring says what the reply's usage said, against the window the
// model list gives the picked model.
func TestModelPickerAndContextRing(t *testing.T) {
	t.Parallel()
	fake := newScriptedModel(t)
	srv := launchWithModel(t, fake.URL)
	c := apiClient(srv)
	info, err := c.CreateSession(context.Background(), protocol.CreateSessionRequest{Title: "controls"})
	require.NoError(t, err)

	ctx := openPage(t, srv, "/s/"+info.ID)
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('#model-button')?.textContent || '').startsWith('test')`))
	require.Equal(t, "listbox", evalString(t, ctx, `document.querySelector('#model-button').getAttribute('aria-haspopup')`))
	require.Equal(t, "Permission mode", evalString(t, ctx, `document.querySelector('#permission-mode').getAttribute('aria-label')`))

	// Open with the keyboard, move to "other", pick it with Enter.
	state := func() string {
		return evalString(t, ctx, `JSON.stringify({active: document.activeElement?.id, expanded: document.querySelector('#model-button')?.getAttribute('aria-expanded'),
			descendant: document.querySelector('#model-listbox')?.getAttribute('aria-activedescendant'), button: document.querySelector('#model-button')?.textContent})`)
	}
	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := chromedp.Do(tctx, steps...); err != nil {
			t.Fatalf("%s: %v; the picker: %s", what, err, state())
		}
	}
	step("focus the button", chromedp.Focus(chromedp.CSS(`#model-button`)))
	step("ArrowDown opens the listbox and moves the focus there", rawKey("ArrowDown", 40, 0),
		waitJS(`document.activeElement?.id === 'model-listbox' && document.querySelector('#model-button').getAttribute('aria-expanded') === 'true'`))
	step("ArrowDown moves to the next option", rawKey("ArrowDown", 40, 0),
		waitJS(`document.querySelector('#model-listbox').getAttribute('aria-activedescendant') === 'model-option-1'`))
	step("Enter picks it and closes the listbox", pressEnter(0),
		waitJS(`!document.querySelector('#model-listbox') && document.querySelector('#model-button').textContent.startsWith('other')`))
	step("the focus is back in the composer", waitJS(`document.activeElement?.id === 'composer-input'`))
	// The pick is in the log, not only in the view.
	require.Eventually(t, func() bool {
		evs, err := c.Events(context.Background(), info.ID, 0, 100)
		require.NoError(t, err)
		for _, ev := range evs.Events {
			if ev.Type == protocol.EventSessionModel {
				return true
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond)

	do(t, ctx, 20*time.Second, chromedp.Focus(composer), typeText("hi"), pressEnter(0))
	require.Eventually(t, func() bool { return len(fake.asked()) == 1 }, 20*time.Second, 50*time.Millisecond)
	require.Equal(t, []string{"other"}, fake.asked(), "the next request names the picked model")

	do(t, ctx, 20*time.Second, waitJS(`document.querySelector('.context-ring')?.getAttribute('aria-label') === '1,000 of 8,192 tokens (12%)'`))
	title := evalString(t, ctx, `document.querySelector('.context-ring').getAttribute('title')`)
	require.True(t, strings.Contains(title, "model list"), "the tooltip says where the window comes from: %q", title)
	require.Equal(t, "img", evalString(t, ctx, `document.querySelector('.context-ring').getAttribute('role')`))

	// The permission mode: a change in the selector is an event of the session, which the
	// gate reads (its native tests show it honours each mode).
	evalBool(t, ctx, `(() => { const s = document.querySelector('#permission-mode'); s.focus(); s.value = 'edits';
		s.dispatchEvent(new Event('change', {bubbles: true})); return true })()`)
	require.Eventually(t, func() bool {
		evs, err := c.Events(context.Background(), info.ID, 0, 100)
		require.NoError(t, err)
		for _, ev := range evs.Events {
			if p, err := protocol.DecodeEventData[protocol.SessionPermissions](ev); ev.Type == protocol.EventSessionPermissions && err == nil {
				return p.Mode == protocol.PermissionEdits
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond, "the mode is recorded on the server")
}

// TestAModelPickGivesTheKeysBack (QA round 13, P3): after a model picked with ↓ and Enter, the
// focus is back in the composer's textarea, so the person types on and sends. Before, it
// stayed on the model button and the letters went nowhere.
func TestAModelPickGivesTheKeysBack(t *testing.T) {
	t.Parallel()
	fake, ctx := openModelSession(t, "pick")
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('#model-button')?.textContent || '').startsWith('test')`),
		chromedp.Focus(chromedp.CSS(`#model-button`)),
		rawKey("ArrowDown", 40, 0), waitJS(`document.activeElement?.id === 'model-listbox'`),
		rawKey("ArrowDown", 40, 0), waitJS(`document.querySelector('#model-listbox').getAttribute('aria-activedescendant') === 'model-option-1'`),
		pressEnter(0), waitJS(`!document.querySelector('#model-listbox') && document.querySelector('#model-button').textContent.startsWith('other')`))
	waitShowing(t, ctx, 5*time.Second, `document.activeElement?.id === 'composer-input'`, `document.activeElement?.outerHTML`)
	typeAt(t, ctx, newRand(), "hi", typistsPace)
	do(t, ctx, 10*time.Second, waitDraft("hi"), pressEnter(0))
	require.Eventually(t, func() bool { return len(fake.asked()) == 1 }, 20*time.Second, 50*time.Millisecond)
	require.Equal(t, []string{"other"}, fake.asked(), "the prompt went out, to the model picked")

	// Escape leaves the list without a pick: the focus goes back to the button it came from.
	do(t, ctx, 10*time.Second, chromedp.Focus(chromedp.CSS(`#model-button`)),
		rawKey("ArrowDown", 40, 0), waitJS(`document.activeElement?.id === 'model-listbox'`),
		rawKey("Escape", 27, 0), waitJS(`!document.querySelector('#model-listbox') && document.activeElement?.id === 'model-button'`))
}

// TestAModelPickTheServerRefusesSaysSo: a pick the server answers with an error (its model
// list could not be read, 502) goes back to the model the session has, and says why (QA round
// 21: the button showed the pick, no error, and the next prompt went to the old model).
func TestAModelPickTheServerRefusesSaysSo(t *testing.T) {
	t.Parallel()
	_, ctx := openModelSession(t, "refused")
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('#model-button')?.textContent || '').startsWith('test')`))
	refusal, _ := json.Marshal(protocol.ErrorResponse{Code: "models_unavailable", Error: "the model list could not be read"})
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			go chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: http.StatusBadGateway,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}}, Body: refusal})
				return err
			}))
		}
	}()
	do(t, ctx, 10*time.Second, pauseRequests("*/api/sessions/*/model"))
	do(t, ctx, 20*time.Second, chromedp.Focus(chromedp.CSS(`#model-button`)),
		rawKey("ArrowDown", 40, 0), waitJS(`document.activeElement?.id === 'model-listbox'`),
		chromedp.Click(chromedp.CSS(`#model-option-1`)))
	waitShowing(t, ctx, 10*time.Second, `(document.querySelector('.control-problem')?.textContent || '').includes('model list could not be read')`,
		`document.querySelector('#model-button')?.textContent + ' | ' + document.querySelector('.controls')?.innerText`)
	require.True(t, strings.HasPrefix(evalString(t, ctx, `document.querySelector('#model-button').textContent`), "test"), "back to the session's model")
}

// TestAPermissionPickGivesTheKeysBack (QA round 13, P3, the permission mode made consistent
// with the model picker): a mode picked from the select's list gives the focus back to the
// textarea; the arrows on the closed select walk the modes in place and keep it; and a letter
// typed on the select goes to the draft. Before, the focus stayed on the select, and letters
// typed there changed the mode by type-ahead ("ask" set "Ask for everything").
func TestAPermissionPickGivesTheKeysBack(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, "hello")
	waitMessages(t, ctx, 2)
	const mode = `document.querySelector('#permission-mode').value`
	do(t, ctx, 10*time.Second, waitJS(mode+` === 'reads'`), chromedp.Focus(chromedp.CSS(`#permission-mode`)),
		rawKey("ArrowDown", 40, 0), waitJS(mode+` === 'edits'`))
	time.Sleep(300 * time.Millisecond) // the change has run: the focus stays for the next step
	require.Equal(t, "permission-mode", activeID(t, ctx), "a step of the arrows keeps the focus")
	typeAt(t, ctx, newRand(), "ask", typistsPace)
	do(t, ctx, 10*time.Second, waitDraft("ask"))
	require.Equal(t, "edits", evalString(t, ctx, mode), "the letters did not pick a mode")
	require.Equal(t, "composer-input", activeID(t, ctx))

	// A pick from the open list is a change with no key on the select (a click, or Enter in
	// the list, which the page does not see).
	do(t, ctx, 10*time.Second, chromedp.Focus(chromedp.CSS(`#permission-mode`)),
		js(`(s => { s.value = 'ask'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#permission-mode'))`))
	waitShowing(t, ctx, 5*time.Second, `document.activeElement?.id === 'composer-input'`, `document.activeElement?.outerHTML`)
	typeAt(t, ctx, newRand(), " me", typistsPace)
	do(t, ctx, 10*time.Second, waitDraft("ask me"))
	require.Equal(t, "ask", evalString(t, ctx, mode))
}

// TestTheContextRingShowsItsFiguresOnFocus (QA round 13, P3): the ring is one Tab stop after
// the model button, and focused it shows its figures ("0 of 32,768 tokens (0%)" and where the
// window comes from) where a keyboard user can read them; the next Tab leaves it. Before, it
// could not be focused, and its figures were only in a hover tooltip.
func TestTheContextRingShowsItsFiguresOnFocus(t *testing.T) {
	t.Parallel()
	_, ctx := openModelSession(t, "ring")
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('.context-ring')`),
		chromedp.Focus(chromedp.CSS(`#model-button`)), tabKey(0))
	waitShowing(t, ctx, 5*time.Second, `document.activeElement?.classList.contains('context-ring')`, `document.activeElement?.outerHTML`)
	tip := evalString(t, ctx, `getComputedStyle(document.querySelector('.context-ring'), '::after').content`)
	require.Contains(t, tip, "0 of 32,768 tokens (0%)", "the figures show on focus")
	require.Contains(t, tip, "-model-window", "and where the window comes from")
	require.True(t, evalBool(t, ctx, `(s => s.display !== 'none' && s.visibility !== 'hidden' && s.opacity !== '0')(getComputedStyle(document.querySelector('.context-ring'), '::after'))`),
		"the tip is shown")
	require.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('#model-button'), '::after').content`))
	// One stop: the next Tab leaves the ring, and the tip goes with the focus.
	do(t, ctx, 10*time.Second, tabKey(0), waitJS(`!document.activeElement?.classList.contains('context-ring')`))
	require.False(t, evalBool(t, ctx, `!!document.activeElement?.closest('.model-controls')`), "the ring is the model controls' last stop")
	require.Equal(t, "none", evalString(t, ctx, `getComputedStyle(document.querySelector('.context-ring'), '::after').content`), "no tip without the focus")
}

// ringTrackContrastJS is the contrast of the context ring's track against what is behind it.
const ringTrackContrastJS = `(() => {
	const el = document.querySelector('.context-ring .ring-track');
	const cv = document.createElement('canvas'); cv.width = cv.height = 1;
	const g = cv.getContext('2d', {willReadFrequently: true});
	const paint = (...colors) => { g.clearRect(0, 0, 1, 1); for (const c of colors) { g.fillStyle = c; g.fillRect(0, 0, 1, 1); } return g.getImageData(0, 0, 1, 1).data; };
	const bgs = []; for (let e = el.closest('.context-ring'); e; e = e.parentElement) bgs.unshift(getComputedStyle(e).backgroundColor);
	const bg = paint('#fff', ...bgs);
	const fg = paint('rgb(' + bg[0] + ',' + bg[1] + ',' + bg[2] + ')', getComputedStyle(el).stroke);
	const lum = p => { const c = [0, 1, 2].map(i => { const v = p[i] / 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
	const a = lum(fg), b = lum(bg);
	return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
})()`

// TestTheContextRingReadsAsAGauge (QA round 12 #19): at 3% of the window the ring is a whole
// circle one can see (its track at 3:1, WCAG 1.4.11) with the used arc on it and the share
// written beside it, not a short arc alone that reads as a spinner; its name says the share.
func TestTheContextRingReadsAsAGauge(t *testing.T) {
	t.Parallel()
	_, ctx := openModelSession(t, "ring")
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('#model-button')?.textContent || '').startsWith('test')`),
		chromedp.Focus(composer), typeText("hello"), pressEnter(0))
	// 1,000 tokens of the flag's default window, 32,768: 3%.
	waitShowing(t, ctx, 30*time.Second, `(document.querySelector('.context-ring')?.getAttribute('aria-label') || '').startsWith('1,000 of 32,768 tokens')`,
		`document.querySelector('.model-controls').outerHTML`)
	for _, scheme := range []string{"light", "dark"} {
		do(t, ctx, 10*time.Second, colorScheme(scheme))
		ratio := get(t, ctx, chromedp.Evaluate[float64](ringTrackContrastJS))
		require.GreaterOrEqual(t, ratio, 3.0, "the ring's track in the %s theme is %.2f:1", scheme, ratio)
	}
	require.Equal(t, "1,000 of 32,768 tokens (3%)", evalString(t, ctx, `document.querySelector('.context-ring').getAttribute('aria-label')`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.context-ring').getAttribute('title')`), "(3%)")
	require.Equal(t, "3%", evalString(t, ctx, `document.querySelector('.context-ring .ring-share').innerText`), "the share is written beside the ring")
}
