//go:build !wasm

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/runtime/agent/model"
)

// The tests of start-up: flags, the token, the data folder's lock, and run end to end. The
// handlers' own tests are in server/.

// TestNoSecretsInURLFlags: a URL flag that carries a password or a key is refused, with the
// secret hidden in the error and the environment variable to use named; the same URL from
// the environment is taken, and a URL with nothing secret in it is taken as a flag (QA round
// 22: -model-url …?api_key= and -nats with a password were taken without a word).
func TestNoSecretsInURLFlags(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"-model", "m", "-model-url", "http://127.0.0.1:1/v1?api_key=sk-secret"}, "PARLEY_MODEL_URL"},
		{[]string{"-model", "m", "-model-url", "http://user:sk-secret@127.0.0.1:1/v1"}, "PARLEY_MODEL_URL"},
		{[]string{"-nats", "nats://user:pw-secret@127.0.0.1:4222"}, "PARLEY_NATS"},
		{[]string{"-nats", "nats://tok-secret@127.0.0.1:4222"}, "PARLEY_NATS"},
		{[]string{"-nats", "nats://127.0.0.1:4222,nats://u:pw-secret@127.0.0.1:4223"}, "PARLEY_NATS"},
		{[]string{"-upstream", "http://admin:hunter2-secret@127.0.0.1:1"}, "PARLEY_UPSTREAM_TOKEN"},
		// QA round 23: a key in the fragment or as a path segment.
		{[]string{"-model", "m", "-model-url", "http://127.0.0.1:1/v1#sk-secret"}, "PARLEY_MODEL_URL"},
		{[]string{"-model", "m", "-model-url", "http://127.0.0.1:1/v1/sk-secretabcdefghijklmnop"}, "PARLEY_MODEL_URL"},
		// QA round 24: after a path's parameter separator, and other services' keys.
		{[]string{"-model", "m", "-model-url", "http://127.0.0.1:1/v1;sk-secretabcdefghijklmnop"}, "PARLEY_MODEL_URL"},
		{[]string{"-model", "m", "-model-url", "http://127.0.0.1:1/v1;key=AIzaSyA-secretabcdefghijklmnopqrstuv"}, "PARLEY_MODEL_URL"},
		{[]string{"-model", "m", "-model-url", "http://127.0.0.1:1/hf_secretabcdefghijklmnop/v1"}, "PARLEY_MODEL_URL"},
		{[]string{"-model", "m", "-model-url", "http://127.0.0.1:1/openai/gsk_secretabcdefghijklmnop/v1"}, "PARLEY_MODEL_URL"},
	} {
		_, err := parseConfig(c.args, getenv, io.Discard)
		require.ErrorContains(t, err, c.says, c.args)
		require.ErrorContains(t, err, "shows in ps", c.args)
		require.NotContains(t, err.Error(), "secret@", "the secret is hidden: %v", err)
		require.NotContains(t, err.Error(), "secretabc", "the secret is hidden: %v", err)
		require.NotContains(t, err.Error(), "sk-secret", "the secret is hidden: %v", err)
	}
	// From the environment, and without secrets, they are taken.
	cfg, err := parseConfig(nil, func(k string) string {
		return map[string]string{"PARLEY_MODEL_URL": "http://u:sk-secret@127.0.0.1:1/v1", "PARLEY_MODEL": "m"}[k]
	}, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "http://u:sk-secret@127.0.0.1:1/v1", cfg.Model.URL)
	_, err = parseConfig([]string{"-model", "m", "-model-url", "https://example.test/v1?api-version=2024-06-01"}, getenv, io.Discard)
	require.NoError(t, err, "a query with nothing secret in it")
	_, err = parseConfig([]string{"-model", "m", "-model-url", "https://example.test/openai/deployments/sk-short/v1"}, getenv, io.Discard)
	require.NoError(t, err, "a path segment too short to be a key")
}

