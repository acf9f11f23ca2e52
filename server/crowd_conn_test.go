package server_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// crowdConn is a bench client's socket, read as a browser reads one: a WebSocket (RFC 6455)
// that sends text messages and reads the server's, with nothing more per message than the
// frame's header. The bench's thousand clients share the server's two cores, so what they
// spend is taken from the server: coder/websocket's reader (its read loop, locks and
// per-message reader) was a fifth of the clients' CPU, as much as the server's per-socket
// work it was there to measure. The server's side is unchanged; TestCrowdConnReadsWhatTheServerSends
// holds this reader to coder/websocket's.
type crowdConn struct {
	conn net.Conn
	r    *bufio.Reader
	wmu  sync.Mutex // a pong and a message never interleave
	msg  []byte     // the message being read, reused
}

// dialCrowd opens base's /ws with the bearer token.
func dialCrowd(base, token string) (*crowdConn, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	req, _ := http.NewRequest(http.MethodGet, "http://"+u.Host+"/ws", nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", base64.StdEncoding.EncodeToString(nonce[:]))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, err
	}
	r := bufio.NewReaderSize(conn, 64<<10)
	resp, err := http.ReadResponse(r, req)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, fmt.Errorf("dial /ws: %s", resp.Status)
	}
	return &crowdConn{conn: conn, r: r}, nil
}

// writeText sends one text message, masked as a client's must be.
func (c *crowdConn) writeText(b []byte) error { return c.write(0x1, b) }

func (c *crowdConn) write(op byte, b []byte) error {
	frame := []byte{0x80 | op}
	switch n := len(b); {
	case n < 126:
		frame = append(frame, 0x80|byte(n))
	case n <= 0xffff:
		frame = append(frame, 0x80|126, byte(n>>8), byte(n))
	default:
		frame = append(frame, 0x80|127)
		frame = binary.BigEndian.AppendUint64(frame, uint64(n))
	}
	var mask [4]byte
	_, _ = rand.Read(mask[:])
	frame = append(frame, mask[:]...)
	for i, x := range b {
		frame = append(frame, x^mask[i%4])
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.conn.Write(frame)
	return err
}

var errCrowdClosed = errors.New("the server closed the socket")

// next reads the next text message (valid until the next call). A ping is answered, a close
// ends the reading.
func (c *crowdConn) next() ([]byte, error) {
	c.msg = c.msg[:0]
	for {
		var head [2]byte
		if _, err := io.ReadFull(c.r, head[:]); err != nil {
			return nil, err
		}
		fin, op, n := head[0]&0x80 != 0, head[0]&0x0f, uint64(head[1]&0x7f)
		if head[1]&0x80 != 0 {
			return nil, errors.New("a masked frame from the server")
		}
		switch n {
		case 126:
			var ext [2]byte
			if _, err := io.ReadFull(c.r, ext[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(ext[:]))
		case 127:
			var ext [8]byte
			if _, err := io.ReadFull(c.r, ext[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(ext[:])
		}
		if n > 8<<20 {
			return nil, fmt.Errorf("a frame of %d bytes", n)
		}
		start := len(c.msg)
		c.msg = append(c.msg, make([]byte, n)...)
		if _, err := io.ReadFull(c.r, c.msg[start:]); err != nil {
			return nil, err
		}
		switch op {
		case 0x9: // ping: its pong carries its payload
			payload := append([]byte(nil), c.msg[start:]...)
			c.msg = c.msg[:start]
			if err := c.write(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case 0xA: // a pong to no ping of ours
			c.msg = c.msg[:start]
			continue
		case 0x8:
			return nil, errCrowdClosed
		}
		if fin {
			return c.msg, nil
		}
	}
}

func (c *crowdConn) Close() error { return c.conn.Close() }

// TestCrowdConnReadsWhatTheServerSends: the bench's reader against coder/websocket's writer
// (the server's): messages of each length encoding, one sent in fragments, a ping it must
// answer, its own masked message echoed back, and the close.
func TestCrowdConnReadsWhatTheServerSends(t *testing.T) {
	sizes := []int{0, 5, 125, 126, 300, 65535, 65536, 200 << 10}
	pinged := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ctx := r.Context()
		go func() { _, _, _ = c.Read(ctx) }() // a ping's pong is read by a reader
		for _, n := range sizes {
			if err := c.Write(ctx, websocket.MessageText, bytes.Repeat([]byte{'a' + byte(n%26)}, n)); err != nil {
				return
			}
		}
		fw, err := c.Writer(ctx, websocket.MessageText)
		if err != nil {
			return
		}
		for _, part := range []string{"in ", "three ", "frames"} {
			_, _ = fw.Write([]byte(part)) // a frame each, the message's end with Close
		}
		_ = fw.Close()
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		pinged <- c.Ping(pctx)
		cancel()
		_ = c.Close(websocket.StatusNormalClosure, "done")
	}))
	defer srv.Close()
	c, err := dialCrowd(srv.URL, "")
	require.NoError(t, err)
	defer c.Close()
	for _, n := range sizes {
		msg, err := c.next()
		require.NoError(t, err)
		require.Equal(t, string(bytes.Repeat([]byte{'a' + byte(n%26)}, n)), string(msg), "a message of %d bytes", n)
	}
	msg, err := c.next()
	require.NoError(t, err)
	require.Equal(t, "in three frames", string(msg))
	_, err = c.next()
	require.ErrorIs(t, err, errCrowdClosed)
	require.NoError(t, <-pinged, "the ping was answered")
}

// TestCrowdConnWritesWhatTheServerReads: its masked messages, of each length encoding, as
// coder/websocket reads them.
func TestCrowdConnWritesWhatTheServerReads(t *testing.T) {
	sizes := []int{3, 126, 70000}
	got := make(chan string, len(sizes))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.SetReadLimit(1 << 20)
		for range sizes {
			_, b, err := c.Read(r.Context())
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(b)
		}
	}))
	defer srv.Close()
	c, err := dialCrowd(srv.URL, "")
	require.NoError(t, err)
	defer c.Close()
	for _, n := range sizes {
		want := strings.Repeat("z", n)
		require.NoError(t, c.writeText([]byte(want)))
		require.Equal(t, want, <-got)
	}
}
