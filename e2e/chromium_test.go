package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheSharedChromiumDyingFailsLoudly: the browser tests share a browser (browser(t)).
// When it dies, a test using it fails at once with the process's exit, rather than waiting
// out its timeouts, and the next browser(t) starts another. Not parallel: it kills the
// Chromium the other tests share, and only runs while no parallel test does.
func TestTheSharedChromiumDyingFailsLoudly(t *testing.T) {
	srv, ctx := openHome(t)
	proc := chromedp.FromContext(ctx).Browser.Process()
	require.NotNil(t, proc)
	require.NoError(t, proc.Kill())

	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	start := time.Now()
	err := chromedp.Do(tctx, waitJS(`false`))
	require.Error(t, err)
	assert.False(t, errors.Is(err, context.DeadlineExceeded), "the wait ran out instead of failing: %v", err)
	assert.Contains(t, err.Error(), "killed", "the error names the process's end")
	t.Logf("failed after %v: %v", time.Since(start).Round(time.Millisecond), err)

	again := browser(t)
	do(t, again, 60*time.Second, chromedp.Navigate(srv.link), waitReady())
	assert.NotEqual(t, proc.Pid, chromedp.FromContext(again).Browser.Process().Pid, "another Chromium")
}
