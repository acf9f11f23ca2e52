package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/eventlog"
)

// TestLastPerSubjectOverManySubjects holds the registry's pending list to the truth with
// hundreds of decisions: an ordered consumer that resets mid-scan used to deliver earlier
// messages of later subjects too, and answered questions showed as pending.
func TestLastPerSubjectOverManySubjects(t *testing.T) {
	emb, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	rt, err := New(context.Background(), emb.Conn, Options{Workspace: t.TempDir(), NoAgent: true})
	require.NoError(t, err)
	defer stop(emb, rt)
	ctx := context.Background()
	info, _ := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	for d := range 600 {
		id := fmt.Sprintf("d%d", d)
		subject := eventlog.DecisionSubject(info.ID, id)
		off, _, err := rt.Log().Publish(ctx, subject, protocol.EventQuestionAsked, protocol.QuestionAsked{ID: id, Deadline: 1 << 62, Owner: "x"}, "")
		require.NoError(t, err)
		_, _, err = rt.Log().PublishAfter(ctx, subject, off, protocol.EventQuestionReplied, protocol.QuestionReplied{ID: id, Action: protocol.ActionAccept}, "")
		require.NoError(t, err)
	}
	evs, err := rt.Log().LastPerSubject(ctx, eventlog.DecisionSubjects(""))
	require.NoError(t, err)
	n := map[protocol.EventType]int{}
	for _, e := range evs {
		n[e.Type]++
	}
	assert.Equal(t, map[protocol.EventType]int{protocol.EventQuestionReplied: 600}, n)
	pending, err := rt.PendingDecisions(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, pending.Decisions)
}
