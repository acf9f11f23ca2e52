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

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
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
	assert.Equal(t, "listbox", evalString(t, ctx, `document.querySelector('#model-button').getAttribute('aria-haspopup')`))
	assert.Equal(t, "Permission mode", evalString(t, ctx, `document.querySelector('#permission-mode').getAttribute('aria-label')`))

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
	assert.Equal(t, []string{"other"}, fake.asked(), "the next request names the picked model")

	do(t, ctx, 20*time.Second, waitJS(`document.querySelector('.context-ring')?.getAttribute('aria-label') === '1,000 of 8,192 tokens (12%)'`))
	title := evalString(t, ctx, `document.querySelector('.context-ring').getAttribute('title')`)
	assert.True(t, strings.Contains(title, "model list"), "the tooltip says where the window comes from: %q", title)
	assert.Equal(t, "img", evalString(t, ctx, `document.querySelector('.context-ring').getAttribute('role')`))

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
