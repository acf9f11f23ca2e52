package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// offsetsOf lists the offsets of evs.
func offsetsOf(evs []protocol.Event) []uint64 {
	out := make([]uint64, 0, len(evs))
	for _, ev := range evs {
		out = append(out, ev.Offset)
	}
	return out
}

// replayed is what Replay hands over for (after, through], and how many events it read
// from the log (not from what is kept).
func replayed(t *testing.T, rt *Runtime, session string, after, through uint64) ([]protocol.Event, bool) {
	t.Helper()
	x := rt.replays.run(session)
	kept, _ := x.slice(after, through)
	var got []protocol.Event
	require.NoError(t, rt.Replay(context.Background(), session, after, through, func(evs []protocol.Event) error {
		got = append(got, evs...)
		return nil
	}))
	return got, len(kept) == len(got)
}

// TestAReplayIsTheLogWhateverIsKept: a replay of any range of a session hands exactly the
// events the log holds in it, in order, whether they come from what the runtime keeps, from
// the log or from both; what is kept after a replay is a run of the log with nothing
// missing, while other sessions' events fall between, the session grows, and ranges are
// replayed in any order.
func TestAReplayIsTheLogWhateverIsKept(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	a, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "a"})
	require.NoError(t, err)
	b, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "b"})
	require.NoError(t, err)
	grow := func(n int) {
		for i := range n {
			session := a.ID
			if i%3 == 0 {
				session = b.ID // another session's offsets fall between
			}
			_, _, err := rt.log.Append(ctx, session, protocol.EventAgentMessage, protocol.Message{Text: fmt.Sprintf("m%d", i)}, "")
			require.NoError(t, err)
		}
	}
	grow(90)
	rng := rand.New(rand.NewPCG(1, 2))
	fromMemory := 0
	for round := range 60 {
		if round%10 == 9 {
			grow(15)
		}
		all, err := rt.log.Read(ctx, a.ID, 0)
		require.NoError(t, err)
		head := all[len(all)-1].Offset
		i := rng.IntN(len(all))
		after := uint64(0)
		if i > 0 {
			after = all[i-1].Offset
		}
		through := head
		if rng.IntN(3) == 0 {
			through = all[i+rng.IntN(len(all)-i)].Offset // a range that ends before the head
		}
		want, err := rt.log.Read(ctx, a.ID, after)
		require.NoError(t, err)
		want = want[:searchOffset(want, through)]
		got, kept := replayed(t, rt, a.ID, after, through)
		require.Equal(t, offsetsOf(want), offsetsOf(got), "round %d: (%d, %d]", round, after, through)
		assert.Equal(t, want, got)
		if kept {
			fromMemory++
		}
		// What is kept is the log's run from its from to its last, every event of it.
		x := rt.replays.run(a.ID)
		x.mu.Lock()
		from, evs := x.from, x.evs
		x.mu.Unlock()
		run, err := rt.log.Read(ctx, a.ID, from)
		require.NoError(t, err)
		require.Equal(t, offsetsOf(run[:len(evs)]), offsetsOf(evs), "round %d: the kept run has no hole", round)
	}
	assert.Greater(t, fromMemory, 10, "most replays are served from memory")
}

// TestAReplayIsKeptWithinItsBounds: a long session keeps only its newest events (so many,
// so many bytes), and the runs read by replays join the kept one when they touch it.
func TestAReplayIsKeptWithinItsBounds(t *testing.T) {
	var x replayRun
	evs := func(from, to uint64) []protocol.Event {
		var out []protocol.Event
		for o := from; o <= to; o++ {
			out = append(out, protocol.Event{Offset: o, Data: []byte(`"x"`)})
		}
		return out
	}
	x.merge(&replayRun{from: 0, evs: evs(1, replayKeep+100)})
	x.bound()
	assert.Equal(t, uint64(100), x.from, "the oldest go past replayKeep")
	assert.Len(t, x.evs, replayKeep)
	got, reach := x.slice(50, replayKeep+100)
	assert.Empty(t, got, "a replay from before the run is not served from it")
	assert.Equal(t, uint64(50), reach)
	got, reach = x.slice(100, 200)
	assert.Equal(t, uint64(101), got[0].Offset)
	assert.Equal(t, uint64(200), reach)

	// A run that carries on from the end is appended; one that leads up to the start is
	// put before it; an older one apart is left out.
	var y replayRun
	y.merge(&replayRun{from: 10, evs: evs(11, 20)})
	y.merge(&replayRun{from: 15, evs: evs(16, 30)})
	assert.Equal(t, uint64(10), y.from)
	assert.Equal(t, offsetsOf(evs(11, 30)), offsetsOf(y.evs))
	y.merge(&replayRun{from: 2, evs: evs(3, 12)})
	assert.Equal(t, uint64(2), y.from)
	assert.Equal(t, offsetsOf(evs(3, 30)), offsetsOf(y.evs))
	y.merge(&replayRun{from: 0, evs: evs(1, 1)})
	assert.Equal(t, uint64(2), y.from, "an older run apart changes nothing")
	held, _ := y.slice(2, 30)
	y.merge(&replayRun{from: 40, evs: evs(41, 50)})
	assert.Equal(t, uint64(40), y.from, "a newer run apart takes the run's place")
	assert.Equal(t, offsetsOf(evs(3, 30)), offsetsOf(held), "what a reader held stays as it was")

	// Bytes bound it too.
	var z replayRun
	big := make([]byte, replayKeepBytes/4)
	z.merge(&replayRun{from: 0, evs: []protocol.Event{{Offset: 1, Data: big}, {Offset: 2, Data: big}, {Offset: 3, Data: big}}, bytes: 3 * len(big)})
	z.add([]protocol.Event{{Offset: 4, Data: big}, {Offset: 5, Data: big}})
	assert.LessOrEqual(t, z.bytes, replayKeepBytes)
	assert.Equal(t, uint64(1), z.from)
	assert.Equal(t, []uint64{2, 3, 4, 5}, offsetsOf(z.evs))
}
