package script

import "syscall"

// setDeathSignal has the process killed when the thread that started it ends: when the
// server dies, even by SIGKILL. runProcess starts it from a locked thread, which the Go
// runtime does not retire while the server lives.
func setDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
