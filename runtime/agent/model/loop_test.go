package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime"
	"parley/runtime/agent"
	"parley/runtime/agent/model"
	"parley/runtime/agent/toolbox"
	"parley/runtime/gate"
)

// env is a real runtime on embedded JetStream whose agent talks to a fake server.
type env struct {
	t       *testing.T
	rt      *runtime.Runtime
	srv     *fakeServer
	ws      string
	session string
	prompts int
}

func newEnv(t *testing.T, srv *fakeServer, tweak ...func(*runtime.Options)) *env {
	t.Helper()
	emb, err := runtime.StartEmbedded(t.TempDir())
	require.NoError(t, err)
	ws := t.TempDir()
	opts := runtime.Options{Workspace: ws, Exclusive: true,
		Model: model.Config{URL: srv.base(), Model: "test-model", Key: "sekret", MaxRetryAfter: 2 * time.Second}}
	for _, f := range tweak {
		f(&opts)
	}
	rt, err := runtime.New(context.Background(), emb.Conn, opts)
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close(); emb.Close() })
	s, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	return &env{t: t, rt: rt, srv: srv, ws: rt.Workspace(), session: s.ID}
}

// prompt sends text and waits for its turn to end; it returns the events stored since.
func (e *env) prompt(text string) []protocol.Event {
	e.t.Helper()
	after := e.send(text)
	return e.waitEnded(after)
}

func (e *env) send(text string) uint64 {
	e.t.Helper()
	e.prompts++
	resp, err := e.rt.SendPrompt(context.Background(), e.session, protocol.SendPromptRequest{Text: text, AttemptID: "p" + string(rune('a'+e.prompts))})
	require.NoError(e.t, err)
	return resp.Offset
}

func (e *env) waitEnded(after uint64) []protocol.Event {
	e.t.Helper()
	var evs []protocol.Event
	require.Eventually(e.t, func() bool {
		var err error
		evs, err = e.rt.Log().Read(context.Background(), e.session, after)
		require.NoError(e.t, err)
		for _, ev := range evs {
			if ev.Type == protocol.EventTurnEnded {
				return true
			}
		}
		return false
	}, 15*time.Second, 10*time.Millisecond)
	return evs
}

// pending waits for n pending decisions.
func (e *env) pending(n int) []protocol.Decision {
	e.t.Helper()
	var list protocol.DecisionList
	require.Eventually(e.t, func() bool {
		var err error
		list, err = e.rt.PendingDecisions(context.Background(), e.session)
		require.NoError(e.t, err)
		return len(list.Decisions) >= n
	}, 10*time.Second, 10*time.Millisecond)
	return list.Decisions
}

func (e *env) reply(d protocol.Decision, r protocol.ReplyRequest) {
	e.t.Helper()
	_, err := e.rt.Reply(context.Background(), e.session, d.ID, r)
	require.NoError(e.t, err)
}

func pick(option int) protocol.ReplyRequest {
	c, _ := json.Marshal(protocol.ApprovalAnswer{Option: &option})
	return protocol.ReplyRequest{Action: protocol.ActionAccept, Content: c}
}

// Readers of the events.

func messages(t *testing.T, evs []protocol.Event, from string) []string {
	var out []string
	for _, ev := range evs {
		if ev.Type == protocol.EventAgentMessage {
			m, err := ev.DecodeMessage()
			require.NoError(t, err)
			if m.From == from {
				out = append(out, m.Text)
			}
		}
	}
	return out
}

func results(t *testing.T, evs []protocol.Event) []protocol.ToolResult {
	return testkit.DataOf[protocol.ToolResult](t, evs, protocol.EventToolResult)
}

func called(t *testing.T, evs []protocol.Event) []protocol.ToolCalled {
	return testkit.DataOf[protocol.ToolCalled](t, evs, protocol.EventToolCalled)
}

