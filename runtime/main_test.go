package runtime

import (
	"os"
	"testing"

	"parley/runtime/script"
)

// TestMain dispatches script child mode, so the runtime's scripts run in children as the
// server's do: the test binary is the child's binary.
func TestMain(m *testing.M) {
	script.ChildMain()
	os.Exit(m.Run())
}
