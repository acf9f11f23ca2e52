package script

import (
	"os"
	"testing"
)

// TestMain dispatches child mode, so the tests run their scripts in children, as the server
// does: the test binary is the child's binary.
func TestMain(m *testing.M) {
	ChildMain()
	os.Exit(m.Run())
}
