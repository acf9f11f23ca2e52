package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"parley/app/socket"
	"parley/internal/testkit"
	"parley/protocol"
)

// The model agent in the browser: a scripted OpenAI-compatible server in the test process,
// the real binary pointed at it with -model-url, the real wasm in Chromium.

// openModel starts the fake model with its script, the server on it and a browser on the
// hero, ready to type.
func openModel(t *testing.T, replies ...testkit.Reply) (*testkit.Model, *server, context.Context) {
	t.Helper()
	return openModelOn(t, t.TempDir(), replies...)
}

// openModelOn is openModel on the data folder data, whose workspace a test may fill first.
func openModelOn(t testing.TB, data string, replies ...testkit.Reply) (*testkit.Model, *server, context.Context) {
	t.Helper()
	fake := testkit.NewModel(t, replies...)
	srv := startServerModel(t, data, fake.Base())
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	return fake, srv, ctx
}

// promptModel opens the page on a model that gives replies, one for each request it is sent,
// and sends text from the composer: how a test of the model agent begins.
func promptModel(t *testing.T, text string, replies ...testkit.Reply) (*testkit.Model, context.Context) {
	t.Helper()
	fake, _, ctx := openModel(t, replies...)
	prompt(t, ctx, text)
	return fake, ctx
}

// toolResults checks that the model was asked twice, for the prompt and then with its
// tools' results, and returns those results as the second request carried them.
func toolResults(t *testing.T, fake *testkit.Model) []string {
	t.Helper()
	reqs := fake.Requests()
	require.Len(t, reqs, 2, "the model was asked for the prompt, then with the tools' results")
	return testkit.ToolTexts(reqs[1])
}

// runCommand is a model's tool call id of run_command on argv: what a model sends to
// run a program in the workspace.
func runCommand(id string, argv ...string) testkit.Call {
	return testkit.Call{ID: id, Name: "run_command", Args: map[string]any{"argv": argv}}
}

// prompt sends text from the composer and waits for the session's address.
func prompt(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	do(t, ctx, 20*time.Second, typeText(text), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
}

// liveLog is what a native client of the socket reads: the stored events up to now, and the
// delta frames it was sent while it listened.
type liveLog struct {
	events []protocol.Event
	deltas []protocol.Delta
}

// readLog subscribes to the session from the start and returns once the replay caught up.
func readLog(t *testing.T, srv *server, session string) liveLog {
	t.Helper()
	return listen(srv, session, nil, nil)
}

// listen subscribes to the session from the start and returns once the replay caught up
// and until holds for what it read (nil: at once), or after 30 s. caughtUp, if not nil, is
// closed once the replay is over: what it reads from then on happens while it listens.
func listen(srv *server, session string, caughtUp chan<- struct{}, until func(liveLog) bool) liveLog {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var l liveLog
	up := false
	// until sees every event and delta, also those before the catch-up (it may signal from
	// them); the listening ends only once caught up.
	check := func() {
		done := until == nil || until(l)
		if up && done {
			cancel()
		}
	}
	f := &socket.Follower{URL: "ws://" + srv.addr + "/ws", Session: session,
		Header:  http.Header{"Authorization": {"Bearer " + srv.token}},
		OnEvent: func(ev protocol.Event) { l.events = append(l.events, ev); check() },
		OnDelta: func(d protocol.Delta) { l.deltas = append(l.deltas, d); check() },
		OnState: func(s socket.State) {
			if s.CaughtUp && !up {
				up = true
				if caughtUp != nil {
					close(caughtUp)
				}
				check()
			}
		}}
	f.Run(ctx)
	return l
}

func streamingText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalString(t, ctx, `(document.querySelector('.thread .msg-streaming .msg-text') || {textContent: ''}).textContent`)
}

func lastAgentText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalString(t, ctx, `[...document.querySelectorAll('.thread .msg-agent:not(.msg-notice) .msg-text')].map(e => e.textContent).pop() || ''`)
}

