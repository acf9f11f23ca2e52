package runtime

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/i18n"
	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/agent/model"
	"parley/runtime/eventlog"
)

// The cluster tests run Parley's runtimes on a real 3-node JetStream cluster started in the
// test process (testkit.StartCluster), each runtime connected to a node of its own first, as
// runtimes spread across a cluster are.

// clusterConn connects to the cluster, node first (the others are where it reconnects to).
func clusterConn(t *testing.T, c *testkit.Cluster, node int) *nats.Conn {
	t.Helper()
	urls := strings.Split(c.URLs(), ",")
	ordered := append([]string{urls[node]}, append(urls[:node:node], urls[node+1:]...)...)
	nc, err := nats.Connect(strings.Join(ordered, ","), nats.DontRandomize(), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond), nats.Name(fmt.Sprintf("parley-%d", node)))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// clusterRuntime starts a runtime on the cluster through node; opts.Workspace defaults to a
// folder of its own. It is closed with the test unless the test kills it.
func clusterRuntime(t *testing.T, c *testkit.Cluster, node int, opts Options) (*Runtime, *nats.Conn) {
	t.Helper()
	nc := clusterConn(t, c, node)
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	opts.Lease = cmpOr(opts.Lease, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rt, err := New(ctx, nc, opts)
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	return rt, nc
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// pendingOn waits until the session has n pending decisions, as waitPending does, but takes a
// failed read (a cluster still electing a leader answers "unavailable") as "not yet".
func pendingOn(t *testing.T, rt *Runtime, session string, n int) []protocol.Decision {
	t.Helper()
	return pendingWithin(t, rt, session, n, 3*testkit.Wait, true)
}

// kill ends a runtime as a crash would, from the cluster's point of view: its connection
// goes first, so nothing more is stored for it, and its lease lapses.
func kill(rt *Runtime, nc *nats.Conn) {
	nc.Close()
	rt.Close()
}

func TestClusterKeepsThreeCopiesAndAReplyOnBResumesA(t *testing.T) {
	c := testkit.StartCluster(t)
	ws := t.TempDir()
	a, ncA := clusterRuntime(t, c, 0, Options{Workspace: ws})
	b, _ := clusterRuntime(t, c, 1, Options{Workspace: ws})
	ctx := context.Background()

	assert.Equal(t, 3, a.Log().Replicas(), "three nodes hold three copies")
	js, err := jetstream.New(ncA)
	require.NoError(t, err)
	stream, err := js.Stream(ctx, eventlog.StreamName)
	require.NoError(t, err)
	assert.Equal(t, 3, stream.CachedInfo().Config.Replicas)
	// Every bucket whose reads decide something is read from its leader (runtime/kv, Bind):
	// a lagging copy could miss a session just created or a lease just renewed.
	for _, bucket := range []string{sessionsBucket, windowsBucket, "PARLEY_GRANTS", "PARLEY_GRANT_USES", "PARLEY_RUNTIMES"} {
		kv, err := js.KeyValue(ctx, bucket)
		require.NoError(t, err, bucket)
		st, err := kv.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 3, st.Config().Replicas, bucket)
		stream, err := js.Stream(ctx, "KV_"+bucket)
		require.NoError(t, err, bucket)
		assert.False(t, stream.CachedInfo().Config.AllowDirect, "%s is read from its leader", bucket)
	}

	s := newSession(t, a)
	q := &asked{done: make(chan struct{})}
	go func() {
		defer close(q.done)
		q.answer, q.err = a.Ask(ctx, s, "test:1", envQuestion)
	}()
	q.decision = pendingOn(t, a, s, 1)[0]
	list := pendingOn(t, b, s, 1)
	assert.Equal(t, q.decision.ID, list[0].ID)
	_, err = b.Reply(ctx, s, q.decision.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw("staging")})
	require.NoError(t, err)
	q.wait(t)
	require.NoError(t, q.err)
	assert.JSONEq(t, `"staging"`, string(q.answer.Content))

	// A script's confirm asked in a turn on whichever runtime runs it, answered on the other.
	prompt(t, b, s, "/script print(confirm('Deploy?'))", protocol.ModeQueue)
	d := pendingOn(t, a, s, 1)[0]
	_, err = a.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(true)})
	require.NoError(t, err)
	evs := waitFor(t, b, s, "the script ends", testkit.TurnsEnded(1))
	assert.Equal(t, "True\n", outputOf(evs))
}