func TestAStreamedReplyIsStoredOnceWithTheKeyAndModel(t *testing.T) {
	srv := newFakeServer(t, text("Hello from the model, in many small pieces."))
	e := newEnv(t, srv)
	evs := e.prompt("hi")

	assert.Equal(t, []string{"Hello from the model, in many small pieces."}, messages(t, evs, ""))
	assert.Zero(t, testkit.Count(evs, protocol.EventAgentDraft), "a short reply needs no checkpoint")
	req := srv.last(t, 1)
	assert.Equal(t, "test-model", req.Model)
	assert.True(t, req.Stream)
	assert.Equal(t, "Bearer sekret", srv.Auth()[0])
	assert.Equal(t, "system user", roles(req))
	assert.Equal(t, "hi", req.Messages[1].Content)
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	assert.Equal(t, []string{"read_file", "list_files", "search_files", "write_file", "edit_file", "run_command", "run_function", "ask_user"}, names)
}

func TestALongReplyIsCheckpointedNotStoredPerToken(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 1200) // 19,200 bytes in 6,400 chunks
	srv := newFakeServer(t, text(long))
	e := newEnv(t, srv)
	evs := e.prompt("write a lot")

	assert.Equal(t, []string{long}, messages(t, evs, ""))
	drafts := 0
	var joined strings.Builder
	var stream string
	for _, ev := range evs {
		if ev.Type == protocol.EventAgentDraft {
			d, err := protocol.DecodeEventData[protocol.AgentDraft](ev)
			require.NoError(t, err)
			drafts++
			assert.Equal(t, drafts, d.Seq)
			joined.WriteString(d.Text)
			stream = d.Stream
		}
	}
	assert.GreaterOrEqual(t, drafts, 4, "a checkpoint every 4 KiB")
	assert.LessOrEqual(t, drafts, 6, "never one event per token")
	assert.True(t, strings.HasPrefix(long, joined.String()), "the drafts are the text so far")
	for _, ev := range evs {
		if ev.Type == protocol.EventAgentMessage {
			m, _ := ev.DecodeMessage()
			assert.Equal(t, stream, m.Stream, "the message names the drafts it replaces")
		}
	}
}

