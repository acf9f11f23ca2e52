package decision_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/decision"
	"parley/runtime/eventlog"
)

// TestAWaiterHearsAReplyTheTapNeverHandedOver: the registry's waiter is told of outcomes by
// the runtime's tap (Deliver); when that lags, as a consumer being made again on another node
// of a cluster does, the waiter still reads its stored outcome within a few seconds rather
// than at its deadline. Nothing here calls Deliver.
func TestAWaiterHearsAReplyTheTapNeverHandedOver(t *testing.T) {
	nc, _ := testkit.JetStream(t, "")
	log, err := eventlog.Open(t.Context(), nc, eventlog.Config{})
	require.NoError(t, err)
	var n atomic.Int64
	reg := decision.NewRegistry(log, "a", time.Now, time.Hour, func() string { return "d" + strconv.FormatInt(n.Add(1), 10) })

	type result struct {
		res decision.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := reg.Ask(context.Background(), "s1", "", protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Go on?"})
		done <- result{res, err}
	}()
	var pending []protocol.Decision
	require.Eventually(t, func() bool {
		pending, err = reg.Pending(context.Background(), "s1")
		return err == nil && len(pending) == 1
	}, testkit.Wait, 10*time.Millisecond)
	_, err = reg.Reply(context.Background(), "s1", pending[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`true`)})
	require.NoError(t, err)
	select {
	case r := <-done:
		require.NoError(t, r.err)
		require.NotNil(t, r.res.Replied)
		assert.JSONEq(t, `true`, string(r.res.Replied.Content))
	case <-time.After(testkit.Wait):
		t.Fatal("the asker was not resumed: it waits for a tap that never comes")
	}
}
