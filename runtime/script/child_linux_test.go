package script

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperChildServer names the workspace of the server TestChildDiesWithTheServer starts.
const helperChildServer = "PARLEY_SCRIPT_TEST_CHILD_SERVER"

// TestHelperChildServer is not a test: it is the server TestChildDiesWithTheServer kills. Its
// script computes forever.
func TestHelperChildServer(t *testing.T) {
	ws := os.Getenv(helperChildServer)
	if ws == "" {
		return
	}
	h, err := NewHost(ws, Limits{Steps: 1 << 62, Wall: time.Hour})
	if err != nil {
		os.Exit(2)
	}
	h.Exec(context.Background(), "script", "while True:\n    pass\n", nil, &fakeCaps{})
	os.Exit(0)
}

// A server killed outright takes its script children with it.
func TestChildDiesWithTheServer(t *testing.T) {
	requireChild(t)
	server := exec.Command(os.Args[0], "-test.run=^TestHelperChildServer$")
	server.Env = append(os.Environ(), helperChildServer+"="+t.TempDir())
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer server.Process.Kill()
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the script's child did not start")
		}
		child = childOf(server.Process.Pid)
	}
	server.Process.Signal(syscall.SIGKILL)
	server.Wait()
	for deadline := time.Now().Add(3 * time.Second); alive(child); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("script child %d outlived the server", child)
		}
	}
}

// childOf returns the pid of a script child of process ppid, or 0.
func childOf(ppid int) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(ppid) {
			continue
		}
		if cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline")); bytes.Contains(cmdline, []byte(childArg)) {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			return pid
		}
	}
	return 0
}

// alive reports whether pid runs: not gone, nor a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
