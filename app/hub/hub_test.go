package hub

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/machine/input"
	"parley/protocol"
)

// fakeAPI records the calls and answers from its fields.
type fakeAPI struct {
	createErr error
	sendErr   error
	calls     []string
	titles    []string
	sent      []protocol.SendPromptRequest
	sessions  []string
}

func (f *fakeAPI) CreateSession(_ context.Context, req protocol.CreateSessionRequest) (protocol.SessionInfo, error) {
	f.calls = append(f.calls, "create")
	f.titles = append(f.titles, req.Title)
	if f.createErr != nil {
		return protocol.SessionInfo{}, f.createErr
	}
	return protocol.SessionInfo{ID: "new1", Title: req.Title}, nil
}

func (f *fakeAPI) SendPrompt(_ context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error) {
	f.calls = append(f.calls, "send")
	f.sent = append(f.sent, req)
	f.sessions = append(f.sessions, session)
	if f.sendErr != nil {
		return protocol.SendPromptResponse{}, f.sendErr
	}
	return protocol.SendPromptResponse{Offset: 42}, nil
}

func TestSend(t *testing.T) {
	down := api.ErrUnreachable
	cases := []struct {
		name        string
		prompt      Prompt
		createErr   error
		sendErr     error
		wantCalls   []string
		wantSession string
		wantCreated bool
		wantMode    protocol.PromptMode
		wantErr     error
	}{
		{name: "session queue", prompt: Prompt{Session: "s1", Text: "hi", Mode: input.Queue, AttemptID: "a"},
			wantCalls: []string{"send"}, wantSession: "s1", wantMode: protocol.ModeQueue},
		{name: "session steer", prompt: Prompt{Session: "s1", Text: "hi", Mode: input.Steer, AttemptID: "a"},
			wantCalls: []string{"send"}, wantSession: "s1", wantMode: protocol.ModeSteer},
		{name: "hero creates then sends", prompt: Prompt{Text: "first line\nsecond", AttemptID: "a"},
			wantCalls: []string{"create", "send"}, wantSession: "new1", wantCreated: true, wantMode: protocol.ModeQueue},
		{name: "hero create fails: nothing sent", prompt: Prompt{Text: "x", AttemptID: "a"}, createErr: down,
			wantCalls: []string{"create"}, wantErr: down},
		{name: "hero send fails: names the created session", prompt: Prompt{Text: "x", AttemptID: "a"}, sendErr: down,
			wantCalls: []string{"create", "send"}, wantSession: "new1", wantCreated: true, wantMode: protocol.ModeQueue, wantErr: down},
		{name: "session send fails", prompt: Prompt{Session: "s1", Text: "x", AttemptID: "a"}, sendErr: down,
			wantCalls: []string{"send"}, wantSession: "s1", wantMode: protocol.ModeQueue, wantErr: down},
		{name: "blank sends nothing", prompt: Prompt{Session: "s1", Text: "  \n", AttemptID: "a"}, wantSession: "s1",
			wantErr: errors.New("there is nothing to send")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{createErr: tc.createErr, sendErr: tc.sendErr}
			var created []string
			r := Send(context.Background(), f, tc.prompt, func(info protocol.SessionInfo) { created = append(created, info.ID) })
			assert.Equal(t, tc.wantCalls, f.calls)
			assert.Equal(t, tc.wantSession, r.Session)
			assert.Equal(t, tc.wantCreated, r.Created != nil)
			if tc.wantCreated {
				assert.Equal(t, []string{"new1"}, created, "created is told before the send")
				assert.Equal(t, []string{TitleFrom(tc.prompt.Text)}, f.titles)
			} else {
				assert.Empty(t, created)
			}
			if tc.wantErr != nil {
				require.Error(t, r.Err)
				assert.Contains(t, r.Err.Error(), tc.wantErr.Error())
			} else {
				require.NoError(t, r.Err)
				assert.Equal(t, uint64(42), r.Offset)
			}
			if len(f.sent) > 0 {
				assert.Equal(t, tc.wantMode, f.sent[0].Mode)
				assert.Equal(t, tc.prompt.Text, f.sent[0].Text)
				assert.Equal(t, tc.prompt.AttemptID, f.sent[0].AttemptID)
				assert.Equal(t, tc.wantSession, f.sessions[0])
			}
		})
	}
}

