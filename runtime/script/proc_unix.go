//go:build unix

package script

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the process as the leader of a new process group, so that
// everything it starts can be killed with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process's whole group. The group id is the leader's pid, which stays
// reserved while any member of the group lives.
func killGroup(p *os.Process) error {
	if p == nil {
		return os.ErrProcessDone
	}
	return syscall.Kill(-p.Pid, syscall.SIGKILL)
}
