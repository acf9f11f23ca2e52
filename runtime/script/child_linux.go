package script

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
)

// addressSlack is the address space a child may map beyond its heap reserve (below): the
// runtime's metadata and what else it maps as it runs, never a script's data.
const addressSlack = 32 << 20

// limitAddressSpace caps the process's address space (RLIMIT_AS) at what it uses once its
// heap is reserved for limit bytes, plus addressSlack. What a Go process uses at start is
// mostly the runtime's reservations: measured here (Go 1.26, linux/amd64) a child starts at
// about 5.5 GiB of address space but 6 to 15 MiB resident, so no fixed RLIMIT_AS would do.
//
// The heap is reserved first, by allocating limit bytes once and freeing them: Go keeps its
// heap's address space once mapped and reuses it, so the script's data up to about limit
// fits in it, one large value included, and the cap no longer depends on where the runtime
// finds room for new heap. Counted from the start instead, it did: Go 1.26 places its heap
// at a random base, a new arena that misses its hint is reserved with one arena (64 MiB)
// more to align, and a 200 MiB string under a 256 MiB limit died about one time in two.
// The block is never written, so it costs no memory.
func limitAddressSpace(limit int64) error {
	reserveHeap(limit)
	base, err := addressSpace()
	if err != nil {
		return err
	}
	max := base + addressSlack
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: max, Max: max})
}

// reserveHeap makes the runtime map limit bytes of heap, then frees them and gives their
// pages back to the kernel: the address space stays, the memory goes.
func reserveHeap(limit int64) {
	block := make([]byte, limit)
	runtime.KeepAlive(block)
	block = nil
	debug.FreeOSMemory()
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
