package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/i18n"
	"parley/internal/testkit"
	"parley/internal/testkit/mcpserver"
	"parley/protocol"
	"parley/runtime/agent/model"
	"parley/runtime/mcp"
)

// mcpRuntime is a runtime whose workspace lists this test binary as the MCP server "test",
// and whose agent is a scripted model.
func mcpRuntime(t *testing.T, m *testkit.Model) (*Runtime, string) {
	t.Helper()
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".parley"), 0o755))
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"test": mcpserver.Self(t, "stdio")}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, mcp.WorkspaceFile), cfg, 0o644))
	rt := freshWith(t, Options{Workspace: ws, Exclusive: true, Model: model.Config{URL: m.Base(), Model: "scripted"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, rt.mcp.Workspace(rt.workspaces[0].Path).WaitReady(ctx))
	l, err := rt.MCPServers("")
	require.NoError(t, err)
	require.Len(t, l.Servers, 1)
	require.Equal(t, protocol.MCPReady, l.Servers[0].Status, l.Servers[0].Reason)
	s, err := rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	return rt, s.ID
}

// lastToolText is what the model was last told a tool returned.
func lastToolText(t *testing.T, m *testkit.Model, request int) string {
	t.Helper()
	testkit.Eventually(t, func() bool { return len(m.Requests()) > request }, "model request %d", request)
	texts := testkit.ToolTexts(m.Requests()[request])
	require.NotEmpty(t, texts)
	return texts[len(texts)-1]
}

// An MCP tool passes the same gate as the workspace's tools: approved, rejected with the
// user's words, granted "always" (listed and revocable), and a read-only tool let through by
// the permission mode.
func TestMCPToolsPassTheGate(t *testing.T) {
	picture := testkit.Call{ID: "c1", Name: "mcp__test__picture", Args: map[string]any{}}
	m := testkit.NewModel(t,
		testkit.Calls(picture), testkit.Text("approved."),
		testkit.Calls(picture), testkit.Text("rejected."),
		testkit.Calls(picture), testkit.Text("granted."),
		testkit.Calls(picture), testkit.Text("by the grant."),
		testkit.Calls(testkit.Call{ID: "c2", Name: "mcp__test__echo", Args: map[string]any{"text": "hi"}}), testkit.Text("read-only."),
		testkit.Calls(picture), testkit.Text("revoked."),
	)
	rt, s := mcpRuntime(t, m)
	ctx := context.Background()

	// The model is offered the server's tools under their namespaced names.
	prompt(t, rt, s, "one", "")
	d := waitPending(t, rt, s, 1)[0]
	require.Equal(t, protocol.KindApproval, d.Request.Kind)
	require.Equal(t, "Allow picture of the MCP server test?", d.Request.Message)
	require.Contains(t, d.Request.Details, "test: picture")
	var offered []string
	for _, tl := range m.Requests()[0].Tools {
		offered = append(offered, tl.Function.Name)
	}
	require.Contains(t, offered, "mcp__test__picture")
	require.Contains(t, offered, "read_file", "beside the workspace's own tools")
	_, err := rt.Reply(ctx, s, d.ID, pick(0))
	require.NoError(t, err)
	text := lastToolText(t, m, 1)
	require.Contains(t, text, "here it is")
	require.Contains(t, text, "an image (image/png", "an image reaches the model as a note")

	prompt(t, rt, s, "two", "")
	d = waitPending(t, rt, s, 1)[0]
	_, err = rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "not that server"})
	require.NoError(t, err)
	require.Equal(t, "c1: error: rejected by the user: not that server", lastToolText(t, m, 3))

	prompt(t, rt, s, "three", "")
	d = waitPending(t, rt, s, 1)[0]
	require.Len(t, d.Request.Options, 3)
	always := d.Request.Options[1]
	require.NotNil(t, always.Grant)
	require.Equal(t, protocol.GrantScope{Kind: protocol.GrantExact, Tool: "mcp", Words: []string{"test", "picture"}}, *always.Grant)
	_, err = rt.Reply(ctx, s, d.ID, pick(1))
	require.NoError(t, err)
	require.Contains(t, lastToolText(t, m, 5), "here it is")

	// The grant lets the next call through without asking.
	prompt(t, rt, s, "four", "")
	require.Contains(t, lastToolText(t, m, 7), "here it is")
	// A read-only tool passes in the default mode (reads).
	prompt(t, rt, s, "five", "")
	require.Contains(t, lastToolText(t, m, 9), "echo: hi")
	l, err := rt.PendingDecisions(ctx, s)
	require.NoError(t, err)
	require.Empty(t, l.Decisions, "neither asked")

	grants, err := rt.ListGrants(ctx, "")
	require.NoError(t, err)
	require.Len(t, grants.Grants, 1)
	require.NoError(t, rt.RevokeGrant(ctx, "", grants.Grants[0].ID))
	prompt(t, rt, s, "six", "")
	d = waitPending(t, rt, s, 1)[0]
	require.Equal(t, "Allow picture of the MCP server test?", d.Request.Message, "asked again once revoked")
	_, err = rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
	require.NoError(t, err)
	require.Equal(t, "c1: error: rejected by the user", lastToolText(t, m, 11))
}

