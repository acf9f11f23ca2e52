package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestManyWindowsInViewLeaveRoomForASend: six Parley windows of one browser, all in view (two
// sessions, the empty page, the approvals screen, the MCP screen, a session not found), share
// the browser's six HTTP/1.1 connections to the server. Each follows its session list live,
// and a prompt sent from one is answered at once. Each page held two long polls (the list's
// and the approvals count's), so three windows held all six connections and the send waited
// in the browser's queue for a held read to end, up to 25 s; the pages' live updates come on
// their WebSocket now, which holds no HTTP connection.
func TestManyWindowsInViewLeaveRoomForASend(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	here := seedSession(t, srv, "Sent from here", 1)
	other := seedSession(t, srv, "Another", 1)
	first := browser(t)
	do(t, first, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/s/"+here), waitReady(), waitCaughtUp())
	windows := []context.Context{first}
	// Tabs of the first one's browser context: its cookie, and its pool of connections.
	for _, path := range []string{"/s/" + other, "/", "/approvals", "/mcp", "/s/aaaaaaaaaaaaaaaaaaaaaaaa"} {
		tab, cancel := chromedp.NewContext(first)
		t.Cleanup(cancel)
		// Opened with no deadline: the first run's context is the tab's life (chromedp).
		if err := chromedp.Do(tab); err != nil {
			t.Fatalf("open a tab: %v", err)
		}
		// Loading may wait for connections on a page that starves them; the send is the test.
		do(t, tab, 3*time.Minute, chromedp.Navigate(srv.base()+path), waitJS(`document.documentElement.hasAttribute('data-ready')`))
		windows = append(windows, tab)
	}
	for i, w := range windows {
		require.False(t, evalBool(t, w, `document.hidden`), "window %d is in view", i)
		waitShowing(t, w, time.Minute, `document.querySelectorAll('.sessions .session-item').length >= 2`,
			`location.pathname + ': ' + document.querySelector('.sessions')?.innerText`)
	}
	// Chromium holds back a GET for a URL another request is fetching (its cache's lock on the
	// entry) for up to 20 s, then lets it go to the server: every page's long polls asked the
	// same versions, so they took the connections only after that.
	time.Sleep(22 * time.Second)

	start := time.Now()
	do(t, first, 10*time.Second, chromedp.Click(composer), typeText("are the others in the way?"), pressEnter(0))
	waitShowing(t, first, 10*time.Second, `document.querySelectorAll('.thread .msg[data-offset]').length >= 4`,
		`'the thread shows ' + document.querySelectorAll('.thread .msg[data-offset]').length + ' messages (the prompt and its answer make 4): the send waits for a connection'`)
	took := time.Since(start)
	t.Logf("the prompt was answered in %v", took.Round(time.Millisecond))
	require.Less(t, took, 5*time.Second, "a send from one of six windows in view waited for a connection")

	// And every window follows the list: a session made elsewhere shows in each.
	made := seedSession(t, srv, "Made elsewhere", 1)
	for _, w := range windows {
		waitShowing(t, w, 5*time.Second, `!!document.querySelector('.sessions .session-item[data-session="`+made+`"]')`,
			`location.pathname + ': ' + document.querySelector('.sessions')?.innerText`)
	}
}

// TestTheLiveListComesBackAfterARestart: the page's live updates come on a socket, which the
// server's restart cuts; the page links again and follows the list (a session made after the
// restart shows), on a screen that follows no session (/approvals).
func TestTheLiveListComesBackAfterARestart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv := startServer(t, data, "127.0.0.1:0")
	seedSession(t, srv, "Before", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"), waitJS(`document.documentElement.hasAttribute('data-ready')`))
	const list = `location.pathname + ': ' + document.querySelector('.sessions')?.innerText`
	waitShowing(t, ctx, 30*time.Second, `document.querySelectorAll('.sessions .session-item').length === 1`, list)
	srv.kill()
	time.Sleep(time.Second) // the page finds the server gone
	srv = startServer(t, data, srv.addr)
	made := seedSession(t, srv, "After the restart", 1)
	waitShowing(t, ctx, 30*time.Second, `!!document.querySelector('.sessions .session-item[data-session="`+made+`"]')`, list)
}
