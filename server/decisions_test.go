package server_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

func TestDecisionConfirmRoundTrip(t *testing.T) {
	ts, s := testSession(t)
	offset := promptHTTP(t, ts, s, "/script ok = confirm('Ship it?')\nsend('shipped=%s' % ok)")

	d := waitDecisions(t, ts, s, 1)[0]
	require.Equal(t, s, d.Session)
	require.Equal(t, protocol.KindConfirm, d.Request.Kind)
	require.Equal(t, "Ship it?", d.Request.Message)
	require.Equal(t, "slash-command:"+itoa(offset), d.Run, "attributed to the command's run")
	require.Greater(t, d.Offset, offset, "asked after the prompt")
	require.NotEmpty(t, d.ID)

	replied := replyHTTP(t, ts, s, d.ID, `{"action":"accept","content":true}`)
	require.Greater(t, replied.Offset, d.Offset, "the reply's event follows the question")

	// A second answer, whatever it says, changes nothing.
	for _, body := range []string{`{"action":"accept","content":false}`, `{"action":"decline"}`} {
		resp, data := postJSON(t, replyURL(ts, s, d.ID), body)
		require.Equal(t, http.StatusConflict, resp.StatusCode, body)
		e := testkit.ErrorOf(t, data)
		require.Equal(t, "already_answered", e.Code, body)
		require.Contains(t, e.Error, "already answered", body)
	}
	require.Empty(t, decisionsOf(t, ts, s))
	require.Empty(t, decisionsOf(t, ts, ""))

	evs := testkit.WaitEvents(t, ts.Events, s, "turn ends", testkit.TurnsEnded(1))
	require.Equal(t, []string{"shipped=True"}, testkit.AgentTexts(t, evs), "the script got the first answer")
	require.Len(t, testkit.OfType(evs, protocol.EventQuestionReplied), 1, "one reply is stored")
	r, err := testkit.OfType(evs, protocol.EventQuestionReplied)[0].DecodeQuestionReplied()
	require.NoError(t, err)
	require.Equal(t, d.ID, r.ID)
	require.JSONEq(t, `true`, string(r.Content))
}

