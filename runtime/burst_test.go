package runtime

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/eventlog"
)

// BenchmarkBurst sends 1,000 prompts to one session, 8 at a time, and reports how fast the
// offline agent answers them: the rate must not fall as the queue grows (each turn reads only
// what was stored since the last one).
func BenchmarkBurst(b *testing.B) {
	for range b.N {
		emb, err := StartEmbedded(b.TempDir())
		require.NoError(b, err)
		ctx := context.Background()
		rt, err := New(ctx, emb.Conn, Options{Workspace: b.TempDir(), Exclusive: true})
		require.NoError(b, err)
		s, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
		require.NoError(b, err)
		const n = 1000
		start := time.Now()
		work := make(chan int)
		offsets := make([]uint64, n)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for i := range work {
					resp, err := rt.SendPrompt(ctx, s.ID, protocol.SendPromptRequest{Text: "p" + strconv.Itoa(i), AttemptID: strconv.Itoa(i)})
					require.NoError(b, err)
					offsets[i] = resp.Offset
				}
			})
		}
		for i := range n {
			work <- i
		}
		close(work)
		wg.Wait()
		sent := time.Since(start)
		slices.Sort(offsets)
		// Prompts run in log order, so the last turn.ended says how far the queue is.
		var half time.Duration
		for {
			ev, err := rt.Log().Last(ctx, eventlog.TurnSubject(s.ID))
			if err == nil && ev.Type == protocol.EventTurnEnded {
				te, err := protocol.DecodeEventData[protocol.TurnEnded](ev)
				require.NoError(b, err)
				if half == 0 && te.Prompt >= offsets[n/2-1] {
					half = time.Since(start)
				}
				if te.Prompt == offsets[n-1] {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		total := time.Since(start)
		b.ReportMetric(float64(n)/total.Seconds(), "answers/s")
		b.ReportMetric(float64(n/2)/half.Seconds(), "first-half-answers/s")
		b.ReportMetric(float64(n/2)/(total-half).Seconds(), "second-half-answers/s")
		b.Logf("sent in %s, half answered after %s, all after %s", sent.Round(time.Millisecond), half.Round(time.Millisecond), total.Round(time.Millisecond))
		rt.Close()
		emb.Close()
	}
}