// TestAgentStreamsTokenByToken: the text grows in the page while nothing of it is stored,
// then the one agent.message replaces it.
func TestAgentStreamsTokenByToken(t *testing.T) {
	t.Parallel()
	// The model pauses twice: while the second client catches up, and after "the " until
	// that client holds a delta frame. Without the second pause the closing agent.message
	// could reach its socket before the deltas sent just ahead of it (two paths, core NATS
	// and the stream), and a delta after its message is rightly dropped as late.
	hold, deltaHeld := make(chan struct{}), make(chan struct{})
	_, srv, ctx := openModel(t, testkit.Reply{Steps: []testkit.Step{
		testkit.TextChunk("Hello "), testkit.TextChunk("from "), {Hold: hold},
		testkit.TextChunk("the "), {Hold: deltaHeld}, testkit.TextChunk("model."), testkit.Finish("stop"),
	}})
	prompt(t, ctx, "hi")
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent === 'Hello from '`))
	session := sessionOf(t, ctx)
	before := readLog(t, srv, session)
	require.Zero(t, testkit.Count(before.events, protocol.EventAgentMessage), "shown before it is stored")
	require.Zero(t, testkit.Count(before.events, protocol.EventAgentDraft), "no event per token")

	// A second client listening while the rest streams gets it as delta frames. It listens
	// until the stored message closes the stream.
	listening, listened, delta := make(chan struct{}), make(chan liveLog, 1), make(chan struct{})
	go func() {
		var once sync.Once
		listened <- listen(srv, session, listening, func(l liveLog) bool {
			if len(l.deltas) > 0 {
				once.Do(func() { close(delta) })
			}
			return testkit.Count(l.events, protocol.EventAgentMessage) > 0
		})
	}()
	// Which entries of the thread change in the page while the rest streams: only the
	// streaming one may.
	evalBool(t, ctx, `(window.__touched = new Set(), new MutationObserver(ms => ms.forEach(m => {
		const n = m.target.nodeType === 1 ? m.target : m.target.parentElement;
		const e = n.closest('.msg, .entry');
		window.__touched.add(e ? (e.dataset.stream ? 'stream' : e.className) : 'the list itself');
	})).observe(document.querySelector('.thread-inner'), {subtree: true, childList: true, characterData: true, attributes: true}), true)`)
	select {
	case <-listening:
	case <-time.After(30 * time.Second):
		t.Fatal("the second client never caught up with the session")
	}
	close(hold)
	select {
	case <-delta:
	case <-time.After(30 * time.Second):
		t.Fatal("the second client, caught up while the message streams, got no delta frame")
	}
	close(deltaHeld)
	do(t, ctx, 20*time.Second, waitJS(`!document.querySelector('.thread .msg-streaming') && !document.querySelector('.thread .stop')`))
	require.Equal(t, "Hello from the model.", lastAgentText(t, ctx))
	require.Equal(t, "stream", evalString(t, ctx, `[...window.__touched].join(', ')`), "only the streaming message changed in the page")
	l := <-listened
	require.NotEmpty(t, l.deltas, "the live path sent delta frames")
	after := readLog(t, srv, session)
	require.Equal(t, []string{"Hello from the model."}, testkit.AgentTexts(t, after.events))
	require.Zero(t, testkit.Count(after.events, protocol.EventAgentDraft), "a short message is one event")
}

// TestAgentReloadMidStream: the page reloaded while a long message streams shows the text
// so far from the stored drafts, then continues from live deltas, with no duplicate.
func TestAgentReloadMidStream(t *testing.T) {
	t.Parallel()
	first, second := make(chan struct{}), make(chan struct{})
	long := strings.Repeat("word ", 900) // over a checkpoint's 4 KiB: a draft is stored
	_, _, ctx := openModel(t, testkit.Reply{Steps: []testkit.Step{
		testkit.TextChunk("Alpha " + long), testkit.TextChunk("Beta "), {Hold: first},
		testkit.TextChunk("Gamma "), {Hold: second},
		testkit.TextChunk("Delta."), testkit.Finish("stop"),
	}})
	prompt(t, ctx, "write a lot")
	do(t, ctx, 20*time.Second, waitJS(`((document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent || '').endsWith('Beta ')`))

	// The model pauses: no token comes to carry the tail, yet the page shows all of the text
	// so far, the stored draft and the tail since (asked for on subscribe).
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(),
		waitJS(`((document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent || '').endsWith('Beta ')`))
	require.Equal(t, "Alpha "+long+"Beta ", streamingText(t, ctx), "the stored draft, then the live tail, once")

	close(first)
	do(t, ctx, 20*time.Second, waitJS(`((document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent || '').endsWith('Gamma ')`))
	require.Equal(t, "Alpha "+long+"Beta Gamma ", streamingText(t, ctx), "the live tail filled what came after the draft, once")

	close(second)
	do(t, ctx, 20*time.Second, waitJS(`!document.querySelector('.thread .msg-streaming') && !document.querySelector('.thread .stop')`))
	require.Equal(t, "Alpha "+long+"Beta Gamma Delta.", lastAgentText(t, ctx))
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread .msg-agent').length`))), "one message, no leftover of its stream")
}

