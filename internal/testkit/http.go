package testkit

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// Client calls a Parley's HTTP API as a script does: with the bearer token, JSON in and
// out. Its methods fail the test when the request cannot be made at all; the status is the
// caller's to check.
type Client struct {
	T     testing.TB
	Base  string // http://host:port
	Token string // sent as a bearer token; empty sends none
}

// Do sends body (nil for none) as it is, with the extra header lines, and returns the
// answer and its body.
func (c Client) Do(method, path string, body io.Reader, header http.Header) (*http.Response, []byte) {
	c.T.Helper()
	req, err := http.NewRequest(method, c.Base+path, body)
	require.NoError(c.T, err)
	for k, v := range header {
		req.Header[k] = v
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.T, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(c.T, err)
	return resp, data
}

// Get sends a GET.
func (c Client) Get(path string) (*http.Response, []byte) {
	c.T.Helper()
	return c.Do(http.MethodGet, path, nil, nil)
}

// Delete sends a DELETE.
func (c Client) Delete(path string) (*http.Response, []byte) {
	c.T.Helper()
	return c.Do(http.MethodDelete, path, nil, nil)
}

// Post sends body as application/json: a string as it is, anything else encoded.
func (c Client) Post(path string, body any) (*http.Response, []byte) {
	c.T.Helper()
	return c.Do(http.MethodPost, path, strings.NewReader(JSON(c.T, body)), http.Header{"Content-Type": {"application/json"}})
}

// JSON is body as JSON text: a string as it is, anything else encoded.
func JSON(t testing.TB, body any) string {
	t.Helper()
	if s, ok := body.(string); ok {
		return s
	}
	data, err := json.Marshal(body)
	require.NoError(t, err)
	return string(data)
}

// DecodeAs decodes a JSON answer.
func DecodeAs[T any](t testing.TB, data []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(data, &v), string(data))
	return v
}

// ErrorOf decodes an error answer.
func ErrorOf(t testing.TB, data []byte) protocol.ErrorResponse {
	t.Helper()
	return DecodeAs[protocol.ErrorResponse](t, data)
}

// WebSocketURL is the /ws address of the server at base (http://host:port).
func WebSocketURL(base string) string {
	return "ws" + strings.TrimPrefix(base, "http") + "/ws"
}

// Dial opens /ws with the bearer token and the extra header lines; it closes at cleanup.
func (c Client) Dial(header http.Header) *websocket.Conn {
	c.T.Helper()
	h := http.Header{}
	for k, v := range header {
		h[k] = v
	}
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, WebSocketURL(c.Base), &websocket.DialOptions{HTTPHeader: h})
	require.NoError(c.T, err)
	c.T.Cleanup(func() { conn.CloseNow() })
	return conn
}

// Subscribe opens a socket and subscribes to a session after an offset; it requires the
// "subscribed" answer and returns it.
func (c Client) Subscribe(session string, after uint64) (*websocket.Conn, protocol.ServerFrame) {
	c.T.Helper()
	conn := c.Dial(nil)
	WriteFrame(c.T, conn, protocol.ClientFrame{Type: protocol.FrameSubscribe, Session: session, After: after})
	f := ReadFrame(c.T, conn)
	require.Equal(c.T, protocol.FrameSubscribed, f.Type, "%+v", f)
	return conn, f
}

// WriteFrame sends a client frame.
func WriteFrame(t testing.TB, conn *websocket.Conn, f protocol.ClientFrame) {
	t.Helper()
	data, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, conn.Write(context.Background(), websocket.MessageText, data))
}

// ReadFrame reads the next server frame.
func ReadFrame(t testing.TB, conn *websocket.Conn) protocol.ServerFrame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	_, data, err := conn.Read(ctx)
	require.NoError(t, err)
	return DecodeAs[protocol.ServerFrame](t, data)
}

// NextEvent reads event frames until one of type typ, and returns it with every event read
// (it included).
func NextEvent(t testing.TB, conn *websocket.Conn, typ protocol.EventType) (protocol.Event, []protocol.Event) {
	t.Helper()
	var seen []protocol.Event
	for range 500 {
		f := ReadFrame(t, conn)
		require.Equal(t, protocol.FrameEvent, f.Type, "%+v", f)
		require.NotNil(t, f.Event)
		seen = append(seen, *f.Event)
		if f.Event.Type == typ {
			return *f.Event, seen
		}
	}
	t.Fatalf("no %s on the socket", typ)
	return protocol.Event{}, nil
}

// Eventually is require.Eventually with the kit's wait and a 10 ms tick.
func Eventually(t testing.TB, cond func() bool, what string, args ...any) {
	t.Helper()
	require.Eventually(t, cond, Wait, 10*time.Millisecond, append([]any{what}, args...)...)
}
