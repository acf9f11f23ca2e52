package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime"
	"parley/runtime/eventlog"
)

// startOnLog starts a server on a new data folder that seedLog filled with a session of n
// prompts, and returns it and the session's id.
func startOnLog(t testing.TB, n int) (*server, string) {
	t.Helper()
	data := t.TempDir()
	id := seedLog(t, data, n)
	return startServer(t, data, "127.0.0.1:0"), id
}

// seedLog makes a data folder (for startServer on data) holding one session of n prompts,
// each answered, written straight into the event log as the runtime writes a turn (the
// prompt on its own subject, turn.started, the reply, turn.ended), so a long session takes
// seconds to make, not the agent's pace. Prompt i says "long prompt i", its reply "reply i".
func seedLog(t testing.TB, data string, n int) string {
	t.Helper()
	emb, err := runtime.StartEmbedded(data)
	require.NoError(t, err)
	defer emb.Close()
	return seedLogOn(t, emb.Conn, data, n)
}

// seedLogOn is seedLog on the JetStream conn reaches (the embedded one, or a cluster that
// servers then join with -nats), for the data folder's workspace.
func seedLogOn(t testing.TB, conn *nats.Conn, data string, n int) string {
	t.Helper()
	workspace := data + "-workspace"
	require.NoError(t, os.MkdirAll(workspace, 0o755))
	ctx := context.Background()
	rt, err := runtime.New(ctx, conn, runtime.Options{Workspaces: []string{workspace}, Exclusive: true})
	require.NoError(t, err)
	info, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "long"})
	require.NoError(t, err)
	rt.Close() // no runner may answer the prompts written below
	log, err := eventlog.Open(ctx, conn, eventlog.Config{})
	require.NoError(t, err)
	var turn uint64
	for i := range n {
		attempt := "seed-" + strconv.Itoa(i)
		off, _, err := log.PublishAfter(ctx, eventlog.PromptSubject(info.ID, attempt), 0, protocol.EventUserMessage,
			protocol.Message{Text: fmt.Sprintf("long prompt %d", i), AttemptID: attempt}, "prompt-"+info.ID+"-"+attempt)
		require.NoError(t, err)
		started, _, err := log.PublishAfter(ctx, eventlog.TurnSubject(info.ID), turn, protocol.EventTurnStarted,
			protocol.TurnStarted{Prompt: off, Kind: protocol.TurnAgent, Through: off}, "")
		require.NoError(t, err)
		_, _, err = log.Append(ctx, info.ID, protocol.EventAgentMessage, protocol.Message{Text: fmt.Sprintf("reply %d", i)}, "")
		require.NoError(t, err)
		turn, _, err = log.PublishAfter(ctx, eventlog.TurnSubject(info.ID), started, protocol.EventTurnEnded,
			protocol.TurnEnded{Prompt: off, Through: off}, "")
		require.NoError(t, err)
	}
	return info.ID
}

// scrollTop scrolls the thread to its top, as a person scrolling up does (the thread is laid
// out bottom up, so its top is the most negative scrollTop).
const scrollTop = `(() => { const th = document.querySelector('.thread'); th.scrollTop = -th.scrollHeight; th.dispatchEvent(new Event('scroll')); return true })()`

// TestLongSessionOpensOnItsNewestWindow: a session of 600 prompts (2,400 events) opens on its
// newest messages without its whole log, and scrolling up pages the older ones in, in order,
// each once, back to the first.
func TestLongSessionOpensOnItsNewestWindow(t *testing.T) {
	t.Parallel()
	const n = 600
	srv, id := startOnLog(t, n)
	ctx := openPage(t, srv, "/s/"+id)
	do(t, ctx, 60*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg[data-offset]')].some(e => e.innerText.includes('reply `+strconv.Itoa(n-1)+`'))`))
	first := thread(t, ctx)
	require.NotEmpty(t, first)
	require.Equal(t, "reply "+strconv.Itoa(n-1), first[len(first)-1].Text, "the newest reply is the last shown")
	require.Less(t, len(first), 2*n/4, "the page opened on a window, not the whole log")
	// The page holds the window only: with the whole log in its store, the button would
	// count the messages held beyond the mounted ones.
	require.Equal(t, "Show earlier messages", evalString(t, ctx, `document.querySelector('.thread .earlier').textContent`))

	// Scrolling up pages the rest in.
	for range 60 {
		shown := len(thread(t, ctx))
		if shown == 2*n {
			break
		}
		get(t, ctx, chromedp.Evaluate[bool](scrollTop))
		do(t, ctx, 30*time.Second, waitJS(`document.querySelectorAll('.thread .msg[data-offset]').length > `+strconv.Itoa(shown)))
	}
	all := thread(t, ctx)
	require.Len(t, all, 2*n, "every message once")
	for i, m := range all {
		want := fmt.Sprintf("long prompt %d", i/2)
		if i%2 == 1 {
			want = fmt.Sprintf("reply %d", i/2)
		}
		require.Equal(t, want, m.Text, "message %d: in order, no gap, no duplicate", i)
	}
	assertOnce(t, all)
	require.False(t, evalBool(t, ctx, `!!document.querySelector('.thread .earlier')`), "nothing more to show")

	// What happens now still arrives: the window's end is the live log.
	do(t, ctx, 10*time.Second, typeText("after the history"), pressEnter(0))
	more := waitMessages(t, ctx, 2*n+2)
	require.Equal(t, "after the history", more[2*n].Text)
}

// TestShowEarlierKeepsTheFocus: "Show earlier messages" pressed from the keyboard leaves the
// focus on the first message it revealed, not on the page's body.
func TestShowEarlierKeepsTheFocus(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := seedSession(t, srv, "long", 30) // 60 entries: more than the newest window holds
	ctx := openPage(t, srv, "/s/"+id)
	do(t, ctx, 60*time.Second, waitCaughtUp(), waitJS(`!!document.querySelector('.thread .earlier')`))
	before := int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread-inner .msg').length`)))
	do(t, ctx, 20*time.Second, js(`document.querySelector('.thread .earlier').focus()`), pressEnter(0),
		waitJS(`document.querySelectorAll('.thread-inner .msg').length > `+itoa(before)),
		waitJS(`document.activeElement.classList.contains('msg')`))
	require.Equal(t, "long prompt 0", evalString(t, ctx, `document.activeElement.querySelector('.msg-text').textContent`),
		"the focus is on the first message revealed")
}