// outputOf is every run.output text, joined.
func outputOf(evs []protocol.Event) string {
	var b strings.Builder
	for _, ev := range testkit.OfType(evs, protocol.EventRunOutput) {
		if o, err := protocol.DecodeEventData[protocol.RunOutput](ev); err == nil {
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

// A node dies while prompts and decisions flow through two runtimes: every prompt a client
// was told is stored is in the log once, every prompt runs one turn, every decision has one
// outcome, and the replies the clients were told are stored are the ones that won.
func TestClusterNodeLossLosesAndRepeatsNothing(t *testing.T) {
	c := testkit.StartCluster(t)
	// The production lease: a node's loss (an election, a reconnect) takes a few seconds, and
	// a runtime must not be taken for gone meanwhile.
	ws := t.TempDir()
	a, ncA := clusterRuntime(t, c, 0, Options{Workspace: ws, Lease: 10 * time.Second})
	b, _ := clusterRuntime(t, c, 1, Options{Workspace: ws, Lease: 10 * time.Second})
	rts := []*Runtime{a, b}
	ctx := context.Background()
	const sessions, perSession = 3, 24
	var ids []string
	for range sessions {
		ids = append(ids, newSession(t, a))
	}

	// retry calls f until it succeeds, as a client does on 503: the same request again.
	retry := func(what string, f func() error) {
		deadline := time.Now().Add(3 * testkit.Wait)
		for {
			err := f()
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%s: %v", what, err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	var mu sync.Mutex
	acked := map[string]uint64{} // attempt id → offset the client was told
	replied := map[string]bool{} // decision id → a reply was acknowledged
	stopReplier := make(chan struct{})
	// What the replier last met, told if the test fails: a question nobody answered is
	// either one it could not list or one whose reply failed.
	replierRounds, replierSaw := 0, ""
	defer func() {
		if t.Failed() {
			mu.Lock()
			defer mu.Unlock()
			t.Logf("the replier went %d rounds; the last failure it met: %q", replierRounds, replierSaw)
			var stacks strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&stacks, 2)
			for _, g := range strings.Split(stacks.String(), "\n\n") {
				if strings.Contains(g, "TestClusterNodeLossLosesAndRepeatsNothing.func") {
					t.Logf("a goroutine of the test:\n%s", g)
				}
			}
			for i, rt := range rts {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				list, err := rt.PendingDecisions(ctx, "")
				t.Logf("runtime %d lists %d pending decisions now (%v)", i, len(list.Decisions), err)
			}
		}
	}()
	var replier sync.WaitGroup
	replier.Add(1)
	go func() { // answers every script's confirm, on either runtime, as people would
		defer replier.Done()
		for i := 0; ; i++ {
			select {
			case <-stopReplier:
				return
			case <-time.After(20 * time.Millisecond):
			}
			rt := rts[i%2]
			list, err := rt.PendingDecisions(ctx, "")
			mu.Lock()
			replierRounds++
			if err != nil {
				replierSaw = fmt.Sprintf("pending on runtime %d: %v", i%2, err)
			}
			mu.Unlock()
			if err != nil {
				continue
			}
			for _, d := range list.Decisions {
				_, err := rt.Reply(ctx, d.Session, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: raw(true)})
				if err != nil && !errors.Is(err, protocol.ErrAlreadyAnswered) {
					mu.Lock()
					replierSaw = fmt.Sprintf("reply %s on runtime %d: %v", d.ID, i%2, err)
					mu.Unlock()
				}
				if err == nil || errors.Is(err, protocol.ErrAlreadyAnswered) {
					mu.Lock()
					if err == nil {
						replied[d.ID] = true
					}
					mu.Unlock()
				}
			}
		}
	}()

	var senders sync.WaitGroup
	sent := make(chan struct{}, sessions*perSession)
	for si, s := range ids {
		senders.Add(1)
		go func() {
			defer senders.Done()
			for i := range perSession {
				text := fmt.Sprintf("prompt %d of %d", i, si)
				if i%4 == 3 {
					text = fmt.Sprintf("/script print(confirm('Go on with %d?'))", i)
				}
				attempt := fmt.Sprintf("a-%d-%d", si, i)
				rt := rts[(si+i)%2]
				retry("send "+attempt, func() error {
					resp, err := rt.SendPrompt(ctx, s, protocol.SendPromptRequest{Text: text, AttemptID: attempt})
					if err == nil {
						mu.Lock()
						acked[attempt] = resp.Offset
						mu.Unlock()
					}
					return err
				})
				sent <- struct{}{}
			}
		}()
	}
	// A third of the way in, the stream's leader dies (a leader election under the writes);
	// two thirds in, the node runtime A is connected to (A reconnects elsewhere, and its
	// consumers are made again). Each comes back after.
	for range sessions * perSession / 3 {
		<-sent
	}
	leader := c.StreamLeader(eventlog.StreamName)
	require.GreaterOrEqual(t, leader, 0)
	c.Kill(leader)
	for range sessions * perSession / 3 {
		<-sent
	}
	c.Restart(leader)
	c.WaitReady()
	nodeOfA := slices.IndexFunc(strings.Split(c.URLs(), ","), func(u string) bool { return u == ncA.ConnectedUrl() })
	require.GreaterOrEqual(t, nodeOfA, 0, "A is connected to %s", ncA.ConnectedUrl())
	reconnects := ncA.Stats().Reconnects
	c.Kill(nodeOfA)
	senders.Wait()
	c.Restart(nodeOfA)

	for _, s := range ids {
		waitForLong(t, a, s, "every prompt of the session runs", testkit.TurnsEnded(perSession))
	}
	close(stopReplier)
	replier.Wait()

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, acked, sessions*perSession)
	for si, s := range ids {
		evs, err := a.Log().Read(ctx, s, 0)
		require.NoError(t, err)
		stored := map[string]int{}
		started := map[uint64]int{}
		replies := map[string]int{}
		outcomes := map[string]int{}
		answered := map[uint64]int{}
		interrupted := map[uint64]int{} // turns a fence stopped: Parley's note says so
		for _, ev := range evs {
			switch ev.Type {
			case protocol.EventUserMessage:
				m, err := ev.DecodeMessage()
				require.NoError(t, err)
				stored[m.AttemptID]++
			case protocol.EventTurnStarted:
				ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev)
				require.NoError(t, err)
				started[ts.Prompt]++
			case protocol.EventQuestionReplied:
				r, err := ev.DecodeQuestionReplied()
				require.NoError(t, err)
				replies[r.ID]++
				outcomes[r.ID]++
			case protocol.EventQuestionRejected:
				r, err := ev.DecodeQuestionRejected()
				require.NoError(t, err)
				outcomes[r.ID]++
			case protocol.EventAgentMessage:
				m, err := ev.DecodeMessage()
				require.NoError(t, err)
				switch {
				case m.From == "":
					answered[ev.Offset]++
				case m.Phrase != nil && m.Phrase.Code == i18n.PhraseCodeTurnInterrupted:
					interrupted[ev.Offset]++
				}
			}
		}
		for i := range perSession {
			attempt := fmt.Sprintf("a-%d-%d", si, i)
			assert.Equal(t, 1, stored[attempt], "prompt %s stored once", attempt)
			assert.Equal(t, 1, started[acked[attempt]], "prompt %s ran one turn", attempt)
		}
		assert.Len(t, stored, perSession, "nothing stored that no client sent")
		// Every prompt's turn ends in the agent's words or, when both replicas lost the
		// presence bucket long enough to fence themselves (an election on a loaded 2-core
		// machine can take that long), in Parley's note that it was interrupted: never in
		// neither, never in both. A fence is rare; most runs have no note at all.
		if len(interrupted) > 0 {
			t.Logf("session %d: %d turns interrupted by a fence", si, len(interrupted))
		}
		assert.Len(t, answered, perSession-perSession/4-len(interrupted), "one answer per prompt, but for turns a fence interrupted")
		assert.LessOrEqual(t, len(interrupted), 2, "a fence interrupts the turns running at that moment only")
		assert.Equal(t, perSession/4, testkit.Count(evs, protocol.EventRunSettled), "one run per script")
		for id, n := range outcomes {
			assert.Equal(t, 1, n, "decision %s has one outcome", id)
		}
		for id, n := range replies {
			assert.Equal(t, 1, n, "decision %s has one reply", id)
			delete(replied, id)
		}
	}
	assert.Empty(t, replied, "every acknowledged reply is in the log")
	assert.Greater(t, ncA.Stats().Reconnects, reconnects, "A moved to another node")
}

// waitForLong is waitFor with the time a cluster needs to elect leaders and redeliver.
func waitForLong(t *testing.T, rt *Runtime, session, what string, cond func([]protocol.Event) bool) []protocol.Event {
	t.Helper()
	var evs []protocol.Event
	deadline := time.Now().Add(6 * testkit.Wait)
	for {
		got, err := rt.Log().Read(context.Background(), session, 0)
		if err == nil {
			evs = got
			if cond(evs) {
				return evs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s; the log holds %v", what, 6*testkit.Wait, testkit.Types(evs))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clusterWithAWrite starts a cluster and a model whose first answer writes out.txt, and
// returns the runtimes' options: that model, in a workspace of their own.
func clusterWithAWrite(t *testing.T) (*testkit.Cluster, *testkit.Model, Options) {
	t.Helper()
	c := testkit.StartCluster(t)
	m := testkit.NewModel(t,
		testkit.Calls(testkit.Call{ID: "call_0", Name: "write_file", Args: map[string]string{"path": "out.txt", "content": "ok"}}))
	return c, m, Options{Workspace: testkit.Folder(t, nil), Model: model.Config{URL: m.Base(), Model: "test"}}
}

// A runtime killed mid-turn: its lease lapses on the other runtime, which ends a script's turn
// as interrupted (with a note to run it again), resumes a model's turn that waited on an
// approval, and runs what was queued behind each.
func TestClusterRuntimeKilledMidTurn(t *testing.T) {
	c, m, opts := clusterWithAWrite(t)
	a, ncA := clusterRuntime(t, c, 0, opts)
	ctx := context.Background()

	// Two sessions, each with a turn running on A and a prompt queued behind it.
	script, agentic := newSession(t, a), newSession(t, a)
	prompt(t, a, script, "/script confirm('Deploy?')", protocol.ModeQueue)
	prompt(t, a, agentic, "write out.txt", protocol.ModeQueue)
	pendingOn(t, a, script, 1)
	approval := pendingOn(t, a, agentic, 1)[0]
	prompt(t, a, script, "/script print('next')", protocol.ModeQueue)
	prompt(t, a, agentic, "after the write", protocol.ModeQueue)

	// B joins, then A dies.
	m.Add(testkit.Text("Wrote out.txt."), testkit.Text("Next one done."))
	b, _ := clusterRuntime(t, c, 1, opts)
	kill(a, ncA)

	evs := waitForLong(t, b, script, "the script's turn ends and the queue runs", testkit.TurnsEnded(2))
	turnsAlternate(t, evs)
	rs := settled(t, evs)
	assert.Contains(t, rs.Error, "interrupted by a restart")
	assert.Contains(t, rs.Error, "run it again")
	assert.Equal(t, &protocol.Phrase{Code: "run_restarted"}, rs.ErrorPhrase, "the note carries its phrase for the page's locale")
	assert.Equal(t, "next\n", outputOf(evs), "the queued prompt ran")

	// The model's turn is B's now, still waiting on the same approval.
	require.Eventually(t, func() bool {
		st, err := b.turnState(ctx, agentic)
		return err == nil && st.Open && st.Started.Owner == b.owner
	}, 6*testkit.Wait, 20*time.Millisecond, "B takes the turn over")
	again := pendingOn(t, b, agentic, 1)[0]
	assert.Equal(t, approval.ID, again.ID)
	_, err := b.Reply(ctx, agentic, approval.ID, pick(0))
	require.NoError(t, err)
	evs = waitForLong(t, b, agentic, "the resumed turn and the queued one end", testkit.TurnsEnded(2))
	assert.Equal(t, []string{"Wrote out.txt.", "Next one done."}, testkit.AgentTexts(t, evs))
	assert.Equal(t, 1, testkit.Count(evs, protocol.EventToolResult))
	for _, ev := range testkit.OfType(evs, protocol.EventTurnEnded) {
		te, err := protocol.DecodeEventData[protocol.TurnEnded](ev)
		require.NoError(t, err)
		assert.False(t, te.Interrupted)
	}
}

// An approval given on the surviving replica in the second after the turn's owner was killed
// is stored while nobody waits for it. The replica that takes the turn over finds no
// decision pending, but the approval answered and nothing acting on it (no tools.running
// after it): it resumes the turn, and the write runs, once (QA round 23: the turn ended
// "interrupted" and the approved write never ran).
func TestClusterApprovalGivenAsTheOwnerDiesRuns(t *testing.T) {
	c, m, opts := clusterWithAWrite(t)
	a, ncA := clusterRuntime(t, c, 0, opts)
	ctx := context.Background()
	s := newSession(t, a)
	prompt(t, a, s, "write out.txt", protocol.ModeQueue)
	approval := pendingOn(t, a, s, 1)[0]

	// B joins, then A dies, and the person answers on B at once.
	m.Add(testkit.Text("Wrote out.txt."))
	b, _ := clusterRuntime(t, c, 1, opts)
	kill(a, ncA)
	_, err := b.Reply(ctx, s, approval.ID, pick(0))
	require.NoError(t, err, "answered on B while A's lease still runs")

	evs := waitForLong(t, b, s, "the turn ends", testkit.TurnsEnded(1))
	assert.Equal(t, "ok", readFile(t, opts.Workspace, "out.txt"), "the approved write ran")
	assert.Equal(t, []string{"Wrote out.txt."}, testkit.AgentTexts(t, evs))
	assert.Equal(t, 1, testkit.Count(evs, protocol.EventToolResult))
	assert.Equal(t, 1, testkit.Count(evs, protocol.EventToolsRunning), "one pass, on B")
	te := testkit.DataOf[protocol.TurnEnded](t, evs, protocol.EventTurnEnded)
	assert.False(t, te[0].Interrupted)
	assert.Equal(t, 1, testkit.Count(evs, protocol.EventQuestionAsked), "nobody was asked again")
	owners := testkit.DataOf[protocol.TurnStarted](t, evs, protocol.EventTurnStarted)
	require.Len(t, owners, 2, "A's turn, taken over")
	assert.Equal(t, b.owner, owners[1].Owner)
}

// TestTwoRuntimesStartTogetherOnAFreshCluster: two replicas started at the same moment on a
// new cluster both start, each creating or binding the same streams and buckets while the
// other does (QA round 22: both gave up after about 35 s, a bucket's request unanswered).
func TestTwoRuntimesStartTogetherOnAFreshCluster(t *testing.T) {
	c := testkit.StartCluster(t)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	took := make([]time.Duration, 2)
	rts := make([]*Runtime, 2)
	for i := range 2 {
		nc := clusterConn(t, c, i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			rt, err := New(ctx, nc, Options{Workspace: t.TempDir(), Lease: 2 * time.Second})
			rts[i], errs[i], took[i] = rt, err, time.Since(start)
			if err == nil {
				t.Cleanup(rt.Close)
			}
		}()
	}
	wg.Wait()
	t.Logf("started in %v and %v", took[0], took[1])
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	// The buckets made in the race work: a session made through one is read through the other,
	// and each bucket is read from its leader, whoever turned its direct gets off.
	s := newSession(t, rts[0])
	info, err := rts[1].Session(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, s, info.ID)
	js, err := jetstream.New(clusterConn(t, c, 2))
	require.NoError(t, err)
	for _, bucket := range []string{sessionsBucket, windowsBucket, "PARLEY_GRANTS", "PARLEY_GRANT_USES", "PARLEY_RUNTIMES"} {
		stream, err := js.Stream(context.Background(), "KV_"+bucket)
		require.NoError(t, err, bucket)
		assert.False(t, stream.CachedInfo().Config.AllowDirect, "%s is read from its leader", bucket)
	}
}
