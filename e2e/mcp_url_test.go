package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/internal/testkit/mcpserver"
)

// TestMCPURLRequestWaitsForTheStepInTheBrowser: a URL elicitation through elicitation/create;
// after consent the call does not end: the composer says it waits for the user to finish in
// the browser, the receipt stays running, and the user's "I am done there" lets the call go on.
func TestMCPURLRequestWaitsForTheStepInTheBrowser(t *testing.T) {
	t.Parallel()
	fake, _, ctx := openMCP(t, map[string]any{"test": mcpserver.Self(t, "stdio")},
		testkit.Calls(testkit.Call{ID: "call_0", Name: "mcp__test__login_later", Args: map[string]any{}}),
		testkit.Text("Signed in to the wiki."))
	evalBool(t, ctx, recordOpens)
	prompt(t, ctx, "sign me in")
	approve(t, ctx, "Approve")
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval') &&
		document.querySelector('#composer-mode .approval-message').textContent === 'Sign in to the wiki.'`))
	url := modeText(t, ctx, `.approval-details`)
	require.True(t, strings.HasPrefix(url, "https://wiki.example/login?session=later-"), url)
	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode .choice')].find(b => b.querySelector('.choice-label').textContent === 'Open the link in a new tab').click()`),
		waitJS(`window.__opened.length === 1`))

	// Consent was the server's answer; the step in the browser is what the call waits for.
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval') &&
		document.querySelector('#composer-mode .approval-message').textContent.startsWith('Waiting for you to finish in the browser')`))
	assert.Equal(t, url, modeText(t, ctx, `.approval-details`), "the wait names the link")
	assert.True(t, evalBool(t, ctx, `!!document.querySelector('.thread .entry-tool.status-running')`), "the receipt is still running")
	assert.Len(t, fake.Requests(), 1, "the model has no result yet")
	assert.Contains(t, evalString(t, ctx, `[...document.querySelectorAll('.thread .entry-decision')].pop().textContent`),
		"Waiting for you to finish in the browser", "the card in the thread says so too")

	time.Sleep(guardPause)
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode .choice')].find(b => b.querySelector('.choice-label').textContent === 'I am done there').click()`))
	waitFinal(t, ctx, "Signed in to the wiki.")
	reqs := fake.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"call_0: action=accept"}, testkit.ToolTexts(reqs[1]))
	assert.True(t, evalBool(t, ctx, `window.__opened.length === 1`), "the link opened once")
}
