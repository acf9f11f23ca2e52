// Package e2e drives the real server binary, the real wasm and Debian's Chromium.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/internal/testkit"
	"parley/internal/testkit/mcpserver"
	"parley/protocol"
)

var (
	repoRoot string
	binary   string
)

// The browsers: Debian's Chromium, as a person runs it, and its headless shell (the old
// headless mode: no browser UI) that most tests use, for the half of the CPU a page costs
// the full browser in UI it never shows (docs/testing.md, "Two Chromiums").
const (
	chromiumPath = "/usr/lib/chromium/chromium"
	shellPath    = "/usr/lib/chromium/chromium-headless-shell"
)

func TestMain(m *testing.M) {
	mcpserver.Main() // the MCP tests start this binary as their server
	os.Exit(setup(m))
}

func setup(m *testing.M) int {
	wd, _ := os.Getwd()
	repoRoot = filepath.Dir(wd)
	if _, err := os.Stat(filepath.Join(repoRoot, "web", "app.wasm")); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: web/app.wasm is missing: run `make build` (make test does it)")
		return 1
	}
	for _, exe := range []string{chromiumPath, shellPath} {
		if _, err := os.Stat(exe); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: Debian's chromium or chromium-headless-shell is missing: run `make chromium` (make test does it)")
			return 1
		}
	}
	dir, err := os.MkdirTemp("", "parley-e2e-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "parley")
	// The flags of `make server`, so that after it this is a link from the build cache.
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the server:", err)
		return 1
	}
	defer closeChromiums()
	return m.Run()
}

// server is a running Parley process.
type server struct {
	t     testing.TB
	cmd   *exec.Cmd
	data  string
	addr  string // host:port
	token string
	link  string // the URL it printed
}

var linkPattern = regexp.MustCompile(`http://\S+`)

// startServer runs the binary on addr (":0" style "127.0.0.1:0" for any port) with data dir.
func startServer(t testing.TB, data, addr string) *server {
	t.Helper()
	return startServerWith(t, data, addr)
}

// startServerWith starts the server with more workspaces after the test's own.
func startServerWith(t testing.TB, data, addr string, more ...string) *server {
	t.Helper()
	return launch(t, repoRoot, data, addr, append([]string{dataWorkspace(t, data)}, more...))
}

// dataWorkspace makes the data folder's own empty workspace beside it (the same one after a
// restart), so what the `@` menu lists is what a test put there, not this repository.
func dataWorkspace(t testing.TB, data string) string {
	t.Helper()
	workspace := data + "-workspace"
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	return workspace
}

// startServerFlags starts the server on any port with its workspace and more flags.
func startServerFlags(t testing.TB, data string, flags ...string) *server {
	t.Helper()
	return launch(t, repoRoot, data, "127.0.0.1:0", []string{dataWorkspace(t, data)}, flags...)
}

// startServerModel starts the server with a model: the scripted endpoint at base.
func startServerModel(t testing.TB, data, base string) *server {
	t.Helper()
	return startServerFlags(t, data, "-model-url", base, "-model", "test")
}

// startServerIn is startServer with another working directory, which is also its workspace,
// so a test can serve its own copy of web/ (go-app serves /web from the working directory).
func startServerIn(t testing.TB, dir, data, addr string) *server {
	t.Helper()
	return launch(t, dir, data, addr, []string{dir})
}

// launch runs the binary in dir and waits for the address it prints.
func launch(t testing.TB, dir, data, addr string, workspaces []string, extra ...string) *server {
	t.Helper()
	return launchEnv(t, dir, data, addr, workspaces, nil, extra...)
}

// launchEnv is launch with more environment variables (NAME=value).
func launchEnv(t testing.TB, dir, data, addr string, workspaces, env []string, extra ...string) *server {
	t.Helper()
	args := []string{"-addr", addr, "-data", data}
	for _, w := range workspaces {
		args = append(args, "-workspace", w)
	}
	args = append(args, extra...)
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PARLEY_TOKEN="), env...) // the token comes from the data directory
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &testLogWriter{t: t, prefix: "server: "}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, data: data}
	t.Cleanup(s.kill)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(30 * time.Second)
	for s.link == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("server exited before printing its address")
			}
			if m := linkPattern.FindString(line); m != "" {
				s.link = m
			}
		case <-deadline:
			t.Fatal("server printed no address within 30s")
		}
	}
	go func() {
		for range lines {
		}
	}()
	u, err := url.Parse(s.link)
	if err != nil {
		t.Fatalf("printed address %q: %v", s.link, err)
	}
	s.addr = u.Host
	s.token = u.Query().Get("token")
	if s.token == "" {
		t.Fatalf("printed address %q carries no token", s.link)
	}
	return s
}