// TestAgentStopDuringAStream: Stop cancels the model's request; the text so far stays.
func TestAgentStopDuringAStream(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	defer close(hold)
	fake, srv, ctx := openModel(t, testkit.Reply{Steps: []testkit.Step{
		testkit.TextChunk("Counting: "), testkit.TextChunk("one, "), {Hold: hold}, testkit.TextChunk("two."), testkit.Finish("stop"),
	}})
	prompt(t, ctx, "count")
	do(t, ctx, 20*time.Second, waitJS(`((document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent || '') === 'Counting: one, '`),
		chromedp.Click(chromedp.CSS(`.thread .stop`)),
		waitJS(`!document.querySelector('.thread .stop') && !document.querySelector('.thread .msg-streaming')`))
	// Closed, it is drawn as Markdown, whose paragraph drops the trailing space.
	require.Equal(t, "Counting: one,", lastAgentText(t, ctx), "what streamed before the stop is kept")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.thread .msg-interrupted')`), "closed by its message, not left open")
	stored := readLog(t, srv, sessionOf(t, ctx))
	require.Equal(t, []string{"Counting: one, "}, testkit.AgentTexts(t, stored.events), "stored as the message")
	require.Len(t, fake.Requests(), 1, "the model is not called again")

	// The cut answer says it was cut, then and after a reload (qa round 8 #1): it would read
	// as the whole answer.
	const note = `[...document.querySelectorAll('.thread .msg-agent:not(.msg-notice) .msg-note')].map(e => e.textContent).join('|')`
	do(t, ctx, 10*time.Second, waitJS(note+` === 'Stopped by you'`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitJS(note+` === 'Stopped by you'`))
	require.Equal(t, "Counting: one,", lastAgentText(t, ctx))
}

// TestAgentStoppedBeforeItsFirstWord: a turn stopped before the model said anything leaves a
// note from Parley after the prompt, so the thread does not read as if it never ran.
func TestAgentStoppedBeforeItsFirstWord(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	defer close(hold)
	_, _, ctx := openModel(t, testkit.Reply{Steps: []testkit.Step{{Hold: hold}, testkit.TextChunk("Too late."), testkit.Finish("stop")}})
	prompt(t, ctx, "early")
	do(t, ctx, 20*time.Second, chromedp.Click(chromedp.CSS(`.thread .stop`)), waitJS(`!document.querySelector('.thread .stop')`))
	const stopped = `[...document.querySelectorAll('.thread .msg-notice .msg-note')].map(e => e.textContent).join('|') === 'Stopped by you'`
	do(t, ctx, 10*time.Second, waitJS(stopped))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitJS(stopped))
	require.Empty(t, lastAgentText(t, ctx), "no answer from the model")
}

// approve waits for the composer's approval and clicks its option labelled label.
func approve(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval')`))
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode .choice')].find(b => b.querySelector('.choice-label').textContent === `+quote(label)+`).click()`))
}

// waitFinal waits for the turn to end and returns the agent's last text.
func waitFinal(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, waitJS(`[...document.querySelectorAll('.thread .msg-agent .msg-text')].some(e => e.textContent === `+quote(want)+`) && !document.querySelector('.thread .stop')`)); err != nil {
		t.Fatalf("waiting for %q: %v (the thread: %s)", want, err, evalString(t, ctx, `document.querySelector('.thread').innerText`))
	}
}

func receipts(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalString(t, ctx, `[...document.querySelectorAll('.thread .entry-tool')].map(e => e.innerText.replace(/\s+/g, ' ')).join(' | ')`)
}

// TestAgentApprovalAnsweredInTheComposer: the model's command waits for an approval in the
// composer; approved, it runs, and its receipt and the model's answer follow.
func TestAgentApprovalAnsweredInTheComposer(t *testing.T) {
	t.Parallel()
	fake, ctx := promptModel(t, "say hello", testkit.Calls(runCommand("call_0", "echo", "hello")), testkit.Text("It printed hello."))
	approve(t, ctx, "Approve")
	waitFinal(t, ctx, "It printed hello.")
	require.Contains(t, strings.Join(toolResults(t, fake), "\n"), "hello")
	got := receipts(t, ctx)
	require.Contains(t, got, "run_command")
	require.Contains(t, got, `"argv":["echo","hello"]`)
	require.Contains(t, got, "done")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.thread .entry-decision .entry-outcome').textContent`), "Approve",
		"the card in the thread shows how it ended")
}

