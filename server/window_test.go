package server_test

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/store"
	"parley/internal/testkit"
	"parley/internal/testkit/testserver"
	"parley/protocol"
)

// fold is what a page shows after folding events into an empty thread.
func fold(evs ...[]protocol.Event) *store.Thread {
	t := &store.Thread{}
	for _, list := range evs {
		for _, ev := range list {
			t.Apply(ev)
		}
	}
	return t
}

func offsetsOfMessages(ms []store.Message) []uint64 {
	out := make([]uint64, len(ms))
	for i, m := range ms {
		out[i] = m.Offset
	}
	return out
}

// seedLong fills a session with prompts answered one by one, a burst that queues, and a
// permissions change, and returns its whole log.
func seedLong(t *testing.T, ts *testserver.Server) (string, []protocol.Event) {
	t.Helper()
	id := createSessionHTTP(t, ts)
	ended := 0
	one := func(text string) {
		promptHTTP(t, ts, id, text)
		ended++
		testkit.WaitEvents(t, ts.Events, id, "answered", testkit.TurnsEnded(ended))
	}
	for i := range 8 {
		one(fmt.Sprintf("one by one %d", i))
	}
	resp, body := postJSON(t, ts.URL+"/api/sessions/"+id+"/permissions", protocol.SetPermissionsRequest{Mode: protocol.PermissionEdits})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() { promptHTTP(t, ts, id, fmt.Sprintf("burst %d", i)) })
	}
	wg.Wait()
	ended += 12
	testkit.WaitEvents(t, ts.Events, id, "the burst answered", testkit.TurnsEnded(ended))
	for i := range 8 {
		one(fmt.Sprintf("after the burst %d", i))
	}
	evs, err := ts.Events(t.Context(), id, 0)
	require.NoError(t, err)
	return id, evs
}

// TestWindowsFoldToTheWholeThread: the newest window, folded after its prelude, shows what
// the whole log shows at its end (the same newest entries, the same queue and controls),
// and the older windows, each folded alone and put before it, give back every entry once,
// in order.
func TestWindowsFoldToTheWholeThread(t *testing.T) {
	ts, _ := testServer(t)
	id, all := seedLong(t, ts)
	whole := fold(all)
	require.Equal(t, 56, len(whole.Messages), "28 prompts and their replies")

	for _, size := range []int{1, 5, 17} {
		t.Run("size "+strconv.Itoa(size), func(t *testing.T) {
			tail, shown := openAndPageBack(t, ts, id, size, len(all))
			assert.GreaterOrEqual(t, len(tail.Messages), size)
			n := len(tail.Messages)
			assert.Equal(t, offsetsOfMessages(whole.Messages[len(whole.Messages)-n:]), offsetsOfMessages(tail.Messages))
			assert.Equal(t, whole.Title, tail.Title)
			assert.Equal(t, whole.Working, tail.Working)
			assert.Equal(t, offsetsOfMessages(whole.Messages), offsetsOfMessages(shown), "every entry once, in order")
		})
	}
}

// subscribeTail subscribes to the session's newest window of tail entries, as the page does,
// and returns the "subscribed" frame and every event sent up to the head.
func subscribeTail(t *testing.T, ts *testserver.Server, id string, tail int) (protocol.ServerFrame, []protocol.Event) {
	t.Helper()
	conn := ts.Client(t).Dial(nil)
	testkit.WriteFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: id, Tail: tail, Batch: true})
	sub := testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameSubscribed, sub.Type, "%+v", sub)
	require.NotNil(t, sub.Window)
	var got []protocol.Event
	for len(got) == 0 || got[len(got)-1].Offset < sub.Head {
		f := testkit.ReadFrame(t, conn)
		require.Contains(t, []protocol.FrameType{protocol.FrameEvent, protocol.FrameEvents}, f.Type, "%+v", f)
		if f.Event != nil {
			f.Events = append(f.Events, *f.Event)
		}
		got = append(got, f.Events...)
	}
	return sub, got
}