func TestDecisionReplyErrorsLeaveTheQuestionOpen(t *testing.T) {
	ts, s := testSession(t)
	promptHTTP(t, ts, s, `/script v = ask('Env?', {"type":"string","enum":["a","b"],"allowOther":False})`+"\nsend('env=%s' % v)")
	d := waitDecisions(t, ts, s, 1)[0]
	require.Equal(t, protocol.KindAsk, d.Request.Kind)
	require.NotNil(t, d.Request.Schema)
	require.Equal(t, []string{"a", "b"}, d.Request.Schema.Enum)
	good := replyURL(ts, s, d.ID)

	cases := []struct {
		name     string
		url      string
		token    string
		body     string
		status   int
		code     string
		contains string
		field    string
	}{
		{"unknown decision", replyURL(ts, s, "nosuchquestion"), testToken, `{"action":"accept","content":"a"}`, http.StatusNotFound, "no_decision", "no such question", ""},
		{"decision id with a dot", replyURL(ts, s, "a.b"), testToken, `{"action":"accept","content":"a"}`, http.StatusNotFound, "no_decision", "no such question", ""},
		{"unknown session", replyURL(ts, "nosuch", d.ID), testToken, `{"action":"accept","content":"a"}`, http.StatusNotFound, "no_session", "no such session", ""},
		{"malformed JSON", good, testToken, `{"action":accept}`, http.StatusBadRequest, "bad_request", "not valid JSON at byte", ""},
		{"truncated JSON", good, testToken, `{"action":`, http.StatusBadRequest, "bad_request", "request body", ""},
		{"unknown field", good, testToken, `{"action":"accept","content":"a","colour":1}`, http.StatusBadRequest, "bad_request", "unknown field", ""},
		{"two values", good, testToken, `{"action":"accept","content":"a"} {}`, http.StatusBadRequest, "bad_request", "more than one", ""},
		{"unknown action", good, testToken, `{"action":"maybe"}`, http.StatusUnprocessableEntity, "invalid", "unknown action", "action"},
		{"no action", good, testToken, `{}`, http.StatusUnprocessableEntity, "invalid", "is missing", "action"},
		{"accept without content", good, testToken, `{"action":"accept"}`, http.StatusUnprocessableEntity, "invalid", "an accept carries the answer", "content"},
		{"decline with content", good, testToken, `{"action":"decline","content":"a"}`, http.StatusUnprocessableEntity, "invalid", "a decline carries no answer", "content"},
		{"content outside the enum", good, testToken, `{"action":"accept","content":"c"}`, http.StatusUnprocessableEntity, "invalid", "must be one of", "content"},
		{"content of the wrong type", good, testToken, `{"action":"accept","content":1}`, http.StatusUnprocessableEntity, "invalid", "content", "content"},
		{"oversized body", good, testToken, `{"action":"accept","content":"` + strings.Repeat("x", protocol.MaxRequestBytes) + `"}`, http.StatusRequestEntityTooLarge, "too_large", "larger than", ""},
		{"without the token", good, "", `{"action":"accept","content":"a"}`, http.StatusUnauthorized, "unauthorized", "access token", ""},
		{"wrong token", good, "nope", `{"action":"accept","content":"a"}`, http.StatusUnauthorized, "unauthorized", "access token", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, data := request(t, http.MethodPost, c.url, c.token, c.body)
			assertRefused(t, resp, data, c.status, c.code, c.contains, c.field)
			// Nothing was stored: the question is still open, with the same id.
			require.Equal(t, d.ID, onlyPending(t, ts, s).ID)
		})
	}

	evs, err := ts.Events(t.Context(), s, 0)
	require.NoError(t, err)
	require.Zero(t, testkit.Count(evs, protocol.EventQuestionReplied), "no rejected reply reached the log")

	// A good reply still wins.
	replyHTTP(t, ts, s, d.ID, `{"action":"accept","content":"b"}`)
	evs = testkit.WaitEvents(t, ts.Events, s, "turn ends", testkit.TurnsEnded(1))
	require.Equal(t, []string{"env=b"}, testkit.AgentTexts(t, evs))
	require.Empty(t, decisionsOf(t, ts, s))
}

func TestDecisionsOfEverySessionOldestFirst(t *testing.T) {
	ts, first := testSession(t)
	second := createSessionHTTP(t, ts)
	promptHTTP(t, ts, first, "/script confirm('First?')")
	waitDecisions(t, ts, first, 1)
	promptHTTP(t, ts, second, "/script confirm('Second?')")
	waitDecisions(t, ts, second, 1)

	all := waitDecisions(t, ts, "", 2)
	require.Equal(t, []string{first, second}, []string{all[0].Session, all[1].Session})
	require.Equal(t, []string{"First?", "Second?"}, []string{all[0].Request.Message, all[1].Request.Message})
	require.Less(t, all[0].Offset, all[1].Offset, "oldest first")

	// Each session lists only its own.
	require.Equal(t, all[1].ID, onlyPending(t, ts, second).ID)
	resp, data := request(t, http.MethodGet, ts.URL+"/api/sessions/nosuch/decisions", testToken, "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "no_session", testkit.ErrorOf(t, data).Code)

	// The list carries what a reply needs; answering one leaves the other.
	replyHTTP(t, ts, all[1].Session, all[1].ID, `{"action":"decline"}`)
	left := waitDecisions(t, ts, "", 1)
	require.Equal(t, all[0].ID, left[0].ID)
	// A decision answered through the wrong session is not found there.
	resp, data = postJSON(t, replyURL(ts, second, all[0].ID), `{"action":"accept","content":true}`)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "no_decision", testkit.ErrorOf(t, data).Code)
	replyHTTP(t, ts, first, all[0].ID, `{"action":"accept","content":true}`)
	waitDecisions(t, ts, "", 0)
	testkit.WaitEvents(t, ts.Events, first, "first turn ends", testkit.TurnsEnded(1))
	testkit.WaitEvents(t, ts.Events, second, "second turn ends", testkit.TurnsEnded(1))
}