// kill ends the process the hard way, as a crash would.
func (s *server) kill() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_ = s.cmd.Wait()
	}
}

func (s *server) base() string { return "http://" + s.addr }

type testLogWriter struct {
	t      testing.TB
	prefix string
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.t.Log(w.prefix + line)
	}
	return len(p), nil
}

// browser opens a tab in a browser context of its own (its own cookies, storage, cache,
// service workers and permissions, as a fresh profile has) in the test binary's shared
// headless shell, or its shared Chromium after fullChromium(t), and closes both when the
// test ends. Each starts with the first test that asks for it (docs/testing.md, "Two
// Chromiums"). A test that needs its own process (a profile that outlives a browser restart,
// flags of its own) calls newBrowser instead.
func browser(t testing.TB) context.Context {
	t.Helper()
	start := time.Now()
	parent, err := sharedChromium(t, sharedFor(t))
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, windowSize(1200, 900)); err != nil {
		t.Fatalf("open a browser context in the shared chromium: %v", err)
	}
	t.Logf("browser: a tab of its own in %v", time.Since(start).Round(time.Millisecond))
	return ctx
}

// waitSized waits until the tab's window has the size browser gives it. The window takes it
// a little after the call that sets it, so a page loaded at once can paint its first frames
// at the old size: a test that watches the layout from the first paint saw the composer move
// (CI, TestHeroDoesNotMoveAsStartersArrive: left 741, then 399). The first evaluation in a
// new tab costs about half a second, so only such tests wait.
func waitSized(t *testing.T, ctx context.Context) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		w, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.outerWidth + "×" + window.outerHeight`))
		if err == nil && w == "1200×900" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window is %s, not 1200×900, after 10 s (%v)", w, err)
		}
	}
}

// ownBrowser starts a Chromium of its own, on a fresh profile, for a test that a browser
// context cannot serve: one is off the record, as an incognito window is (Chromium does not
// offer to install an app from it), and shares the process's flags.
func ownBrowser(t testing.TB) context.Context {
	t.Helper()
	start := time.Now()
	ctx, cancel := newBrowser(t.TempDir())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Logf("browser: a chromium of its own in %v", time.Since(start).Round(time.Millisecond))
	return ctx
}

// windowSize sets the size of the tab's window, as --window-size does for the first one
// (a tab of a new browser context opens in a new window).
func windowSize(w, h int64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		win, err := chromedp.CallBrowser(ctx, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{TargetID: tg.TargetID})
		if err != nil {
			return err
		}
		_, err = chromedp.CallBrowser(ctx, cdpbrowser.SetWindowBounds, cdpbrowser.SetWindowBoundsParams{WindowID: win.WindowID,
			Bounds: &cdpbrowser.Bounds{Width: w, Height: h}})
		return err
	})
}

// sharedProcess is one of the test binary's shared browsers: the headless shell that most
// tests use, or the full Chromium for those that need it (fullChromium).
type sharedProcess struct {
	sync.Mutex
	exe     string
	ctx     context.Context // done once the process is gone
	cancel  context.CancelFunc
	profile string
}

var (
	shell = &sharedProcess{exe: shellPath}
	full  = &sharedProcess{exe: chromiumPath}
	// needsFull holds the tests (by name) whose tabs open in the full Chromium; fullTurn
	// lets one of them run at a time.
	needsFull sync.Map
	fullTurn  sync.Mutex
)

// fullChromium makes the test's browser(t) tabs open in the full Chromium, not the headless
// shell: for what only the browser a person runs does as it does (a notification's
// permission, text laid out with subpixel glyph advances). Call it before browser(t).
// Such tests take turns: a new window takes the focus from the others in its browser, and the
// notification tests watch the focus and the page's visibility (one of them failed in CI while
// another opened its windows beside it).
func fullChromium(t testing.TB) {
	fullTurn.Lock()
	t.Cleanup(fullTurn.Unlock)
	needsFull.Store(t.Name(), true)
}

// sharedFor is the shared browser for the test: the full Chromium when it or the test it
// runs under asked for it.
func sharedFor(t testing.TB) *sharedProcess {
	for name := t.Name(); name != ""; {
		if _, ok := needsFull.Load(name); ok {
			return full
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			break
		}
		name = name[:i]
	}
	return shell
}

// sharedChromium returns the shared browser's context, starting the process when there is
// none or when the last one died (every test that was using it fails with its exit error:
// chromedp cancels the contexts of its tabs; the tests after it get a new one).
func sharedChromium(t testing.TB, b *sharedProcess) (context.Context, error) {
	b.Lock()
	defer b.Unlock()
	if b.ctx != nil && b.ctx.Err() == nil {
		return b.ctx, nil
	}
	if b.ctx != nil {
		t.Logf("browser: the shared %s is gone (%v): starting another", filepath.Base(b.exe), context.Cause(b.ctx))
		b.closeLocked()
	}
	profile, err := os.MkdirTemp("", "parley-e2e-chromium-")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ctx, cancel := newBrowserOf(b.exe, profile)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		os.RemoveAll(profile)
		return nil, err
	}
	t.Logf("browser: the shared %s started in %v", filepath.Base(b.exe), time.Since(start).Round(time.Millisecond))
	b.ctx, b.cancel, b.profile = ctx, cancel, profile
	return ctx, nil
}

// closeChromiums ends the shared browsers that run: TestMain calls it after the tests.
func closeChromiums() {
	for _, b := range []*sharedProcess{shell, full} {
		b.Lock()
		b.closeLocked()
		b.Unlock()
	}
}

func (b *sharedProcess) closeLocked() {
	if b.cancel != nil {
		b.cancel()
		os.RemoveAll(b.profile)
	}
	b.ctx, b.cancel, b.profile = nil, nil, ""
}

// newBrowser starts a headless Chromium of its own on the profile folder, with the flags
// of every browser here and then extra ones.
func newBrowser(profile string, extra ...chromedp.ExecAllocatorOption) (context.Context, context.CancelFunc) {
	return newBrowserOf(chromiumPath, profile, extra...)
}

// newBrowserOf is newBrowser with the browser's executable: Chromium or its headless shell.
func newBrowserOf(exe, profile string, extra ...chromedp.ExecAllocatorOption) (context.Context, context.CancelFunc) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1200, 900),
	}
	opts = append(opts, extra...)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	return ctx, func() { cancel(); acancel() }
}

// do runs steps with a deadline, failing the test on error.
func do(t testing.TB, ctx context.Context, timeout time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		t.Logf("the page when the wait failed: %s", pageState(ctx))
		t.Fatal(err)
	}
}

// pageState says where a page is, what the composer holds and what has the focus: what a
// failed wait most often needs told, on a run that cannot be repeated.
func pageState(ctx context.Context) string {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	state, err := chromedp.Run(sctx, chromedp.Evaluate[string](`(() => {
		const a = document.activeElement, c = document.querySelector('#composer-input');
		return JSON.stringify({path: location.pathname, draft: c ? c.value : null,
			focus: a ? a.tagName + (a.id ? '#' + a.id : '') + (a.className && a.className.baseVal === undefined ? '.' + a.className.split(' ').join('.') : '') : null,
			mode: (document.querySelector('#composer-mode') || {}).dataset || null,
			menu: c && c.getAttribute('data-expanded') === 'true' ?
				[...document.querySelectorAll('#composer-menu [role=option]')].map(o => o.textContent.trim().slice(0, 60)) : null});
	})()`))
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return state
}

// get runs one action that returns a value, failing the test on error.
func get[T any](t testing.TB, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

const composer = chromedp.CSS(`#composer-input`)

