package elicitation

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/elicit"
	"parley/protocol"
)

// isolate resets the package's global hooks for one test and restores them after it.
func isolate(t *testing.T) {
	t.Helper()
	hooks.mu.Lock()
	presenter, fields, options, optionsOK, warned := hooks.presenter, hooks.fields, hooks.options, hooks.optionsOK, hooks.warned
	hooks.presenter, hooks.fields, hooks.options, hooks.optionsOK, hooks.warned = nil, nil, elicit.Options{}, false, false
	hooks.mu.Unlock()
	oldWarn := warn
	t.Cleanup(func() {
		hooks.mu.Lock()
		hooks.presenter, hooks.fields, hooks.options, hooks.optionsOK, hooks.warned = presenter, fields, options, optionsOK, warned
		hooks.mu.Unlock()
		warn = oldWarn
	})
}

// countWarnings replaces warn with a recorder.
func countWarnings(t *testing.T) *[]string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	warn = func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, msg)
	}
	return &got
}

func confirm(message string) protocol.DecisionRequest {
	return protocol.DecisionRequest{Kind: protocol.KindConfirm, Message: message}
}

// recorder is a presenter that records its calls and answers with res, err.
type recorder struct {
	mu    sync.Mutex
	calls []protocol.DecisionRequest
	res   Result
	err   error
}

func (r *recorder) present(_ context.Context, req protocol.DecisionRequest) (Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, req)
	return r.res, r.err
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

func TestWithoutAPresenterItRejectsAndWarnsOnce(t *testing.T) {
	isolate(t)
	warnings := countWarnings(t)
	for i := range 2 {
		res, err := RequestUserInput(context.Background(), confirm("Proceed?"))
		assert.Equal(t, Result{}, res)
		var abort *AbortError
		require.ErrorAs(t, err, &abort, "call %d", i)
		assert.Equal(t, ReasonNoPresenter, abort.Reason)
		assert.Equal(t, "AbortError", abort.Name())
		assert.Contains(t, abort.Error(), "no presenter")
		assert.NoError(t, abort.Unwrap())
		assert.False(t, errors.Is(err, context.Canceled))
	}
	require.Len(t, *warnings, 1, "warned once across both calls")
	assert.Contains(t, (*warnings)[0], "SetElicitationPresenter")

	SetElicitationPresenter((&recorder{}).present)
	SetElicitationPresenter(nil)
	_, err := RequestUserInput(context.Background(), confirm("Again?"))
	var abort *AbortError
	require.ErrorAs(t, err, &abort, "nil removes the presenter")
	assert.Len(t, *warnings, 1, "still once")
}

func TestAPresentersAnswerIsTheResult(t *testing.T) {
	tests := []struct {
		name string
		res  Result
	}{
		{"decline", Result{Action: protocol.ActionDecline}},
		{"accept", Result{Action: protocol.ActionAccept, Content: json.RawMessage(`true`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t)
			warnings := countWarnings(t)
			r := &recorder{res: tt.res}
			SetElicitationPresenter(r.present)
			req := confirm("Delete it?")
			res, err := RequestUserInput(context.Background(), req)
			require.NoError(t, err, "declining is an answer, not an error")
			assert.Equal(t, tt.res, res)
			require.Equal(t, 1, r.count())
			assert.Equal(t, req, r.calls[0], "the presenter gets the request as asked")
			assert.Empty(t, *warnings)
		})
	}
}

func TestAnEndedContextAborts(t *testing.T) {
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		wantErr error
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Unix(0, 0))
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t)
			r := &recorder{res: Result{Action: protocol.ActionAccept, Content: json.RawMessage(`true`)}}
			SetElicitationPresenter(r.present)
			ctx, cancel := tt.ctx()
			defer cancel()
			res, err := RequestUserInput(ctx, confirm("Proceed?"))
			assert.Equal(t, Result{}, res)
			var abort *AbortError
			require.ErrorAs(t, err, &abort)
			assert.Equal(t, ReasonAborted, abort.Reason)
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Equal(t, "AbortError", abort.Name())
			assert.Equal(t, 0, r.count(), "an ended request is not presented")
		})
	}
}