func TestScriptApprovalOverTheSocket(t *testing.T) {
	ts, s := testSession(t)
	conn, _ := ts.Client(t).Subscribe(s, 0)
	created, _ := testkit.NextEvent(t, conn, protocol.EventSessionCreated)
	require.Equal(t, s, created.Session)

	offset := promptHTTP(t, ts, s, "/script r = run(['echo','hi'])\nsend(r.stdout)")
	askedEv, before := testkit.NextEvent(t, conn, protocol.EventQuestionAsked)
	require.Equal(t, []protocol.EventType{
		protocol.EventUserMessage, protocol.EventTurnStarted, protocol.EventRunStarted, protocol.EventQuestionAsked,
	}, testkit.Types(before))
	asked, err := askedEv.DecodeQuestionAsked()
	require.NoError(t, err)
	require.Equal(t, protocol.KindApproval, asked.Request.Kind)
	require.Equal(t, "echo hi", asked.Request.Details)
	require.Equal(t, "slash-command:"+itoa(offset), asked.Run)
	require.NotEmpty(t, asked.Request.Options)
	require.Equal(t, protocol.OptionAllow, asked.Request.Options[0].Value)

	// The page answers with what the socket told it: the session and the decision's id.
	replyHTTP(t, ts, askedEv.Session, asked.ID, `{"action":"accept","content":{"option":0}}`)

	_, after := testkit.NextEvent(t, conn, protocol.EventTurnEnded)
	require.Equal(t, []protocol.EventType{
		protocol.EventQuestionReplied, protocol.EventRunOutput, protocol.EventAgentMessage,
		protocol.EventRunSettled, protocol.EventTurnEnded,
	}, testkit.Types(after))
	var texts []string
	for _, ev := range after {
		switch ev.Type {
		case protocol.EventQuestionReplied:
			r, err := ev.DecodeQuestionReplied()
			require.NoError(t, err)
			require.Equal(t, asked.ID, r.ID)
		case protocol.EventRunOutput:
			out, err := protocol.DecodeEventData[protocol.RunOutput](ev)
			require.NoError(t, err)
			require.Equal(t, protocol.StreamStdout, out.Stream)
			require.Equal(t, "hi\n", out.Text)
		case protocol.EventAgentMessage:
			m, err := ev.DecodeMessage()
			require.NoError(t, err)
			texts = append(texts, m.Text)
		case protocol.EventRunSettled:
			rs, err := protocol.DecodeEventData[protocol.RunSettled](ev)
			require.NoError(t, err)
			require.Empty(t, rs.Error)
			require.Equal(t, asked.Run, rs.Run)
		case protocol.EventTurnEnded:
			te, err := protocol.DecodeEventData[protocol.TurnEnded](ev)
			require.NoError(t, err)
			require.False(t, te.Stopped)
			require.Equal(t, offset, te.Prompt)
		}
	}
	require.Equal(t, []string{"hi\n"}, texts, "the script's message only")
	for _, text := range texts {
		require.NotContains(t, text, "No model is configured", "a command starts no agent turn")
	}
}

