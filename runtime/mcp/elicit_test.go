package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/decision"
)

// The elicitations of an MCP call: forms, URLs to open and the wait for their step in the
// browser, with the test server and with the reference server.

// flowTools answer a URL consent with "open" and hand the wait for the step to the test.
type flowTools struct {
	fakeTools
	waits chan waitAsked
}

type waitAsked struct {
	req    protocol.DecisionRequest
	ctx    context.Context
	answer chan decision.Answer
}

func newFlowTools() *flowTools {
	f := &flowTools{waits: make(chan waitAsked, 4)}
	f.answer = func(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		if req.URL != "" {
			return pickOption(0), nil
		}
		w := waitAsked{req: req, ctx: ctx, answer: make(chan decision.Answer, 1)}
		f.waits <- w
		select {
		case a := <-w.answer:
			return a, nil
		case <-ctx.Done():
			return decision.Answer{}, errWithdrawn
		}
	}
	return f
}

// startLoginLater calls login_later in the background and returns the wait it asks once the
// user consented, and the call's outcome to come.
func startLoginLater(t *testing.T, s *Set, ft *flowTools, ctx context.Context) (waitAsked, chan protocol.ToolResult) {
	t.Helper()
	done := make(chan protocol.ToolResult, 1)
	go func() {
		_, res, err := run(t, s, &ft.fakeTools, ctx, "mcp__test__login_later", `{}`)
		assert.NoError(t, err)
		done <- res
	}()
	var w waitAsked
	select {
	case w = <-ft.waits:
	case res := <-done:
		t.Fatalf("the call ended without waiting for the step in the browser: %+v", res)
	case <-time.After(30 * time.Second):
		t.Fatal("no wait was asked after consent")
	}
	return w, done
}

func TestFormElicitation(t *testing.T) {
	s := testSet(t, Options{})
	ctx := context.Background()

	ft := &fakeTools{answer: func(_ context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		content := json.RawMessage(`{"name":"Ada","email":"ada@example.org","age":36,"color":"green"}`)
		if err := req.Schema.ValidateContent(content); err != nil {
			return decision.Answer{}, err
		}
		return decision.Answer{Action: protocol.ActionAccept, Content: content}, nil
	}}
	_, res, err := run(t, s, ft, ctx, "mcp__test__ask", `{}`)
	require.NoError(t, err)
	assert.Equal(t, `action=accept content={"age":36,"color":"green","email":"ada@example.org","name":"Ada"}`, res.Text)
	asked, _, _ := ft.snapshot()
	require.Len(t, asked, 1)
	q := asked[0]
	assert.Equal(t, protocol.KindAsk, q.Kind)
	assert.Equal(t, "Who are you?", q.Message)
	require.Len(t, q.Schema.Properties, 4)
	assert.Equal(t, "name", q.Schema.Properties[0].Key, "the form keeps the server's order")
	assert.Equal(t, "email", q.Schema.Properties[1].Schema.Format)
	require.NotNil(t, q.Schema.Properties[3].Schema.AllowOther)
	assert.False(t, *q.Schema.Properties[3].Schema.AllowOther, "the server checks its enum: no Other…")
	assert.Error(t, q.Schema.ValidateContent(json.RawMessage(`{"name":"A","color":"green"}`)), "a too-short name is refused before it is sent")

	for _, c := range []struct {
		name string
		ans  decision.Answer
		err  error
		want string
	}{
		{"decline", decision.Answer{Action: protocol.ActionDecline, Reason: "not now"}, nil, "action=decline content=null"},
		{"timeout", decision.Answer{Action: protocol.ActionDecline, Reason: protocol.ReasonTimeout}, nil, "action=cancel content=null"},
		{"abort", decision.Answer{}, errWithdrawn, "action=cancel content=null"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ft := &fakeTools{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) { return c.ans, c.err }}
			_, res, err := run(t, s, ft, ctx, "mcp__test__ask", `{}`)
			require.NoError(t, err)
			assert.Equal(t, c.want, res.Text)
		})
	}

	t.Run("empty form", func(t *testing.T) {
		ft := &fakeTools{answer: func(_ context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
			assert.Equal(t, protocol.KindConfirm, req.Kind)
			return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(`true`)}, nil
		}}
		_, res, err := run(t, s, ft, ctx, "mcp__test__confirm", `{}`)
		require.NoError(t, err)
		assert.Equal(t, "action=accept", res.Text)
	})
}