// waitJS waits until a JavaScript condition holds. Polling the page survives reloads, where
// DOM node tracking can go stale.
//
// The wait is the caller's context's: chromedp's poll ends on its own after 30 s unless told
// otherwise, so every wait written as a minute was half a minute, and a notification that
// took longer on a loaded machine failed its test (CI, TestNotificationWithdrawnWhenAnsweredElsewhere).
func waitJS(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			_, err := chromedp.Poll[bool](cond, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0))(ctx, t)
			// A reload during the poll (the page taking a new build) ends that evaluation:
			// poll the new page.
			if err != nil && ctx.Err() == nil && (strings.Contains(err.Error(), "navigated or closed") || strings.Contains(err.Error(), "Cannot find context")) {
				continue
			}
			return err
		}
	})
}

// waitReady waits until the wasm has taken over the pre-rendered page and the input bar is
// live: on the hero, that is once its blank session is connected. A page that explains why
// nothing can be typed (no token, no such session) is ready too.
func waitReady() chromedp.Action[chromedp.Void] {
	return waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('#composer-input') &&
		(!document.querySelector('#composer-input').disabled || !!document.querySelector('.gate'))`)
}

// waitCaughtUp waits until the session's replay of its stored events is over and drawn
// (the live link carries data-caught-up): a duplicate from the replay would be on the page.
func waitCaughtUp() chromedp.Action[chromedp.Void] {
	return waitJS(`!!document.querySelector('.link-live[data-caught-up]')`)
}

// retryNow clicks the link's "Retry now" while the page still waits to reconnect. The page
// retries on its own too (every 5 s at most), and on a loaded machine it may find a
// restarted server before the click: then there is nothing to click, and it is back.
func retryNow() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(() => { const b = document.querySelector('.link-reconnecting .link-retry'); if (b) b.click(); return true })()`)(ctx, t)
		return err
	})
}

