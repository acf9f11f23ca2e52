//go:build !linux

package mcp

import "syscall"

func setDeathSignal(*syscall.SysProcAttr) {}
