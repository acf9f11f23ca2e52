package model_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/agent/toolbox"
)

func outputsOf(t *testing.T, evs []protocol.Event) []protocol.ToolOutput {
	return testkit.DataOf[protocol.ToolOutput](t, evs, protocol.EventToolOutput)
}

// A command's output is in the log while it runs, before its result; the result the model
// reads is what it always was.
func TestACommandsOutputIsStreamedBeforeItEnds(t *testing.T) {
	script := `echo first; echo oops >&2; while [ ! -e release ]; do sleep 0.05; done; echo second`
	srv := newFakeServer(t, calls("index",
		call{"r", "run_command", jsonArgs(map[string]any{"argv": []string{"sh", "-c", script}})}),
		text("Done."))
	e := newEnv(t, srv)
	after := e.send("run it")
	ds := e.pending(1)
	e.reply(ds[0], pick(0))

	// The command waits for the release file, so what the log holds now was written while
	// it ran.
	var evs []protocol.Event
	require.Eventually(t, func() bool {
		var err error
		evs, err = e.rt.Log().Read(context.Background(), e.session, after)
		require.NoError(t, err)
		out, errs := "", ""
		for _, o := range outputsOf(t, evs) {
			for _, c := range o.Chunks {
				if c.Stream == protocol.StreamStderr {
					errs += c.Text
				} else {
					out += c.Text
				}
			}
		}
		return out == "first\n" && errs == "oops\n"
	}, 15*time.Second, 20*time.Millisecond, "the output so far, while the command runs")
	assert.Zero(t, testkit.Count(evs, protocol.EventToolResult), "no result yet: the command is still running")
	for _, o := range outputsOf(t, evs) {
		assert.Equal(t, "r", o.Call)
		assert.Equal(t, "run_command", o.Name)
	}

	require.NoError(t, os.WriteFile(filepath.Join(e.ws, "release"), nil, 0o644))
	evs = e.waitEnded(after)
	res := results(t, evs)
	require.Len(t, res, 1)
	assert.Equal(t, "exit status 0\nstdout:\nfirst\nsecond\nstderr:\noops", res[0].Text, "the result is unchanged")
	var lastOutput, result uint64
	for _, ev := range evs {
		switch ev.Type {
		case protocol.EventToolOutput:
			lastOutput = ev.Offset
		case protocol.EventToolResult:
			result = ev.Offset
		}
	}
	assert.Less(t, lastOutput, result, "every output event comes before the result")
	req := srv.last(t, 2)
	last := req.Messages[len(req.Messages)-1]
	assert.Equal(t, res[0].Text, last.Content, "the model reads the result, not the stream")
}

// A command that writes a lot streams a bounded amount, in bounded events, and its result
// still holds the whole captured output.
func TestAChattyCommandStreamsABoundedAmount(t *testing.T) {
	srv := newFakeServer(t, calls("index",
		call{"r", "run_command", jsonArgs(map[string]any{"argv": []string{"sh", "-c", "yes 0123456789abcdef | head -c 1000000"}})}),
		text("Done."))
	e := newEnv(t, srv)
	after := e.send("flood")
	ds := e.pending(1)
	e.reply(ds[0], pick(0))
	evs := e.waitEnded(after)
	outs := outputsOf(t, evs)
	require.NotEmpty(t, outs)
	total := 0
	for i, o := range outs {
		n := 0
		for _, c := range o.Chunks {
			n += len(c.Text)
		}
		assert.LessOrEqual(t, n, toolbox.OutputEventBytes)
		assert.Equal(t, i == len(outs)-1, o.Truncated)
		total += n
	}
	t.Logf("1,000,000 bytes written: %d tool.output events, %d bytes streamed", len(outs), total)
	assert.Equal(t, toolbox.OutputStreamBytes, total, "streamed up to the bound, no further")
	assert.LessOrEqual(t, len(outs), 2+2*toolbox.OutputStreamBytes/toolbox.OutputEventBytes, "a few events, not one per line (%d)", len(outs))
	res := results(t, evs)
	require.Len(t, res, 1)
	assert.Contains(t, res[0].Text, "[output truncated after 256 KiB]", "the result is the captured output, as before")
	assert.Greater(t, len(res[0].Text), 256<<10)
	assert.True(t, strings.HasPrefix(res[0].Text, "exit status 0\nstdout:\n0123456789abcdef"))
}
