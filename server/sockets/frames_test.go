package sockets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// countingConn records what reaches the connection, and in how many writes.
type countingConn struct {
	net.Conn
	got    bytes.Buffer
	writes int
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes++
	return c.got.Write(p)
}

// header is a server frame's header (unmasked) for a payload of n bytes.
func header(opcode byte, n int) []byte {
	h := []byte{0x80 | opcode, 0}
	switch {
	case n < 126:
		h[1] = byte(n)
	case n < 1<<16:
		h[1] = 126
		h = binary.BigEndian.AppendUint16(h, uint16(n))
	default:
		h[1] = 127
		h = binary.BigEndian.AppendUint64(h, uint64(n))
	}
	return h
}

// Frames written as coder/websocket writes them (header and payload into the connection's
// 4 KB bufio.Writer, then a flush) each leave in one write, whatever their size, with their
// bytes in order.
func TestEachFrameLeavesInOneWrite(t *testing.T) {
	conn := &countingConn{}
	fw := newFrameWriter(conn)
	fw.sendv = func(bufs *net.Buffers) error {
		conn.writes++
		for _, b := range *bufs {
			conn.got.Write(b)
		}
		return nil
	}
	bw := bufio.NewWriterSize(fw, 4096)
	var want bytes.Buffer
	sizes := []int{10, 4090, 4094, 5000, 125, 126, 70_000, 0, 300_000, 8192}
	for i, n := range sizes {
		opcode := byte(1) // text
		if i%3 == 2 {
			opcode = 9 // a ping between them
		}
		payload := bytes.Repeat([]byte{byte('a' + i)}, n)
		h := header(opcode, n)
		bw.Write(h)
		bw.Write(payload)
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		want.Write(h)
		want.Write(payload)
	}
	if conn.writes != len(sizes) {
		t.Errorf("%d frames left in %d writes, want one each", len(sizes), conn.writes)
	}
	if !bytes.Equal(conn.got.Bytes(), want.Bytes()) {
		t.Errorf("the bytes sent differ from the frames written (%d sent, %d written)", conn.got.Len(), want.Len())
	}
	if fw.held != nil || fw.left != 0 || fw.plain {
		t.Errorf("after whole frames: held %v, left %d, plain %v", fw.held != nil, fw.left, fw.plain)
	}
}

// A header cut between two writes is not followed: the writes pass through as they come,
// every byte in order.
func TestAFrameHeaderCutInTwoPassesThrough(t *testing.T) {
	conn := &countingConn{}
	fw := newFrameWriter(conn)
	h := header(1, 1000)
	fw.Write(h[:1])
	fw.Write(h[1:])
	fw.Write(bytes.Repeat([]byte{'x'}, 1000))
	if !fw.plain || conn.writes != 3 || conn.got.Len() != len(h)+1000 {
		t.Errorf("plain %v, %d writes, %d bytes", fw.plain, conn.writes, conn.got.Len())
	}
}

// Through a real socket: messages over the connection's buffer arrive whole.
func TestLargeMessagesArriveWhole(t *testing.T) {
	var set Set
	msgs := []string{strings.Repeat("a", 100), strings.Repeat("b", 5000), strings.Repeat("c", 300_000), "d"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, done, err := set.Accept(w, r)
		if err != nil {
			return
		}
		defer done()
		for _, m := range msgs {
			if err := c.Write(r.Context(), websocket.MessageText, []byte(m)); err != nil {
				return
			}
		}
		_, _, _ = c.Read(r.Context()) // until the client closes
	}))
	defer srv.Close()
	c, _, err := websocket.Dial(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	for i, m := range msgs {
		_, got, err := c.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != m {
			t.Fatalf("message %d: %d bytes, want %d", i, len(got), len(m))
		}
	}
}
