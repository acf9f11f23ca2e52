package toolbox

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/gate"
)

type outputs struct {
	mu  sync.Mutex
	got []protocol.ToolOutput
}

func (o *outputs) ToolOutput(_ context.Context, out protocol.ToolOutput) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, out)
	return nil
}

func joined(evs []protocol.ToolOutput) (stdout, stderr string) {
	var a, b strings.Builder
	for _, e := range evs {
		for _, c := range e.Chunks {
			if c.Stream == protocol.StreamStderr {
				b.WriteString(c.Text)
			} else {
				a.WriteString(c.Text)
			}
		}
	}
	return a.String(), b.String()
}

// A burst of small writes becomes a few events, never one a write: at most one while the
// call runs per OutputEvery, plus the first and the last.
func TestOutputIsCoalescedToAFewEventsPerSecond(t *testing.T) {
	rec := &outputs{}
	start := time.Now()
	s := startOutput(context.Background(), rec, "c1", "run_command")
	var want strings.Builder
	for i := range 2000 {
		line := strings.Repeat("x", i%7) + "\n"
		want.WriteString(line)
		s.emit(protocol.StreamStdout, line)
	}
	s.close()
	elapsed := time.Since(start)
	out, errs := joined(rec.got)
	require.Equal(t, want.String(), out, "every byte, in order")
	require.Empty(t, errs)
	require.LessOrEqual(t, len(rec.got), 2+int(elapsed/OutputEvery), "%d events in %v", len(rec.got), elapsed)
	for _, e := range rec.got {
		require.Equal(t, "c1", e.Call)
		require.Equal(t, "run_command", e.Name)
	}
}

// Output beyond OutputStreamBytes is not streamed; the last event says the stream was cut,
// and no event is larger than OutputEventBytes. Stdout and stderr keep their order.
func TestOutputIsBoundedInSizeAndSaysWhereItWasCut(t *testing.T) {
	rec := &outputs{}
	s := startOutput(context.Background(), rec, "c1", "run_command")
	s.emit(protocol.StreamStdout, "before\n")
	s.emit(protocol.StreamStderr, "a warning\n")
	block := strings.Repeat("é", 3000) + "\n" // two-byte runes: a cut must not split one
	for range 40 {
		s.emit(protocol.StreamStdout, block)
	}
	s.close()
	require.NotEmpty(t, rec.got)
	total := 0
	for i, e := range rec.got {
		n := 0
		for _, c := range e.Chunks {
			n += len(c.Text)
			require.True(t, strings.ToValidUTF8(c.Text, "?") == c.Text, "event %d splits a rune", i)
		}
		require.LessOrEqual(t, n, OutputEventBytes, "event %d", i)
		require.Equal(t, i == len(rec.got)-1, e.Truncated, "only the last event says it was cut (event %d)", i)
		total += n
	}
	require.LessOrEqual(t, total, OutputStreamBytes)
	require.Greater(t, total, OutputStreamBytes-2, "streamed up to the bound")
	first := rec.got[0].Chunks
	require.GreaterOrEqual(t, len(first), 1)
	require.Equal(t, protocol.OutputChunk{Stream: protocol.StreamStdout, Text: "before\n"}, first[0])
	_, errs := joined(rec.got)
	require.Equal(t, "a warning\n", errs)
}

// Nothing is emitted after close, and close with nothing written stores nothing.
func TestOutputAfterCloseIsDropped(t *testing.T) {
	rec := &outputs{}
	s := startOutput(context.Background(), rec, "c1", "run_command")
	s.close()
	s.emit(protocol.StreamStdout, "late\n")
	require.Empty(t, rec.got)
}

// A call an earlier "always" let through says so on its receipt, before it runs: the gate's
// note goes to a script's run card, and a model's call has none (QA round 27).
func TestACallAGrantLetThroughSaysSo(t *testing.T) {
	b := box(t, map[string]string{"f.txt": "hi\n"})
	by := &protocol.GrantedCall{Scope: protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "run", Words: []string{"cat"}}, Call: "cat f.txt"}
	tools := struct {
		*fakeTools
		*outputs
	}{&fakeTools{verdict: gate.Verdict{Granted: []bool{true}, By: []*protocol.GrantedCall{by}}}, &outputs{}}
	res, _, err := b.Run(context.Background(), tools, []protocol.ToolCall{{ID: "c", Name: "run_command", Arguments: `{"argv":["cat","f.txt"]}`}})
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.False(t, res[0].Error, res[0].Text)
	require.NotEmpty(t, tools.got)
	require.Equal(t, protocol.ToolOutput{Call: "c", Name: "run_command", Granted: by}, tools.got[0], "said first, before its output")
	for _, o := range tools.got[1:] {
		require.Nil(t, o.Granted)
	}
}
