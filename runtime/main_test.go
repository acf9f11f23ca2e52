package runtime

import (
	"os"
	"testing"

	"parley/internal/testkit/mcpserver"
	"parley/runtime/script"
)

// TestMain dispatches the two child modes this test binary is re-executed in: script child
// mode, so the runtime's scripts run in children as the server's do, and the kill test's
// runtime (kill_test.go).
func TestMain(m *testing.M) {
	script.ChildMain()
	mcpserver.Main()
	if dir := os.Getenv(killChildEnv); dir != "" {
		serveKillChild(dir)
		return
	}
	os.Exit(m.Run())
}
