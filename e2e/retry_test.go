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
// restart. Its card offers Request retry, as a timed-out one does, and the click asks the
// agent again without answering or granting anything.
func TestRequestRetryOnARequestCutOffByARestart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, ctx := openHomeOn(t, data)
	do(t, ctx, 10*time.Second, typeText(`/script confirm('Deploy to staging?')`), pressEnter(0))
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-pending')`))
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('.entry-decision .retry')`), "a pending request offers no retry")

	srv.kill()
	srv = startServer(t, data, srv.addr)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('.entry-decision.status-aborted .retry')`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.entry-decision .entry-outcome').textContent`), "the server restarted")
	do(t, ctx, 10*time.Second, clickJS(`.entry-decision.status-aborted .retry`),
		waitJS(`!!document.querySelector('.entry-decision .retry-note')`))
	do(t, ctx, 30*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg-user .msg-text')].some(e => e.textContent.includes('please make the same request again') && e.textContent.includes('Deploy to staging?'))`))

	list, err := apiClient(srv).ListGrants(context.Background())
	require.NoError(t, err)
	assert.Empty(t, list, "a retry creates no trust")
	h, err := apiClient(srv).ApprovalHistory(context.Background(), protocol.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.True(t, h.Entries[0].Retryable, "the history offers it too")
}