// TestTheWebFolderIsFoundBesideTheBinary: run from another folder, the binary finds the
// page's files beside its own folder (bin/parley's ../web), as a service runs it.
func TestTheWebFolderIsFoundBesideTheBinary(t *testing.T) {
	tree := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "web"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "web", "app.wasm"), []byte("\x00asm"), 0o644))
	exe := func() (string, error) { return filepath.Join(tree, "bin", "parley"), nil }

	t.Chdir(t.TempDir()) // elsewhere, with no web/ of its own
	require.Equal(t, filepath.Join(tree, "web"), webFolder(exe))
	require.Equal(t, "web", webFolder(func() (string, error) { return "/nowhere/parley", nil }), "not found: the error names web/")
	t.Chdir(tree) // where make run runs it
	require.Equal(t, "web", webFolder(exe))
}

func TestConfigFlagsAndEnvironment(t *testing.T) {
	env := map[string]string{"PARLEY_ADDR": "127.0.0.1:9999", "PARLEY_DATA": "/tmp/d", "PARLEY_NATS": "nats://x:4222", "PARLEY_TOKEN": "t", "PARLEY_DECISION_TIMEOUT": "1h"}
	getenv := func(k string) string { return env[k] }
	c, err := parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	cwd, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, config{Addr: "127.0.0.1:9999", Data: "/tmp/d", NATS: "nats://x:4222", Workspaces: []string{cwd}, Token: "t", DecisionTimeout: time.Hour, ScriptMemory: 256 << 20, Web: "web",
		Model: model.Config{Window: defaultModelWindow}, Notify: notifyConfig{Grace: time.Second, PushSubject: "mailto:parley@localhost"}}, c,
		"the current directory is the one workspace")

	ws := t.TempDir()
	c, err = parseConfig([]string{"-addr", ":1", "-workspace", ws}, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, ":1", c.Addr, "a flag beats its environment twin")
	require.Equal(t, []string{ws}, c.Workspaces)

	c, err = parseConfig(nil, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8080", c.Addr, "localhost by default")
	require.Equal(t, []string{cwd}, c.Workspaces)
	require.Equal(t, 10*time.Minute, c.DecisionTimeout)

	for _, bad := range []string{"soon", "0s", "48h"} {
		_, err = parseConfig([]string{"-decision-timeout", bad}, getenv, io.Discard)
		require.ErrorContains(t, err, "between 1s and 24h", bad)
	}

	_, err = parseConfig([]string{"stray"}, getenv, io.Discard)
	require.ErrorContains(t, err, "unexpected argument")

	// The access token: never a flag's value (flags show in ps); a file beats PARLEY_TOKEN.
	_, err = parseConfig([]string{"-token", "x"}, getenv, io.Discard)
	require.Error(t, err, "there is no flag that takes the token's value")
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("from-file\n"), 0o600))
	c, err = parseConfig([]string{"-token-file", tokenFile}, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "from-file", c.Token)
	require.NoError(t, os.WriteFile(tokenFile, []byte("  \n"), 0o600))
	_, err = parseConfig([]string{"-token-file", tokenFile}, getenv, io.Discard)
	require.ErrorContains(t, err, "is empty")
	_, err = parseConfig([]string{"-token-file", tokenFile + ".missing"}, getenv, io.Discard)
	require.ErrorContains(t, err, "token file")

	env["PARLEY_SCRIPT_MEMORY"] = "1GiB"
	c, err = parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, int64(1<<30), c.ScriptMemory)
	c, err = parseConfig([]string{"-script-memory", "512M"}, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, int64(512<<20), c.ScriptMemory, "a flag beats its environment twin")
	for _, bad := range []string{"256", "lots", "1MiB", "64MiB", "2TiB", "9999999999999GiB"} {
		_, err = parseConfig([]string{"-script-memory", bad}, getenv, io.Discard)
		require.ErrorContains(t, err, "between 128MiB and 1TiB", bad)
	}
}

