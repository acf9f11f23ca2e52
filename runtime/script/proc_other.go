//go:build !unix

package script

import (
	"os"
	"os/exec"
)

// setProcessGroup does nothing where there are no process groups.
func setProcessGroup(*exec.Cmd) {}

// killGroup kills the process alone where there are no process groups.
func killGroup(p *os.Process) error {
	if p == nil {
		return os.ErrProcessDone
	}
	return p.Kill()
}

// guardGroup does nothing where there are no process groups.
func guardGroup(int) (release func()) { return func() {} }
