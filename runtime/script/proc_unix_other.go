//go:build unix && !linux

package script

import "syscall"

// setDeathSignal does nothing where there is no parent-death signal: the group's watchdog
// (guardGroup) still kills it when the server dies.
func setDeathSignal(*syscall.SysProcAttr) {}
