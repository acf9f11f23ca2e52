package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/app/api"
	"parley/protocol"
)

// startEdge runs a second parley process as an edge of upstream: its own data folder (its
// own token), the runtime's token in PARLEY_UPSTREAM_TOKEN.
func startEdge(t testing.TB, upstream *server) *server {
	t.Helper()
	data := t.TempDir()
	return launchEnv(t, repoRoot, data, "127.0.0.1:0", []string{data}, []string{"PARLEY_UPSTREAM_TOKEN=" + upstream.token},
		"-upstream", upstream.base())
}

// TestChatThroughAnEdge: the page served by an edge (`-upstream`) in front of a runtime,
// two real processes. A prompt and its reply, a reload, then the runtime killed and started
// again: the page says it is reconnecting, in the edge's words, and catches up with what
// happened meanwhile, with no gap and no duplicate.
func TestChatThroughAnEdge(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	rt := startServer(t, data, "127.0.0.1:0")
	edge := startEdge(t, rt)
	require.NotEqual(t, rt.token, edge.token, "the edge has a token of its own")
	ctx := browser(t)

	do(t, ctx, 60*time.Second, chromedp.Navigate(edge.link), waitReady())
	do(t, ctx, 10*time.Second, typeText("hello through the edge"), pressEnter(0))
	msgs := waitMessages(t, ctx, 2)
	require.Len(t, msgs, 2)
	require.Equal(t, "hello through the edge", msgs[0].Text)
	require.Contains(t, msgs[1].Text, "No model is configured")
	loc := get(t, ctx, chromedp.Location())
	require.Contains(t, loc, "/s/")
	session := loc[strings.LastIndex(loc, "/s/")+3:]

	// The page never holds the runtime's token: not in its cookies, not in its markup.
	cookies := evalString(t, ctx, `document.cookie + document.documentElement.outerHTML`)
	require.NotContains(t, cookies, rt.token)

	assertReloadShows(t, ctx, msgs)

	// The runtime dies hard; the edge stays up and the page says what is wrong.
	rt.kill()
	do(t, ctx, 30*time.Second, waitJS(`!!document.querySelector('.link-reconnecting') &&
		document.querySelector('.link-reconnecting').innerText.includes('runtime behind this server is not reachable')`))
	require.Contains(t, get(t, ctx, chromedp.Text(chromedp.CSS(`.link-reconnecting`))), "Reconnecting")

	// It comes back on its address with its data; a prompt arrives from a script before the
	// page is back, and the page catches up on it.
	rt = startServer(t, data, rt.addr)
	c := apiClient(rt)
	_, err := c.SendPrompt(context.Background(), session, protocol.SendPromptRequest{Text: "while the page was away", AttemptID: api.NewAttemptID()})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, retryNow(), waitJS(`!document.querySelector('.link-reconnecting')`))
	all := waitMessages(t, ctx, 4)
	require.Len(t, all, 4)
	require.Equal(t, msgs, all[:2])
	require.Equal(t, "while the page was away", all[2].Text)
	require.Equal(t, "agent", all[3].Role)
	do(t, ctx, 10*time.Second, typeText("after the restart"), pressEnter(0))
	all = waitMessages(t, ctx, 6)
	require.Len(t, all, 6)
	require.Equal(t, "after the restart", all[4].Text)
	assertOnce(t, all)

	// A fresh load through the edge replays every event once.
	assertReloadShows(t, ctx, all)
}
