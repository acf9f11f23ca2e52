package script

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// addressSlack is the address space a child may use beyond what it had at start and its
// memory limit. Go maps its heap in 64 MiB arenas, so a script could hold only about
// limit-64 MiB without one arena of slack. And where a new arena cannot go at the address
// the runtime hinted (Go 1.26 places the heap at a random base, so this happens), the
// runtime reserves one arena more than it needs to align it, for a moment: a second arena
// of slack. With one only, a 200 MiB string under the 256 MiB limit died about one run in
// two (see TestMemoryLimitAllowsWhatFits).
const addressSlack = 128 << 20

// limitAddressSpace caps the process's address space (RLIMIT_AS) at what it uses now plus
// limit. What it uses now is mostly the Go runtime's reservations: measured here (Go 1.26,
// linux/amd64) a child starts at about 5.5 GiB of address space but 6 to 15 MiB resident, so
// no fixed RLIMIT_AS would do; counted from where the child starts, the limit is what the
// script itself may take.
func limitAddressSpace(limit int64) error {
	base, err := addressSpace()
	if err != nil {
		return err
	}
	max := base + uint64(limit) + addressSlack
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: max, Max: max})
}

// addressSpace is the process's VmSize, in bytes.
func addressSpace() (uint64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 2 && string(f[1]) == "kB" {
				kb, err := strconv.ParseUint(string(f[0]), 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, fmt.Errorf("no VmSize in /proc/self/status")
}

// isolates says scripts run in children here.
const isolates = true