// openAndPageBack opens the session's newest window of size entries on a socket, as the page
// does, and pages back to its start over HTTP. It returns the newest window's fold and every
// message the pages showed, oldest first.
func openAndPageBack(t *testing.T, ts *testserver.Server, id string, size, logLength int) (*store.Thread, []store.Message) {
	t.Helper()
	sub, got := subscribeTail(t, ts, id, size)
	require.True(t, sub.Window.Older, "a long session opens on a window")
	for i := 1; i < len(got); i++ {
		require.Less(t, got[i-1].Offset, got[i].Offset, "in log order, once")
	}
	assert.Less(t, len(got), logLength, "the window is not the whole log")
	tail := fold(got)

	before, shown := sub.Window.From, tail.Messages
	for pages := 0; ; pages++ {
		require.Less(t, pages, 200)
		resp, body := ts.Client(t).Get("/api/sessions/" + id + "/window?before=" + itoa(before) + "&size=" + strconv.Itoa(size))
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		page := testkit.DecodeAs[protocol.WindowPage](t, body)
		if len(page.Events) == 0 {
			assert.False(t, page.Window.Older)
			break
		}
		for _, ev := range page.Events {
			require.GreaterOrEqual(t, ev.Offset, page.Window.From)
			require.Less(t, ev.Offset, before)
		}
		older := fold(page.Prelude, page.Events)
		shown = append(append([]store.Message{}, older.Messages...), shown...)
		if !page.Window.Older {
			break
		}
		before = page.Window.From
	}
	return tail, shown
}

func textsOf(ms []store.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

// TestAWithdrawnOrEditedPromptStaysSoInEveryWindow: a queued prompt taken back never shows
// as waiting in a later window (a ghost the person could not remove), and one edited while
// it waited shows its new text wherever it is folded.
func TestAWithdrawnOrEditedPromptStaysSoInEveryWindow(t *testing.T) {
	ts, id := testSession(t)
	for i := range 3 {
		promptHTTP(t, ts, id, fmt.Sprintf("earlier %d", i))
		testkit.WaitEvents(t, ts.Events, id, "answered", testkit.TurnsEnded(i+1))
	}
	promptHTTP(t, ts, id, "/script confirm('Keep going?')")
	d := waitDecisions(t, ts, id, 1)[0]
	promptHTTP(t, ts, id, "first queued")
	second := promptHTTP(t, ts, id, "second queued")
	third := promptHTTP(t, ts, id, "third")
	resp, body := postJSON(t, ts.URL+"/api/sessions/"+id+"/prompts/"+itoa(second)+"/edit", protocol.EditPromptRequest{Text: "second queued (edited)"})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	resp, body = request(t, http.MethodPost, ts.URL+"/api/sessions/"+id+"/prompts/"+itoa(third)+"/withdraw", testToken, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	replyHTTP(t, ts, id, d.ID, `{"action":"accept","content":true}`)
	ended := 6
	testkit.WaitEvents(t, ts.Events, id, "the queue ran", testkit.TurnsEnded(ended))
	for i := range 10 {
		promptHTTP(t, ts, id, fmt.Sprintf("later %d", i))
		ended++
		testkit.WaitEvents(t, ts.Events, id, "answered", testkit.TurnsEnded(ended))
	}
	all, err := ts.Events(t.Context(), id, 0)
	require.NoError(t, err)
	whole := fold(all)
	require.Empty(t, whole.Queued)
	require.Contains(t, textsOf(whole.Messages), "second queued (edited)")

	for _, size := range []int{1, 4, 9} {
		t.Run("size "+strconv.Itoa(size), func(t *testing.T) {
			tail, shown := openAndPageBack(t, ts, id, size, len(all))
			assert.Empty(t, tail.Queued, "nothing waits: the withdrawn prompt is not a ghost")
			assert.Equal(t, whole.Working, tail.Working)
			assert.Equal(t, textsOf(whole.Messages), textsOf(shown), "every entry once, with the edited text")
		})
	}
}

// TestWindowOfAShortSessionIsTheWholeLog: a session with fewer entries than asked replays
// from the start, as without a tail.
func TestWindowOfAShortSessionIsTheWholeLog(t *testing.T) {
	ts, id := testSession(t)
	promptHTTP(t, ts, id, "hello")
	testkit.WaitEvents(t, ts.Events, id, "answered", testkit.TurnsEnded(1))
	conn := ts.Client(t).Dial(nil)
	testkit.WriteFrame(t, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: id, Tail: 100})
	sub := testkit.ReadFrame(t, conn)
	require.Equal(t, protocol.FrameSubscribed, sub.Type)
	require.NotNil(t, sub.Window)
	assert.Zero(t, *sub.Window)
	f := testkit.ReadFrame(t, conn)
	require.NotNil(t, f.Event)
	assert.Equal(t, protocol.EventSessionCreated, f.Event.Type)

	resp, body := ts.Client(t).Get("/api/sessions/" + id + "/window?before=12345")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	assert.Equal(t, "bad_before", testkit.ErrorOf(t, body).Code)
}