func TestToolCallsInEveryQuirkOfTheStreamRunAndAnswerTheModel(t *testing.T) {
	for _, indexes := range []string{"index", "none", "minus"} {
		t.Run(indexes, func(t *testing.T) {
			srv := newFakeServer(t,
				calls(indexes,
					call{"call_a", "read_file", jsonArgs(map[string]any{"path": "notes/a.txt"})},
					call{"call_b", "list_files", jsonArgs(map[string]any{"path": "notes"})}),
				text("I read it."))
			e := newEnv(t, srv)
			require.NoError(t, os.MkdirAll(filepath.Join(e.ws, "notes"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(e.ws, "notes", "a.txt"), []byte("alpha\n"), 0o644))
			evs := e.prompt("read notes")

			c := called(t, evs)
			require.Len(t, c, 1, "one message, one record of its calls")
			require.Len(t, c[0].Calls, 2)
			assert.Equal(t, "read_file", c[0].Calls[0].Name)
			assert.JSONEq(t, `{"path":"notes/a.txt"}`, c[0].Calls[0].Arguments, "arguments joined from their pieces")
			assert.Equal(t, "list_files", c[0].Calls[1].Name)
			res := results(t, evs)
			require.Len(t, res, 2)
			assert.Equal(t, protocol.ToolResult{Call: "call_a", Name: "read_file", Text: "alpha\n"}, res[0])
			assert.Equal(t, "a.txt", res[1].Text)
			assert.Equal(t, []string{"I read it."}, messages(t, evs, ""))

			req := srv.last(t, 2)
			assert.Equal(t, "system user assistant[read_file,list_files] tool tool", roles(req))
			assert.Equal(t, "call_a", req.Messages[3].ToolCallID)
			assert.Equal(t, "alpha\n", req.Messages[3].Content)
		})
	}
}

func TestTheNextTurnContinuesFromTheLog(t *testing.T) {
	srv := newFakeServer(t,
		calls("index", call{"c1", "list_files", `{}`}),
		text("There is nothing."),
		text("Still nothing."))
	e := newEnv(t, srv)
	e.prompt("what is here?")
	e.prompt("and now?")

	req := srv.last(t, 3)
	assert.Equal(t, "system user assistant[list_files] tool assistant user", roles(req))
	assert.Equal(t, "There is nothing.", req.Messages[4].Content)
	assert.Equal(t, "and now?", req.Messages[5].Content)
}

func TestWritesAndCommandsOfOneMessageAreOneBatch(t *testing.T) {
	srv := newFakeServer(t,
		calls("index",
			call{"w", "write_file", jsonArgs(map[string]any{"path": "out/hello.txt", "content": "hi\n"})},
			call{"r", "run_command", jsonArgs(map[string]any{"argv": []string{"cat", "out/hello.txt"}})}),
		text("Done."))
	e := newEnv(t, srv)
	after := e.send("write and show")

	ds := e.pending(1)
	require.Len(t, ds, 1, "one approval for both calls")
	req := ds[0].Request
	assert.Equal(t, protocol.KindApproval, req.Kind)
	require.Len(t, req.Items, 2)
	assert.Equal(t, "write", req.Items[0].Tool)
	assert.Contains(t, req.Items[0].Details, "out/hello.txt")
	assert.Equal(t, "run", req.Items[1].Tool)
	assert.Equal(t, "cat out/hello.txt", req.Items[1].Details)
	e.reply(ds[0], pick(0)) // approve all
	evs := e.waitEnded(after)

	data, err := os.ReadFile(filepath.Join(e.ws, "out", "hello.txt"))
	require.NoError(t, err)
	assert.Equal(t, "hi\n", string(data))
	res := results(t, evs)
	require.Len(t, res, 2)
	assert.False(t, res[0].Error)
	assert.Equal(t, "wrote 3 bytes to out/hello.txt", res[0].Text)
	assert.Equal(t, "exit status 0\nstdout:\nhi", res[1].Text)
}

func TestARejectionWithWordsReachesTheModelAsTheToolsError(t *testing.T) {
	srv := newFakeServer(t,
		calls("index", call{"w", "write_file", jsonArgs(map[string]any{"path": "a.txt", "content": "x"})}),
		text("Understood."))
	e := newEnv(t, srv)
	after := e.send("write a")
	ds := e.pending(1)
	e.reply(ds[0], protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "not in the root, use docs/"})
	evs := e.waitEnded(after)

	_, err := os.Stat(filepath.Join(e.ws, "a.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")
	res := results(t, evs)
	require.Len(t, res, 1)
	assert.True(t, res[0].Error)
	assert.Equal(t, "rejected by the user: not in the root, use docs/", res[0].Text)
	req := srv.last(t, 2)
	assert.Equal(t, "error: rejected by the user: not in the root, use docs/", req.Messages[3].Content)
}

func TestATimeoutReachesTheModelAsNoAnswerInTime(t *testing.T) {
	srv := newFakeServer(t,
		calls("index", call{"r", "run_command", jsonArgs(map[string]any{"argv": []string{"true"}})}),
		text("Nobody answered."))
	e := newEnv(t, srv, func(o *runtime.Options) { o.DecisionTimeout = 300 * time.Millisecond })
	evs := e.prompt("run true")

	res := results(t, evs)
	require.Len(t, res, 1)
	assert.Equal(t, "no answer in time", res[0].Text)
	assert.NotContains(t, res[0].Text, "refused")
	assert.NotContains(t, res[0].Text, "rejected")
}

func TestAskUserDropsTheModelsOtherAndTurnsAnEmptyChoiceIntoText(t *testing.T) {
	srv := newFakeServer(t,
		calls("index", call{"q", "ask_user", `{"message":"Which database?","schema":{"type":"string","enum":[],"allowOther":true,"allow_other":true}}`}),
		text("Postgres it is."))
	e := newEnv(t, srv)
	after := e.send("set up a database")
	ds := e.pending(1)
	req := ds[0].Request
	assert.Equal(t, protocol.KindAsk, req.Kind)
	assert.Equal(t, "Which database?", req.Message)
	require.NotNil(t, req.Schema)
	assert.False(t, req.Schema.IsSingleSelect(), "no radio list whose only entry is Other…")
	assert.Nil(t, req.Schema.AllowOther, "Other… is the host's decision")
	e.reply(ds[0], protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`"postgres"`)})
	evs := e.waitEnded(after)

	res := results(t, evs)
	require.Len(t, res, 1)
	assert.Equal(t, `the user answered: "postgres"`, res[0].Text)
	assert.JSONEq(t, `{"question":"Which database?","action":"accept","answer":"postgres"}`, string(res[0].Details))
}

