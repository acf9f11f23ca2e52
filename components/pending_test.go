package components

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"parley/app/api"
	"parley/app/socket"
	"parley/protocol"
)

// fakeWatch is a /ws that takes "watch" frames: each link it accepts is handed to the test,
// which says the versions on it, and each link's end is told.
type fakeWatch struct {
	url    string
	links  chan *websocket.Conn
	closed chan struct{}
	// The reads: what GET /api/sessions and /api/approvals answer with, each read told on
	// reads ("sessions 3"); a read fails while fail holds.
	sessions, approvals atomic.Uint64
	reads               chan string
	fail                atomic.Bool
}

func newFakeWatch(t *testing.T) *fakeWatch {
	f := &fakeWatch{links: make(chan *websocket.Conn, 10), closed: make(chan struct{}, 10), reads: make(chan string, 10)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body any
		var version uint64
		switch r.URL.Path {
		case "/api/sessions":
			version = f.sessions.Load()
			body = protocol.SessionList{Version: version}
		case "/api/approvals":
			version = f.approvals.Load()
			body = protocol.ApprovalQueue{Version: version}
		}
		if body != nil {
			if f.fail.Load() {
				http.Error(w, `{"error":"no answer"}`, http.StatusServiceUnavailable)
				return
			}
			f.reads <- fmt.Sprintf("%s %d", strings.TrimPrefix(r.URL.Path, "/api/"), version)
			_ = json.NewEncoder(w).Encode(body)
			return
		}
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		if _, data, err := conn.Read(r.Context()); err != nil || !strings.Contains(string(data), `"watch"`) {
			t.Errorf("the link's first frame: %s, %v", data, err)
			return
		}
		f.links <- conn
		_, _, _ = conn.Read(context.Background()) // until the client lets go
		f.closed <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

func say(t *testing.T, conn *websocket.Conn, v protocol.Versions) {
	t.Helper()
	data, _ := json.Marshal(protocol.ServerFrame{Type: protocol.FrameVersions, Versions: &v})
	if err := conn.Write(context.Background(), websocket.MessageText, data); err != nil {
		t.Fatal(err)
	}
}

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal(what)
	}
	var zero T
	return zero
}

func none[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s: %v", what, v)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestAHiddenTabHoldsNoWatch: a hidden tab opens no watch socket until it is shown; the socket
// is let go when the tab is hidden, with no failure told, and made again once it is shown,
// when the versions come again (the page reads what moved meanwhile).
func TestAHiddenTabHoldsNoWatch(t *testing.T) {
	f := newFakeWatch(t)
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	view := newTabView(true)
	heard := make(chan protocol.Versions, 10)
	go watchInView(stop, view, &socket.Follower{
		URL:        "ws" + strings.TrimPrefix(f.url, "http"),
		OnVersions: func(v protocol.Versions) { heard <- v },
		OnState: func(s socket.State) {
			if s.Status == socket.Reconnecting {
				t.Errorf("a hidden tab's let-go link was told as a failure: %s", s.Error)
			}
		},
	})

	none(t, f.links, "a hidden tab opened a link")
	view.setHidden(false)
	link := within(t, f.links, "shown, the tab opened no link")
	say(t, link, protocol.Versions{Sessions: 3, Approvals: 7})
	if v := within(t, heard, "the versions were not heard"); v != (protocol.Versions{Sessions: 3, Approvals: 7}) {
		t.Fatalf("heard %+v", v)
	}
	view.setHidden(true)
	within(t, f.closed, "hiding the tab did not let go of its link")
	none(t, f.links, "the hidden tab linked again")
	view.setHidden(false)
	link = within(t, f.links, "shown again, it did not link")
	say(t, link, protocol.Versions{Sessions: 4, Approvals: 7})
	if v := within(t, heard, "the versions after the return were not heard"); v.Sessions != 4 {
		t.Fatalf("heard %+v", v)
	}
}

// TestTheSidebarReadsWhatMoved: the sidebar reads the list and the queue at once, then each
// only when the page's watch says its version moved; a read that fails is told and both are
// tried again; a lost watch is told, and the first versions of the next link are read whether
// they moved or not (what was said about the failure goes).
func TestTheSidebarReadsWhatMoved(t *testing.T) {
	f := newFakeWatch(t)
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.sessions.Store(1)
	f.approvals.Store(1)
	fails := make(chan error, 10)
	go followServer(stop, &api.Client{Base: f.url}, func(protocol.SessionList) {}, func(protocol.ApprovalQueue) {},
		func(err error, _ time.Duration) { fails <- err })
	read := func(want string) {
		t.Helper()
		if got := within(t, f.reads, "nothing was read, want "+want); got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
	}

	read("sessions 1")
	read("approvals 1")
	link := within(t, f.links, "no watch")
	say(t, link, protocol.Versions{Sessions: 1, Approvals: 1})
	none(t, f.reads, "read again with nothing moved")
	f.approvals.Store(2)
	say(t, link, protocol.Versions{Sessions: 1, Approvals: 2})
	read("approvals 2")
	none(t, f.reads, "the list was read when only the queue moved")
	f.sessions.Store(2)
	say(t, link, protocol.Versions{Sessions: 2, Approvals: 2})
	read("sessions 2")
	none(t, f.reads, "the queue was read when only the list moved")

	f.fail.Store(true)
	f.sessions.Store(3)
	say(t, link, protocol.Versions{Sessions: 3, Approvals: 2})
	within(t, fails, "a failed read was not told")
	f.fail.Store(false)
	read("sessions 3")
	read("approvals 2")

	_ = link.Close(websocket.StatusGoingAway, "restart")
	within(t, fails, "a lost watch was not told")
	link = within(t, f.links, "the watch did not link again")
	say(t, link, protocol.Versions{Sessions: 3, Approvals: 2})
	read("sessions 3")
	read("approvals 2")
	none(t, f.reads, "read twice")
}
