package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/internal/testkit/mcpserver"
)

// The findings of the seventh QA pass (docs/qa-round7.md): each test is what a person saw go
// wrong in `make run`, seen in the page.

// TestAnApprovalQuotesThePromptItAnswers: a session's turn asks while another prompt waits
// behind it. Its entry on /approvals quotes the prompt being worked on ("You: /script …"),
// not the one only queued: a person approves knowing which message it is for.
func TestAnApprovalQuotesThePromptItAnswers(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := newSession(t, srv, "Alpha", "")
	const running = `/script confirm('First?'); confirm('Ship it?')`
	sendTo(t, srv, a, running)
	first := waitQueue(t, srv, 1)
	sendTo(t, srv, a, "a prompt queued behind it")
	answerAPI(t, srv, first[0])
	// The second question is asked after the queued prompt is in the log.
	var ship string
	waitFor(t, func() bool {
		q := waitQueue(t, srv, 1)
		ship = q[0].ID
		return q[0].Request.Message == "Ship it?"
	})
	ctx := openApprovals(t, srv)
	quote := `(document.querySelector('.queue-entry[data-decision="` + ship + `"] .status-user') || {textContent: ''}).textContent`
	waitShowing(t, ctx, 30*time.Second, quote+` !== ''`, `document.querySelector('.approvals-body').innerText`)
	assert.Equal(t, "You: "+running, evalString(t, ctx, quote), "the prompt the question belongs to")
}

// waitFor polls cond (each call may itself wait on the server) for up to a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("the condition never held")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCtrlEnterWithWordsTypedRejects: a person types what to do instead into an approval's
// field and presses Ctrl+Enter, the chord that sends in most chat boxes. The words go to the
// model as the rejection; the command does not run (it used to be approved, the file
// deleted and the words dropped).
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
	assert.Equal(t, []string{"call_0: error: rejected by the user: no, keep it"}, toolResults(t, fake))
	_, err := os.Stat(notes)
	assert.NoError(t, err, "the file the words said to keep is still there")
	assert.True(t, strings.HasPrefix(evalString(t, ctx, `document.querySelector('.thread .entry-decision .entry-outcome').textContent`), "Rejected"),
		"the card says it was rejected")
}

// TestPhoneApprovalsAndMCPTargets: on a 390×844 touch phone, the approvals screen (a
// confirm's Yes and No, an approval's options, the session's link, the Language picker) and
// the MCP screen (Back, Reconnect) are 44 px targets, as the composer's are.
func TestPhoneApprovalsAndMCPTargets(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"test": mcpserver.Self(t, "stdio")}})
	require.NoError(t, err)
	testkit.WriteTree(t, dataWorkspace(t, data), map[string]string{".parley/mcp.json": string(b)})
	srv := startServer(t, data, "127.0.0.1:0")
	a, c := newSession(t, srv, "Alpha", ""), newSession(t, srv, "Beta", "")
	sendTo(t, srv, a, `/script confirm('Ship it?')`)
	sendTo(t, srv, c, `/script run(['ls', '-la'])`)
	waitQueue(t, srv, 2)
	ctx := browser(t)
	phone(t, ctx, 844)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"), waitJS(`document.querySelectorAll('.queue-entry .choice').length >= 4`))
	assert.Empty(t, get(t, ctx, chromedp.Evaluate[[]string](smallTargets)), "/approvals: targets under 44 px")
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/mcp"), waitJS(`!!document.querySelector('.mcp-server .mcp-reconnect')`))
	assert.Empty(t, get(t, ctx, chromedp.Evaluate[[]string](smallTargets)), "/mcp: targets under 44 px")
}

// TestAToolCallWaitingForApprovalSaysSo: while the model's command waits for its approval,
// its receipt says it waits for you, not "running…" (it has not run: approving is not moot);
// once approved it runs and says done.
func TestAToolCallWaitingForApprovalSaysSo(t *testing.T) {
	t.Parallel()
	_, ctx := promptModel(t, "say hello", testkit.Calls(runCommand("call_0", "echo", "hello")), testkit.Text("It printed hello."))
	status := `(document.querySelector('.thread .entry-tool[data-call="call_0"] .entry-status') || {textContent: ''}).textContent`
	do(t, ctx, 20*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval') && `+status+` !== ''`))
	assert.Equal(t, "Waiting for your answer below", evalString(t, ctx, status), "not running before it is approved")
	approve(t, ctx, "Approve")
	waitFinal(t, ctx, "It printed hello.")
	assert.Equal(t, "done", evalString(t, ctx, status))
}
