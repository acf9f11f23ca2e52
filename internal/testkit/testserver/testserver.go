// Package testserver runs Parley's real HTTP handlers and runtime on 127.0.0.1 for tests,
// over an embedded JetStream. It is apart from testkit because it imports the runtime: the
// runtime's own tests can use testkit without a cycle.
package testserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/components"
	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime"
	"parley/runtime/agent/model"
	"parley/runtime/eventlog"
	"parley/runtime/notify"
	"parley/server"
)

// Options shape a test server; the zero value serves one fresh workspace.
type Options struct {
	// Data is the folder of the JetStream store; a restart on the same Data finds the
	// sessions again. Empty is a fresh temporary folder.
	Data string
	// Workspaces are the folders served; empty is one fresh temporary folder.
	Workspaces []string
	// Exclusive is runtime.Options.Exclusive: set it for restart tests, as production does
	// with the embedded store.
	Exclusive bool
	// Model is runtime.Options.Model: an endpoint's URL makes the model agent answer.
	Model model.Config
	// NATS, if set, is the connection the runtime uses (an external server or a cluster)
	// instead of an embedded JetStream of its own; the caller closes it.
	NATS *nats.Conn
}

// Server is a running test server.
type Server struct {
	t       testing.TB
	URL     string // http://127.0.0.1:port
	Runtime *runtime.Runtime
	Handler *server.Server
	NATS    *nats.Conn
	http    *httptest.Server
	stop    func()
}

// routes registers the pages once: the binary does it in main's init, which tests never run.
var routes sync.Once

// Start serves until the test ends (or Stop).
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	routes.Do(components.Routes)
	var nc *nats.Conn
	stopNATS := func() {}
	if opts.NATS != nil {
		nc = opts.NATS
	} else {
		nc, stopNATS = testkit.JetStream(t, opts.Data)
	}
	if len(opts.Workspaces) == 0 {
		opts.Workspaces = []string{t.TempDir()}
	}
	rt, err := runtime.New(context.Background(), nc, runtime.Options{Workspaces: opts.Workspaces, Exclusive: opts.Exclusive, Model: opts.Model})
	require.NoError(t, err)
	b, err := server.LoadBundle(testkit.WebFolder(t))
	require.NoError(t, err)
	h := server.New(rt, testkit.Token, b)
	keys, err := notify.LoadVAPID(t.TempDir())
	require.NoError(t, err)
	push, err := notify.OpenPush(context.Background(), rt.Log().JetStream(), keys, notify.PushOptions{Replicas: rt.Log().Replicas()})
	require.NoError(t, err)
	notifier, err := notify.Start(context.Background(), rt.Log(), notify.Options{Push: push})
	require.NoError(t, err)
	h.SetNotifier(notifier, push)
	ts := httptest.NewServer(h.Handler())
	s := &Server{t: t, URL: ts.URL, Runtime: rt, Handler: h, NATS: nc, http: ts}
	stopped := false
	s.stop = func() {
		if stopped {
			return
		}
		stopped = true
		ts.Close()
		h.CloseSockets()
		notifier.Close()
		rt.Close()
		stopNATS()
	}
	t.Cleanup(s.stop)
	return s
}

// Stop ends the server, its runtime and its JetStream; the test's cleanup does it too.
func (s *Server) Stop() { s.stop() }

// Client calls this server with the test token.
func (s *Server) Client(t testing.TB) testkit.Client {
	return testkit.Client{T: t, Base: s.URL, Token: testkit.Token}
}

// HTTPClient is a client that trusts this server.
func (s *Server) HTTPClient() *http.Client { return s.http.Client() }

// Events reads a session's log over GET /api/sessions/{id}/events, page by page, through
// the browser's API client: a testkit.EventReader that sees what a client of the API sees.
func (s *Server) Events(ctx context.Context, session string, after uint64) ([]protocol.Event, error) {
	c := &api.Client{Base: s.URL, HTTP: s.http.Client(), Header: http.Header{"Authorization": {"Bearer " + testkit.Token}}}
	var all []protocol.Event
	for {
		page, err := c.Events(ctx, session, after, protocol.MaxEventPage)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Events...)
		if page.Next >= page.Head || len(page.Events) == 0 {
			return all, nil
		}
		after = page.Next
	}
}

// Consumers is how many JetStream consumers the event stream has: one per following socket,
// plus the runtime's own.
func (s *Server) Consumers(t testing.TB) int {
	t.Helper()
	js, err := jetstream.New(s.NATS)
	require.NoError(t, err)
	stream, err := js.Stream(t.Context(), runtime.StreamName)
	require.NoError(t, err)
	info, err := stream.Info(t.Context())
	require.NoError(t, err)
	return info.State.Consumers
}

// ConsumersOf is how many JetStream consumers follow one session's events: its shared
// feed, and any read of the log in progress (a catch-up, a Read) on it. Counting the whole
// stream instead would count the reads of other parts of the runtime, whose consumers are
// deleted a moment after they end.
func (s *Server) ConsumersOf(t testing.TB, session string) int {
	t.Helper()
	js, err := jetstream.New(s.NATS)
	require.NoError(t, err)
	stream, err := js.Stream(t.Context(), runtime.StreamName)
	require.NoError(t, err)
	subject := eventlog.SessionSubjects(session)
	n := 0
	list := stream.ListConsumers(t.Context())
	for info := range list.Info() {
		if info.Config.FilterSubject == subject || slices.Contains(info.Config.FilterSubjects, subject) {
			n++
		}
	}
	require.NoError(t, list.Err())
	return n
}
