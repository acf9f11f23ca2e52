package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
)

// TestMCPURLRequestWaitsForTheStepInTheBrowser: a URL elicitation through elicitation/create;
// after consent the call does not end: the composer says it waits for the user to finish in
// the browser, the receipt stays running, and the user's "I am done there" lets the call go on.
func TestMCPURLRequestWaitsForTheStepInTheBrowser(t *testing.T) {
	t.Parallel()
	fake, ctx, url := urlStep(t, "login_later", "Signed in to the wiki.", "sign me in", "Sign in to the wiki.")
	require.True(t, strings.HasPrefix(url, "https://wiki.example/login?session=later-"), url)
	approve(t, ctx, "Open the link in a new tab")
	do(t, ctx, 10*time.Second, waitJS(`window.__opened.length === 1`))

	// Consent was the server's answer; the step in the browser is what the call waits for.
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('#composer-mode.mode-approval') &&
		document.querySelector('#composer-mode .approval-message').textContent.startsWith('Waiting for you to finish in the browser')`))
	assert.Equal(t, url, modeText(t, ctx, `.approval-details`), "the wait names the link")
	assert.True(t, evalBool(t, ctx, `!!document.querySelector('.thread .entry-tool.status-running')`), "the receipt is still running")
	assert.Len(t, fake.Requests(), 1, "the model has no result yet")
	assert.Contains(t, evalString(t, ctx, `[...document.querySelectorAll('.thread .entry-decision')].pop().textContent`),
		"Waiting for you to finish in the browser", "the card in the thread says so too")

	approve(t, ctx, "I am done there")
	waitFinal(t, ctx, "Signed in to the wiki.")
	reqs := fake.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"call_0: action=accept"}, testkit.ToolTexts(reqs[1]))
	assert.True(t, evalBool(t, ctx, `window.__opened.length === 1`), "the link opened once")
}
