package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
	"parley/server"
	"parley/server/edge"
)

// BenchmarkFanoutEdge is BenchmarkFanout twice, each on a fresh runtime: once on the
// runtime itself, once through an edge (server/edge, as `parley -upstream` runs it) in front
// of it, where the prompts are sent to the edge and the sockets are the edge's. It reports
// send → every socket, p50 and p99 of each, and what the edge adds. Everything runs in this
// one process on loopback, so the edge's relay shares the runtime's cores: on two machines
// it would cost the runtime less.
func BenchmarkFanoutEdge(b *testing.B) {
	sockets := envInt("PARLEY_BENCH_SOCKETS", 1000)
	rate := envInt("PARLEY_BENCH_RATE", 100)
	seconds := envInt("PARLEY_BENCH_SECONDS", 10)
	for range b.N {
		direct := fanoutRound(b, false, sockets, rate, seconds)
		through := fanoutRound(b, true, sockets, rate, seconds)
		b.ReportMetric(ms(direct.p(0.5)), "direct-p50-ms")
		b.ReportMetric(ms(direct.p(0.99)), "direct-p99-ms")
		b.ReportMetric(ms(through.p(0.5)), "edge-p50-ms")
		b.ReportMetric(ms(through.p(0.99)), "edge-p99-ms")
		for _, r := range []fanoutResult{direct, through} {
			fmt.Printf("fanout_bench: %s: %d sockets, %d prompts at %d/s (sent in %v): send → every socket p50 %v, p99 %v, max %v; %d deliveries missing; %d problems%s\n",
				r.via, sockets, rate*seconds, rate, r.sending.Round(time.Millisecond), r.p(0.5).Round(time.Microsecond), r.p(0.99).Round(time.Microsecond), r.p(1).Round(time.Microsecond), r.missing, r.problems, r.first)
		}
		fmt.Printf("fanout_bench: the edge adds p50 %v, p99 %v\n",
			(through.p(0.5) - direct.p(0.5)).Round(time.Microsecond), (through.p(0.99) - direct.p(0.99)).Round(time.Microsecond))
	}
}

type fanoutResult struct {
	via      string
	lat      []time.Duration // sorted
	missing  int
	problems int
	first    string        // the first problem, if any
	sending  time.Duration // how long the prompts took to send: past rate×seconds, the sender fell behind
}

func (r fanoutResult) p(q float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	return r.lat[min(len(r.lat)-1, int(q*float64(len(r.lat))))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// fanoutRound runs one round of the fan-out on a fresh runtime, through an edge or not.
func fanoutRound(b *testing.B, throughEdge bool, sockets, rate, seconds int) fanoutResult {
	ts := testserver.Start(b, testserver.Options{})
	defer ts.Stop()
	client, via := ts.Client(b), "one process"
	if throughEdge {
		p, err := edge.New(edge.Options{Upstream: ts.URL, Token: testkit.Token})
		if err != nil {
			b.Fatal(err)
		}
		bundle, err := server.LoadBundle(testkit.WebFolder(b))
		if err != nil {
			b.Fatal(err)
		}
		es := httptest.NewServer(server.Front("edge-token", bundle, p))
		defer func() { es.Close(); p.CloseSockets() }()
		client, via = testkit.Client{T: b, Base: es.URL, Token: "edge-token"}, "edge + runtime"
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info, err := ts.Runtime.CreateSession(ctx, protocol.CreateSessionRequest{Title: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	c := join(ctx, b, client, info.ID, 0, sockets)
	start := time.Now()
	sent := prompts(b, client, info.ID, rate*seconds, time.Second/time.Duration(rate))
	sending := time.Since(start)
	time.Sleep(2 * time.Second) // what is on its way arrives
	cancel()
	c.wg.Wait()
	r := fanoutResult{via: via, problems: len(c.errs), sending: sending}
	if len(c.errs) > 0 {
		r.first = " (first: " + c.errs[0] + ")"
	}
	r.lat, r.missing = c.latencies(sent)
	slices.Sort(r.lat)
	return r
}
