package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/coder/websocket"

	"parley/protocol"
)

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
	report(b, "asked→socket", toSocket)
	report(b, "reply→resumed", toResumed)
}

func report(b *testing.B, name string, d []time.Duration) {
	slices.Sort(d)
	p := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Microseconds()) }
	b.ReportMetric(p(0.50), name+"-p50-µs")
	b.ReportMetric(p(0.99), name+"-p99-µs")
}
