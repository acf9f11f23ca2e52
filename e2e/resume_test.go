package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
)

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
	assert.Contains(t, strings.Join(testkit.ToolTexts(reqs[1]), "\n"), "hello")
	thread := evalString(t, ctx, `document.querySelector('.thread').innerText`)
	assert.NotContains(t, thread, "interrupted", "the turn resumed; nothing says it was cut")
	assert.Equal(t, "1", evalString(t, ctx, `document.querySelectorAll('.thread .entry-decision').length + ''`),
		"one approval card: the same decision, not a second one")
}