func TestConfigTakesSeveralWorkspaces(t *testing.T) {
	one, two, three := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"PARLEY_WORKSPACE": one + string(filepath.ListSeparator) + two + string(filepath.ListSeparator)}
	getenv := func(k string) string { return env[k] }

	c, err := parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, []string{one, two}, c.Workspaces, "the environment's list, in order; an empty entry is skipped")

	c, err = parseConfig([]string{"-workspace", three, "-workspace", one}, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, []string{three, one}, c.Workspaces, "flags replace the environment's list")

	t.Chdir(two)
	c, err = parseConfig([]string{"-workspace", ".", "-workspace", "../" + filepath.Base(three)}, getenv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, []string{two, filepath.Join(filepath.Dir(two), filepath.Base(three))}, c.Workspaces, "made absolute")

	file := filepath.Join(one, "notes.txt")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"-workspace", one, "-workspace", filepath.Join(one, "gone")}, "workspace " + filepath.Join(one, "gone") + ": no such folder"},
		{[]string{"-workspace", file}, "not a folder"},
		{[]string{"-workspace", ""}, "empty folder"},
	} {
		_, err := parseConfig(c.args, getenv, io.Discard)
		require.ErrorContains(t, err, c.says, c.args)
	}
	env["PARLEY_WORKSPACE"] = "/no/such/parley/folder"
	_, err = parseConfig(nil, getenv, io.Discard)
	require.ErrorContains(t, err, "/no/such/parley/folder: no such folder")
}

func TestServerRefusesAFolderGivenTwice(t *testing.T) {
	ws := t.TempDir()
	err := run(context.Background(), config{Addr: "127.0.0.1:0", Data: t.TempDir(), Workspaces: []string{ws, ws + "/."}, Web: testkit.WebFolder(t)}, io.Discard)
	require.ErrorContains(t, err, "given twice")
}

func TestTokenIsKeptAcrossStarts(t *testing.T) {
	dir := t.TempDir()
	first, err := loadToken(dir, "")
	require.NoError(t, err)
	require.Len(t, first, 48)
	again, err := loadToken(dir, "")
	require.NoError(t, err)
	require.Equal(t, first, again)
	info, err := os.Stat(filepath.Join(dir, "token"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	set, err := loadToken(dir, "chosen")
	require.NoError(t, err)
	require.Equal(t, "chosen", set)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOneParleyPerDataFolder: a second start on the same data folder stops before it runs
// anything, saying which process has it; a start on a busy address starts nothing either.
func TestOneParleyPerDataFolder(t *testing.T) {
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	_, done := startRun(t, ctx, config{Addr: "127.0.0.1:0", Data: data, Workspaces: []string{t.TempDir()}, Web: testkit.WebFolder(t), DecisionTimeout: time.Minute}, testkit.Wait)

	// Were it to start, it would serve until this context ends, and return no error.
	second, stopSecond := context.WithTimeout(context.Background(), 5*time.Second)
	defer stopSecond()
	err := run(second, config{Addr: "127.0.0.1:0", Data: data, Workspaces: []string{t.TempDir()}, Web: testkit.WebFolder(t)}, io.Discard)
	require.Error(t, err)
	require.Contains(t, err.Error(), "is in use by process "+strconv.Itoa(os.Getpid()))
	require.Contains(t, err.Error(), "another -data")

	cancel()
	require.NoError(t, <-done)

	// Released at exit: the next start gets it. But not on an address that is taken.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	fresh := t.TempDir()
	err = run(context.Background(), config{Addr: taken.Addr().String(), Data: fresh, Workspaces: []string{t.TempDir()}, Web: testkit.WebFolder(t)}, io.Discard)
	require.ErrorContains(t, err, "listen")
	entries, _ := os.ReadDir(fresh)
	require.Empty(t, entries, "the data folder was not touched")
}

// startRun runs the server as the binary does until ctx ends, and waits up to within for
// the link it prints when it is ready; done gives what run returned.
func startRun(t *testing.T, ctx context.Context, cfg config, within time.Duration) (link *url.URL, done <-chan error) {
	t.Helper()
	out := &syncBuffer{}
	ended := make(chan error, 1)
	go func() { ended <- run(ctx, cfg, out) }()
	return printedLink(t, out, within), ended
}

// printedLink waits for the link the server prints when it is ready, as a person reads it
// off the terminal.
func printedLink(t *testing.T, out fmt.Stringer, within time.Duration) *url.URL {
	t.Helper()
	var link string
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(out.String(), "\n") {
			if i := strings.Index(line, "http://"); i >= 0 {
				link = strings.TrimSpace(line[i:])
				return true
			}
		}
		return false
	}, within, 10*time.Millisecond, "the server printed no link: %s", out)
	u, err := url.Parse(link)
	require.NoError(t, err)
	return u
}
