package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit/mcpserver"
)

// actAsParleyEnv names the workspace a re-executed test binary serves as a stand-in for
// Parley: it connects to the workspace's MCP servers, says so in a file, and waits to be
// killed.
const actAsParleyEnv = "PARLEY_TEST_ACT_AS_PARLEY"

func actAsParley() {
	dir := os.Getenv(actAsParleyEnv)
	if dir == "" {
		return
	}
	m := New(Options{})
	s := m.Workspace(dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.WaitReady(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "stand-in Parley:", err)
		os.Exit(2)
	}
	for _, srv := range s.List().Servers {
		if srv.Status != "ready" {
			fmt.Fprintln(os.Stderr, "stand-in Parley: server", srv.Name, srv.Status, srv.Reason, srv.Stderr)
			os.Exit(2)
		}
	}
	os.WriteFile(filepath.Join(dir, "ready"), []byte("ready"), 0o644)
	time.Sleep(time.Hour)
	os.Exit(0)
}

// alive reports whether pid is a running process (a zombie waiting for a reaper that may
// never come, in a container, counts as gone).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state …: comm may hold spaces and parentheses, so read after the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// TestAGrandchildOfAStdioServerDiesWithParleyKilledBySIGKILL: a server started through a
// shell (as npx starts node) whose own child outlives a Pdeathsig of the direct child; when
// the process acting as Parley is killed with SIGKILL, nothing of the server's group is left.
func TestAGrandchildOfAStdioServerDiesWithParleyKilledBySIGKILL(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	pids := filepath.Join(t.TempDir(), "pids")
	// sh is Parley's child; it starts a sleeper and the real server (in the foreground, so
	// the server has sh's stdin and stdout) and waits for it: both are Parley's grandchildren.
	script := `sleep 600 & echo $! > "$1.tmp"; mv "$1.tmp" "$1"; "$2" -test.run='^$'`
	dir := mcpserver.Workspace(t, map[string]any{"wrapped": map[string]any{
		"command": "/bin/sh", "args": []string{"-c", script, "sh", pids, exe},
		"env": map[string]string{mcpserver.Env: "stdio"}}})

	parley := exec.Command(exe, "-test.run=^$")
	parley.Env = append(os.Environ(), actAsParleyEnv+"="+dir)
	parley.Stderr = os.Stderr
	require.NoError(t, parley.Start())
	t.Cleanup(func() { parley.Process.Kill(); parley.Wait() })

	var sleeper int
	require.Eventually(t, func() bool {
		if parley.ProcessState != nil {
			return false
		}
		b, err := os.ReadFile(pids)
		if err == nil {
			sleeper, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		_, err = os.Stat(filepath.Join(dir, "ready"))
		return err == nil && sleeper > 0
	}, 60*time.Second, 20*time.Millisecond, "the stand-in Parley connects to the wrapped server")
	t.Cleanup(func() { syscall.Kill(sleeper, syscall.SIGKILL) }) // should the test fail
	require.True(t, alive(sleeper), "the grandchild runs while Parley does")

	require.NoError(t, parley.Process.Signal(syscall.SIGKILL))
	parley.Wait()
	require.Eventually(t, func() bool { return !alive(sleeper) }, 30*time.Second, 20*time.Millisecond,
		"the server's grandchild %d is gone with Parley", sleeper)
}
