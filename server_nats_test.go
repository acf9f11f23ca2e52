//go:build !wasm

package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime"
)

func TestReplicasFlag(t *testing.T) {
	getenv := func(string) string { return "" }
	c, err := parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 0, c.Replicas, "what the cluster can hold, by default")
	c, err = parseConfig([]string{"-replicas", "3"}, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 3, c.Replicas)
	c, err = parseConfig(nil, func(k string) string { return map[string]string{"PARLEY_REPLICAS": "1"}[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 1, c.Replicas)
	for _, bad := range []string{"-1", "6", "three"} {
		_, err = parseConfig([]string{"-replicas", bad}, getenv, io.Discard)
		require.ErrorContains(t, err, "from 0 to 5", bad)
	}
}

// TestRunOnAnExternalNATS starts the whole server on a NATS server of its own (the -nats
// flag), and checks that sessions land in that server's JetStream.
func TestRunOnAnExternalNATS(t *testing.T) {
	ns := testkit.NATSServer(t)

	ctx, cancel := context.WithCancel(t.Context())
	u, done := startRun(t, ctx, config{Addr: "127.0.0.1:0", Data: t.TempDir(), NATS: ns.ClientURL(), Workspaces: []string{t.TempDir()}, Web: testkit.WebFolder(t)}, testkit.Wait)
	token := u.Query().Get("token")
	require.NotEmpty(t, token, "the printed address carries the token")

	resp, data := testkit.Client{T: t, Base: "http://" + u.Host, Token: token}.Post("/api/sessions", `{"title":"external"}`)
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))

	info, err := eventStream(t, ns.ClientURL()).Info(t.Context())
	require.NoError(t, err)
	require.Equal(t, uint64(1), info.State.Msgs, "session.created")

	cancel()
	require.NoError(t, testkit.Recv(t, done, "run did not stop"))
}

// TestTwoServersOnANATSCluster runs two whole servers (run, as the binary does) with
// -nats naming the three nodes of a cluster, on one data folder: the log is kept in three
// copies, and a prompt sent to one server is answered and read on the other.
func TestTwoServersOnANATSCluster(t *testing.T) {
	c := testkit.StartCluster(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	const token = "cluster-token"
	folder := t.TempDir() // shared: with -nats the data folder holds only the token
	var bases []string
	var dones []<-chan error
	for range 2 {
		u, done := startRun(t, ctx, config{Addr: "127.0.0.1:0", Data: folder, NATS: c.URLs(), Token: token,
			Workspaces: []string{t.TempDir()}, Web: testkit.WebFolder(t)}, 3*testkit.Wait)
		dones = append(dones, done)
		bases = append(bases, "http://"+u.Host)
	}
	first := testkit.Client{T: t, Base: bases[0], Token: token}
	second := testkit.Client{T: t, Base: bases[1], Token: token}

	resp, data := first.Post("/api/sessions", `{"title":"on the cluster"}`)
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
	s := testkit.DecodeAs[protocol.SessionInfo](t, data)
	resp, data = second.Post("/api/sessions/"+s.ID+"/prompt", protocol.SendPromptRequest{Text: "hello", AttemptID: "a1"})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	testkit.Eventually(t, func() bool {
		resp, data := first.Get("/api/sessions/" + s.ID + "/events")
		return resp.StatusCode == http.StatusOK && strings.Contains(string(data), `"turn.ended"`)
	}, "the prompt is answered, and the first server reads it")

	require.Equal(t, 3, eventStream(t, c.URLs()).CachedInfo().Config.Replicas)

	cancel()
	for _, done := range dones {
		require.NoError(t, testkit.RecvWithin(t, done, 3*testkit.Wait, "run did not stop"))
	}
}

// eventStream is the event log's stream in the NATS server, or cluster, at url: where the
// server keeps the sessions.
func eventStream(t *testing.T, url string) jetstream.Stream {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	stream, err := js.Stream(t.Context(), runtime.StreamName)
	require.NoError(t, err, "the event stream lives in the server at %s", url)
	return stream
}