func TestCancellingWhileAskedAborts(t *testing.T) {
	isolate(t)
	asked := make(chan struct{})
	SetElicitationPresenter(func(ctx context.Context, req protocol.DecisionRequest) (Result, error) {
		close(asked)
		<-ctx.Done()
		return Result{}, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-asked
		cancel()
	}()
	_, err := RequestUserInput(ctx, confirm("Proceed?"))
	var abort *AbortError
	require.ErrorAs(t, err, &abort)
	assert.Equal(t, ReasonAborted, abort.Reason)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestAPresentersOwnFailurePassesThrough(t *testing.T) {
	isolate(t)
	boom := errors.New("boom")
	SetElicitationPresenter((&recorder{err: boom}).present)
	_, err := RequestUserInput(context.Background(), confirm("Proceed?"))
	assert.ErrorIs(t, err, boom)
	var abort *AbortError
	assert.False(t, errors.As(err, &abort), "a live context's failure is not an abort")
}

func TestAnInvalidRequestIsRefusedBeforeItIsPresented(t *testing.T) {
	tests := []struct {
		name  string
		req   protocol.DecisionRequest
		field string
	}{
		{"unknown kind", protocol.DecisionRequest{Kind: "nope", Message: "Hm?"}, "kind"},
		{"no kind", protocol.DecisionRequest{Message: "Hm?"}, "kind"},
		{"ask without schema", protocol.DecisionRequest{Kind: protocol.KindAsk, Message: "Name?"}, "schema"},
		{"approval without options", protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Run?"}, "options"},
		{"no message", protocol.DecisionRequest{Kind: protocol.KindConfirm}, "message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, withPresenter := range []bool{true, false} {
				isolate(t)
				warnings := countWarnings(t)
				r := &recorder{res: Result{Action: protocol.ActionDecline}}
				if withPresenter {
					SetElicitationPresenter(r.present)
				}
				_, err := RequestUserInput(context.Background(), tt.req)
				var verr *protocol.ValidationError
				require.ErrorAs(t, err, &verr, "presenter=%v", withPresenter)
				assert.Contains(t, verr.Fields, tt.field, "fields=%v", verr.Fields)
				var abort *AbortError
				assert.False(t, errors.As(err, &abort))
				assert.Equal(t, 0, r.count(), "the presenter is not called")
				assert.Empty(t, *warnings, "a bad request is not a missing presenter")
			}
		})
	}
}

func TestOptionsDefaultUntilSet(t *testing.T) {
	isolate(t)
	assert.Equal(t, elicit.DefaultOptions(), Options())
	custom := elicit.Options{AnswerOnClick: false, AllowOther: false, Layout: elicit.Stacked}
	SetElicitationOptions(custom)
	assert.Equal(t, custom, Options(), "the zero-like options are kept, not mistaken for unset")
	other := elicit.Options{AnswerOnClick: true, Layout: elicit.Stepped}
	SetElicitationOptions(other)
	assert.Equal(t, other, Options())
}

func TestFieldRendererRoundTrips(t *testing.T) {
	isolate(t)
	assert.Nil(t, FieldRendererHook(), "no renderer until one is set")
	var seen []string
	r := FieldRenderer(func(f elicit.Field, fc FieldContext) *FieldControl {
		seen = append(seen, f.Key+"/"+fc.Key)
		if f.Kind != elicit.Date {
			return nil
		}
		return &FieldControl{Render: func() app.UI { return app.Input().Type("date") }}
	})
	SetElicitationFieldRenderer(r)
	got := FieldRendererHook()
	require.NotNil(t, got)
	assert.Equal(t, reflect.ValueOf(r).Pointer(), reflect.ValueOf(got).Pointer(), "the same renderer comes back")
	assert.Nil(t, got(elicit.Field{Key: "name", Kind: elicit.Text}, FieldContext{Key: "name"}))
	assert.NotNil(t, got(elicit.Field{Key: "day", Kind: elicit.Date}, FieldContext{Key: "day"}))
	assert.Equal(t, []string{"name/name", "day/day"}, seen)

	SetElicitationFieldRenderer(nil)
	assert.Nil(t, FieldRendererHook(), "nil restores the built-in controls")
}

func TestHooksAreSafeToUseConcurrently(t *testing.T) {
	isolate(t)
	countWarnings(t)
	r := &recorder{res: Result{Action: protocol.ActionDecline}}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				SetElicitationPresenter(r.present)
				SetElicitationOptions(elicit.DefaultOptions())
				SetElicitationFieldRenderer(nil)
			}
			_, err := RequestUserInput(context.Background(), confirm("Proceed?"))
			var abort *AbortError
			if err != nil && !(errors.As(err, &abort) && abort.Reason == ReasonNoPresenter) {
				t.Errorf("got %v, want an answer or no-presenter", err)
			}
			_ = Options()
			_ = FieldRendererHook()
		}()
	}
	wg.Wait()
}

func TestAbortErrorMessagesSayWhatHappened(t *testing.T) {
	tests := []struct {
		err  *AbortError
		want string
	}{
		{&AbortError{Reason: ReasonNoPresenter}, "no presenter registered"},
		{&AbortError{Reason: ReasonAborted, Err: context.Canceled}, "ended without an answer"},
	}
	for _, tt := range tests {
		t.Run(tt.err.Reason, func(t *testing.T) {
			assert.True(t, strings.HasPrefix(tt.err.Error(), "AbortError: "), "got %q", tt.err.Error())
			assert.Contains(t, tt.err.Error(), tt.want)
		})
	}
}