func TestURLElicitation(t *testing.T) {
	s := testSet(t, Options{})
	ctx := context.Background()
	// Consent to the URL; the wait for the step in the browser that follows is left for the
	// server's completion to end (nobody answers it).
	consentThenWait := func(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		if req.URL == "" {
			<-ctx.Done()
			return decision.Answer{}, errWithdrawn
		}
		return pickOption(0), nil
	}

	// Consent, then the wait for the step in the browser, which the server's completion ends.
	ft := &fakeTools{answer: consentThenWait}
	_, res, err := run(t, s, ft, ctx, "mcp__test__login", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "action=accept", res.Text)
	asked, _, _ := ft.snapshot()
	require.Len(t, asked, 2)
	assert.Equal(t, protocol.KindApproval, asked[0].Kind)
	assert.True(t, strings.HasPrefix(asked[0].URL, "https://tracker.example/login?session="), asked[0].URL)
	assert.Equal(t, asked[0].URL, asked[0].Details, "the whole URL is shown")
	assert.Equal(t, "Sign in to the tracker.", asked[0].Message)
	assert.Contains(t, asked[1].Message, "Waiting for you to finish in the browser")
	assert.Equal(t, asked[0].URL, asked[1].Details)

	declined := &fakeTools{answer: func(context.Context, protocol.DecisionRequest) (decision.Answer, error) { return pickOption(1), nil }}
	_, res, err = run(t, s, declined, ctx, "mcp__test__login", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "action=decline", res.Text)

	t.Run("-32042", func(t *testing.T) {
		// Consent, then a wait that the server's completion ends (nobody answers it).
		ft := &fakeTools{answer: consentThenWait}
		_, res, err := run(t, s, ft, ctx, "mcp__test__needs_login", `{}`)
		require.NoError(t, err)
		assert.Equal(t, "signed in: here are the issues", res.Text, "after consent and completion the call is made again")
		asked, _, _ := ft.snapshot()
		require.Len(t, asked, 2)
		assert.Contains(t, asked[0].URL, "https://tracker.example/authorize?id=")
		assert.Contains(t, asked[1].Message, "Waiting for you to finish")
		assert.Equal(t, asked[0].URL, asked[1].Details)
	})
}

func TestElicitationEndsWhenTheServerDies(t *testing.T) {
	s := testSet(t, Options{})
	c := s.conn("test")
	ft := &fakeTools{answer: func(ctx context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		// The server dies while the question is open.
		c.mu.Lock()
		cmd := c.cmd
		c.mu.Unlock()
		killGroup(cmd)
		<-ctx.Done()
		return decision.Answer{}, errWithdrawn
	}}
	_, res, err := run(t, s, ft, context.Background(), "mcp__test__ask", `{}`)
	require.NoError(t, err)
	assert.True(t, res.Error)
	assert.Contains(t, res.Text, "stopped during the call")
	_, notes, _ := ft.snapshot()
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "withdrew its question")
}

// After consent through elicitation/create, the call waits for the step in the browser:
// the decision says so until the server's notifications/elicitation/complete ends it, and
// only then does the call's result come back.
func TestAConsentedURLElicitationWaitsForTheServersCompletion(t *testing.T) {
	s := testSet(t, Options{})
	ft := newFlowTools()
	w, done := startLoginLater(t, s, ft, context.Background())
	assert.Equal(t, protocol.KindApproval, w.req.Kind)
	assert.Contains(t, w.req.Message, "Waiting for you to finish in the browser")
	assert.Contains(t, w.req.Message, "its call goes on after")
	require.True(t, strings.HasPrefix(w.req.Details, "https://wiki.example/login?session="), w.req.Details)
	select {
	case res := <-done:
		t.Fatalf("the result came back before the step was complete: %+v", res)
	default:
	}

	// The server says the step is complete (as its OAuth callback would).
	id := strings.TrimPrefix(w.req.Details, "https://wiki.example/login?session=")
	_, res, err := run(t, s, &fakeTools{}, context.Background(), "mcp__test__finish_login", `{"id":"`+id+`"}`)
	require.NoError(t, err)
	require.Equal(t, "completed "+id, res.Text)
	select {
	case <-w.ctx.Done():
		assert.ErrorIs(t, context.Cause(w.ctx), errCompleted, "the wait is withdrawn by the completion")
	case <-time.After(30 * time.Second):
		t.Fatal("the completion did not end the wait")
	}
	select {
	case res := <-done:
		assert.False(t, res.Error)
		assert.Equal(t, "action=accept", res.Text)
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return after the completion")
	}
}

// The user's "I am done there" ends the wait when the server sends no completion; "Give up"
// makes the call an error the model reads.
func TestAURLElicitationsWaitEndsByTheUsersWord(t *testing.T) {
	s := testSet(t, Options{})

	for _, c := range []struct {
		name, label string
		option      int
		wantError   bool
		wantText    string // what the result's text holds
	}{
		{"done", "I am done there", 0, false, "action=accept"},
		{"give up", "Give up", 1, true, "the user gave up on the step in the browser at https://wiki.example/login?session="},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, done := startLoginLater(t, s, newFlowTools(), context.Background())
			assert.Equal(t, c.label, w.req.Options[c.option].Label)
			w.answer <- pickOption(c.option)
			res := <-done
			assert.Equal(t, c.wantError, res.Error)
			assert.Contains(t, res.Text, c.wantText)
		})
	}
	t.Run("stop", func(t *testing.T) {
		ft := newFlowTools()
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() {
			_, _, err := run(t, s, &ft.fakeTools, ctx, "mcp__test__login_later", `{}`)
			done <- err
		}()
		w := <-ft.waits
		cancel(decision.ErrStopped)
		<-w.ctx.Done()
		assert.ErrorIs(t, <-done, decision.ErrStopped, "a stopped turn ends the wait and the call")
	})
}

