package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime"
	"parley/server"
)

// failingRuntime answers every prompt with err; the methods it does not override are never
// called by these tests (the embedded nil interface would panic).
type failingRuntime struct {
	server.Runtime
	err error
}

func (f failingRuntime) SendPrompt(context.Context, string, protocol.SendPromptRequest) (protocol.SendPromptResponse, error) {
	return protocol.SendPromptResponse{}, f.err
}

// unavailable is the shape of the runtime's "unavailable, retry" error: it names its wait.
type unavailable struct{ wait time.Duration }

func (u unavailable) Error() string             { return "the log is busy" }
func (u unavailable) RetryAfter() time.Duration { return u.wait }

// TestSlowStoreAnswers503: a write whose outcome the store did not confirm in time may
// have been stored, so it is never reported as failed (500): the answer is 503 with
// Retry-After, and the words say a retry is safe.
func TestSlowStoreAnswers503(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		retryAfter string
	}{
		{"deadline", fmt.Errorf("append user.message: %w", context.DeadlineExceeded), http.StatusServiceUnavailable, "2"},
		{"nats timeout", fmt.Errorf("append user.message: %w", nats.ErrTimeout), http.StatusServiceUnavailable, "2"},
		{"no stream response", fmt.Errorf("append: %w", jetstream.ErrNoStreamResponse), http.StatusServiceUnavailable, "2"},
		{"jetstream electing", fmt.Errorf("append: %w", &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}), http.StatusServiceUnavailable, "2"},
		{"the runtime's own, with a wait", fmt.Errorf("send: %w", unavailable{1500 * time.Millisecond}), http.StatusServiceUnavailable, "2"},
		{"the runtime's own, no wait", unavailable{}, http.StatusServiceUnavailable, "1"},
		{"anything else", errors.New("disk on fire"), http.StatusInternalServerError, ""},
		{"a person's mistake keeps its status", fmt.Errorf("session x: %w", runtime.ErrNoSession), http.StatusNotFound, ""},
	}
	b, err := server.LoadBundle(testkit.WebFolder(t))
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(server.New(failingRuntime{err: c.err}, testkit.Token, b).Handler())
			defer ts.Close()
			resp, data := testkit.Client{T: t, Base: ts.URL, Token: testkit.Token}.Post("/api/sessions/s1/prompt",
				protocol.SendPromptRequest{Text: "hi", AttemptID: "a1"})
			assert.Equal(t, c.status, resp.StatusCode, string(data))
			assert.Equal(t, c.retryAfter, resp.Header.Get("Retry-After"))
			e := testkit.ErrorOf(t, data)
			if c.status == http.StatusServiceUnavailable {
				assert.Equal(t, "unavailable", e.Code)
				assert.Contains(t, e.Error, "retry in a moment")
				assert.Contains(t, e.Error, "same attempt id")
			}
			assert.NotContains(t, e.Error, "disk on fire", "no internals")
		})
	}
}