// hoverOver moves the mouse to the middle of the first element matching the selector, as a
// person points at it before clicking what shows on hover.
func hoverOver(selector string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		r, err := chromedp.Evaluate[[]float64](`(r => [r.x + r.width / 2, r.y + r.height / 2])(document.querySelector(`+strconv.Quote(selector)+`).getBoundingClientRect())`)(ctx, t)
		if err != nil {
			return err
		}
		_, err = chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, r[0], r[1])(ctx, t)
		return err
	})
}

// touchScreen turns the emulation of a touch screen (five touch points) on or off: the page
// then matches (pointer: coarse), as on a phone.
func touchScreen(on bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: on, MaxTouchPoints: 5})
		return err
	})
}

// colorScheme emulates the system theme: prefers-color-scheme is scheme ("light", "dark").
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// imeCompose opens (or changes) an input method's composition of text in the focused field,
// the caret at its end, as Chromium's IME path does.
func imeCompose(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		n := int64(len([]rune(text)))
		_, err := cdp.Call(ctx, t, input.ImeSetComposition, input.ImeSetCompositionParams{Text: text, SelectionStart: n, SelectionEnd: n})
		return err
	})
}

// composingEnter is the Enter that picks a candidate while a composition is open: keyCode 229,
// as Chromium sends it while composing.
func composingEnter() chromedp.Action[chromedp.Void] {
	return key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 229, NativeVirtualKeyCode: 229})
}

// imeCommit commits the open composition as text.
func imeCommit(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
}

// imeEnter composes text with an input method in the focused field, with the Enter that picks
// a candidate, then commits it.
func imeEnter(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(imeCompose(text), composingEnter(), imeCommit(text))
}

// key sends one CDP key event.
func key(p input.DispatchKeyEventParams) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p)
		return err
	})
}

// Modifier bits of CDP key events.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

// tapSend sends the bar's draft as a person on a touch keyboard does: its return breaks the
// line (only a hardware keyboard's Enter sends), so they tap Send.
func tapSend() chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(`.inputbar button.send:not([disabled])`))
}

// pressEnter sends a real Enter: a keyDown that carries its text, as a keyboard does, so a
// page that prevents the keydown also prevents the line break. (SendKeys("\r") sends the
// text as a separate char event, which inserts a newline whatever the page does.)
func pressEnter(mods int64) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "Enter", Code: "Enter", Text: "\r", UnmodifiedText: "\r", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13, Modifiers: mods}),
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13, Modifiers: mods}),
	)
}

// typeText types into the composer, key by key, as a person would.
func typeText(text string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(composer, text)
}

// evalString and evalBool run JavaScript in the page and return its value.
func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[string](js))
}

func evalBool(t *testing.T, ctx context.Context, js string) bool {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[bool](js))
}

// setDraftJS puts text in the composer the way a paste does: value, then an input event.
func setDraftJS(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	b, _ := json.Marshal(text)
	evalBool(t, ctx, `(() => { const ta = document.querySelector('#composer-input');
		ta.value = `+string(b)+`; ta.dispatchEvent(new Event('input', {bubbles: true})); return true })()`)
}

// noticeText is the input bar's notice: what a person reads about a send.
func noticeText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalString(t, ctx, `document.querySelector('.notice-slot').innerText`)
}

// apiClient calls the server's API as a script would, with the token.
func apiClient(srv *server) *api.Client {
	return &api.Client{Base: srv.base(), Header: http.Header{"Authorization": {"Bearer " + srv.token}}}
}

// httpAPI calls the server's HTTP API as a script does, with the bearer token: for what the
// status or the raw answer says.
func httpAPI(t *testing.T, srv *server) testkit.Client {
	return testkit.Client{T: t, Base: srv.base(), Token: srv.token}
}

