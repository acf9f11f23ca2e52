// Package testkit holds the helpers that tests of several packages share: an embedded
// JetStream, fixture folders, waiting on a session's events, and HTTP and socket clients
// that speak the protocol.
//
// It imports protocol and NATS, never runtime or server, so that the tests of those
// packages (even in-package ones) can use it without an import cycle. What needs a running
// server lives in testkit/testserver.
package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// Token is the access token of test servers.
const Token = "test-token"

// Wait is how long helpers wait for something that should happen at once on a quiet
// machine; tests share two cores with others, so it is generous.
const Wait = 10 * time.Second

// JetStream starts a NATS server with JetStream inside the test process, storing under dir
// (a fresh temporary folder when dir is ""), and connects to it. It listens on no port.
// Stop ends both; it runs at cleanup too and may be called more than once, so a test can
// restart on the same dir.
func JetStream(t testing.TB, dir string) (nc *nats.Conn, stop func()) {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	ns := startNATS(t, &natsserver.Options{
		ServerName: "parley-test",
		JetStream:  true,
		StoreDir:   filepath.Join(dir, "jetstream"),
		DontListen: true,
	})
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	require.NoError(t, err)
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		nc.Close()
		ns.Shutdown()
		ns.WaitForShutdown()
	}
	t.Cleanup(stop)
	return nc, stop
}

// NATSServer starts a NATS server with JetStream on a free 127.0.0.1 port, as an external
// deployment would run it; its ClientURL is what -nats takes.
func NATSServer(t testing.TB) *natsserver.Server {
	t.Helper()
	ns := startNATS(t, &natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir()})
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns
}

func startNATS(t testing.TB, opts *natsserver.Options) *natsserver.Server {
	t.Helper()
	opts.NoLog, opts.NoSigs = true, true
	ns, err := natsserver.NewServer(opts)
	require.NoError(t, err)
	ns.Start()
	require.True(t, ns.ReadyForConnections(Wait), "nats not ready")
	return ns
}

// KV makes a key-value bucket on nc's JetStream; a TTL in whole seconds (JetStream's
// minimum is 1 s) lets keys expire.
func KV(t testing.TB, nc *nats.Conn, bucket string, ttl time.Duration) jetstream.KeyValue {
	t.Helper()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.CreateOrUpdateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: bucket, TTL: ttl})
	require.NoError(t, err)
	return kv
}

// WriteTree writes files under root: a name is a slash-separated path, its value the
// file's text; a name ending in "/" is an (empty) folder.
func WriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// Repository lays out under dir what git needs to take dir/.git for a repository.
func Repository(t testing.TB, dir string) {
	t.Helper()
	WriteTree(t, dir, map[string]string{".git/objects/info/": "", ".git/refs/heads/": "", ".git/HEAD": "ref: refs/heads/main\n"})
}

// Folder is a fresh temporary folder holding files (see WriteTree). Its path has no
// symbolic links, so paths a runtime reports compare equal to it.
func Folder(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	WriteTree(t, root, files)
	return root
}

// TwoWorkspaces makes the folders alpha and beta side by side, each with its own file,
// function and skill; beta also has an example. Tests of several workspaces serve them.
func TwoWorkspaces(t testing.TB) (alpha, beta string) {
	t.Helper()
	root := Folder(t, map[string]string{
		"alpha/a.txt":                     "from alpha",
		"alpha/.parley/functions/fa.star": "def main(args):\n    return read(\"a.txt\")\n",
		"alpha/.parley/skills/sa.md":      "# Alpha's skill\n",
		"beta/b.txt":                      "from beta",
		"beta/.parley/functions/fb.star":  "def main(args):\n    return read(\"b.txt\")\n",
		"beta/.parley/examples/eb.star":   "# Beta's example.\nsend(read(\"b.txt\"))\n",
		"beta/.parley/skills/sb.md":       "# Beta's skill\n",
	})
	return filepath.Join(root, "alpha"), filepath.Join(root, "beta")
}

// WebFolder is a bundle folder whose app.wasm and its precompressed twins are short,
// recognisable strings: "raw-wasm-bytes", "br" and "gz".
func WebFolder(t testing.TB) string {
	t.Helper()
	return Folder(t, map[string]string{"app.wasm": "raw-wasm-bytes", "app.wasm.br": "br", "app.wasm.gz": "gz"})
}
