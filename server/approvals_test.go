package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// The approvals screen's endpoints over real HTTP: the queue, the history with a filter, a
// retry of a request that did not expire, and requests that are wrong in ways a person can fix.
func TestApprovalsEndpoints(t *testing.T) {
	ts, _ := testServer(t)
	c := clientOf(ts)
	ctx := context.Background()
	s := createSessionHTTP(t, ts)
	promptHTTP(t, ts, s, "/script confirm('Ship it?')")
	d := waitDecisions(t, ts, s, 1)[0]

	q, err := c.ApprovalQueue(ctx, nil)
	require.NoError(t, err)
	require.Len(t, q.Entries, 1)
	assert.Equal(t, "Ship it?", q.Entries[0].Request.Message)
	assert.Equal(t, "/script confirm('Ship it?')", q.Entries[0].Status.User)
	// The version follows the log through the runtime's subscription, so it may trail the
	// registry a moment; it must reach the question's offset.
	testkit.Eventually(t, func() bool {
		q, err := c.ApprovalQueue(ctx, nil)
		return err == nil && q.Version >= d.Offset
	}, "the queue's version reaching the question at %d", d.Offset)

	_, err = c.RequestRetry(ctx, s, d.ID)
	assert.ErrorContains(t, err, "only a request that timed out")
	replyHTTP(t, ts, s, d.ID, `{"action":"decline","reason":"friday"}`)

	h, err := c.ApprovalHistory(ctx, protocol.HistoryFilter{Outcome: protocol.HistoryRejected, Session: s})
	require.NoError(t, err)
	require.Len(t, h.Entries, 1)
	assert.Equal(t, "friday", h.Entries[0].Reason)

	for url, want := range map[string]string{
		"/api/approvals?wait=soon":                 "?wait= must be the version",
		"/api/approvals/history?outcome=maybe":     "use one of approved, rejected, answered, timed-out, aborted",
		"/api/approvals/history?limit=0":           "?limit= must be a whole number",
		"/api/approvals/history?before=x":          "?before= must be a whole number",
		"/api/approvals/history?workspace=nowhere": "the workspaces are",
	} {
		resp, data := request(t, http.MethodGet, ts.URL+url, testToken, "")
		assertRefused(t, resp, data, http.StatusBadRequest, "", want, "")
	}
	g, err := c.ApprovalGrants(ctx)
	require.NoError(t, err)
	assert.Empty(t, g)
}
