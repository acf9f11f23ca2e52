package sockets

import (
	"bufio"
	"encoding/binary"
	"net"
	"net/http"
	"sync"
)

// frameWriter sends each WebSocket frame in one write. coder/websocket writes a frame's
// header and payload through the hijacked connection's bufio.Writer (4 KB), so a frame
// larger than that left in two writes, two system calls: at a thousand sockets woken at
// once, that was a third more calls (a frame that carries a wake-up's events is often over
// 4 KB). frameWriter reads the frames' headers as they pass: a write that ends inside a
// frame is held (copied: the bufio.Writer reuses its buffer), and the write that ends the
// frame sends the held part and itself in one writev. A frame always ends within the
// library's one write of it, so nothing is held past it. A stream it cannot follow (a
// header cut between two writes, never seen from the library) is passed through as it comes.
type frameWriter struct {
	conn  net.Conn
	left  uint64  // bytes of the current frame still to come
	held  *[]byte // the frame's start, not sent yet (from heldPool)
	plain bool    // pass every write through
	// sendv sends bufs in one write (net.Buffers' writev); a test counts them.
	sendv func(bufs *net.Buffers) error
	bufs  net.Buffers
}

var heldPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func newFrameWriter(conn net.Conn) *frameWriter {
	w := &frameWriter{conn: conn}
	w.sendv = func(bufs *net.Buffers) error { _, err := bufs.WriteTo(w.conn); return err }
	return w
}

func (w *frameWriter) Write(p []byte) (int, error) {
	if w.plain {
		return w.conn.Write(p)
	}
	for rest := p; len(rest) > 0; {
		if w.left == 0 {
			n, ok := frameLen(rest)
			if !ok {
				w.plain = true // a header cut in two: send as it comes from now on
				return w.send(p)
			}
			w.left = n
		}
		k := min(w.left, uint64(len(rest)))
		w.left -= k
		rest = rest[k:]
	}
	if w.left > 0 { // the frame goes on in the next write
		if w.held == nil {
			w.held = heldPool.Get().(*[]byte)
		}
		*w.held = append(*w.held, p...)
		return len(p), nil
	}
	return w.send(p)
}

// send writes what is held and p, in one write.
func (w *frameWriter) send(p []byte) (int, error) {
	if w.held == nil {
		return w.conn.Write(p)
	}
	held := w.held
	w.held = nil
	w.bufs = append(w.bufs[:0], *held, p)
	err := w.sendv(&w.bufs)
	w.bufs = w.bufs[:0]
	if cap(*held) <= 64<<10 {
		*held = (*held)[:0]
		heldPool.Put(held)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// frameLen is the length of the frame that b starts with, header and payload (RFC 6455
// 5.2); false when b holds less than its header.
func frameLen(b []byte) (uint64, bool) {
	if len(b) < 2 {
		return 0, false
	}
	head, size := uint64(2), uint64(b[1]&0x7f)
	switch size {
	case 126:
		if len(b) < 4 {
			return 0, false
		}
		head, size = 4, uint64(binary.BigEndian.Uint16(b[2:4]))
	case 127:
		if len(b) < 10 {
			return 0, false
		}
		head, size = 10, binary.BigEndian.Uint64(b[2:10])
	}
	if b[1]&0x80 != 0 {
		head += 4 // the mask key
	}
	return head + size, true
}

// frameHijacker hands coder/websocket the hijacked connection with its writes through a
// frameWriter.
type frameHijacker struct {
	http.ResponseWriter
}

func (h frameHijacker) Unwrap() http.ResponseWriter { return h.ResponseWriter }

func (h frameHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Writer.Flush(); err != nil {
		return nil, nil, err
	}
	brw.Writer.Reset(newFrameWriter(conn)) // its buffer is kept
	return conn, brw, nil
}