// TestAgentRejectionWithAReasonReachesTheModel: words typed instead of a click are the
// tool's error text the model reads.
func TestAgentRejectionWithAReasonReachesTheModel(t *testing.T) {
	t.Parallel()
	fake, ctx := promptModel(t, "clean up", testkit.Calls(runCommand("call_0", "rm", "notes.txt")), testkit.Text("Understood, I will keep it."))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval')`),
		chromedp.SendKeys(chromedp.CSS(`#approval-instruction`), "keep the notes"),
		waitJS(`!document.querySelector('#composer-mode .send').disabled`),
		pastGuard(), chromedp.Click(chromedp.CSS(`#composer-mode .send`)))
	waitFinal(t, ctx, "Understood, I will keep it.")
	require.Equal(t, []string{"call_0: error: rejected by the user: keep the notes"}, toolResults(t, fake))
	require.Contains(t, receipts(t, ctx), "error")
}

// TestAgentBatchApprovedAtOnce: two commands of one model message are one approval.
func TestAgentBatchApprovedAtOnce(t *testing.T) {
	t.Parallel()
	fake, ctx := promptModel(t, "run both", testkit.Calls(runCommand("call_0", "echo", "first"), runCommand("call_1", "echo", "second")), testkit.Text("Both ran."))
	approve(t, ctx, "Approve all")
	waitFinal(t, ctx, "Both ran.")
	texts := toolResults(t, fake)
	require.Len(t, texts, 2)
	require.Contains(t, texts[0], "first")
	require.Contains(t, texts[1], "second")
	require.Equal(t, 1, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread .entry-decision').length`))), "one decision for the batch")
	require.Equal(t, 2, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread .entry-tool.status-done').length`))))
}

// TestAgentAskUserAnsweredInTheComposer: the model's question is the composer's question
// mode; the choice is what the model reads.
func TestAgentAskUserAnsweredInTheComposer(t *testing.T) {
	t.Parallel()
	fake, ctx := promptModel(t, "pick a colour with me",
		testkit.Calls(testkit.Call{ID: "call_0", Name: "ask_user", Args: map[string]any{
			"message": "Which colour?", "schema": map[string]any{"type": "string", "enum": []string{"red", "green"}}}}),
		testkit.Text("Green it is."))
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-question')`))
	require.Equal(t, "Which colour?", modeText(t, ctx, `.question-message`))
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode .choice')].find(b => b.textContent.includes('green')).click()`))
	waitFinal(t, ctx, "Green it is.")
	require.Equal(t, []string{`call_0: the user answered: "green"`}, toolResults(t, fake))
}

// TestAToolCallWaitingForApprovalSaysSo: while the model's command waits for its approval,
// its receipt says it waits for you, not "running…" (it has not run: approving is not moot);
// once approved it runs and says done (QA round 7).
func TestAToolCallWaitingForApprovalSaysSo(t *testing.T) {
	t.Parallel()
	_, ctx := promptModel(t, "say hello", testkit.Calls(runCommand("call_0", "echo", "hello")), testkit.Text("It printed hello."))
	status := `(document.querySelector('.thread .entry-tool[data-call="call_0"] .entry-status') || {textContent: ''}).textContent`
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval') && `+status+` !== ''`))
	require.Equal(t, "Waiting for your answer below", evalString(t, ctx, status), "not running before it is approved")
	approve(t, ctx, "Approve")
	waitFinal(t, ctx, "It printed hello.")
	require.Equal(t, "done", evalString(t, ctx, status))
}

// TestReloadMidTurnFocusesTheComposer: a page reloaded while the model streams (a long
// message, a prompt queued behind it) gives the composer the focus, as the first load did:
// what the person types next goes in. (docs/qa-round7.md #9: not seen again on this build.)
func TestReloadMidTurnFocusesTheComposer(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	defer close(hold)
	_, _, ctx := openModel(t, testkit.Reply{Steps: []testkit.Step{testkit.TextChunk("Thinking " + strings.Repeat("word ", 900)), {Hold: hold}, testkit.TextChunk("done."), testkit.Finish("stop")}},
		testkit.Text("Queued done."))
	prompt(t, ctx, "think")
	do(t, ctx, 30*time.Second, waitJS(`((document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent || '').endsWith('word ')`))
	do(t, ctx, 30*time.Second, typeText("queued one"), pressEnter(0), waitJS(`!!document.querySelector('.queue-item')`))
	do(t, ctx, 60*time.Second, chromedp.Reload(), waitReady(), waitCaughtUp(),
		waitJS(`!!document.querySelector('.thread .msg-streaming')`),
		waitJS(`document.activeElement && document.activeElement.id === 'composer-input'`))
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("next"), waitJS(`document.querySelector('#composer-input').value === 'next'`))
}

// TestAQueuedPromptReachesTheModelAfterTheAnswer: a prompt typed and queued (Enter) while the
// model streams its answer is its own turn, and the model reads it after that answer. It was
// stored before the answer, and the conversation said it there: joined to the first prompt,
// so the second request ended with the assistant's own message and the queued prompt was
// never answered (QA round 10 with a model #1, docs/qa-round10-agent.md).
func TestAQueuedPromptReachesTheModelAfterTheAnswer(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	fake, srv, ctx := openModel(t, testkit.Reply{Steps: []testkit.Step{
		testkit.TextChunk("Working "), testkit.TextChunk("on it. "), {Hold: hold}, testkit.TextChunk("Done."), testkit.Finish("stop"),
	}}, testkit.Text("The second answer."))
	prompt(t, ctx, "first task")
	do(t, ctx, 30*time.Second, waitJS(`((document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent || '').endsWith('on it. ')`))
	do(t, ctx, 20*time.Second, typeText("second task"), pressEnter(0))
	session := sessionOf(t, ctx)
	// The queued prompt is stored while the first turn still streams.
	require.Eventually(t, func() bool {
		return testkit.Count(readLog(t, srv, session).events, protocol.EventUserMessage) == 2
	}, 60*time.Second, 200*time.Millisecond, "the queued prompt is stored")
	close(hold)
	do(t, ctx, 60*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg-agent .msg-text')].some(e => e.textContent === 'The second answer.')`))
	reqs := fake.Requests()
	require.Len(t, reqs, 2)
	var said []string
	for _, m := range reqs[1].Messages[1:] {
		said = append(said, m.Role+": "+m.Content)
	}
	require.Equal(t, []string{
		openai.ChatMessageRoleUser + ": first task",
		openai.ChatMessageRoleAssistant + ": Working on it. Done.",
		openai.ChatMessageRoleUser + ": second task",
	}, said, "the queued prompt comes after the answer it waited for")
}

// TestAgentApprovalSurvivesAServerKill: the model's command waits for an approval in the
// composer; the server is killed (SIGKILL) and started again on the same data and address.
// The page reconnects by itself, the approval is still in the composer, and approving it
// runs the command once and finishes the turn: the turn resumed where it was.
func TestAgentApprovalSurvivesAServerKill(t *testing.T) {
	t.Parallel()
	fake := testkit.NewModel(t,
		testkit.Calls(runCommand("call_0", "echo", "hello")))
	data := t.TempDir()
	srv := startServerModel(t, data, fake.Base())
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	prompt(t, ctx, "say hello")
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval')`))

	srv.kill()
	fake.Add(testkit.Text("It printed hello."))
	launch(t, repoRoot, data, srv.addr, []string{data + "-workspace"}, "-model-url", fake.Base(), "-model", "test")

	approve(t, ctx, "Approve")
	waitFinal(t, ctx, "It printed hello.")
	reqs := fake.Requests()
	require.Len(t, reqs, 2, "the model was asked once before the kill and once after the approval")
	require.Contains(t, strings.Join(testkit.ToolTexts(reqs[1]), "\n"), "hello")
	thread := evalString(t, ctx, `document.querySelector('.thread').innerText`)
	require.NotContains(t, thread, "interrupted", "the turn resumed; nothing says it was cut")
	require.Equal(t, "1", evalString(t, ctx, `document.querySelectorAll('.thread .entry-decision').length + ''`),
		"one approval card: the same decision, not a second one")
}

// TestAgentCommandOutputShowsWhileItRuns: an approved command's output appears on its
// receipt while the command still runs (it waits for a file the test writes only after
// seeing the output), then the result takes its place.
func TestAgentCommandOutputShowsWhileItRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	release := dir + "/release"
	script := `echo "step one done"; echo "a warning" >&2; while [ ! -e "$1" ]; do sleep 0.05; done; echo "step two done"`
	fake, ctx := promptModel(t, "run the steps", testkit.Calls(runCommand("call_0", "sh", "-c", script, "sh", release)), testkit.Text("Both steps ran."))
	approve(t, ctx, "Approve")
	do(t, ctx, 30*time.Second, waitJS(`(() => {
		const o = document.querySelector('.thread .entry-tool.status-running .tool-output');
		return !!o && o.textContent.includes('step one done') && o.textContent.includes('stderr: a warning');
	})()`))
	require.Equal(t, "log", evalString(t, ctx, `document.querySelector('.thread .entry-tool .tool-output').getAttribute('role')`))
	require.NotContains(t, evalString(t, ctx, `document.querySelector('.thread .entry-tool .tool-output').textContent`), "step two done", "the command has not finished")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.thread .entry-tool .tool-result')`), "no result yet")
	require.Len(t, fake.Requests(), 1, "the model has not read the result yet")

	testkit.WriteTree(t, dir, map[string]string{"release": ""})
	waitFinal(t, ctx, "Both steps ran.")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.thread .entry-tool .tool-result').textContent`), "step two done")
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.thread .entry-tool .tool-output')`), "the result replaced the output so far")
	reqs := fake.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{"call_0: exit status 0\nstdout:\nstep one done\nstep two done\nstderr:\na warning"}, testkit.ToolTexts(reqs[1]))
}

