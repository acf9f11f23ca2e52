package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/eventlog"
)

// BenchmarkApprovalHistory reads the first page of the history (50) and the queue when the
// log holds 1,960 ended decisions and 40 pending ones across 20 sessions of 100 messages each:
// one pass over every decision event, then the page's thread statuses (cached after the first
// read, as on a server that stays up). `make bench` runs it.
func BenchmarkApprovalHistory(b *testing.B) {
	emb, err := StartEmbedded(b.TempDir())
	require.NoError(b, err)
	rt, err := New(context.Background(), emb.Conn, Options{Workspace: b.TempDir(), NoAgent: true})
	require.NoError(b, err)
	defer stop(emb, rt)
	rt.alive = func(context.Context, string) bool { return true } // the pending ones' replica lives
	ctx := context.Background()
	confirm := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Go on?"}
	for s := range 20 {
		info, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
		require.NoError(b, err)
		session := info.ID
		for m := range 100 {
			_, _, err := rt.Log().Append(ctx, session, protocol.EventAgentMessage, protocol.Message{Text: fmt.Sprintf("message %d", m)}, "")
			require.NoError(b, err)
		}
		for d := range 100 {
			id := fmt.Sprintf("d%d_%d", s, d)
			subject := eventlog.DecisionSubject(session, id)
			off, _, err := rt.Log().Publish(ctx, subject, protocol.EventQuestionAsked, protocol.QuestionAsked{ID: id, Request: confirm, Deadline: 1 << 62, Owner: "bench-replica"}, "")
			require.NoError(b, err)
			if d >= 2 { // two pending per session
				_, _, err = rt.Log().PublishAfter(ctx, subject, off, protocol.EventQuestionReplied, protocol.QuestionReplied{ID: id, Action: protocol.ActionAccept, Content: raw(true)}, "")
				require.NoError(b, err)
			}
		}
	}
	h, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{})
	require.NoError(b, err)
	require.Len(b, h.Entries, 50)
	b.Run("history", func(b *testing.B) {
		for b.Loop() {
			if _, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("history-filtered", func(b *testing.B) {
		for b.Loop() {
			if _, err := rt.ApprovalHistory(ctx, protocol.HistoryFilter{Outcome: protocol.HistoryRejected}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("queue", func(b *testing.B) {
		for b.Loop() {
			q, err := rt.ApprovalQueue(ctx, nil, 0)
			if err != nil || len(q.Entries) != 40 {
				b.Fatal(err, len(q.Entries))
			}
		}
	})
}