// Stop in the middle of a call that reports progress cancels it; the progress is in the log.
func TestMCPStopMidProgress(t *testing.T) {
	m := testkit.NewModel(t, testkit.Calls(testkit.Call{ID: "c1", Name: "mcp__test__slow", Args: map[string]any{"steps": 2, "hold": true}}))
	rt, s := mcpRuntime(t, m)
	ctx := context.Background()
	prompt(t, rt, s, "go slowly", "")
	d := waitPending(t, rt, s, 1)[0]
	_, err := rt.Reply(ctx, s, d.ID, pick(0))
	require.NoError(t, err)
	evs := testkit.WaitEvents(t, rt.Log().Read, s, "two progress events", func(evs []protocol.Event) bool {
		return testkit.Count(evs, protocol.EventToolProgress) == 2
	})
	p, err := protocol.DecodeEventData[protocol.ToolProgress](testkit.OfType(evs, protocol.EventToolProgress)[1])
	require.NoError(t, err)
	require.Equal(t, protocol.ToolProgress{Call: "c1", Name: "mcp__test__slow", Progress: 2, Total: 2, Message: "step 2"}, p)

	_, err = rt.StopTurn(ctx, s, protocol.StopRequest{})
	require.NoError(t, err)
	evs = testkit.WaitEvents(t, rt.Log().Read, s, "the turn's end", testkit.TurnsEnded(1))
	ended, err := protocol.DecodeEventData[protocol.TurnEnded](testkit.OfType(evs, protocol.EventTurnEnded)[0])
	require.NoError(t, err)
	require.True(t, ended.Stopped)
	require.Len(t, m.Requests(), 1, "the model is not asked again")

	// The server is still up for the next turn.
	l, err := rt.MCPServers("")
	require.NoError(t, err)
	require.Equal(t, protocol.MCPReady, l.Servers[0].Status)
}

// A server's question lands as a decision of the session whose call asked; the answer goes
// back as MCP's accept with the content, validated against the schema first.
func TestMCPElicitationIsADecision(t *testing.T) {
	m := testkit.NewModel(t, testkit.Calls(testkit.Call{ID: "c1", Name: "mcp__test__ask", Args: map[string]any{}}), testkit.Text("thanks"))
	rt, s := mcpRuntime(t, m)
	ctx := context.Background()
	prompt(t, rt, s, "ask me", "")
	d := waitPending(t, rt, s, 1)[0]
	{ // the tool is not read-only: approve it first
		require.Equal(t, protocol.KindApproval, d.Request.Kind)
		_, err := rt.Reply(ctx, s, d.ID, pick(0))
		require.NoError(t, err)
		testkit.Eventually(t, func() bool {
			l, _ := rt.PendingDecisions(ctx, s)
			return len(l.Decisions) == 1 && l.Decisions[0].ID != d.ID
		}, "the question")
		d = waitPending(t, rt, s, 1)[0]
	}
	require.Equal(t, protocol.KindAsk, d.Request.Kind)
	require.Equal(t, "Who are you?", d.Request.Message)
	_, err := rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`{"name":"A","color":"red"}`)})
	var verr *protocol.ValidationError
	require.ErrorAs(t, err, &verr, "a name shorter than its minLength is refused with a field error")
	require.Contains(t, strings.Join(fieldKeys(verr), ","), "name")
	_, err = rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage(`{"name":"Ada","color":"red","age":36}`)})
	require.NoError(t, err)
	require.Equal(t, `c1: action=accept content={"age":36,"color":"red","name":"Ada"}`, lastToolText(t, m, 1))
}

func fieldKeys(v *protocol.ValidationError) []string {
	var out []string
	for k := range v.Fields {
		out = append(out, k)
	}
	return out
}

// /mcp shows the servers in the thread.
func TestMCPCommand(t *testing.T) {
	m := testkit.NewModel(t)
	rt, s := mcpRuntime(t, m)
	prompt(t, rt, s, "/mcp", "")
	evs := testkit.WaitEvents(t, rt.Log().Read, s, "the listing", testkit.Has(protocol.EventAgentMessage))
	text := testkit.LastAgentText(t, evs)
	require.Contains(t, text, "• test — ready (stdio:")
	require.Contains(t, text, "mcp__test__echo (read-only): Echo the text back.")
	prompt(t, rt, s, "/mcp reconnect test", "")
	evs = testkit.WaitEvents(t, rt.Log().Read, s, "the reconnect", func(evs []protocol.Event) bool {
		return testkit.Count(evs, protocol.EventAgentMessage) == 2
	})
	require.Contains(t, testkit.LastAgentText(t, evs), "Reconnected test.")
	require.Contains(t, testkit.LastAgentText(t, evs), "• test — ready")
	// Its phrase words it in a page's locale, its English the text stored.
	msgs := testkit.OfType(evs, protocol.EventAgentMessage)
	msg, err := msgs[len(msgs)-1].DecodeMessage()
	require.NoError(t, err)
	require.NotNil(t, msg.Phrase)
	en, _ := i18n.English.Phrase(msg.Phrase.Code, msg.Phrase.Args)
	require.Equal(t, msg.Text, en)
	zh, _ := i18n.Chinese.Phrase(msg.Phrase.Code, msg.Phrase.Args)
	require.Contains(t, zh, "已重新连接 test。")
	require.Contains(t, zh, "（只读）：Echo the text back.")
}