func TestGrantAlwaysThenRevoke(t *testing.T) {
	ts, rt := testServer(t)
	s := createSessionHTTP(t, ts)
	const script = "/script r = run(['echo','x'])\nsend('ok=%s' % r.ok)"

	resp, data := request(t, http.MethodGet, ts.URL+"/api/grants", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	require.Contains(t, string(data), `"grants":[]`, "an empty list is [], not null")

	promptHTTP(t, ts, s, script)
	d := waitDecisions(t, ts, s, 1)[0]
	require.Greater(t, len(d.Request.Options), 1)
	always := d.Request.Options[1]
	require.NotNil(t, always.Grant, "option 1 is the 'always for this command' one: %+v", always)
	replyHTTP(t, ts, s, d.ID, `{"action":"accept","content":{"option":1}}`)
	testkit.WaitEvents(t, ts.Events, s, "first run ends", testkit.TurnsEnded(1))

	var grants []protocol.Grant
	testkit.Eventually(t, func() bool {
		resp, data := request(t, http.MethodGet, ts.URL+"/api/grants", testToken, "")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
		grants = testkit.DecodeAs[protocol.GrantList](t, data).Grants
		return len(grants) > 0
	}, "the grant is listed")
	require.Len(t, grants, 1)
	g := grants[0]
	require.Equal(t, protocol.GrantScope{Kind: protocol.GrantExact, Tool: "run", Words: []string{"echo", "x"}}, g.Scope)
	require.Equal(t, s, g.Session)
	require.Equal(t, d.ID, g.Decision)
	require.Equal(t, rt.Workspace(), g.Workspace)
	require.NotEmpty(t, g.ID)

	// The same command again passes without asking.
	promptHTTP(t, ts, s, script)
	evs := testkit.WaitEvents(t, ts.Events, s, "second run ends", testkit.TurnsEnded(2))
	require.Equal(t, 1, testkit.Count(evs, protocol.EventQuestionAsked), "no new question")
	require.Equal(t, 2, testkit.Count(evs, protocol.EventRunSettled))
	require.Equal(t, []string{"ok=True", "ok=True"}, testkit.AgentTexts(t, evs))
	require.Equal(t, 1, testkit.Count(evs, protocol.EventGrantCreated))

	resp, data = request(t, http.MethodDelete, ts.URL+"/api/grants/"+g.ID, testToken, "")
	require.Equal(t, http.StatusNoContent, resp.StatusCode, string(data))
	require.Empty(t, data)
	resp, data = request(t, http.MethodDelete, ts.URL+"/api/grants/"+g.ID, testToken, "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "no_grant", testkit.ErrorOf(t, data).Code)
	resp, data = request(t, http.MethodDelete, ts.URL+"/api/grants/a.b", testToken, "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "no_grant", testkit.ErrorOf(t, data).Code)
	resp, _ = request(t, http.MethodDelete, ts.URL+"/api/grants/"+g.ID, "", "")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	resp, data = request(t, http.MethodGet, ts.URL+"/api/grants", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Empty(t, testkit.DecodeAs[protocol.GrantList](t, data).Grants)

	// Revoked: the next run asks again.
	promptHTTP(t, ts, s, script)
	again := waitDecisions(t, ts, s, 1)[0]
	require.NotEqual(t, d.ID, again.ID)
	require.Equal(t, "echo x", again.Request.Details)
	replyHTTP(t, ts, s, again.ID, `{"action":"decline","reason":"not now"}`)
	evs = testkit.WaitEvents(t, ts.Events, s, "third run ends", testkit.TurnsEnded(3))
	require.Equal(t, []string{"ok=True", "ok=True", "ok=False"}, testkit.AgentTexts(t, evs))
}

func TestStopAbortsThePendingDecision(t *testing.T) {
	ts, s := testSession(t)
	conn, _ := ts.Client(t).Subscribe(s, 0)
	promptHTTP(t, ts, s, "/script confirm('Deploy?')\nsend('not reached')")
	d := waitDecisions(t, ts, s, 1)[0]

	resp, data := postJSON(t, ts.URL+"/api/sessions/"+s+"/stop", ``)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, string(data))
	stop := testkit.DecodeAs[protocol.StopResponse](t, data)
	require.Greater(t, stop.Offset, d.Offset)

	// The socket shows the abort and the stopped turn.
	endedEv, seen := testkit.NextEvent(t, conn, protocol.EventTurnEnded)
	ended, err := protocol.DecodeEventData[protocol.TurnEnded](endedEv)
	require.NoError(t, err)
	require.True(t, ended.Stopped)
	var rejected []protocol.QuestionRejected
	for _, ev := range testkit.OfType(seen, protocol.EventQuestionRejected) {
		rej, err := ev.DecodeQuestionRejected()
		require.NoError(t, err)
		rejected = append(rejected, rej)
	}
	require.Equal(t, []protocol.QuestionRejected{{ID: d.ID, Outcome: protocol.OutcomeAborted, Reason: protocol.ReasonStopped}}, rejected)
	require.Empty(t, testkit.AgentTexts(t, seen), "the script did not go on")

	// The log agrees, and the question is over for good.
	evs := testkit.WaitEvents(t, ts.Events, s, "turn ends", testkit.TurnsEnded(1))
	require.Equal(t, 1, testkit.Count(evs, protocol.EventStopRequested))
	require.Equal(t, 1, testkit.Count(evs, protocol.EventQuestionRejected))
	require.Empty(t, decisionsOf(t, ts, s))
	resp, data = postJSON(t, replyURL(ts, s, d.ID), `{"action":"accept","content":true}`)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	e := testkit.ErrorOf(t, data)
	require.Equal(t, "already_answered", e.Code)
	require.Contains(t, e.Error, "stopped")

	for _, id := range []string{"nosuch", "a.b"} {
		resp, data = postJSON(t, ts.URL+"/api/sessions/"+id+"/stop", ``)
		require.Equal(t, http.StatusNotFound, resp.StatusCode, id)
		require.Equal(t, "no_session", testkit.ErrorOf(t, data).Code, id)
	}
	resp, _ = request(t, http.MethodPost, ts.URL+"/api/sessions/"+s+"/stop", "", "")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	// The session takes prompts again.
	promptHTTP(t, ts, s, "/script send('after the stop')")
	evs = testkit.WaitEvents(t, ts.Events, s, "next turn ends", testkit.TurnsEnded(2))
	require.Equal(t, []string{"after the stop"}, testkit.AgentTexts(t, evs))
}

func TestCommandsAndFunctionsAreListed(t *testing.T) {
	ts, _ := testServer(t)
	resp, data := request(t, http.MethodGet, ts.URL+"/api/commands", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	cmds := testkit.DecodeAs[protocol.CommandList](t, data)
	var names []string
	for _, c := range cmds.Commands {
		names = append(names, c.Name)
		require.NotEmpty(t, c.Usage, c.Name)
		require.NotEmpty(t, c.Description, c.Name)
	}
	require.Equal(t, []string{"help", "example", "script", "mcp"}, names)
	examples := map[string]protocol.CommandInfo{}
	for _, ex := range cmds.Examples {
		examples[ex.Name] = ex
	}
	require.Contains(t, examples, "hello")
	require.Equal(t, "/example hello", examples["hello"].Usage)

	resp, data = request(t, http.MethodGet, ts.URL+"/api/functions", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	fns := map[string]protocol.Function{}
	for _, fn := range testkit.DecodeAs[protocol.FunctionList](t, data).Functions {
		fns[fn.Name] = fn
	}
	require.Contains(t, fns, "greet")
	greet := fns["greet"]
	require.NotNil(t, greet.Params)
	require.Equal(t, "object", greet.Params.Type)
	var params []string
	for _, p := range greet.Params.Properties {
		params = append(params, p.Key)
	}
	require.Equal(t, []string{"name", "excited"}, params, "parameters keep their order")
	require.Equal(t, []string{"name"}, greet.Params.Required)

	for _, path := range []string{"/api/commands", "/api/functions"} {
		resp, _ = request(t, http.MethodGet, ts.URL+path, "", "")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
}

func TestFunctionRunOverHTTP(t *testing.T) {
	ts, _ := testServer(t)
	resp, data := postJSON(t, ts.URL+"/api/functions/greet/run", `{"args":{"name":"Ada"}}`)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, string(data))
	run := testkit.DecodeAs[protocol.RunFunctionResponse](t, data)
	require.True(t, protocol.ValidSessionID(run.Session), run.Session)
	require.True(t, strings.HasPrefix(run.Run, "function:"), run.Run)

	// The new session is a session like any other, and its run streams on the socket.
	resp, data = request(t, http.MethodGet, ts.URL+"/api/sessions/"+run.Session, testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	conn, _ := ts.Client(t).Subscribe(run.Session, 0)
	settledEv, seen := testkit.NextEvent(t, conn, protocol.EventRunSettled)
	rs, err := protocol.DecodeEventData[protocol.RunSettled](settledEv)
	require.NoError(t, err)
	require.Equal(t, run.Run, rs.Run)
	require.Empty(t, rs.Error)
	require.Equal(t, "Hello, Ada.", rs.Result)
	require.Equal(t, []string{"Hello, Ada."}, testkit.AgentTexts(t, seen))
	endedEv, _ := testkit.NextEvent(t, conn, protocol.EventTurnEnded)
	ended, err := protocol.DecodeEventData[protocol.TurnEnded](endedEv)
	require.NoError(t, err)
	require.Equal(t, run.Run, ended.Run)

	// A session that is busy with a question cannot take a function run.
	busy := createSessionHTTP(t, ts)
	promptHTTP(t, ts, busy, "/script confirm('Hold on?')")
	d := waitDecisions(t, ts, busy, 1)[0]

	cases := []struct {
		name     string
		fn       string
		body     string
		status   int
		code     string
		contains string
		field    string
	}{
		{"argument of the wrong type", "greet", `{"args":{"name":3}}`, http.StatusUnprocessableEntity, "invalid", "name", "name"},
		{"missing argument", "greet", `{"args":{}}`, http.StatusUnprocessableEntity, "invalid", "required", "name"},
		{"arguments as a list", "greet", `{"args":[1]}`, http.StatusUnprocessableEntity, "invalid", "must be an object", "args"},
		{"arguments as text", "greet", `{"args":"name=Ada"}`, http.StatusUnprocessableEntity, "invalid", "must be an object", "args"},
		{"unknown function", "nope", `{}`, http.StatusNotFound, "no_function", "GET /api/functions", ""},
		{"session id with a dot", "greet", `{"args":{"name":"Ada"},"session":"a.b"}`, http.StatusUnprocessableEntity, "invalid", "not a session id", "session"},
		{"unknown session", "greet", `{"args":{"name":"Ada"},"session":"nosuch"}`, http.StatusNotFound, "no_session", "no such session", ""},
		{"busy session", "greet", `{"args":{"name":"Ada"},"session":"` + busy + `"}`, http.StatusConflict, "busy", "already running", ""},
		{"malformed JSON", "greet", `{"args":}`, http.StatusBadRequest, "bad_request", "not valid JSON at byte", ""},
		{"unknown field", "greet", `{"name":"Ada"}`, http.StatusBadRequest, "bad_request", "unknown field", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, data := postJSON(t, ts.URL+"/api/functions/"+c.fn+"/run", c.body)
			assertRefused(t, resp, data, c.status, c.code, c.contains, c.field)
		})
	}

	// None of the refused runs started anything: only the first run's session was created
	// besides the busy one, which still waits on its question.
	resp, data = request(t, http.MethodGet, ts.URL+"/api/sessions", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, testkit.DecodeAs[protocol.SessionList](t, data).Sessions, 2)
	require.Equal(t, d.ID, onlyPending(t, ts, busy).ID)
	evs, err := ts.Events(t.Context(), busy, 0)
	require.NoError(t, err)
	require.Zero(t, testkit.Count(evs, protocol.EventRunSettled), "the busy session's run is untouched")

	// Once the session is free, a function runs in it.
	replyHTTP(t, ts, busy, d.ID, `{"action":"accept","content":true}`)
	testkit.WaitEvents(t, ts.Events, busy, "the command ends", testkit.TurnsEnded(1))
	testkit.Eventually(t, func() bool {
		resp, _ := postJSON(t, ts.URL+"/api/functions/greet/run", `{"args":{"name":"Bo","excited":true},"session":"`+busy+`"}`)
		return resp.StatusCode == http.StatusAccepted
	}, "the function is accepted in the freed session")
	evs = testkit.WaitEvents(t, ts.Events, busy, "the function ends", testkit.TurnsEnded(2))
	require.Contains(t, testkit.AgentTexts(t, evs), "Hello, Bo!")
}

func TestStopNamesTheTurnTheUserSaw(t *testing.T) {
	ts, s := testSession(t)
	promptHTTP(t, ts, s, "/script confirm('hold')")
	waitDecisions(t, ts, s, 1)
	evs, err := ts.Events(t.Context(), s, 0)
	require.NoError(t, err)
	var turn uint64
	for _, ev := range evs {
		if ev.Type == protocol.EventTurnStarted {
			turn = ev.Offset
		}
	}
	require.NotZero(t, turn)

	resp, data := postJSON(t, ts.URL+"/api/sessions/"+s+"/stop", protocol.StopRequest{Turn: turn - 1})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	require.JSONEq(t, `{"running":false}`, string(data), "another turn than the one running: nothing stopped")
	onlyPending(t, ts, s)

	resp, data = postJSON(t, ts.URL+"/api/sessions/"+s+"/stop", map[string]any{"turn": turn, "x": 1})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(data))

	resp, data = postJSON(t, ts.URL+"/api/sessions/"+s+"/stop", protocol.StopRequest{Turn: turn})
	require.Equal(t, http.StatusAccepted, resp.StatusCode, string(data))
	waitDecisions(t, ts, s, 0)
}

// The notifications: how a decision nobody claimed reaches a person who is not looking
// (server_notify.go).

// TestNotificationStream: GET /api/notifications streams, as server-sent events, the
// decision nobody claimed, saying what is asked and where.
func TestNotificationStream(t *testing.T) {
	ts, _ := testServer(t)
	resp := openNotifications(t, ts.URL)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))

	s := createSessionHTTP(t, ts)
	promptHTTP(t, ts, s, `/script confirm('Ship it?')`)
	sc := bufio.NewScanner(resp.Body)
	var event string
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			require.Equal(t, "notification", event)
			n := testkit.DecodeAs[protocol.Notification](t, []byte(v))
			require.Equal(t, s, n.Session)
			require.Equal(t, "Confirm: Ship it?", n.Title)
			require.Equal(t, "/s/"+s, n.URL)
			require.Equal(t, "parley-"+s, n.Tag)
			return
		}
	}
	t.Fatalf("the stream ended without a notification: %v", sc.Err())
}