// seedSession makes a session through the API with n prompts (each gets the offline reply).
func seedSession(t *testing.T, srv *server, title string, n int) string {
	t.Helper()
	c := apiClient(srv)
	info, err := c.CreateSession(context.Background(), protocol.CreateSessionRequest{Title: title})
	require.NoError(t, err)
	for i := range n {
		_, err := c.SendPrompt(context.Background(), info.ID, protocol.SendPromptRequest{
			Text: fmt.Sprintf("%s prompt %d", title, i), AttemptID: api.NewAttemptID()})
		require.NoError(t, err)
	}
	return info.ID
}

// rawKey sends a key that types no text (Tab, Escape): rawKeyDown, then keyUp.
func rawKey(k string, code int64, mods int64) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: k, Code: k, WindowsVirtualKeyCode: code, NativeVirtualKeyCode: code, Modifiers: mods}),
		key(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: k, Code: k, WindowsVirtualKeyCode: code, NativeVirtualKeyCode: code, Modifiers: mods}),
	)
}

// openSeeded starts a server on data with a session titled title that holds one exchange,
// and opens that session's page in a browser through the token link; between runs after
// the link's page is ready (waitWorker(), for a test that goes offline). It returns the
// session's id.
func openSeeded(t *testing.T, data, title string, between ...chromedp.Action[chromedp.Void]) (*server, context.Context, string) {
	t.Helper()
	srv := startServer(t, data, "127.0.0.1:0")
	id := seedSession(t, srv, title, 1)
	return srv, openPage(t, srv, "/s/"+id, between...), id
}

// openPage opens path (such as "/s/"+id) in a browser through the token link and waits
// until it is ready. With between, it opens the printed link first, runs between once that
// page is ready, and then opens path: a load of the whole app each, so only a test that
// needs the first page (waitWorker: the next one is the worker's) pays for two.
func openPage(t *testing.T, srv *server, path string, between ...chromedp.Action[chromedp.Void]) context.Context {
	t.Helper()
	ctx := browser(t)
	start := time.Now()
	// The server takes the token on any path and redirects to it without the token: one load.
	steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(srv.base() + path + "?token=" + url.QueryEscape(srv.token))}
	if len(between) > 0 {
		steps = append(append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(srv.link), waitReady()}, between...), chromedp.Navigate(srv.base()+path))
	}
	do(t, ctx, 60*time.Second, append(steps, waitReady())...)
	t.Logf("browser: %s ready in %v", path, time.Since(start).Round(time.Millisecond))
	return ctx
}

// assertOnePending checks that the browser's session has exactly one decision waiting.
func assertOnePending(t *testing.T, srv *server, ctx context.Context, msg string) {
	t.Helper()
	pending, err := apiClient(srv).PendingDecisions(context.Background(), sessionOf(t, ctx))
	require.NoError(t, err)
	assert.Len(t, pending, 1, msg)
}

// startLoading marks the page it leaves (window.parleyOldPage, gone once the new document
// is there) and starts loading url without waiting for anything: chromedp.Navigate would
// wait for the load event, which a held app.wasm does not keep back.
func startLoading(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	evalBool(t, ctx, `(window.parleyOldPage = true)`)
	do(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: url})
		return err
	}))
}

// addOnNewDocument runs source in every document the page loads from now on, before the
// document's own scripts: a probe that must see a page from its first frame.
func addOnNewDocument(t *testing.T, ctx context.Context, source string) {
	t.Helper()
	do(t, ctx, 10*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: source})
		return err
	}))
}

// onlyDecision returns the one decision the session has waiting, as the API lists them; it
// fails the test unless there is exactly one.
func onlyDecision(t *testing.T, srv *server, session string) protocol.Decision {
	t.Helper()
	pending, err := apiClient(srv).PendingDecisions(context.Background(), session)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	return pending[0]
}

// declineOnly declines, through the API (another client), the one decision the session has
// waiting.
func declineOnly(t *testing.T, srv *server, session string) {
	t.Helper()
	_, err := apiClient(srv).Reply(context.Background(), session, onlyDecision(t, srv, session).ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
	require.NoError(t, err)
}

// openHome starts a server on a fresh data folder and a browser on its token link, ready
// to type: how most tests begin.
func openHome(t testing.TB) (*server, context.Context) {
	t.Helper()
	return openHomeOn(t, t.TempDir())
}

// openHomeOn is openHome on the data folder data, for a test that restarts the server on it.
func openHomeOn(t testing.TB, data string) (*server, context.Context) {
	t.Helper()
	srv := startServer(t, data, "127.0.0.1:0")
	ctx := browser(t)
	start := time.Now()
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	t.Logf("browser: the first page ready in %v", time.Since(start).Round(time.Millisecond))
	return srv, ctx
}