// TestAStreamTakesTheHiddenPlaceholder: the thread keeps a hidden, empty entry after its
// log, and a message's first token is written into it (components/stream.go, adoptStream);
// go-app's render after it makes the entry its own. Whatever the path, the page ends as if
// go-app had drawn it all: the entry holds the message, one placeholder waits at the end,
// hidden and out of every count of messages, and the next turn's stream takes the new one.
func TestAStreamTakesTheHiddenPlaceholder(t *testing.T) {
	t.Parallel()
	start, more := make(chan struct{}), make(chan struct{})
	_, _, ctx := openModel(t,
		testkit.Reply{Steps: []testkit.Step{{Hold: start}, testkit.TextChunk("First "), {Hold: more}, testkit.TextChunk("words."), testkit.Finish("stop")}},
		testkit.Reply{Steps: []testkit.Step{testkit.TextChunk("Second "), testkit.TextChunk("reply."), testkit.Finish("stop")}},
	)
	const onePlaceholderLast = `(() => {
		const inner = document.querySelector('.thread-inner');
		const ph = inner.querySelectorAll(':scope > .msg-pending');
		return ph.length === 1 && inner.lastElementChild === ph[0] && ph[0].hidden && ph[0].offsetHeight === 0;
	})()`
	prompt(t, ctx, "hi")
	do(t, ctx, 60*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg-user .msg-text')].some(e => e.textContent === 'hi')`), waitJS(onePlaceholderLast))
	evalBool(t, ctx, `(window.__ph = document.querySelector('.thread-inner > .msg-pending'), true)`)
	require.Zero(t, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread-inner .msg-agent, .thread-inner .msg[data-offset]:not(.msg-user)').length`))), "the placeholder is no message")

	close(start)
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent === 'First '`))
	require.True(t, evalBool(t, ctx, `document.querySelector('.thread .msg-streaming') === window.__ph`), "the stream is drawn in the placeholder's node")
	do(t, ctx, 20*time.Second, waitJS(onePlaceholderLast))

	close(more)
	do(t, ctx, 20*time.Second, waitJS(`!document.querySelector('.thread .msg-streaming') && !document.querySelector('.thread .stop')`))
	require.Equal(t, "First words.", lastAgentText(t, ctx))
	require.True(t, evalBool(t, ctx, `window.__ph.isConnected && window.__ph.classList.contains('msg-agent') && !window.__ph.hidden && window.__ph.dataset.stream !== 'pending'`), "the placeholder became the message")
	require.True(t, evalBool(t, ctx, onePlaceholderLast))

	prompt(t, ctx, "again")
	do(t, ctx, 20*time.Second, waitJS(`document.querySelectorAll('.thread .msg-agent').length === 2 && !document.querySelector('.thread .msg-streaming') && !document.querySelector('.thread .stop')`))
	require.Equal(t, "Second reply.", lastAgentText(t, ctx))
	require.Equal(t, `["First words.","Second reply."]`, evalString(t, ctx, `JSON.stringify([...document.querySelectorAll('.thread .msg-agent .msg-text')].map(e => e.textContent))`))
	require.True(t, evalBool(t, ctx, onePlaceholderLast))
}
