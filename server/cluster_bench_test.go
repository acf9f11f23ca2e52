package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/coder/websocket"

	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
)

// The benchmarks here run the server over real sockets. Most run on a 3-node JetStream
// cluster started in the process (testkit.StartCluster), beside the same measure on the
// embedded store, so the figures say what the cluster's replication adds on loopback.

// clusterServer serves a runtime on a fresh 3-node cluster.
func clusterServer(b *testing.B) *testserver.Server {
	c := testkit.StartCluster(b)
	return testserver.Start(b, testserver.Options{NATS: c.Connect("parley-bench")})
}

// BenchmarkFanoutCluster is BenchmarkFanout on the cluster: prompts at a rate to 1,000
// subscribed sockets, send → every socket, p50 and p99.
func BenchmarkFanoutCluster(b *testing.B) {
	sockets := envInt("PARLEY_BENCH_SOCKETS", 1000)
	rate := envInt("PARLEY_BENCH_RATE", 100)
	seconds := envInt("PARLEY_BENCH_SECONDS", 10)
	for range b.N {
		ts := clusterServer(b)
		ctx, cancel := context.WithCancel(context.Background())
		info, err := ts.Runtime.CreateSession(ctx, protocol.CreateSessionRequest{Title: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		c := join(ctx, b, ts.Client(b), info.ID, 0, sockets)
		sent := prompts(b, ts.Client(b), info.ID, rate*seconds, time.Second/time.Duration(rate))
		p50, p99, worst, missing := c.finish(b, cancel, sent)
		fmt.Printf("cluster_bench: fan-out on 3 nodes (R3): %d sockets, %d prompts/s for %d s: send → every socket p50 %v, p99 %v, max %v; %d deliveries missing; %d problems\n",
			sockets, rate, seconds, p50, p99, worst, missing, len(c.errs))
		ts.Stop()
	}
}

// BenchmarkResume1000 is a reload of a session of 1,000 events, as the browser's socket
// does it: subscribe from the start, and the time until the last event has arrived (the
// paint is the browser's part; see the e2e bench). On the embedded store and on the cluster.
// The first round is the first replay of the session in the process (its events are read
// from the log); the ones after it are reloads of a session the process served a moment
// ago. Then the same with the tail a page asks for when it has no seed (the newest window
// of 40 entries, docs/protocol.md "Windows"), dial → the head's event.
func BenchmarkResume1000(b *testing.B) {
	const events, rounds = 1000, 20
	for _, where := range []string{"embedded", "cluster"} {
		b.Run(where, func(b *testing.B) {
			for range b.N {
				var ts *testserver.Server
				if where == "cluster" {
					ts = clusterServer(b)
				} else {
					ts = testserver.Start(b, testserver.Options{})
				}
				ctx := context.Background()
				info, err := ts.Runtime.CreateSession(ctx, protocol.CreateSessionRequest{Title: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				var head uint64
				for i := range events - 1 {
					head, _, err = ts.Runtime.Log().Append(ctx, info.ID, protocol.EventAgentMessage,
						protocol.Message{Text: fmt.Sprintf("message %d: a line of an agent's answer, as long as one is", i)}, "")
					if err != nil {
						b.Fatal(err)
					}
				}
				client := ts.Client(b)
				resume := func(tail int) time.Duration {
					start := time.Now()
					conn := client.Dial(nil)
					conn.SetReadLimit(8 << 20)
					testkit.WriteFrame(b, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: info.ID, Batch: true, Tail: tail})
					for last := uint64(0); last < head; {
						_, data, err := conn.Read(ctx)
						if err != nil {
							b.Fatal(err)
						}
						evs, err := eventsOf(data, nil)
						if err != nil {
							b.Fatal(err)
						}
						for _, ev := range evs {
							last = max(last, ev.Offset)
						}
					}
					took := time.Since(start)
					conn.CloseNow()
					return took
				}
				var lat, tailLat []time.Duration
				for range rounds {
					lat = append(lat, resume(0))
				}
				first := lat[0].Round(time.Microsecond)
				for range rounds {
					tailLat = append(tailLat, resume(40))
				}
				p50, p99, _ := quantiles(lat)
				t50, t99, _ := quantiles(tailLat)
				b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
				fmt.Printf("cluster_bench: resume of a %d-event session over the socket (%s): dial → last event p50 %v, p99 %v (%d rounds; the first, read from the log, %v); with tail 40: p50 %v, p99 %v\n",
					events, where, p50, p99, rounds, first, t50, t99)
				ts.Stop()
			}
		})
	}
}

// BenchmarkDecisionLatency measures the two hops a person feels, through the real server on
// 127.0.0.1 and embedded JetStream:
//   - asked→socket: from the asker's call to the question.asked frame on a subscribed socket;
//   - reply→resumed: from the reply request's send to the asker's return.
//
// It reports p50 and p99 of each over b.N decisions.
func BenchmarkDecisionLatency(b *testing.B) {
	ts, rt := testServer(b)
	ctx := context.Background()
	info, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	conn := ts.Client(b).Dial(http.Header{"Origin": {ts.URL}})
	sub, _ := json.Marshal(protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: info.ID})
	if err := conn.Write(ctx, websocket.MessageText, sub); err != nil {
		b.Fatal(err)
	}
	asked := make(chan protocol.Event, 16)
	go func() {
		for {
			_, data, err := conn.Read(ctx)
			if err != nil {
				return
			}
			var f protocol.ServerFrame
			if json.Unmarshal(data, &f) == nil && f.Event != nil && f.Event.Type == protocol.EventQuestionAsked {
				asked <- *f.Event
			}
		}
	}()
	yes, _ := json.Marshal(true)
	reply, _ := json.Marshal(protocol.ReplyRequest{Action: protocol.ActionAccept, Content: yes})
	req := protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: "Go on?"}

	var toSocket, toResumed []time.Duration
	b.ResetTimer()
	for range b.N {
		done := make(chan time.Time, 1)
		start := time.Now()
		go func() {
			if _, err := rt.Ask(ctx, info.ID, "bench:1", req); err != nil {
				b.Error(err)
			}
			done <- time.Now()
		}()
		ev := <-asked
		toSocket = append(toSocket, time.Since(start))
		qa, err := ev.DecodeQuestionAsked()
		if err != nil {
			b.Fatal(err)
		}
		sent := time.Now()
		r, err := http.NewRequest(http.MethodPost, ts.URL+"/api/sessions/"+info.ID+"/decisions/"+qa.ID, bytes.NewReader(reply))
		if err != nil {
			b.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+testToken)
		r.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("reply: %s", resp.Status)
		}
		toResumed = append(toResumed, (<-done).Sub(sent))
	}
	b.StopTimer()
	for name, d := range map[string][]time.Duration{"asked→socket": toSocket, "reply→resumed": toResumed} {
		p50, p99, _ := quantiles(d)
		b.ReportMetric(float64(p50.Microseconds()), name+"-p50-µs")
		b.ReportMetric(float64(p99.Microseconds()), name+"-p99-µs")
	}
}

func quantiles(lat []time.Duration) (p50, p99, worst time.Duration) {
	if len(lat) == 0 {
		return 0, 0, 0
	}
	slices.Sort(lat)
	pick := func(q float64) time.Duration {
		return lat[min(len(lat)-1, int(q*float64(len(lat))))].Round(time.Microsecond)
	}
	return pick(0.5), pick(0.99), pick(1)
}
