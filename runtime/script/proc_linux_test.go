package script

import (
	"bufio"
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

// helperWorkspace names the workspace of the server TestRunDiesWithTheServer starts.
const helperWorkspace = "PARLEY_SCRIPT_TEST_SERVER_WORKSPACE"

// TestHelperServer is not a test: it is the server TestRunDiesWithTheServer starts and
// kills, the test binary run again. It runs a script whose process prints its pid (which is
// its group's) and sleeps.
func TestHelperServer(t *testing.T) {
	ws := os.Getenv(helperWorkspace)
	if ws == "" {
		return
	}
	h, err := NewHost(ws, Limits{})
	if err != nil {
		os.Exit(2)
	}
	h.Exec(context.Background(), "script", `run(["sh", "-c", "echo $$; sleep 30; touch marker"])`, nil, &stdoutCaps{})
	os.Exit(0)
}

// stdoutCaps allows everything and writes a process's output to stdout.
type stdoutCaps struct{ fakeCaps }

func (*stdoutCaps) Output(_ string, _ []string, text string) { os.Stdout.WriteString(text) }

// A server killed outright (SIGKILL, nothing of it runs) takes the processes its scripts
// started with it: the leader and what it started in its group.
func TestRunDiesWithTheServer(t *testing.T) {
	ws := t.TempDir()
	server := exec.Command(os.Args[0], "-test.run=^TestHelperServer$")
	// Its temporary directory is the test's: a server killed outright leaves its process's
	// home behind.
	server.Env = append(os.Environ(), helperWorkspace+"="+ws, "TMPDIR="+t.TempDir())
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer server.Process.Kill()

	pids := make(chan int, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		pid, _ := strconv.Atoi(strings.TrimSpace(line))
		pids <- pid
	}()
	var pgid int
	select {
	case pgid = <-pids:
	case <-time.After(10 * time.Second):
		t.Fatal("the script's process did not start")
	}
	if pgid <= 0 {
		t.Fatal("no pid from the script's process")
	}
	defer syscall.Kill(-pgid, syscall.SIGKILL) // whatever happens, nothing is left sleeping
	if !groupAlive(pgid) {
		t.Fatalf("process group %d is not running", pgid)
	}

	server.Process.Signal(syscall.SIGKILL)
	server.Wait()
	deadline := time.Now().Add(3 * time.Second)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d outlived the server", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(ws, "marker")); err == nil {
		t.Error("the script's process ran to its end")
	}
}

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

// groupAlive reports whether a process of group pgid is alive: not gone, nor a zombie
// nobody has reaped (an orphan's reaper may be slow, or, in a container, absent).
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		if f := stat(dir); len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}

// childOf returns the pid of a script child of process ppid, or 0.
func childOf(ppid int) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		if f := stat(dir); len(f) < 2 || f[1] != strconv.Itoa(ppid) {
			continue
		}
		if cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline")); strings.Contains(string(cmdline), childArg) {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			return pid
		}
	}
	return 0
}

// alive reports whether pid runs: not gone, nor a zombie.
func alive(pid int) bool {
	f := stat("/proc/" + strconv.Itoa(pid))
	return len(f) > 0 && f[0] != "Z"
}

// stat returns the fields of the /proc/<pid>/stat in dir after the command's name (state,
// ppid, pgrp, …), or nil when the process is gone. The name may hold anything, so the split
// starts after its closing ')'.
func stat(dir string) []string {
	raw, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return nil
	}
	s := string(raw)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}
