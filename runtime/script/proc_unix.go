//go:build unix

package script

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// setProcessGroup starts the process as the leader of a new process group, so that
// everything it starts can be killed with it, and, where the system can, has it killed when
// the server dies (see setDeathSignal).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup kills the process's whole group. The group id is the leader's pid, which stays
// reserved while any member of the group lives.
func killGroup(p *os.Process) error {
	if p == nil {
		return os.ErrProcessDone
	}
	return syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// guardScript is the watchdog of one process group: it waits for a line on stdin, which the
// server writes when the group is done with, and kills the group when stdin ends without
// one: the server died (even by SIGKILL, which nothing in the server can act on). It is the
// only way to reach what the group's leader started: a death signal reaches the leader
// alone. It ignores the signals a terminal sends the server's group.
const guardScript = `trap '' HUP INT QUIT; read _ || kill -s KILL -- "-$1"`

// guardGroup starts the watchdog of the group pgid and returns what stands it down once the
// group is gone. The watchdog is best effort: without /bin/sh there is none.
func guardGroup(pgid int) (release func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	cmd := exec.Command("/bin/sh", "-c", guardScript, "parley-guard", strconv.Itoa(pgid))
	cmd.Stdin = r
	cmd.Env = []string{}
	cmd.Dir = "/"
	// Its own group: neither killed with the one it guards nor by a terminal's ^C.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return func() {}
	}
	return func() {
		io.WriteString(w, "done\n")
		w.Close()
		cmd.Wait()
	}
}
