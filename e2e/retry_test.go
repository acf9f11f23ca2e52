package e2e

import (
	"context"
	"testing"
	"time"

	"parley/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRequestRetryOnARequestCutOffByARestart: a script's question is pending when the server
// is killed; started again, the script cannot resume, so its question ends as cut off by the
// restart. Its card offers Run again (QA round 11 #4: it offered a retry request to the agent,
// which never asked it), and the click sends the script again, which asks again, without
// answering or granting anything.
func TestRequestRetryOnARequestCutOffByARestart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx := openHomeOn(t, data)
	const script = `/script confirm('Deploy to staging?')`
	do(t, ctx, 10*time.Second, typeText(script), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending')`))
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-decision .retry')`), "a pending request offers no retry")

	srv.kill()
	srv = startServer(t, data, srv.addr)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-aborted .retry')`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`), "the server restarted")
	assert.Equal(t, "Run again", evalString(t, ctx, `document.querySelector('.entry-decision.status-aborted .retry').textContent`))
	do(t, ctx, 10*time.Second, clickJS(`.entry-decision.status-aborted .retry`),
		waitJS(`!!document.querySelector('.entry-decision .retry-note')`))
	do(t, ctx, 30*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg-user')].length === 2`), waitJS(modeShown))
	assert.NotContains(t, evalString(t, ctx, `document.querySelector('.thread').textContent`), "please make the same request again", "the agent is not asked")

	list, err := apiClient(srv).ListGrants(context.Background())
	require.NoError(t, err)
	assert.Empty(t, list, "a retry creates no trust")
	h, err := apiClient(srv).ApprovalHistory(context.Background(), protocol.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.True(t, h.Entries[0].Retryable, "the history offers it too")
	assert.True(t, h.Entries[0].RetryRuns, "as Run again")
}
