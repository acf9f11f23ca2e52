package mcp

import "syscall"

// setDeathSignal has a stdio server killed when the thread that started it ends: when
// Parley dies, even by SIGKILL.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
