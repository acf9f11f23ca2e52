// Package socket follows one session's events over /ws, in the browser and natively alike:
// it subscribes after the last offset it has seen, and on any failure reconnects with
// backoff and resubscribes from there, so its caller sees every event once, in order. A
// follower of no session watches the server's versions instead (OnVersions).
package socket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/coder/websocket"

	"parley/protocol"
)

// Status is the state of the link, for the person to see.
type Status int

// The statuses of a Follower.
const (
	Connecting   Status = iota // dialing for the first time
	Live                       // subscribed: stored events replayed, live ones flowing
	Reconnecting               // the link broke; waiting before the next attempt
	Failed                     // the server refused the subscription; retrying will not help
)

var statusNames = [...]string{"connecting", "live", "reconnecting", "failed"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// State is reported on every change of the link.
type State struct {
	Status  Status
	Attempt int           // failed attempts in a row
	Retry   time.Duration // the wait before the next attempt, while Reconnecting
	Error   string        // why the last attempt failed, in words
	// CaughtUp says the replay of the stored events is over: what arrives now happens now.
	CaughtUp bool
}

// Follower follows one session.
type Follower struct {
	URL     string // ws:// or wss:// address of /ws
	Session string
	After   uint64     // the last offset already seen
	Header  httpHeader // an http.Header, sent when dialing natively; a browser sends the cookie instead

	OnEvent func(protocol.Event) // called in order, once per event
	// OnEvents, when set, is called instead of OnEvent with the new events of each frame,
	// in order: a replay is folded a batch at a time, not an event at a time.
	OnEvents func([]protocol.Event)
	// Tail, on the first subscribe (After 0), asks for the newest window of the session
	// holding at least this many entries instead of its whole log; OnWindow gets where it
	// starts (protocol.Window).
	Tail     int
	OnWindow func(protocol.Window)
	// OnDelta gets the live pieces of a streaming message (not events: no offset, never
	// stored). They may repeat what the drafts hold; protocol.Delta.Fold drops that.
	OnDelta func(protocol.Delta)
	OnState func(State)
	// OnVersions, with no Session, gets the session list's and the approvals queue's versions
	// ("watch"): at once on each link, then each time one moves. A page reads its list or
	// queue again when the one it holds moved; a socket takes none of the six connections a
	// browser keeps to a server over HTTP/1.1, where a held request (a long poll) took one.
	OnVersions func(protocol.Versions)

	retryNow chan struct{}
}

// Backoff is the wait after n failed attempts in a row: 250 ms doubling to at most 5 s.
func Backoff(n int) time.Duration {
	d := 250 * time.Millisecond
	for i := 1; i < n && d < 5*time.Second; i++ {
		d *= 2
	}
	return min(d, 5*time.Second)
}

// RetryNow cuts the current backoff wait short.
func (f *Follower) RetryNow() {
	select {
	case f.retryNow <- struct{}{}:
	default:
	}
}

// Run follows until ctx ends.
func (f *Follower) Run(ctx context.Context) {
	f.retryNow = make(chan struct{}, 1)
	attempt := 0
	status := Connecting
	for ctx.Err() == nil {
		f.report(State{Status: status, Attempt: attempt})
		err := f.once(ctx, func() { attempt = 0 })
		if ctx.Err() != nil {
			return
		}
		var refused refusedError
		if asRefused(err, &refused) {
			f.report(State{Status: Failed, Error: refused.Error()})
			return
		}
		attempt++
		wait := Backoff(attempt)
		f.report(State{Status: Reconnecting, Attempt: attempt, Retry: wait, Error: describe(err)})
		select {
		case <-ctx.Done():
			return
		case <-f.retryNow:
		case <-time.After(wait):
		}
		status = Reconnecting
	}
}

func (f *Follower) report(s State) {
	if f.OnState != nil {
		f.OnState(s)
	}
}

// unreachableError is a failed dial. Its message is for a person; the cause is for logs.
type unreachableError struct{ cause error }

func (e unreachableError) Error() string { return Unreachable }

// Unreachable is a failed dial's words: the page knows nothing more than that the server is
// away.
const Unreachable = "the server is not reachable"

func (e unreachableError) Unwrap() error { return e.cause }

type refusedError struct{ msg string }

func (e refusedError) Error() string { return e.msg }

func asRefused(err error, target *refusedError) bool {
	r, ok := err.(refusedError)
	if ok {
		*target = r
	}
	return ok
}

func describe(err error) string {
	if err == nil {
		return "the connection closed"
	}
	return err.Error()
}

// once dials, subscribes after f.After and delivers events until the link fails.
func (f *Follower) once(ctx context.Context, subscribed func()) error {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, _, err := websocket.Dial(dctx, f.URL, dialOptions(f.Header))
	cancel()
	if err != nil {
		return unreachableError{err}
	}
	defer conn.CloseNow()
	conn.SetReadLimit(8 << 20)

	first := protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: f.Session, After: f.After, Batch: true, Tail: f.Tail}
	if f.Session == "" {
		first = protocol.ClientFrame{Type: protocol.FrameWatch}
	}
	sub, _ := json.Marshal(first)
	if err := conn.Write(ctx, websocket.MessageText, sub); err != nil {
		return err
	}
	var head uint64 // the replay ends at this offset; 0 once it has
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return err
		}
		var frame protocol.ServerFrame
		if err := json.Unmarshal(data, &frame); err != nil {
			return fmt.Errorf("the server sent a frame this client cannot read: %w", err)
		}
		switch frame.Type {
		case protocol.FrameSubscribed:
			subscribed()
			head = frame.Head
			if frame.Window != nil && f.OnWindow != nil {
				f.OnWindow(*frame.Window)
			}
			f.report(State{Status: Live, CaughtUp: f.After >= head})
		case protocol.FrameEvent, protocol.FrameEvents:
			events := frame.Events
			if frame.Event != nil {
				events = []protocol.Event{*frame.Event}
			}
			fresh := events[:0:0]
			for _, ev := range events {
				if ev.Offset <= f.After {
					continue // a replay overlap is never shown twice
				}
				f.After = ev.Offset
				if f.OnEvents != nil {
					fresh = append(fresh, ev)
				} else if f.OnEvent != nil {
					f.OnEvent(ev)
				}
			}
			if len(fresh) > 0 {
				f.OnEvents(fresh)
			}
			if head != 0 && f.After >= head {
				head = 0
				f.report(State{Status: Live, CaughtUp: true})
			}
		case protocol.FrameVersions:
			if frame.Versions != nil && f.OnVersions != nil {
				subscribed()
				f.OnVersions(*frame.Versions)
			}
		case protocol.FrameDelta:
			if frame.Delta == nil || frame.Delta.Validate() != nil {
				continue // a live piece is never needed: the stored message replaces it
			}
			if f.OnDelta != nil {
				f.OnDelta(*frame.Delta)
			}
		case protocol.FrameError:
			// The follower sends one frame, its subscribe, so an error answers it and no
			// event follows on this link. A session that is gone, or offsets of another log,
			// stay so on retry; anything else (a store too slow to answer) may not.
			if frame.Error == nil {
				return errors.New("the server refused the subscription")
			}
			switch frame.Error.Code {
			case "no_session", "after_past_end":
				return refusedError{frame.Error.Error}
			}
			return errors.New(frame.Error.Error)
		}
	}
}