// TestNotificationRequestsAreChecked: claims and subscriptions with bad ids or endpoints
// are refused with a reason; the push key is served; all of it needs the token.
func TestNotificationRequestsAreChecked(t *testing.T) {
	ts, _ := testServer(t)
	resp, body := postJSON(t, ts.URL+"/api/notifications/seen", `{"session":"a.b","decision":"d"}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	require.Contains(t, string(body), "not a session id")
	resp, body = postJSON(t, ts.URL+"/api/notifications/seen", `{"session":"s","decision":"d","extra":1}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))

	resp, body = request(t, http.MethodGet, ts.URL+"/api/push", testkit.Token, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotEmpty(t, testkit.DecodeAs[protocol.PushKey](t, body).PublicKey)

	resp, body = request(t, http.MethodPut, ts.URL+"/api/push/phone", testkit.Token,
		`{"endpoint":"http://127.0.0.1:9/x","keys":{"p256dh":"BA","auth":"AA"}}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, string(body), "https")
	resp, _ = request(t, http.MethodPut, ts.URL+"/api/push/phone", testkit.Token,
		`{"endpoint":"https://push.invalid/x","expirationTime":null,"keys":{"p256dh":"BA","auth":"AA"}}`)
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "PushSubscription.toJSON() as a browser sends it")

	for _, path := range []string{"/api/notifications", "/api/push"} {
		resp, _ := request(t, http.MethodGet, ts.URL+path, "", "")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
}

// TestNotificationStreamsEndOnShutdown: a stream runs until its page goes, so shutting down
// ends it (http.Server.Shutdown would wait for it).
func TestNotificationStreamsEndOnShutdown(t *testing.T) {
	ts, _ := testServer(t)
	resp := openNotifications(t, ts.URL)
	ts.Handler.CloseStreams()
	_, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "the stream ends cleanly")
}

// openNotifications opens the notification stream as a page does; it closes with the test.
func openNotifications(t *testing.T, base string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/api/notifications", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testkit.Token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return resp
}

// TestNotificationRoutesWithoutANotifier: a server given no notifier and no push answers
// their routes with a 503 that says so, and serves the rest.
func TestNotificationRoutesWithoutANotifier(t *testing.T) {
	_, rt := testServer(t)
	c := serveRuntime(t, rt)
	for path, code := range map[string]string{"/api/notifications": "notifications_off", "/api/push": "push_off"} {
		resp, body := c.Get(path)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, path)
		require.Equal(t, code, testkit.ErrorOf(t, body).Code, path)
	}
	resp, body := c.Get("/api/sessions")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
}