// EverythingForm is an answer to every one of the 13 fields of the reference server's
// trigger-elicitation-request, each different from its default.
const EverythingForm = `{"name":"Ada Lovelace","check":true,"firstLine":"Call me Ishmael.","email":"ada@example.org",` +
	`"homepage":"https://ada.example.org","birthdate":"1815-12-10","integer":7,"number":2.5,` +
	`"untitledSingleSelectEnum":"Phoebe","untitledMultipleSelectEnum":["Piano","Drums"],` +
	`"titledSingleSelectEnum":"hero-3","titledMultipleSelectEnum":["fish-2","fish-3"],"legacyTitledEnum":"pet-4"}`

func TestEverythingForm(t *testing.T) {
	s := everything(t)
	ft := &fakeTools{answer: func(_ context.Context, req protocol.DecisionRequest) (decision.Answer, error) {
		if err := req.Schema.ValidateContent(json.RawMessage(EverythingForm)); err != nil {
			return decision.Answer{}, err
		}
		return decision.Answer{Action: protocol.ActionAccept, Content: json.RawMessage(EverythingForm)}, nil
	}}
	_, res, err := run(t, s, ft, context.Background(), "mcp__everything__trigger-elicitation-request", `{}`)
	require.NoError(t, err)
	require.False(t, res.Error, res.Text)
	asked, _, _ := ft.snapshot()
	require.Len(t, asked, 1)
	var keys []string
	for _, p := range asked[0].Schema.Properties {
		keys = append(keys, p.Key)
	}
	assert.Equal(t, []string{"name", "check", "firstLine", "email", "homepage", "birthdate", "integer", "number",
		"untitledSingleSelectEnum", "untitledMultipleSelectEnum", "titledSingleSelectEnum", "titledMultipleSelectEnum", "legacyTitledEnum"}, keys,
		"13 fields, in the server's order")
	assert.Contains(t, res.Text, "User provided the requested information")
	var want map[string]any
	require.NoError(t, json.Unmarshal([]byte(EverythingForm), &want))
	raw := res.Text[strings.Index(res.Text, "Raw result: ")+len("Raw result: "):]
	var got struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &got), raw)
	assert.Equal(t, "accept", got.Action)
	assert.Equal(t, want, got.Content, "the server received every field as answered")
}

func TestEverythingURLAndProgress(t *testing.T) {
	s := everything(t)
	ctx := context.Background()
	consent := func(context.Context, protocol.DecisionRequest) (decision.Answer, error) { return pickOption(0), nil }
	ft := &fakeTools{answer: consent}
	_, res, err := run(t, s, ft, ctx, "mcp__everything__trigger-url-elicitation", `{"url":"https://example.org/consent","message":"Open it"}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "User completed the URL elicitation flow")
	asked, _, _ := ft.snapshot()
	require.Len(t, asked, 2, "consent, then the wait for the step in the browser (this server sends no completion: the user's done ends it)")
	assert.Equal(t, "https://example.org/consent", asked[0].URL)
	assert.Contains(t, asked[1].Message, "Waiting for you to finish in the browser")

	// The error path: -32042 names a prerequisite URL; after consent and the user's "done"
	// (this server sends no completion for it) the call is made again.
	ft = &fakeTools{answer: consent}
	_, res, err = run(t, s, ft, ctx, "mcp__everything__trigger-url-elicitation", `{"url":"https://example.org/after","errorPath":true}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "User completed the URL elicitation flow", res.Text)
	asked, _, _ = ft.snapshot()
	require.Len(t, asked, 4, "consent to the prerequisite, the wait, consent to the URL itself, its wait")
	assert.Equal(t, "https://modelcontextprotocol.io", asked[0].URL)
	assert.Equal(t, "https://example.org/after", asked[2].URL)
	assert.Contains(t, asked[3].Message, "its call goes on after")

	ft = &fakeTools{}
	start := time.Now()
	_, res, err = run(t, s, ft, ctx, "mcp__everything__trigger-long-running-operation", `{"duration":1,"steps":3}`)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "completed", time.Since(start).String())
	// The last progress notification may be handled after the result arrives (the SDK
	// dispatches notifications on their own goroutine); Parley still shows it.
	require.Eventually(t, func() bool { _, _, p := ft.snapshot(); return len(p) == 3 }, 10*time.Second, 10*time.Millisecond)
	_, _, p := ft.snapshot()
	assert.Equal(t, 3.0, p[2].Progress)
	assert.Equal(t, 3.0, p[2].Total)
}
