//go:build !wasm

package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime"
)

func TestReplicasFlag(t *testing.T) {
	getenv := func(string) string { return "" }
	c, err := parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 0, c.Replicas, "what the cluster can hold, by default")
	c, err = parseConfig([]string{"-replicas", "3"}, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 3, c.Replicas)
	c, err = parseConfig(nil, func(k string) string { return map[string]string{"PARLEY_REPLICAS": "1"}[k] }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 1, c.Replicas)
	for _, bad := range []string{"-1", "6", "three"} {
		_, err = parseConfig([]string{"-replicas", bad}, getenv, io.Discard)
		assert.ErrorContains(t, err, "from 0 to 5", bad)
	}
}

// TestTwoServersOnANATSCluster runs two whole servers (run, as the binary does) with
// -nats naming the three nodes of a cluster, on one data folder: the log is kept in three
// copies, and a prompt sent to one server is answered and read on the other.
func TestTwoServersOnANATSCluster(t *testing.T) {
	c := testkit.StartCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const token = "cluster-token"
	folder := t.TempDir() // shared: with -nats the data folder holds only the token
	var bases []string
	var dones []chan error
	for range 2 {
		out := &syncBuffer{}
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, config{Addr: "127.0.0.1:0", Data: folder, NATS: c.URLs(), Token: token,
				Workspaces: []string{t.TempDir()}, Web: testkit.WebFolder(t)}, out)
		}()
		dones = append(dones, done)
		u := printedLink(t, out, 3*testkit.Wait)
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

	js, err := jetstream.New(c.Connect("check"))
	require.NoError(t, err)
	stream, err := js.Stream(ctx, runtime.StreamName)
	require.NoError(t, err)
	assert.Equal(t, 3, stream.CachedInfo().Config.Replicas)

	cancel()
	for _, done := range dones {
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(3 * testkit.Wait):
			t.Fatal("run did not stop")
		}
	}
}
