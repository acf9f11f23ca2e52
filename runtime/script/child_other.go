//go:build !linux

package script

// limitAddressSpace does nothing where the address space cannot be measured: the child's
// soft memory limit (debug.SetMemoryLimit) still holds it back, and a failure stays in the
// child.
func limitAddressSpace(int64) error { return nil }

// isolates says scripts run in the server here: a child without a hard limit would only
// cost its start. Linux alone has one measured (see child_linux.go).
const isolates = false