func TestUnknownToolsAndBadArgumentsGoBackToTheModelBoundedToAFewRounds(t *testing.T) {
	srv := newFakeServer(t,
		calls("index", call{"a", "delete_everything", `{}`}, call{"b", "read_file", `{"path": "x"`}),
		calls("index", call{"c", "read_file", `not json`}),
		calls("index", call{"d", "nope", `{}`}))
	e := newEnv(t, srv)
	evs := e.prompt("go")

	res := results(t, evs)
	require.Len(t, res, 4)
	assert.Contains(t, res[0].Text, `there is no tool named "delete_everything"`)
	assert.Contains(t, res[0].Text, "read_file, list_files")
	assert.Contains(t, res[1].Text, "the arguments are not a JSON object")
	notes := messages(t, evs, protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "called tools wrongly 3 times in a row")
	assert.Len(t, srv.requestsSoFar(), 3, "no fourth round")
}

func TestFailuresBecomeNoticesAndTheSessionStaysUsable(t *testing.T) {
	cases := []struct {
		name  string
		reply reply
		want  []string
	}{
		{"401", reply{status: 401, body: `{"error":{"message":"Invalid API key provided","type":"invalid_request_error"}}`},
			[]string{"refused the request (401)", "PARLEY_MODEL_KEY", "Invalid API key provided"}},
		{"500", reply{status: 500, body: `{"error":{"message":"model crashed: out of memory"}}`},
			[]string{"failed (500)", "model crashed: out of memory"}},
		{"500 not json", reply{status: 502, body: `upstream gone`}, []string{"failed (502)", "upstream gone"}},
		{"404", reply{status: 404, body: `{"error":{"message":"model \"test-model\" not found, try pulling it first"}}`},
			[]string{"no model \"test-model\"", "try pulling it first"}},
		{"429 too long", reply{status: 429, header: map[string]string{"Retry-After": "3600"}, body: `{"error":{"message":"slow down"}}`},
			[]string{"rate-limiting", "asks to wait 3600 s", "slow down"}},
		{"cut mid-message", reply{chunks: []string{textChunk("The answer is")}, cut: true},
			[]string{"stopped before its message ended"}},
		{"no finish", reply{chunks: []string{textChunk("The answer is")}, noDone: true},
			[]string{"stopped before its message ended"}},
		{"error event", reply{chunks: []string{textChunk("Hm"), `{"error":{"message":"context length exceeded"}}`}},
			[]string{"context length exceeded"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newFakeServer(t, c.reply, text("Back again."))
			e := newEnv(t, srv)
			evs := e.prompt("first")
			notes := messages(t, evs, protocol.FromParley)
			require.Len(t, notes, 1, "one notice")
			for _, w := range c.want {
				assert.Contains(t, notes[0], w)
			}
			evs = e.prompt("second")
			assert.Equal(t, []string{"Back again."}, messages(t, evs, ""), "the session stays usable")
		})
	}
}

// TestASilentModelIsGivenUp: a server that stops sending mid-stream, or never answers, is
// given up after the idle limit, with what arrived kept and a notice that says so; a server
// that sends slowly but steadily (tokens or keep-alive lines, each sooner than the limit) is
// waited for (QA round 22: a silent stream held the session and its queue until a restart).
func TestASilentModelIsGivenUp(t *testing.T) {
	idle := func(o *runtime.Options) { o.Model.StreamIdle = 400 * time.Millisecond }
	forever := make(chan struct{}) // never closed: the server says nothing more
	t.Run("mid-stream", func(t *testing.T) {
		srv := newFakeServer(t, reply{chunks: []string{textChunk("The answer is")}, hold: forever}, text("Back again."))
		e := newEnv(t, srv, idle)
		evs := e.prompt("first")
		assert.Equal(t, []string{"The answer is"}, messages(t, evs, ""), "what arrived is kept")
		notes := messages(t, evs, protocol.FromParley)
		require.Len(t, notes, 1)
		assert.Contains(t, notes[0], "stopped before its message ended (the model server sent nothing for 1 s)")
		assert.Equal(t, []string{"Back again."}, messages(t, e.prompt("second"), ""), "the session stays usable")
	})
	t.Run("slow but steady", func(t *testing.T) {
		srv := newFakeServer(t, reply{chunks: []string{textChunk("one "), textChunk("two "), textChunk("three"), finishChunk(openai.FinishReasonStop)},
			gap: 250 * time.Millisecond})
		evs := newEnv(t, srv, idle).prompt("count")
		assert.Equal(t, []string{"one two three"}, messages(t, evs, ""))
		assert.Empty(t, messages(t, evs, protocol.FromParley))
	})
}

