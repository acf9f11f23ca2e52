// Package api is the browser's client for Parley's HTTP requests. It runs natively too, so
// tests drive it against the real server.
package api

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"parley/protocol"
)

// Client calls the API at Base (scheme and host, no trailing slash).
type Client struct {
	Base   string
	HTTP   *httpClient // *http.Client natively; in the browser requests go through fetch
	Header httpHeader  // http.Header natively, e.g. Authorization for scripts and tests; the browser uses the cookie
}

// The HTTP methods and statuses this package uses, spelled out so that the browser's build
// does not import net/http (see roundtrip_js.go).
const (
	methodGet             = "GET"
	methodPost            = "POST"
	statusTooManyRequests = 429
)

// Ended reports whether a reply failed because its decision is no longer asked: another reply
// won (409), or it ended or never existed (404).
func (e *Error) Ended() bool { return e.Status == 409 || e.Status == 404 }

// ErrUnreachable is a request that got no answer: the server is down or the network is.
var ErrUnreachable = errors.New("the server is not reachable")

// Error is a failed request, with the server's message for a person.
type Error struct {
	Status int
	protocol.ErrorResponse
}

func (e *Error) Error() string { return e.ErrorResponse.Error }

// Retryable reports whether the same request may succeed later.
func (e *Error) Retryable() bool { return e.Status >= 500 || e.Status == statusTooManyRequests }

// NewAttemptID returns a fresh id for one send, kept across its retries.
func NewAttemptID() string {
	var b [12]byte
	randomBytes(b[:])
	return hex.EncodeToString(b[:])
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	header := httpHeader{}
	for k, v := range c.Header {
		header[k] = v
	}
	if body != nil {
		header["Content-Type"] = []string{"application/json"} // http.Header.Set, canonical already
	}
	status, data, err := c.roundTrip(ctx, method, c.Base+path, header, payload)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w (%v)", ErrUnreachable, err)
	}
	if status >= 300 {
		e := &Error{Status: status}
		if json.Unmarshal(data, &e.ErrorResponse) != nil || e.ErrorResponse.Error == "" {
			e.ErrorResponse.Error = fmt.Sprintf("the server answered %d %s", status, statusText(status))
		}
		return e
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// call sends body (nil for none) with method to path and decodes the answer as a T.
func call[T any](ctx context.Context, c *Client, method, path string, body any) (T, error) {
	var out T
	err := c.do(ctx, method, path, body, &out)
	return out, err
}

// get is call for a GET, which sends no body.
func get[T any](ctx context.Context, c *Client, path string) (T, error) {
	return call[T](ctx, c, methodGet, path, nil)
}

// poll GETs path as a long poll: with wait (the version of the last answer) the server
// answers once its version differs, or after its hold.
func poll[T any](ctx context.Context, c *Client, path string, wait *uint64) (T, error) {
	if wait != nil {
		path += "?wait=" + strconv.FormatUint(*wait, 10)
	}
	return get[T](ctx, c, path)
}

// ListSessions returns every session, newest first.
func (c *Client) ListSessions(ctx context.Context) ([]protocol.SessionInfo, error) {
	out, err := get[protocol.SessionList](ctx, c, "/api/sessions")
	return out.Sessions, err
}

// SessionList returns the sessions with the session index's version. With wait (the version
// of the last answer) the server answers once the index changed since, or after its hold:
// the sidebar's long poll.
func (c *Client) SessionList(ctx context.Context, wait *uint64) (protocol.SessionList, error) {
	return poll[protocol.SessionList](ctx, c, "/api/sessions", wait)
}

// CreateSession makes a session.
func (c *Client) CreateSession(ctx context.Context, req protocol.CreateSessionRequest) (protocol.SessionInfo, error) {
	return call[protocol.SessionInfo](ctx, c, methodPost, "/api/sessions", req)
}

// SendPrompt stores a prompt, retrying a lost or failed request with the same attempt id so
// the server stores it once.
func (c *Client) SendPrompt(ctx context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.SendPromptResponse{}, err
	}
	var out protocol.SendPromptResponse
	var err error
	for attempt := range 4 {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return out, ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 200 * time.Millisecond):
			}
		}
		err = c.do(ctx, methodPost, "/api/sessions/"+session+"/prompt", req, &out)
		var apiErr *Error
		if err == nil || ctx.Err() != nil || (errors.As(err, &apiErr) && !apiErr.Retryable()) {
			return out, err
		}
	}
	return out, err
}

// SendPromptOnce is SendPrompt with a single try: for a caller that retries on its own
// (the page's outbox), so a server that is away is known at once.
func (c *Client) SendPromptOnce(ctx context.Context, session string, req protocol.SendPromptRequest) (protocol.SendPromptResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.SendPromptResponse{}, err
	}
	var out protocol.SendPromptResponse
	err := c.do(ctx, methodPost, "/api/sessions/"+session+"/prompt", req, &out)
	return out, err
}

// Reply answers a pending decision. A reply that lost to another (another tab, the thread
// card) fails with status 409 and says so.
func (c *Client) Reply(ctx context.Context, session, decision string, req protocol.ReplyRequest) (protocol.ReplyResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.ReplyResponse{}, err
	}
	return call[protocol.ReplyResponse](ctx, c, methodPost, "/api/sessions/"+session+"/decisions/"+decision, req)
}

// Stop asks the server to stop the session's running turn: the one the user saw (turn is
// the offset of its turn.started), or, with 0, whatever runs.
func (c *Client) Stop(ctx context.Context, session string, turn uint64) (protocol.StopResponse, error) {
	return call[protocol.StopResponse](ctx, c, methodPost, "/api/sessions/"+session+"/stop", protocol.StopRequest{Turn: turn})
}
