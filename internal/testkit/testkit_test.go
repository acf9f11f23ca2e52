package testkit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

func TestJetStreamAndKV(t *testing.T) {
	dir := t.TempDir()
	nc, stop := testkit.JetStream(t, dir)
	kv := testkit.KV(t, nc, "seen", time.Second)
	_, err := kv.Put(context.Background(), "k", []byte("v"))
	require.NoError(t, err)
	stop()
	stop() // a second stop is harmless, as at cleanup

	nc, _ = testkit.JetStream(t, dir)
	kv = testkit.KV(t, nc, "seen", time.Second)
	e, err := kv.Get(context.Background(), "k")
	require.NoError(t, err, "the store survives a restart on the same folder")
	require.Equal(t, "v", string(e.Value()))
}

func TestFolders(t *testing.T) {
	root := testkit.Folder(t, map[string]string{"a/b.txt": "hi", "empty/": ""})
	data, err := os.ReadFile(filepath.Join(root, "a", "b.txt"))
	require.NoError(t, err)
	require.Equal(t, "hi", string(data))
	fi, err := os.Stat(filepath.Join(root, "empty"))
	require.NoError(t, err)
	require.True(t, fi.IsDir())

	alpha, beta := testkit.TwoWorkspaces(t)
	require.FileExists(t, filepath.Join(alpha, ".parley", "functions", "fa.star"))
	require.FileExists(t, filepath.Join(beta, ".parley", "examples", "eb.star"))
}

func TestWaitEvents(t *testing.T) {
	calls := 0
	read := func(_ context.Context, session string, after uint64) ([]protocol.Event, error) {
		calls++
		evs := []protocol.Event{{Session: session, Offset: 1, Type: protocol.EventUserMessage}}
		if calls > 2 {
			evs = append(evs, protocol.Event{Session: session, Offset: 2, Type: protocol.EventTurnEnded})
		}
		return evs, nil
	}
	evs := testkit.WaitEvents(t, read, "s", "a turn ends", testkit.TurnsEnded(1))
	require.Len(t, evs, 2)
	require.Equal(t, []protocol.EventType{protocol.EventUserMessage, protocol.EventTurnEnded}, testkit.Types(evs))
	require.Equal(t, 1, testkit.Count(evs, protocol.EventTurnEnded))
}

// TestKitStaysBelowTheRuntime: the runtime's in-package tests import testkit, so testkit
// importing the runtime (or the server, which does) would be an import cycle.
func TestKitStaysBelowTheRuntime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		if dep == "parley/runtime" || strings.HasPrefix(dep, "parley/runtime/") || dep == "parley/server" {
			t.Errorf("testkit depends on %s; put what needs it in testkit/testserver", dep)
		}
	}
}