// startingServers is an MCP server set still connecting for a moment: its tool comes once
// it is ready.
type startingServers struct{ ready time.Time }

func (s startingServers) Defs() []toolbox.Def {
	if time.Now().Before(s.ready) {
		return nil
	}
	return []toolbox.Def{{Name: "mcp__slow__echo", Description: "Echo", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (s startingServers) Has(name string) bool {
	return name == "mcp__slow__echo" && !time.Now().Before(s.ready)
}
func (s startingServers) Prepare(string, json.RawMessage) (*gate.ToolCall, func(context.Context, agent.Tools) (protocol.ToolResult, error), error) {
	return nil, nil, errors.New("not used")
}
func (s startingServers) WaitReady(ctx context.Context) error {
	select {
	case <-time.After(time.Until(s.ready)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestATurnWaitsForItsMCPServersToConnect: a turn that begins while the workspace's MCP
// servers are still connecting (a resume as the server starts) waits for them a while, and
// the model is offered their tools (QA round 22: an approved call was "not connected" and
// its approval withdrawn, though the server was up a second later).
func TestATurnWaitsForItsMCPServersToConnect(t *testing.T) {
	srv := newFakeServer(t, text("Done."))
	servers := startingServers{ready: time.Now().Add(600 * time.Millisecond)}
	e := newEnv(t, srv, func(o *runtime.Options) {
		o.Model.Extra = func(string) toolbox.Extra { return servers }
	})
	e.prompt("go")
	var names []string
	for _, tool := range srv.last(t, 1).Tools {
		names = append(names, tool.Function.Name)
	}
	assert.Contains(t, names, "mcp__slow__echo", "the server's tool, once it connected")
}

func TestACutStreamKeepsItsTextAndRunsNoneOfItsCalls(t *testing.T) {
	srv := newFakeServer(t, reply{chunks: []string{textChunk("Let me write"),
		toolChunk(idx(0), "w", "write_file", `{"path":"a.txt","content":"x"}`)}, cut: true})
	e := newEnv(t, srv)
	evs := e.prompt("go")
	assert.Equal(t, []string{"Let me write"}, messages(t, evs, ""))
	assert.Zero(t, testkit.Count(evs, protocol.EventToolCalled))
	assert.Zero(t, testkit.Count(evs, protocol.EventQuestionAsked), "no approval for a call of a cut message")
}

// TestA429IsWaitedOutOnceBeforeTheStream: the wait a 429 asks is waited out, then the prompt
// goes again. A wait of seconds with nothing moving reads as a hang, so from 2 s the thread
// says the server asked for it, and that the prompt goes again on its own.
func TestA429IsWaitedOutOnceBeforeTheStream(t *testing.T) {
	for _, tt := range []struct {
		retryAfter string
		said       string
	}{{"1", ""}, {"2", "asked to wait 2 s"}} {
		t.Run(tt.retryAfter, func(t *testing.T) {
			srv := newFakeServer(t,
				reply{status: 429, header: map[string]string{"Retry-After": tt.retryAfter}, body: `{"error":{"message":"slow down"}}`},
				text("Now it works."))
			evs := newEnv(t, srv).prompt("hi")
			assert.Equal(t, []string{"Now it works."}, messages(t, evs, ""))
			notes := messages(t, evs, protocol.FromParley)
			if tt.said == "" {
				assert.Empty(t, notes)
			} else if assert.Len(t, notes, 1) {
				assert.Contains(t, notes[0], tt.said)
			}
			at := srv.times()
			require.Len(t, at, 2)
			assert.GreaterOrEqual(t, at[1].Sub(at[0]), 900*time.Millisecond, "it waited as asked")
		})
	}
}

// TestA503ThatSaysWhenIsWaitedOut: a 503 with Retry-After (a server loading its model) is
// waited out once, as a 429 is, and said as what it is; one without it is a failure to send
// again (QA round 24).
func TestA503ThatSaysWhenIsWaitedOut(t *testing.T) {
	srv := newFakeServer(t,
		reply{status: 503, header: map[string]string{"Retry-After": "2"}, body: `{"error":{"message":"loading the model"}}`},
		text("Loaded."))
	evs := newEnv(t, srv).prompt("hi")
	assert.Equal(t, []string{"Loaded."}, messages(t, evs, ""))
	notes := messages(t, evs, protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "unavailable for now (503) and asked to wait 2 s")
	at := srv.times()
	require.Len(t, at, 2)
	assert.GreaterOrEqual(t, at[1].Sub(at[0]), 1900*time.Millisecond, "it waited as asked")

	srv = newFakeServer(t, reply{status: 503, body: `{"error":{"message":"down"}}`})
	evs = newEnv(t, srv).prompt("hi")
	notes = messages(t, evs, protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "failed (503)")
	assert.Len(t, srv.requestsSoFar(), 1, "no Retry-After: not asked again")
}

func TestA429AfterAToolRanIsNotRetried(t *testing.T) {
	srv := newFakeServer(t,
		calls("index", call{"l", "list_files", `{}`}),
		reply{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":{"message":"slow down"}}`})
	e := newEnv(t, srv)
	evs := e.prompt("hi")
	notes := messages(t, evs, protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "rate-limiting")
	assert.Len(t, srv.requestsSoFar(), 2)
}

// TestAFailureAfterAToolRanSaysSo: a failure's notice says "send your prompt again", which
// after a tool ran could run it twice; it then says that tools ran and asks how to go on.
func TestAFailureAfterAToolRanSaysSo(t *testing.T) {
	srv := newFakeServer(t,
		calls("index", call{"l", "list_files", `{}`}),
		reply{status: 500, body: `{"error":{"message":"model crashed"}}`},
		reply{status: 500, body: `{"error":{"message":"model crashed"}}`})
	e := newEnv(t, srv)
	notes := messages(t, e.prompt("hi"), protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "failed (500)")
	assert.Contains(t, notes[0], "model crashed")
	assert.True(t, strings.HasSuffix(notes[0], "Tools already ran in this turn (their results are above): the same prompt sent again could run them again, so say how to go on instead."), notes[0])

	notes = messages(t, e.prompt("again"), protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "failed (500)")
	assert.NotContains(t, notes[0], "Tools already ran", "a failure before any tool ran says only to send again")
}

func TestAServerThatIsDownIsANotice(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	srv := newFakeServer(t)
	e := newEnv(t, srv, func(o *runtime.Options) { o.Model.URL = "http://" + addr + "/v1" })
	evs := e.prompt("hi")
	notes := messages(t, evs, protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "cannot be reached (connection refused)")
	assert.Contains(t, notes[0], addr)
}

func TestStopCancelsTheStreamAndKeepsWhatArrived(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := newFakeServer(t, reply{chunks: []string{textChunk("Thinking about it")}, hold: hold})
	e := newEnv(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live, err := e.rt.Live(ctx, e.session)
	require.NoError(t, err)
	after := e.send("think")
	// The chunk is read once its text goes out on the live path.
	for read := false; !read; {
		select {
		case d := <-live:
			read = strings.Contains(d.Text, "Thinking about it")
		case <-time.After(10 * time.Second):
			t.Fatal("the model's chunk never streamed")
		}
	}
	_, err = e.rt.StopTurn(context.Background(), e.session, protocol.StopRequest{})
	require.NoError(t, err)
	evs := e.waitEnded(after)

	assert.Equal(t, []string{"Thinking about it"}, messages(t, evs, ""))
	assert.Empty(t, messages(t, evs, protocol.FromParley), "a stop is no failure")
	for _, ended := range testkit.DataOf[protocol.TurnEnded](t, evs, protocol.EventTurnEnded) {
		assert.True(t, ended.Stopped)
	}
}

func TestStopKillsARunningCommand(t *testing.T) {
	srv := newFakeServer(t, calls("index",
		call{"l", "list_files", `{}`},
		call{"s", "run_command", jsonArgs(map[string]any{"argv": []string{"sh", "-c", "touch started && exec sleep 300"}})}))
	e := newEnv(t, srv)
	after := e.send("sleep")
	ds := e.pending(1)
	e.reply(ds[0], pick(0))
	require.Eventually(t, func() bool { _, err := os.Stat(filepath.Join(e.ws, "started")); return err == nil },
		10*time.Second, 10*time.Millisecond, "the command is running")
	_, err := e.rt.StopTurn(context.Background(), e.session, protocol.StopRequest{})
	require.NoError(t, err)
	// waitEnded gives up long before the command's 300 s: the turn ends because the stop
	// killed it.
	evs := e.waitEnded(after)
	res := results(t, evs)
	require.Len(t, res, 1, "what ran before the stop is recorded; the stopped call has no result")
	assert.Equal(t, "l", res[0].Call)
	assert.Len(t, srv.requestsSoFar(), 1, "the model is not called after a stop")
}

func TestStopWhileAnApprovalWaitsAbortsIt(t *testing.T) {
	srv := newFakeServer(t, calls("index", call{"w", "write_file", `{"path":"a","content":"b"}`}))
	e := newEnv(t, srv)
	after := e.send("write")
	e.pending(1)
	_, err := e.rt.StopTurn(context.Background(), e.session, protocol.StopRequest{})
	require.NoError(t, err)
	evs := e.waitEnded(after)
	var rejected []protocol.QuestionRejected
	for _, ev := range evs {
		if ev.Type == protocol.EventQuestionRejected {
			r, err := ev.DecodeQuestionRejected()
			require.NoError(t, err)
			rejected = append(rejected, r)
		}
	}
	require.Len(t, rejected, 1)
	assert.Equal(t, protocol.OutcomeAborted, rejected[0].Outcome)
	assert.Equal(t, protocol.ReasonStopped, rejected[0].Reason)
	assert.Empty(t, messages(t, evs, protocol.FromParley))
}

func TestFinishReasonLengthIsSaid(t *testing.T) {
	srv := newFakeServer(t, reply{chunks: []string{textChunk("A very long"), finishChunk(openai.FinishReasonLength)}})
	e := newEnv(t, srv)
	evs := e.prompt("go on and on")
	assert.Equal(t, []string{"A very long"}, messages(t, evs, ""))
	notes := messages(t, evs, protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "output limit")
}

// TestAReplyOverTheLimitIsCutThere: a reply that outgrows MaxReplyBytes is read no further;
// what is kept ends at a character's start within the limit, is stored as the message, and a
// notice says why. Its calls are not run. (QA round 24: a 5 MB reply streamed for 74 s and
// then failed to store, in NATS's words.)
func TestAReplyOverTheLimitIsCutThere(t *testing.T) {
	piece := "x" + strings.Repeat("é", 1000) // 2,001 bytes: the limit falls inside an é
	var chunks []string
	for range model.MaxReplyBytes/len(piece) + 10 {
		chunks = append(chunks, textChunk(piece))
	}
	chunks = append(chunks, toolChunk(idx(0), "w", "write_file", `{"path":"a.txt","content":"x"}`), finishChunk(openai.FinishReasonToolCalls))
	srv := newFakeServer(t, reply{chunks: chunks})
	e := newEnv(t, srv)
	evs := e.prompt("write it all")

	msgs := messages(t, evs, "")
	require.Len(t, msgs, 1)
	assert.True(t, utf8.ValidString(msgs[0]))
	assert.LessOrEqual(t, len(msgs[0]), model.MaxReplyBytes)
	assert.Greater(t, len(msgs[0]), model.MaxReplyBytes-4)
	assert.True(t, strings.HasPrefix(strings.Repeat(piece, 200), msgs[0]), "the kept text is the reply's start")
	notes := messages(t, evs, protocol.FromParley)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "cut at 256 KiB, the most Parley keeps of one message")
	assert.Zero(t, testkit.Count(evs, protocol.EventToolCalled), "the calls after the cut are not run")
}

// TestToolCallArgumentsOverTheLimitAreCut: arguments count toward the limit too; the call is
// not run.
func TestToolCallArgumentsOverTheLimitAreCut(t *testing.T) {
	srv := newFakeServer(t, reply{chunks: []string{textChunk("Writing it."),
		toolChunk(idx(0), "w", "write_file", `{"path":"a.txt","content":"`+strings.Repeat("a", model.MaxReplyBytes)+`"}`),
		finishChunk(openai.FinishReasonToolCalls)}})
	e := newEnv(t, srv)
	evs := e.prompt("write a big file")
	assert.Equal(t, []string{"Writing it."}, messages(t, evs, ""))
	assert.Zero(t, testkit.Count(evs, protocol.EventToolCalled))
	assert.Zero(t, testkit.Count(evs, protocol.EventQuestionAsked))
	assert.Contains(t, messages(t, evs, protocol.FromParley)[0], "cut at 256 KiB")

	// A reply of a call alone: nothing is above, so the notice does not say it is kept.
	srv = newFakeServer(t, reply{chunks: []string{
		toolChunk(idx(0), "w", "write_file", `{"path":"a.txt","content":"`+strings.Repeat("a", model.MaxReplyBytes)+`"}`),
		finishChunk(openai.FinishReasonToolCalls)}})
	evs = newEnv(t, srv).prompt("write a big file")
	assert.Empty(t, messages(t, evs, ""))
	assert.Equal(t, []string{"The model's tool call was cut at 256 KiB, the most Parley keeps of one message, so it did not run. " +
		"Ask for a smaller change, or for it in parts."}, messages(t, evs, protocol.FromParley))
}

func TestOllamasStopWithToolCallsStillRunsThem(t *testing.T) {
	r := calls("index", call{"l", "list_files", `{}`})
	r.chunks[len(r.chunks)-2] = finishChunk(openai.FinishReasonStop)
	srv := newFakeServer(t, r, text("Empty."))
	e := newEnv(t, srv)
	evs := e.prompt("list")
	assert.Len(t, results(t, evs), 1)
	assert.Equal(t, []string{"Empty."}, messages(t, evs, ""))
}

func TestKeepAliveCommentsBeforeTheFirstTokenAreFine(t *testing.T) {
	r := text("Finally.")
	r.keepAlive = 400 // more than go-openai's default allows
	srv := newFakeServer(t, r)
	e := newEnv(t, srv)
	evs := e.prompt("a long prompt")
	assert.Equal(t, []string{"Finally."}, messages(t, evs, ""))
	assert.Empty(t, messages(t, evs, protocol.FromParley))
}

func TestAnAlwaysLetsTheSameCommandThroughNextTime(t *testing.T) {
	srv := newFakeServer(t,
		calls("index", call{"r1", "run_command", jsonArgs(map[string]any{"argv": []string{"true"}})}), text("Ran it."),
		calls("index", call{"r2", "run_command", jsonArgs(map[string]any{"argv": []string{"true"}})}), text("Ran it again."))
	e := newEnv(t, srv)
	after := e.send("run true")
	ds := e.pending(1)
	opts := ds[0].Request.Options
	require.GreaterOrEqual(t, len(opts), 3)
	require.NotNil(t, opts[1].Grant, "the second option is the always")
	e.reply(ds[0], pick(1))
	evs := e.waitEnded(after)
	assert.Equal(t, 1, testkit.Count(evs, protocol.EventGrantCreated))

	evs = e.prompt("again")
	assert.Zero(t, testkit.Count(evs, protocol.EventQuestionAsked), "the grant answers")
	res := results(t, evs)
	require.Len(t, res, 1)
	assert.Equal(t, "exit status 0", res[0].Text)
}