// TestSettleThroughTheMachine runs the hub's result back into a real input machine: the
// optimistic clear, the commit, and the drift guard on failure.
func TestSettleThroughTheMachine(t *testing.T) {
	cases := []struct {
		name        string
		sendErr     error
		typedAfter  string
		wantDraft   string
		wantNotice  bool
		wantRestore bool
	}{
		{name: "success clears", wantDraft: ""},
		{name: "failure restores an empty draft", sendErr: api.ErrUnreachable, wantDraft: "hello", wantNotice: true, wantRestore: true},
		{name: "failure never overwrites new typing", sendErr: api.ErrUnreachable, typedAfter: "new", wantDraft: "new", wantNotice: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := input.New(input.Config{Session: "s1"})
			m.Dispatch(input.DraftChanged{Draft: "hello"})
			effs := m.Dispatch(input.Submit{Mode: input.Queue})
			var adj input.Adjudicate
			for _, e := range effs {
				if a, ok := e.(input.Adjudicate); ok {
					adj = a
				}
			}
			require.Equal(t, "", m.Draft(), "cleared optimistically")
			effs = m.Dispatch(input.Adjudicated{Attempt: adj.Attempt})
			var sink input.DefaultSink
			for _, e := range effs {
				if s, ok := e.(input.DefaultSink); ok {
					sink = s
				}
			}
			require.Equal(t, "hello", sink.Text)
			if tc.typedAfter != "" {
				m.Dispatch(input.DraftChanged{Draft: tc.typedAfter})
			}
			f := &fakeAPI{sendErr: tc.sendErr}
			r := Send(context.Background(), f, Prompt{Session: "s1", Text: sink.Text, Mode: sink.Mode, AttemptID: "x"}, nil)
			effs = m.Dispatch(input.SubmitSettled{Attempt: sink.Attempt, Err: r.Err})
			assert.Equal(t, tc.wantDraft, m.Draft())
			var notices []input.Notice
			for _, e := range effs {
				if n, ok := e.(input.Notice); ok {
					notices = append(notices, n)
				}
			}
			assert.Equal(t, tc.wantNotice, len(notices) == 1)
			if tc.wantNotice {
				n := NoticeOf(notices[0], r.Err)
				assert.Equal(t, tc.wantRestore, notices[0].Restored)
				assert.True(t, strings.HasPrefix(n.Text, "Not sent: the server is not reachable"), n.Text)
				assert.True(t, n.UntilLive)
				if !tc.wantRestore {
					assert.Contains(t, n.Text, "hello", "the unsent text travels in the notice")
				}
			}
		})
	}
}

func TestTitleFromStaysUnderTheLimit(t *testing.T) {
	cases := map[string]string{
		"short":                  "short",
		"first line\nsecond":     "first line",
		strings.Repeat("😀", 70):  strings.Repeat("😀", 30) + "…",
		strings.Repeat("a", 130): strings.Repeat("a", 120) + "…",
		"  padded  ":             "padded",
		// A script by its code's first line with text in it, as a prompt is; a command
		// by what it is.
		"/script send('hi')\nsend('more')":               "send('hi')",
		"/script\n\n  # deploy staging  \nrun(['make'])": "# deploy staging",
		"/script " + strings.Repeat("b", 130):            strings.Repeat("b", 120) + "…",
		"/help":                                          "Help",
		"/example hello {}":                              "Example hello",
	}
	for in, want := range cases {
		got := TitleFrom(in)
		assert.Equal(t, want, got)
		assert.NoError(t, protocol.CreateSessionRequest{Title: got}.Validate())
	}
}

func TestDescribeError(t *testing.T) {
	assert.Equal(t, "the server is not reachable", DescribeError(api.ErrUnreachable))
	assert.Equal(t, "a; b", DescribeError(&protocol.ValidationError{Fields: map[string]string{"y": "b", "x": "a"}}))
	assert.Equal(t, "boom", DescribeError(errors.New("boom")))
}
