package script

// GuardGroup starts the watchdog of the process group pgid (see guardScript): should the
// server die, even by SIGKILL, the watchdog kills the whole group, which a death signal
// (Pdeathsig) cannot: that reaches the direct child alone, not what it started (npx starting
// node). release stands the watchdog down once the caller has ended the group itself. The
// MCP client (runtime/mcp) guards its stdio servers with it. Where there are no process
// groups, or no /bin/sh, it does nothing.
func GuardGroup(pgid int) (release func()) { return guardGroup(pgid) }
