package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// FrameType names a socket frame.
type FrameType string

// Frames a client sends.
const (
	// FrameSubscribe asks for a session's events after an offset, then live ones.
	FrameSubscribe FrameType = "subscribe"
	// FrameUnsubscribe stops the current subscription.
	FrameUnsubscribe FrameType = "unsubscribe"
	// FrameWatch asks for "versions" frames on this socket, beside any subscription: the
	// page's live session list and approvals count, which hold no HTTP request.
	FrameWatch FrameType = "watch"
)

// Frames the server sends.
const (
	// FrameSubscribed confirms a subscription; the events that follow belong to it.
	FrameSubscribed FrameType = "subscribed"
	// FrameEvent carries one event of the subscribed session.
	FrameEvent FrameType = "event"
	// FrameEvents carries several events of the subscribed session, in log order, to a
	// client that subscribed with Batch: what its socket had waiting goes in one message, so
	// a busy session or a long replay costs a write per batch, not per event.
	FrameEvents FrameType = "events"
	// FrameDelta carries a live piece of a message being generated (a Delta); it is not
	// an event and has no offset. Deltas come only once the replay has caught up.
	FrameDelta FrameType = "delta"
	// FrameError reports a frame the server could not accept, or a subscribe it could not
	// serve; its code says which: bad_frame, no_session, after_past_end (the client's
	// offsets are of another log), unavailable (retry soon), internal. The socket stays open.
	FrameError FrameType = "error"
	// FrameVersions, on a socket that sent "watch", carries the session index's version and
	// the approvals queue's (Versions): at once, then each time one moves. A client reads the
	// list or the queue again (GET /api/sessions, /api/approvals) when the one it holds moved.
	FrameVersions FrameType = "versions"
)

// Versions are the numbers that move when the session list or the approvals queue changed,
// anywhere: SessionList.Version and ApprovalQueue.Version. A client compares them with the
// versions of its last reads; they are not offsets, and a client only asks whether they differ.
type Versions struct {
	Sessions  uint64 `json:"sessions"`
	Approvals uint64 `json:"approvals"`
}

// ClientFrame is what a client sends on /ws.
type ClientFrame struct {
	Type    FrameType `json:"type"`
	Session string    `json:"session,omitempty"`
	// After is the last offset the client has seen; 0 means from the beginning.
	After uint64 `json:"after,omitempty"`
	// Batch, on subscribe, lets the server send the events a socket has waiting together,
	// in "events" frames; without it every event comes in an "event" frame of its own.
	Batch bool `json:"batch,omitempty"`
	// Tail, on a subscribe with After 0, asks for the newest window holding at least this
	// many thread entries instead of the whole log (window.go); 0 replays it all.
	Tail int `json:"tail,omitempty"`
}

// ServerFrame is what the server sends on /ws.
type ServerFrame struct {
	Type    FrameType `json:"type"`
	Session string    `json:"session,omitempty"`
	After   uint64    `json:"after,omitempty"`
	// Head, on "subscribed", is the session's last offset when the subscription began: the
	// events up to it are the replay of what was stored, the ones after it happen live.
	Head uint64 `json:"head,omitempty"`
	// Window, on "subscribed" to a Tail, is where the replay's window starts (window.go).
	Window *Window        `json:"window,omitempty"`
	Event  *Event         `json:"event,omitempty"`
	Events []Event        `json:"events,omitempty"`
	Delta  *Delta         `json:"delta,omitempty"`
	Error  *ErrorResponse `json:"error,omitempty"`
	// Versions, on "versions".
	Versions *Versions `json:"versions,omitempty"`
}

// ErrFrameTooLarge is returned for a client frame over MaxFrameBytes.
var ErrFrameTooLarge = fmt.Errorf("frame larger than %d KiB", MaxFrameBytes/1024)

// DecodeClientFrame parses and validates one client frame. Its errors are meant to be sent
// back to the client as they are.
func DecodeClientFrame(data []byte) (ClientFrame, error) {
	if len(data) > MaxFrameBytes {
		return ClientFrame{}, ErrFrameTooLarge
	}
	var f ClientFrame
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return ClientFrame{}, fmt.Errorf("frame %w", decodeWords(err))
	}
	if dec.More() {
		return ClientFrame{}, errors.New("frame holds more than one JSON value")
	}
	if err := noRepeatedNames(data); err != nil {
		return ClientFrame{}, fmt.Errorf("frame: %w", err)
	}
	switch f.Type {
	case FrameSubscribe:
		if !ValidSessionID(f.Session) {
			return ClientFrame{}, fmt.Errorf("subscribe: %q is not a session id", f.Session)
		}
		if f.After > MaxOffset {
			return ClientFrame{}, fmt.Errorf("subscribe: after %d is beyond any offset; send the last offset you saw, or 0", f.After)
		}
		if f.Tail < 0 || f.Tail > MaxTail {
			return ClientFrame{}, fmt.Errorf("subscribe: tail %d is not a number of entries from 0 to %d", f.Tail, MaxTail)
		}
	case FrameUnsubscribe, FrameWatch:
	case "":
		return ClientFrame{}, errors.New(`frame has no "type"`)
	default:
		return ClientFrame{}, fmt.Errorf("unknown frame type %q: use %q, %q or %q", f.Type, FrameSubscribe, FrameUnsubscribe, FrameWatch)
	}
	return f, nil
}
