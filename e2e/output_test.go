package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"parley/internal/testkit"
)

// TestAgentCommandOutputShowsWhileItRuns: an approved command's output appears on its
// receipt while the command still runs (it waits for a file the test writes only after
// seeing the output), then the result takes its place.
func TestAgentCommandOutputShowsWhileItRuns(t *testing.T) {
	t.Parallel()
	release := filepath.Join(t.TempDir(), "release")
	script := `echo "step one done"; echo "a warning" >&2; while [ ! -e "$1" ]; do sleep 0.05; done; echo "step two done"`
	fake, ctx := promptModel(t, "run the steps", testkit.Calls(runCommand("call_0", "sh", "-c", script, "sh", release)), testkit.Text("Both steps ran."))
	approve(t, ctx, "Approve")
	do(t, ctx, 30*time.Second, waitJS(`(() => {
		const o = document.querySelector('.thread .entry-tool.status-running .tool-output');
		return !!o && o.textContent.includes('step one done') && o.textContent.includes('stderr: a warning');
	})()`))
	assert.Equal(t, "log", evalString(t, ctx, `document.querySelector('.thread .entry-tool .tool-output').getAttribute('role')`))
	assert.NotContains(t, evalString(t, ctx, `document.querySelector('.thread .entry-tool .tool-output').textContent`), "step two done", "the command has not finished")
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('.thread .entry-tool .tool-result')`), "no result yet")
	assert.Len(t, fake.Requests(), 1, "the model has not read the result yet")

	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ctx, "Both steps ran.")
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.thread .entry-tool .tool-result').textContent`), "step two done")
	assert.False(t, evalBool(t, ctx, `!!document.querySelector('.thread .entry-tool .tool-output')`), "the result replaced the output so far")
	reqs := fake.Requests()
	if assert.Len(t, reqs, 2) {
		assert.Equal(t, []string{"call_0: exit status 0\nstdout:\nstep one done\nstep two done\nstderr:\na warning"}, testkit.ToolTexts(reqs[1]))
	}
}
